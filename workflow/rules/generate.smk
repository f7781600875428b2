# Generated negative images (BiVLC): text-to-image candidates for negative captions,
# automatic filtering, TROHN-Img's caption selection, and natural-vs-synthetic detectors.


if TROHN_IMG_RELEASE:

    rule trohn_img_release:
        input:
            images=f"results/data/{TROHN_IMG_DATASET}/images.parquet",
            captions=f"results/data/{TROHN_IMG_DATASET}/captions.parquet",
            release=release_inputs("trohn_img"),
        output:
            train="results/generated/trohn_img/instances.parquet",
            val="results/generated/trohn_img/instances_val.parquet",
            images=directory("results/generated/trohn_img/images"),
            report="results/generated/trohn_img/release.json",
        log:
            "logs/generate/trohn_img_release.log",
        benchmark:
            "benchmarks/trohn_img_release.tsv"
        conda:
            TORCH_ENV
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(240, attempt),
        params:
            name="trohn_img",
            options=GENERATION["trohn_img"],
            cache_dir="resources/hf_datasets",
        script:
            "../scripts/trohn_release.py"

elif "trohn_img" in GENERATION:

    rule trohn_img_negatives:
        input:
            negatives=f"results/negatives/{TROHN_IMG_DATASET}/sugarcrepe.parquet",
            captions=f"results/data/{TROHN_IMG_DATASET}/captions.parquet",
            model=lambda wc: model_files(TROHN_IMG_SELECTION["similarity_model"]),
            scorers=selection_pins(
                TROHN_IMG_SELECTION, "generation.trohn_img.selection"
            ).inputs,
        output:
            selected=f"results/negatives/{TROHN_IMG_DATASET}/trohn_img.parquet",
            report=f"results/negatives/{TROHN_IMG_DATASET}/trohn_img.json",
        log:
            f"logs/negatives/{TROHN_IMG_DATASET}_trohn_img.log",
        benchmark:
            f"benchmarks/trohn_img_negatives.tsv"
        conda:
            TORCH_ENV
        threads: MODEL_THREADS
        resources:
            gpu=GPUS,
            gpu_model=HEAVY_GPU_MODEL,
            mem_mb=lambda wc, attempt: by_attempt(64000, attempt),  # Vera is a ~5B-parameter T5 encoder
            runtime=lambda wc, attempt: runtime_by_attempt(720, attempt),
        params:
            options=TROHN_IMG_SELECTION,
            entry=lambda wc: model_entry(TROHN_IMG_SELECTION["similarity_model"]),
            world=WORLD,
            threads=MODEL_THREADS,
            device=config["compute"]["device"],
        script:
            "../scripts/trohn_img_negatives.py"


if GENERATION:

    rule generate_candidates:
        input:
            source=generation_source,
            weights=generation_inputs,
        output:
            images=directory("results/generated/{genset}/images"),
            candidates="results/generated/{genset}/candidates.parquet",
        log:
            "logs/generate/{genset}_candidates.log",
        benchmark:
            "benchmarks/generate_candidates/{genset}.tsv"
        wildcard_constraints:
            genset=union(g for g in GENERATE_JOBS if g not in SHARDED_GENSETS),
        conda:
            DIFFUSION_ENV
        threads: MODEL_THREADS
        resources:
            gpu=lambda wc: GPUS if GENERATE_JOBS[wc.genset].device == "gpu" else 0,
            gpu_model=lambda wc: (
                HEAVY_GPU_MODEL if GENERATE_JOBS[wc.genset].device == "gpu" else None
            ),
            mem_mb=lambda wc, attempt: by_attempt(
                GENERATE_JOBS[wc.genset].mem_mb, attempt
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                GENERATE_JOBS[wc.genset].runtime, attempt
            ),
        params:
            options=lambda wc: GENERATION[wc.genset],
            world=WORLD,
            threads=MODEL_THREADS,
            device=config["compute"]["device"],
        script:
            "../scripts/generate_candidates.py"

    # A generated set's candidates in shards (config shards): each shard generates its
    # block of the captions, the gather links the images into the set's folder.
    rule generate_candidates_shard:
        input:
            source=generation_source,
            weights=generation_inputs,
        output:
            images=directory("results/generated/{genset}/shards/{shard}/images"),
            candidates="results/generated/{genset}/shards/{shard}/candidates.parquet",
        log:
            "logs/generate/{genset}_candidates/{shard}.log",
        benchmark:
            "benchmarks/generate_candidates_shard/{genset}/{shard}.tsv"
        wildcard_constraints:
            genset=union(SHARDED_GENSETS),
            shard=SHARD_PATTERN,
        conda:
            DIFFUSION_ENV
        threads: MODEL_THREADS
        resources:
            gpu=lambda wc: GPUS if GENERATE_JOBS[wc.genset].device == "gpu" else 0,
            gpu_model=lambda wc: (
                HEAVY_GPU_MODEL if GENERATE_JOBS[wc.genset].device == "gpu" else None
            ),
            mem_mb=lambda wc, attempt: by_attempt(
                GENERATE_JOBS[wc.genset].mem_mb, attempt
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                GENERATE_JOBS[wc.genset].runtime, attempt
            ),
        params:
            options=lambda wc: GENERATION[wc.genset],
            world=WORLD,
            threads=MODEL_THREADS,
            device=config["compute"]["device"],
        script:
            "../scripts/generate_candidates.py"

    rule generate_candidates_gather:
        input:
            candidates=lambda wc: expand(
                "results/generated/{genset}/shards/{shard}/candidates.parquet",
                genset=wc.genset,
                shard=shard_names(GENERATE_JOBS[wc.genset].shards),
            ),
        output:
            images=directory("results/generated/{genset}/images"),
            candidates="results/generated/{genset}/candidates.parquet",
        log:
            "logs/generate/{genset}_candidates.log",
        benchmark:
            "benchmarks/generate_candidates_gather/{genset}.tsv"
        wildcard_constraints:
            genset=union(SHARDED_GENSETS),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        script:
            "../scripts/generate_candidates_gather.py"


if GENERATION:

    rule filter_generated:
        input:
            unpack(filter_inputs),
        output:
            manifest="results/generated/{genset}/manifest.parquet",
            selection="results/generated/{genset}/selection.parquet",
            instances="results/generated/{genset}/instances.parquet",
            report="results/generated/{genset}/filter.json",
            imageset="results/imagesets/{genset}_generated.parquet",
        log:
            "logs/generate/{genset}_filter.log",
        benchmark:
            "benchmarks/filter_generated/{genset}.tsv"
        wildcard_constraints:
            genset=GENERATED_SET_PATTERN,
        conda:
            TORCH_ENV
        threads: MODEL_THREADS
        resources:
            gpu=GPUS,
            mem_mb=lambda wc, attempt: by_attempt(
                estimated_job("filter", wc.genset).mem_mb, attempt
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                estimated_job("filter", wc.genset).runtime, attempt
            ),
        params:
            filter=lambda wc: GENERATION[wc.genset].get("filter", {}),
            entry=lambda wc: filter_model_entry(wc.genset),
            world=WORLD,
            batch_size=EMBED["batch_size"],
            threads=MODEL_THREADS,
            device=config["compute"]["device"],
        script:
            "../scripts/filter_generated.py"


if DETECTORS:

    rule train_detectors:
        input:
            instances="results/generated/trohn_img/instances.parquet",
            images=detector_imagesets(),
            embeddings=detector_embeddings,
            bivlc="results/benchmarks/bivlc.parquet",
            sugarcrepe="results/benchmarks/sugarcrepe.parquet",
            model=model_inputs,
        output:
            metrics="results/detectors/{model}/metrics.json",
            heads="results/detectors/{model}/heads.json",
            probabilities="results/detectors/{model}/probabilities.parquet",
        log:
            "logs/detectors/{model}.log",
        benchmark:
            "benchmarks/train_detectors/{model}.tsv"
        conda:
            TORCH_ENV
        threads: MODEL_THREADS
        resources:
            gpu=GPUS,
            mem_mb=lambda wc, attempt: by_attempt(
                estimated_job("detectors", wc.model).mem_mb, attempt
            ),
            runtime=lambda wc, attempt: runtime_by_attempt(
                estimated_job("detectors", wc.model).runtime, attempt
            ),
        params:
            options=DETECTORS,
            entry=lambda wc: model_entry(wc.model),
            batch_size=EMBED["batch_size"],
            threads=MODEL_THREADS,
            device=config["compute"]["device"],
        script:
            "../scripts/train_detectors.py"


if DETECTORS:

    rule uncertainty_detectors:
        input:
            expand(
                "results/detectors/{model}/probabilities.parquet",
                model=DETECTORS.get("encoders", []),
            ),
        output:
            intervals=report(
                "results/uncertainty/detectors.csv",
                caption="../report/uncertainty_detectors.rst",
                category="Uncertainty",
                subcategory="detectors",
            ),
            comparisons="results/uncertainty/detectors_comparisons.csv",
        log:
            "logs/uncertainty/detectors.log",
        benchmark:
            "benchmarks/uncertainty_detectors.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            encoders=DETECTORS.get("encoders", []),
            resamples=UNCERTAINTY["resamples"],
            seed=UNCERTAINTY["seed"],
            confidence=UNCERTAINTY["confidence"],
            method=UNCERTAINTY["method"],
        script:
            "../scripts/uncertainty_detectors.py"
