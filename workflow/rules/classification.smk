# Image classification (config.classification): ARO Table 6's CIFAR10 / CIFAR100 / ImageNet
# rows (linear probes, as CLIP; zero-shot prompts as an option) and the world's shapes. Each
# dataset's train and evaluation splits become image sets (results/imagesets/{dataset}_{split})
# that rule embed_images embeds once per model; the prompts become class embeddings through
# the model's text encoder; one job per model and dataset fits the probe and scores.


rule cifar_imagesets:
    input:
        archive=lambda wc: f"resources/cifar/{CIFAR[wc.cls_dataset]['archive']}",
    output:
        train="results/imagesets/{cls_dataset}_train.parquet",
        test="results/imagesets/{cls_dataset}_test.parquet",
        images=directory("results/images/{cls_dataset}"),
    log:
        "logs/imagesets/{cls_dataset}.log",
    benchmark:
        "benchmarks/cifar_imagesets/{cls_dataset}.tsv"
    wildcard_constraints:
        cls_dataset=union(d for d in CLS_DATASETS if d in CIFAR),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        check_sizes=CLASSIFICATION.check_sizes,
    script:
        "../scripts/cifar_imagesets.py"


rule imagenet_imagesets:
    input:
        train="resources/imagenet/train/.vlcomp_checked",
        val="resources/imagenet/val/.vlcomp_checked",
        devkit="resources/imagenet/devkit/.vlcomp_checked",
    output:
        train="results/imagesets/imagenet_train.parquet",
        val="results/imagesets/imagenet_val.parquet",
    log:
        "logs/imagesets/imagenet.log",
    benchmark:
        "benchmarks/imagenet_imagesets.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        check_sizes=CLASSIFICATION.check_sizes,
    script:
        "../scripts/imagenet_imagesets.py"


if WORLD:

    rule world_shapes_imagesets:
        output:
            train="results/imagesets/world_shapes_train.parquet",
            test="results/imagesets/world_shapes_test.parquet",
            images=directory("results/images/world_shapes"),
        log:
            "logs/imagesets/world_shapes.log",
        benchmark:
            "benchmarks/world_shapes_imagesets.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            world=WORLD,
            sizes={s: CLASSIFICATION.world_shapes.get(s) for s in ("train", "test")},
            seed=CLASSIFICATION.world_shapes.get("seed", 0),
        script:
            "../scripts/world_shapes_imagesets.py"


rule class_embeddings:
    input:
        model=model_inputs,
    output:
        npy=expand(
            "results/embeddings/{{model}}/classes/{cls_dataset}.npy",
            cls_dataset=CLS_DATASETS,
        ),
        ids=expand(
            "results/embeddings/{{model}}/classes/{cls_dataset}.ids.json",
            cls_dataset=CLS_DATASETS,
        ),
    log:
        "logs/embed/{model}/classes.log",
    benchmark:
        "benchmarks/class_embeddings/{model}.tsv"
    wildcard_constraints:
        model=union(CLS_MODELS),
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        entry=lambda wc: model_entry(wc.model),
        datasets=CLS_DATASETS,
        world=WORLD,
        text_batch_size=EMBED["text_batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("embed"),
    script:
        "../scripts/class_embeddings.py"


rule classification_metrics:
    input:
        unpack(classification_inputs),
    output:
        json="results/metrics/{model}/classification_{cls_dataset}.json",
        scores="results/scores/{model}/classification_{cls_dataset}.parquet",
    log:
        "logs/metrics/{model}/classification_{cls_dataset}.log",
    benchmark:
        "benchmarks/classification_metrics/{model}/{cls_dataset}.tsv"
    wildcard_constraints:
        model=union(CLS_MODELS),
        cls_dataset=union(CLS_DATASETS),
    conda:
        TORCH_ENV
    threads: lambda wc: probe_threads(wc.cls_dataset)
    resources:
        gpu=CLS_PROBE_GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            CLS_PROBE_RESOURCES[wc.cls_dataset][0], attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            CLS_PROBE_RESOURCES[wc.cls_dataset][1], attempt
        ),
    params:
        protocols=list(CLASSIFICATION.protocols),
        probe=CLASSIFICATION.probe_options() if CLS_DATASETS else {},
        world=WORLD,
        threads=lambda wc: probe_threads(wc.cls_dataset),
    script:
        "../scripts/classification_metrics.py"


rule uncertainty_classification:
    input:
        scores=lambda wc: expand(
            "results/scores/{model}/classification_{cls_dataset}.parquet",
            model=CLS_MODELS,
            cls_dataset=wc.cls_dataset,
        ),
    output:
        intervals=report(
            "results/uncertainty/classification_{cls_dataset}.csv",
            caption="../report/uncertainty.rst",
            category="Uncertainty",
            subcategory="classification_{cls_dataset}",
        ),
        comparisons="results/uncertainty/classification_{cls_dataset}_comparisons.csv",
        seeds="results/uncertainty/classification_{cls_dataset}_seeds.csv",
    log:
        "logs/uncertainty/classification_{cls_dataset}.log",
    benchmark:
        "benchmarks/uncertainty_classification/{cls_dataset}.tsv"
    wildcard_constraints:
        cls_dataset=union(CLS_DATASETS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        models=CLS_MODELS,
        groups={
            label: [m for m in members if m in CLS_MODELS]
            for label, members in MODEL_GROUPS.items()
            if any(m in CLS_MODELS for m in members)
        },
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty_classification.py"
