# Caption datasets as common tables: the synthetic world (built here) and the real ones
# (config.datasets, from downloaded Karpathy files), and the image set of each split.

if WORLD:

    rule world:
        output:
            images=directory("results/data/world/images"),
            images_table="results/data/world/images.parquet",
            captions="results/data/world/captions.parquet",
            scenes="results/data/world/scenes.jsonl",
        log:
            "logs/world.log",
        benchmark:
            "benchmarks/world.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=120,
        params:
            world=WORLD,
        script:
            "../scripts/build_world.py"


rule dataset_tables:
    input:
        unpack(dataset_inputs),
    output:
        images="results/data/{dataset}/images.parquet",
        captions="results/data/{dataset}/captions.parquet",
    log:
        "logs/data/{dataset}.log",
    benchmark:
        "benchmarks/dataset_tables/{dataset}.tsv"
    wildcard_constraints:
        dataset=union(REAL_DATASETS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        spec=lambda wc: REAL_DATASETS[wc.dataset],
    script:
        "../scripts/build_dataset.py"


rule imageset_split:
    input:
        "results/data/{dataset}/images.parquet",
    output:
        "results/imagesets/{dataset}_{split}.parquet",
    log:
        "logs/imagesets/{dataset}_{split}.log",
    benchmark:
        "benchmarks/imageset_split/{dataset}/{split}.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/imageset_split.py"
