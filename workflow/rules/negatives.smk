# Hard negatives for fine-tuning: NegCLIP captions, SugarCrepe-style captions (TROHN-Text)
# and nearest-neighbour images. Fine-tuning runs name them in config.train.{run}.


NEGCLIP_NEGATIVES = config.get("hard_negatives", {}).get("negclip", {})


if NEGCLIP_NEGATIVES.get("source", "generate") == "release":

    rule negclip_release:
        input:
            tsv="resources/aro/negclip/train_neg_clip.tsv",
            captions="results/data/{dataset}/captions.parquet",
        output:
            negatives="results/negatives/{dataset}/negclip.parquet",
            pairs="results/pairs/{dataset}/negclip_release.parquet",
        log:
            "logs/negatives/{dataset}_negclip_release.log",
        benchmark:
            "benchmarks/negclip_release/{dataset}.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=8000,
            runtime=30,
        params:
            split=NEGCLIP_NEGATIVES.get("split", "train"),
        script:
            "../scripts/negclip_release.py"

else:

    rule negclip_negatives:
        input:
            captions="results/data/{dataset}/captions.parquet",
        output:
            "results/negatives/{dataset}/negclip.parquet",
        log:
            "logs/negatives/{dataset}_negclip.log",
        benchmark:
            "benchmarks/negclip_negatives/{dataset}.tsv"
        conda:
            "../../envs/nlp.yaml"
        threads: 1
        resources:
            mem_mb=8000,
            runtime=240,
        params:
            options=NEGCLIP_NEGATIVES,
            spacy_model=config["nlp"]["spacy_model"],
        script:
            "../scripts/negclip_negatives.py"


SUGARCREPE_NEGATIVES = config.get("hard_negatives", {}).get("sugarcrepe", {})
SUGARCREPE_ROUTE = SUGARCREPE_NEGATIVES.get("route", "world")


if SUGARCREPE_NEGATIVES.get("source", "generate") == "release":

    rule trohn_text_release:
        input:
            images="results/data/{dataset}/images.parquet",
            captions="results/data/{dataset}/captions.parquet",
        output:
            train="results/negatives/{dataset}/sugarcrepe_release.parquet",
            val="results/negatives/{dataset}/sugarcrepe_release_val.parquet",
            report="results/negatives/{dataset}/sugarcrepe_release.json",
        log:
            "logs/negatives/{dataset}_trohn_text_release.log",
        benchmark:
            "benchmarks/trohn_text_release/{dataset}.tsv"
        conda:
            "../../envs/torch.yaml"
        threads: 1
        resources:
            mem_mb=16000,
            runtime=120,
        params:
            name="trohn_text",
            options=SUGARCREPE_NEGATIVES,
            cache_dir="resources/hf_datasets",
        script:
            "../scripts/trohn_release.py"


if SUGARCREPE_NEGATIVES:

    rule sugarcrepe_negatives:
        input:
            captions="results/data/{dataset}/captions.parquet",
            scenes=lambda wc: (
                "results/data/world/scenes.jsonl"
                if SUGARCREPE_ROUTE == "world"
                else []
            ),
        output:
            "results/negatives/{dataset}/sugarcrepe.parquet",
        log:
            "logs/negatives/{dataset}_sugarcrepe.log",
        benchmark:
            "benchmarks/sugarcrepe_negatives/{dataset}.tsv"
        conda:
            "../../envs/torch.yaml"
        threads: 1
        resources:
            gpu=GPUS if SUGARCREPE_ROUTE == "llm" else 0,
            mem_mb=32000 if SUGARCREPE_ROUTE == "llm" else 4000,
            runtime=1440 if SUGARCREPE_ROUTE == "llm" else 30,
        params:
            options=SUGARCREPE_NEGATIVES,
            world=WORLD,
        script:
            (
                "../scripts/sugarcrepe_negatives_llm.py"
                if SUGARCREPE_ROUTE == "llm"
                else "../scripts/sugarcrepe_negatives_world.py"
            )


rule nearest_neighbours:
    input:
        npy="results/embeddings/{model}/images/{dataset}_{split}.npy",
        ids="results/embeddings/{model}/images/{dataset}_{split}.ids.json",
    output:
        "results/pairs/{dataset}/nn_{model}_{split}_k{k}.parquet",
    log:
        "logs/pairs/{dataset}_nn_{model}_{split}_k{k}.log",
    benchmark:
        "benchmarks/nearest_neighbours/{dataset}/{model}/{split}/{k}.tsv"
    wildcard_constraints:
        k=r"\d+",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=16000,
        runtime=120,
    script:
        "../scripts/nearest_neighbours.py"
