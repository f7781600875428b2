rule world:
    output:
        images=directory("results/data/world/images"),
        images_table="results/data/world/images.parquet",
        captions="results/data/world/captions.parquet",
        scenes="results/data/world/scenes.jsonl",
    params:
        world=config["world"],
    log:
        "logs/world.log",
    benchmark:
        "benchmarks/world.tsv"
    script:
        "../scripts/build_world.py"


rule imageset_world:
    input:
        "results/data/world/images.parquet",
    output:
        "results/imagesets/world_{split}.parquet",
    log:
        "logs/imageset_world_{split}.log",
    script:
        "../scripts/imageset_split.py"
