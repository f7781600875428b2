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
    params:
        world=config["world"],
    script:
        "../scripts/build_world.py"


rule imageset_world:
    input:
        "results/data/world/images.parquet",
    output:
        "results/imagesets/world_{split}.parquet",
    log:
        "logs/imageset_world_{split}.log",
    conda:
        "../../envs/core.yaml"
    script:
        "../scripts/imageset_split.py"
