rule aro_vg:
    input:
        images="results/data/world/images.parquet",
        scenes="results/data/world/scenes.jsonl",
    output:
        crops=directory("results/images/vg_crops"),
        imageset="results/imagesets/vg_crops.parquet",
        relation="results/benchmarks/vg_relation.parquet",
        attribution="results/benchmarks/vg_attribution.parquet",
    params:
        world=config["world"],
        relation_seed=config["benchmarks"].get("vg_relation", {}).get("seed", 0),
        attribution_seed=config["benchmarks"].get("vg_attribution", {}).get("seed", 0),
    log:
        "logs/benchmarks/aro_vg.log",
    script:
        "../scripts/aro_vg.py"


rule perturb_order:
    input:
        captions="results/data/world/captions.parquet",
    output:
        "results/perturbed/world/order/seed{seed}.parquet",
    params:
        spacy_model=config["nlp"]["spacy_model"],
        split="test",
    log:
        "logs/perturb/world_order_seed{seed}.log",
    script:
        "../scripts/perturb_order.py"


rule order_benchmark:
    input:
        captions="results/data/world/captions.parquet",
        perturbed=expand(
            "results/perturbed/world/order/seed{seed}.parquet",
            seed=config["benchmarks"].get("order", {}).get("seeds", []),
        ),
    output:
        "results/benchmarks/order.parquet",
    params:
        seeds=config["benchmarks"].get("order", {}).get("seeds", []),
    log:
        "logs/benchmarks/order.log",
    script:
        "../scripts/order_benchmark.py"


rule sugarcrepe_benchmark:
    input:
        captions="results/data/world/captions.parquet",
        scenes="results/data/world/scenes.jsonl",
    output:
        sugarcrepe="results/benchmarks/sugarcrepe.parquet",
        negative_scenes="results/benchmarks/sugarcrepe_negative_scenes.jsonl",
    params:
        world=config["world"],
        seed=config["benchmarks"].get("sugarcrepe", {}).get("seed", 0),
    log:
        "logs/benchmarks/sugarcrepe.log",
    script:
        "../scripts/sugarcrepe_benchmark.py"


rule generate_negative_images:
    input:
        sugarcrepe="results/benchmarks/sugarcrepe.parquet",
        negative_scenes="results/benchmarks/sugarcrepe_negative_scenes.jsonl",
    output:
        images=directory("results/generated/bivlc_world/images"),
        manifest="results/generated/bivlc_world/manifest.parquet",
        imageset="results/imagesets/bivlc_world.parquet",
    params:
        world=config["world"],
    log:
        "logs/generate/bivlc_world.log",
    script:
        "../scripts/generate_negative_images.py"


rule bivlc_benchmark:
    input:
        sugarcrepe="results/benchmarks/sugarcrepe.parquet",
        manifest="results/generated/bivlc_world/manifest.parquet",
    output:
        "results/benchmarks/bivlc.parquet",
    log:
        "logs/benchmarks/bivlc.log",
    script:
        "../scripts/bivlc_benchmark.py"
