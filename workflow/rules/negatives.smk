# Hard negatives for fine-tuning: NegCLIP captions and nearest-neighbour images.
# Built on request (e.g. `snakemake results/negatives/world/negclip.parquet`) until the
# fine-tuning runs consume them.


rule negclip_negatives:
    input:
        captions="results/data/world/captions.parquet",
    output:
        "results/negatives/world/negclip.parquet",
    log:
        "logs/negatives/world_negclip.log",
    conda:
        "../../envs/core.yaml"
    params:
        options=config.get("hard_negatives", {}).get("negclip", {}),
        spacy_model=config["nlp"]["spacy_model"],
    script:
        "../scripts/negclip_negatives.py"


rule nearest_neighbours:
    input:
        npy="results/embeddings/{model}/images/world_{split}.npy",
        ids="results/embeddings/{model}/images/world_{split}.ids.json",
    output:
        "results/pairs/world/nn_{model}_{split}_k{k}.parquet",
    log:
        "logs/pairs/world_nn_{model}_{split}_k{k}.log",
    wildcard_constraints:
        k=r"\d+",
    conda:
        "../../envs/core.yaml"
    script:
        "../scripts/nearest_neighbours.py"
