# Each benchmark's items come from the synthetic world (built from scenes) or from the
# released files (config.benchmarks.{name}.source); both write the same targets.
if source_of("vg_relation") == "world" or source_of("vg_attribution") == "world":

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
        benchmark:
            "benchmarks/aro_vg.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            world=WORLD,
            relation_seed=config["benchmarks"].get("vg_relation", {}).get("seed", 0),
            attribution_seed=config["benchmarks"]
            .get("vg_attribution", {})
            .get("seed", 0),
        script:
            "../scripts/aro_vg.py"

else:

    rule aro_vg:
        input:
            relation="resources/aro/visual_genome_relation.json",
            attribution="resources/aro/visual_genome_attribution.json",
            images="resources/aro/vg",
        output:
            imageset="results/imagesets/vg_crops.parquet",
            relation="results/benchmarks/vg_relation.parquet",
            attribution="results/benchmarks/vg_attribution.parquet",
        log:
            "logs/benchmarks/aro_vg.log",
        benchmark:
            "benchmarks/aro_vg.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        script:
            "../scripts/aro_vg_release.py"


rule perturb_order:
    input:
        captions="results/data/{dataset}/captions.parquet",
    output:
        "results/perturbed/{dataset}/order/seed{seed}.parquet",
    log:
        "logs/perturb/{dataset}_order_seed{seed}.log",
    benchmark:
        "benchmarks/perturb_order/{dataset}/{seed}.tsv"
    conda:
        "../../envs/nlp.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        spacy_model=config["nlp"]["spacy_model"],
        split="test",
    script:
        "../scripts/perturb_order.py"


rule order_benchmark:
    input:
        captions=lambda wc: f"results/data/{dataset_of(wc.benchmark)}/captions.parquet",
        perturbed=lambda wc: expand(
            "results/perturbed/{dataset}/order/seed{seed}.parquet",
            dataset=dataset_of(wc.benchmark),
            seed=BENCHMARK_SPECS[wc.benchmark]["seeds"],
        ),
    output:
        "results/benchmarks/{benchmark}.parquet",
    log:
        "logs/benchmarks/{benchmark}.log",
    benchmark:
        "benchmarks/order_benchmark/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=ORDER_BENCHMARK_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seeds=lambda wc: BENCHMARK_SPECS[wc.benchmark]["seeds"],
    script:
        "../scripts/order_benchmark.py"


if source_of("sugarcrepe") == "world":

    rule sugarcrepe_benchmark:
        input:
            captions="results/data/world/captions.parquet",
            scenes="results/data/world/scenes.jsonl",
        output:
            sugarcrepe="results/benchmarks/sugarcrepe.parquet",
            negative_scenes="results/benchmarks/sugarcrepe_negative_scenes.jsonl",
        log:
            "logs/benchmarks/sugarcrepe.log",
        benchmark:
            "benchmarks/sugarcrepe_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            world=WORLD,
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
        benchmark:
            "benchmarks/generate_negative_images.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            world=WORLD,
        script:
            "../scripts/generate_negative_images.py"

else:

    rule sugarcrepe_benchmark:
        input:
            subsets=expand(
                "resources/sugarcrepe/{subset}.json", subset=SUGARCREPE_SUBSETS
            ),
            images="resources/coco/2017_val",
        output:
            sugarcrepe="results/benchmarks/sugarcrepe.parquet",
            imageset="results/imagesets/sugarcrepe.parquet",
        log:
            "logs/benchmarks/sugarcrepe.log",
        benchmark:
            "benchmarks/sugarcrepe_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/sugarcrepe_release.py"


if source_of("bivlc") == "world":

    rule bivlc_benchmark:
        input:
            sugarcrepe="results/benchmarks/sugarcrepe.parquet",
            selection=bivlc_selection(),
        output:
            "results/benchmarks/bivlc.parquet",
        log:
            "logs/benchmarks/bivlc.log",
        benchmark:
            "benchmarks/bivlc_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            negatives=BIVLC_NEGATIVES,
        script:
            "../scripts/bivlc_benchmark.py"

else:

    rule bivlc_benchmark:
        input:
            release=release_inputs("bivlc"),
        output:
            benchmark="results/benchmarks/bivlc.parquet",
            images=directory("results/images/bivlc"),
            imageset="results/imagesets/bivlc.parquet",
        log:
            "logs/benchmarks/bivlc.log",
        benchmark:
            "benchmarks/bivlc_benchmark.tsv"
        conda:
            TORCH_ENV
        threads: 1
        resources:
            runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
            mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
        params:
            revision=config["benchmarks"]["bivlc"].get("revision"),
            cache_dir="resources/hf_datasets",
        script:
            "../scripts/bivlc_hub.py"


if source_of("winoground") == "world":

    rule winoground_benchmark:
        input:
            captions="results/data/world/captions.parquet",
            scenes="results/data/world/scenes.jsonl",
        output:
            benchmark="results/benchmarks/winoground.parquet",
            images=directory("results/images/winoground_world"),
            imageset="results/imagesets/winoground_world.parquet",
        log:
            "logs/benchmarks/winoground.log",
        benchmark:
            "benchmarks/winoground_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            world=WORLD,
            seed=config["benchmarks"].get("winoground", {}).get("seed", 0),
            subsets=config["benchmarks"].get("winoground", {}).get("subsets"),
        script:
            "../scripts/winoground_benchmark.py"

else:

    rule winoground_benchmark:
        input:
            data="resources/winoground/data",
        output:
            benchmark="results/benchmarks/winoground.parquet",
            imageset="results/imagesets/winoground.parquet",
        log:
            "logs/benchmarks/winoground.log",
        benchmark:
            "benchmarks/winoground_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            expected_items=config["benchmarks"]["winoground"].get(
                "expected_items", WINOGROUND_ITEMS
            ),
        script:
            "../scripts/winoground_release.py"


rule retrieval_benchmark:
    input:
        captions=lambda wc: f"results/data/{dataset_of(wc.benchmark)}/captions.parquet",
        gallery=lambda wc: f"results/imagesets/{dataset_of(wc.benchmark)}_test.parquet",
    output:
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
    log:
        "logs/benchmarks/{benchmark}.log",
    benchmark:
        "benchmarks/retrieval_benchmark/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=RETRIEVAL_BENCHMARK_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        query_preprocess=lambda wc: BENCHMARK_SPECS[wc.benchmark].get(
            "query_preprocess", "none"
        ),
    script:
        "../scripts/retrieval_benchmark.py"


if source_of("bison") == "world":

    rule bison_benchmark:
        input:
            unpack(bison_inputs),
        output:
            "results/benchmarks/bison.parquet",
        log:
            "logs/benchmarks/bison.log",
        benchmark:
            "benchmarks/bison_benchmark.tsv"
        conda:
            TORCH_ENV
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
        params:
            world=WORLD,
            bison=config["benchmarks"].get("bison", {}),
        script:
            "../scripts/bison_benchmark.py"

else:

    rule bison_benchmark:
        input:
            annotations="resources/bison/bison_annotations.cocoval2014.json",
            coco_annotations="resources/coco/annotations2014",
            images="resources/coco/2014_val",
        output:
            benchmark="results/benchmarks/bison.parquet",
            imageset="results/imagesets/bison.parquet",
        log:
            "logs/benchmarks/bison.log",
        benchmark:
            "benchmarks/bison_benchmark.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
        params:
            expected_items=config["benchmarks"]["bison"].get(
                "expected_items", BISON_ITEMS
            ),
        script:
            "../scripts/bison_release.py"


rule bison_altered_benchmark:
    input:
        bison="results/benchmarks/bison.parquet",
        wordnet="resources/wordnet",
    output:
        altered="results/perturbed/bison/alterations.parquet",
        benchmark="results/benchmarks/bison_altered.parquet",
    log:
        "logs/benchmarks/bison_altered.log",
    benchmark:
        "benchmarks/bison_altered_benchmark.tsv"
    conda:
        "../../envs/nlp.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
    params:
        alterations=config["benchmarks"].get("bison", {}).get("alterations", []),
        seeds=config["benchmarks"].get("bison", {}).get("alteration_seeds", [0]),
        word_choice=config["benchmarks"].get("bison", {}).get("word_choice", "random"),
        spacy_model=config["nlp"]["spacy_model"],
    script:
        "../scripts/bison_altered_benchmark.py"
