rule aro_vg:
    input:
        images="results/data/world/images.parquet",
        scenes="results/data/world/scenes.jsonl",
    output:
        crops=directory("results/images/vg_crops"),
        imageset="results/imagesets/vg_crops.parquet",
        relation="results/benchmarks/vg_relation.parquet",
        attribution="results/benchmarks/vg_attribution.parquet",
    log:
        "logs/benchmarks/aro_vg.log",
    conda:
        "../../envs/core.yaml"
    params:
        world=config["world"],
        relation_seed=config["benchmarks"].get("vg_relation", {}).get("seed", 0),
        attribution_seed=config["benchmarks"].get("vg_attribution", {}).get("seed", 0),
    script:
        "../scripts/aro_vg.py"


rule perturb_order:
    input:
        captions="results/data/world/captions.parquet",
    output:
        "results/perturbed/world/order/seed{seed}.parquet",
    log:
        "logs/perturb/world_order_seed{seed}.log",
    conda:
        "../../envs/core.yaml"
    params:
        spacy_model=config["nlp"]["spacy_model"],
        split="test",
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
    log:
        "logs/benchmarks/order.log",
    conda:
        "../../envs/core.yaml"
    params:
        seeds=config["benchmarks"].get("order", {}).get("seeds", []),
    script:
        "../scripts/order_benchmark.py"


rule sugarcrepe_benchmark:
    input:
        captions="results/data/world/captions.parquet",
        scenes="results/data/world/scenes.jsonl",
    output:
        sugarcrepe="results/benchmarks/sugarcrepe.parquet",
        negative_scenes="results/benchmarks/sugarcrepe_negative_scenes.jsonl",
    log:
        "logs/benchmarks/sugarcrepe.log",
    conda:
        "../../envs/core.yaml"
    params:
        world=config["world"],
        seed=config["benchmarks"].get("sugarcrepe", {}).get("seed", 0),
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
    log:
        "logs/generate/bivlc_world.log",
    conda:
        "../../envs/core.yaml"
    params:
        world=config["world"],
    script:
        "../scripts/generate_negative_images.py"


rule bivlc_benchmark:
    input:
        sugarcrepe="results/benchmarks/sugarcrepe.parquet",
        selection=bivlc_selection(),
    output:
        "results/benchmarks/bivlc.parquet",
    log:
        "logs/benchmarks/bivlc.log",
    conda:
        "../../envs/core.yaml"
    params:
        negatives=BIVLC_NEGATIVES,
    script:
        "../scripts/bivlc_benchmark.py"


rule retrieval_benchmark:
    input:
        captions="results/data/world/captions.parquet",
        gallery="results/imagesets/world_test.parquet",
    output:
        gallery="results/benchmarks/world_retrieval/gallery.parquet",
        queries="results/benchmarks/world_retrieval/queries.parquet",
    log:
        "logs/benchmarks/world_retrieval.log",
    conda:
        "../../envs/core.yaml"
    script:
        "../scripts/retrieval_benchmark.py"


rule bison_benchmark:
    input:
        unpack(bison_inputs),
    output:
        "results/benchmarks/bison.parquet",
    log:
        "logs/benchmarks/bison.log",
    conda:
        "../../envs/core.yaml"
    params:
        world=config["world"],
        bison=config["benchmarks"].get("bison", {}),
    script:
        "../scripts/bison_benchmark.py"


rule bison_altered_benchmark:
    input:
        bison="results/benchmarks/bison.parquet",
        wordnet="resources/wordnet",
    output:
        altered="results/perturbed/world/bison_alterations.parquet",
        benchmark="results/benchmarks/bison_altered.parquet",
    log:
        "logs/benchmarks/bison_altered.log",
    conda:
        "../../envs/core.yaml"
    params:
        alterations=config["benchmarks"].get("bison", {}).get("alterations", []),
        seeds=config["benchmarks"].get("bison", {}).get("alteration_seeds", [0]),
        spacy_model=config["nlp"]["spacy_model"],
    script:
        "../scripts/bison_altered_benchmark.py"
