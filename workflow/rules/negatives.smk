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
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(30, attempt),
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
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(240, attempt),
        params:
            options=NEGCLIP_NEGATIVES,
            spacy_model=config["nlp"]["spacy_model"],
        script:
            "../scripts/negclip_negatives.py"


SUGARCREPE_NEGATIVES = config.get("hard_negatives", {}).get("sugarcrepe", {})
SUGARCREPE_ROUTE = SUGARCREPE_NEGATIVES.get("route", "world")
# TROHN-Text's LLM negatives of a caption dataset in shards (config shards;
# vlcomp.plan.estimates): BiVLC's 4.1M generations are ~112 A100-hours
LLM_NEGATIVE_JOBS = (
    {d: stage_job(config, "llm_negatives", d) for d in DATASETS}
    if SUGARCREPE_NEGATIVES and SUGARCREPE_ROUTE == "llm"
    else {}
)
SHARDED_LLM_DATASETS = [d for d, job in LLM_NEGATIVE_JOBS.items() if job.shards > 1]
# the LLM's hub snapshot (the llm route)
NEGATIVES_LLM_INPUTS = (
    lm_pins(SUGARCREPE_NEGATIVES.get("llm"), "hard_negatives.sugarcrepe.llm").inputs
    if SUGARCREPE_ROUTE == "llm"
    else []
)


if SUGARCREPE_NEGATIVES.get("source", "generate") == "release":

    rule trohn_text_release:
        input:
            images="results/data/{dataset}/images.parquet",
            captions="results/data/{dataset}/captions.parquet",
            release=release_inputs("trohn_text"),
        output:
            train="results/negatives/{dataset}/sugarcrepe_release.parquet",
            val="results/negatives/{dataset}/sugarcrepe_release_val.parquet",
            report="results/negatives/{dataset}/sugarcrepe_release.json",
        log:
            "logs/negatives/{dataset}_trohn_text_release.log",
        benchmark:
            "benchmarks/trohn_text_release/{dataset}.tsv"
        conda:
            TORCH_ENV
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
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
            llm=NEGATIVES_LLM_INPUTS,
        output:
            "results/negatives/{dataset}/sugarcrepe.parquet",
        log:
            "logs/negatives/{dataset}_sugarcrepe.log",
        benchmark:
            "benchmarks/sugarcrepe_negatives/{dataset}.tsv"
        wildcard_constraints:
            dataset=union(d for d in DATASETS if d not in SHARDED_LLM_DATASETS),
        conda:
            TORCH_ENV
        threads: 1
        resources:
            gpu=GPUS if SUGARCREPE_ROUTE == "llm" else 0,
            gpu_model=HEAVY_GPU_MODEL if SUGARCREPE_ROUTE == "llm" else None,
            mem_mb=lambda wc, attempt: by_attempt(
                LLM_NEGATIVE_JOBS[wc.dataset].mem_mb if LLM_NEGATIVE_JOBS else 4000,
                attempt,
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                LLM_NEGATIVE_JOBS[wc.dataset].runtime if LLM_NEGATIVE_JOBS else 30,
                attempt,
            ),
        params:
            options=SUGARCREPE_NEGATIVES,
            device=config["compute"]["device"],
            world=WORLD,
        script:
            (
                "../scripts/sugarcrepe_negatives_llm.py"
                if SUGARCREPE_ROUTE == "llm"
                else "../scripts/sugarcrepe_negatives_world.py"
            )


if SHARDED_LLM_DATASETS:

    # the LLM's negatives of one shard's block of whole prompt chunks (each chunk keeps its
    # seed), joined in order by the gather
    rule sugarcrepe_negatives_shard:
        input:
            captions="results/data/{dataset}/captions.parquet",
            llm=NEGATIVES_LLM_INPUTS,
        output:
            "results/negatives/{dataset}/shards/sugarcrepe/{shard}.parquet",
        log:
            "logs/negatives/{dataset}_sugarcrepe/{shard}.log",
        benchmark:
            "benchmarks/sugarcrepe_negatives_shard/{dataset}/{shard}.tsv"
        wildcard_constraints:
            dataset=union(SHARDED_LLM_DATASETS),
            shard=SHARD_PATTERN,
        conda:
            TORCH_ENV
        threads: 1
        resources:
            gpu=GPUS,
            gpu_model=HEAVY_GPU_MODEL,
            mem_mb=lambda wc, attempt: by_attempt(
                LLM_NEGATIVE_JOBS[wc.dataset].mem_mb, attempt
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                LLM_NEGATIVE_JOBS[wc.dataset].runtime, attempt
            ),
        params:
            options=SUGARCREPE_NEGATIVES,
            device=config["compute"]["device"],
            world=WORLD,
        script:
            "../scripts/sugarcrepe_negatives_llm.py"

    rule sugarcrepe_negatives_gather:
        input:
            lambda wc: expand(
                "results/negatives/{dataset}/shards/sugarcrepe/{shard}.parquet",
                dataset=wc.dataset,
                shard=shard_names(LLM_NEGATIVE_JOBS[wc.dataset].shards),
            ),
        output:
            "results/negatives/{dataset}/sugarcrepe.parquet",
        log:
            "logs/negatives/{dataset}_sugarcrepe.log",
        benchmark:
            "benchmarks/sugarcrepe_negatives_gather/{dataset}.tsv"
        wildcard_constraints:
            dataset=union(SHARDED_LLM_DATASETS),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(30, attempt),
        script:
            "../scripts/join_tables.py"


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
        mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
    script:
        "../scripts/nearest_neighbours.py"
