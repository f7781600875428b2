# Scoring: each model's embeddings (in shards when long), pair scores and the metrics of
# every benchmark from them.


rule embed_model:
    input:
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=EVAL_IMAGESETS
        ),
        texts=[text_source(b) for b in BENCHMARKS],
        model=model_inputs,
    output:
        images=expand(
            "results/embeddings/{{model}}/images/{imageset}.npy",
            imageset=EVAL_IMAGESETS,
        ),
        image_ids=expand(
            "results/embeddings/{{model}}/images/{imageset}.ids.json",
            imageset=EVAL_IMAGESETS,
        ),
        texts=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.npy", benchmark=BENCHMARKS
        ),
        text_ids=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.ids.json",
            benchmark=BENCHMARKS,
        ),
    log:
        "logs/embed/{model}.log",
    benchmark:
        "benchmarks/embed_model/{model}.tsv"
    wildcard_constraints:
        model=union(m for m in EMBED_ONLY_MODELS if m not in SHARDED_EMBED_MODELS),
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(EMBED_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            EMBED_JOBS[wc.model].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=EMBED["batch_size"],
        workers=EMBED["workers"],
        text_batch_size=EMBED["text_batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("embed"),
    script:
        "../scripts/embed_model.py"


# A model's embedding job in shards (config shards): each shard embeds its block of the
# distinct images and texts, the gather writes embed_model's files from them.
rule embed_model_shard:
    input:
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=EVAL_IMAGESETS
        ),
        texts=[text_source(b) for b in BENCHMARKS],
        model=model_inputs,
    output:
        "results/embeddings/{model}/shards/{shard}.npz",
    log:
        "logs/embed/{model}/{shard}.log",
    benchmark:
        "benchmarks/embed_model_shard/{model}/{shard}.tsv"
    wildcard_constraints:
        model=union(SHARDED_EMBED_MODELS),
        shard=SHARD_PATTERN,
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(EMBED_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            EMBED_JOBS[wc.model].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=EMBED["batch_size"],
        workers=EMBED["workers"],
        text_batch_size=EMBED["text_batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("embed"),
    script:
        "../scripts/embed_model_shard.py"


rule embed_model_gather:
    input:
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=EVAL_IMAGESETS
        ),
        texts=[text_source(b) for b in BENCHMARKS],
        shards=lambda wc: expand(
            "results/embeddings/{model}/shards/{shard}.npz",
            model=wc.model,
            shard=shard_names(EMBED_SHARDS[wc.model]),
        ),
    output:
        images=expand(
            "results/embeddings/{{model}}/images/{imageset}.npy",
            imageset=EVAL_IMAGESETS,
        ),
        image_ids=expand(
            "results/embeddings/{{model}}/images/{imageset}.ids.json",
            imageset=EVAL_IMAGESETS,
        ),
        texts=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.npy", benchmark=BENCHMARKS
        ),
        text_ids=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.ids.json",
            benchmark=BENCHMARKS,
        ),
    log:
        "logs/embed/{model}.log",
    benchmark:
        "benchmarks/embed_model_gather/{model}.tsv"
    wildcard_constraints:
        model=union(SHARDED_EMBED_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    script:
        "../scripts/embed_model_gather.py"


rule embed_images:
    input:
        imageset="results/imagesets/{imageset}.parquet",
        model=model_inputs,
    output:
        npy="results/embeddings/{model}/images/{imageset}.npy",
        ids="results/embeddings/{model}/images/{imageset}.ids.json",
    log:
        "logs/embed/{model}/images_{imageset}.log",
    benchmark:
        "benchmarks/embed_images/{model}/{imageset}.tsv"
    wildcard_constraints:
        imageset=OTHER_IMAGESET_PATTERN,
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(embed_images_job(wc).mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            embed_images_job(wc).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=EMBED["batch_size"],
        workers=EMBED["workers"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("embed"),
    script:
        "../scripts/embed_images.py"


if CHOICE_BENCHMARKS:

    # Every choice benchmark of one embedding model in one job: per benchmark, its score
    # matrices from the model's embeddings, then its metrics (one file each per benchmark: a
    # model added later runs only its own job)
    rule score_and_metrics:
        input:
            benchmarks=expand(
                "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
            ),
            images=choice_image_embeddings,
            texts=expand(
                "results/embeddings/{{model}}/texts/{benchmark}.npy",
                benchmark=CHOICE_BENCHMARKS,
            ),
        output:
            scores=expand(
                "results/scores/{{model}}/{benchmark}.parquet",
                benchmark=CHOICE_BENCHMARKS,
            ),
            json=expand(
                "results/metrics/{{model}}/{benchmark}.json",
                benchmark=CHOICE_BENCHMARKS,
            ),
            csv=expand(
                "results/metrics/{{model}}/{benchmark}.csv",
                benchmark=CHOICE_BENCHMARKS,
            ),
        log:
            "logs/metrics/{model}.log",
        benchmark:
            "benchmarks/score_and_metrics/{model}.tsv"
        wildcard_constraints:
            model=union(m for m in MODELS if m not in PAIR_MODELS),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            benchmarks=CHOICE_BENCHMARKS,
            kinds=[BENCHMARK_KIND[b] for b in CHOICE_BENCHMARKS],
            options=[metric_options(b) for b in CHOICE_BENCHMARKS],
            images=lambda wc: [
                benchmark_image_embeddings(wc, b) for b in CHOICE_BENCHMARKS
            ],
        script:
            "../scripts/score_and_metrics.py"


rule score_pairs:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        embed_imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=EVAL_IMAGESETS
        ),
        texts=[text_source(b) for b in BENCHMARKS],
        model=model_inputs,
    output:
        scores=expand(
            "results/scores/{{model}}/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        images=expand(
            "results/embeddings/{{model}}/images/{imageset}.npy",
            imageset=EVAL_IMAGESETS,
        ),
        image_ids=expand(
            "results/embeddings/{{model}}/images/{imageset}.ids.json",
            imageset=EVAL_IMAGESETS,
        ),
        texts=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.npy", benchmark=BENCHMARKS
        ),
        text_ids=expand(
            "results/embeddings/{{model}}/texts/{benchmark}.ids.json",
            benchmark=BENCHMARKS,
        ),
    log:
        "logs/score_pairs/{model}.log",
    benchmark:
        "benchmarks/score_pairs/{model}.tsv"
    wildcard_constraints:
        model=union(ITM_PAIR_MODELS),
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            PAIR_JOBS[wc.model].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        choice=CHOICE_BENCHMARKS,
        pair_options=lambda wc: {"kind": MODEL_ENTRIES[wc.model]["pair_score"]},
        cosine=lambda wc: cosine_benchmarks(wc.model),
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        text_batch_size=EMBED["text_batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("pairs"),
    script:
        "../scripts/score_pair_model.py"


# Pair models without embeddings or priors (BLIP-2's Q-Former ITM / ITC): the choice
# benchmarks' pair scores only, each picture through the vision tower once.
rule score_pairs_only:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        model=model_inputs,
    output:
        scores=expand(
            "results/scores/{{model}}/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
    log:
        "logs/score_pairs/{model}.log",
    benchmark:
        "benchmarks/score_pairs_only/{model}.tsv"
    wildcard_constraints:
        model=union(PAIR_ONLY_MODELS),
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            PAIR_JOBS[wc.model].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        choice=CHOICE_BENCHMARKS,
        pair_options=lambda wc: {"kind": MODEL_ENTRIES[wc.model]["pair_score"]},
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("pairs"),
    script:
        "../scripts/score_pair_model.py"


if CHOICE_BENCHMARKS:

    # Every choice benchmark's metrics of one pair model in one job, from the score matrices
    # its scoring job wrote (one file each per benchmark)
    rule pair_metrics:
        input:
            benchmarks=expand(
                "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
            ),
            scores=expand(
                "results/scores/{{model}}/{benchmark}.parquet",
                benchmark=CHOICE_BENCHMARKS,
            ),
        output:
            json=expand(
                "results/metrics/{{model}}/{benchmark}.json",
                benchmark=CHOICE_BENCHMARKS,
            ),
            csv=expand(
                "results/metrics/{{model}}/{benchmark}.csv",
                benchmark=CHOICE_BENCHMARKS,
            ),
        log:
            "logs/metrics/{model}.log",
        benchmark:
            "benchmarks/pair_metrics/{model}.tsv"
        wildcard_constraints:
            model=union(PAIR_MODELS),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            benchmarks=CHOICE_BENCHMARKS,
            kinds=[BENCHMARK_KIND[b] for b in CHOICE_BENCHMARKS],
            options=[metric_options(b) for b in CHOICE_BENCHMARKS],
        script:
            "../scripts/pair_metrics.py"


# Retrieval re-ranked by ITM (config retrieval): each query's k_test candidates by the
# embedding cosine, their pairs scored by the model's pair score (ITM + ITC) in shards.
rule rerank_candidates:
    input:
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
        images=lambda wc: benchmark_image_embeddings(wc)[0],
        texts="results/embeddings/{model}/texts/{benchmark}.npy",
        model_yaml=lambda wc: xvlm_yaml(wc.model),
    output:
        "results/scores/{model}/rerank/{benchmark}/candidates.npz",
    log:
        "logs/rerank/{model}/{benchmark}/candidates.log",
    benchmark:
        "benchmarks/rerank_candidates/{model}/{benchmark}.tsv"
    wildcard_constraints:
        model=union(RERANK_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(30, attempt),
    params:
        k_test=lambda wc: RERANK_K[(wc.model, wc.benchmark)],
    script:
        "../scripts/rerank_candidates.py"


rule rerank_shard:
    input:
        candidates="results/scores/{model}/rerank/{benchmark}/candidates.npz",
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
        imagesets=lambda wc: expand(
            "results/imagesets/{imageset}.parquet",
            imageset=BENCHMARK_IMAGESETS[wc.benchmark],
        ),
        model=model_inputs,
    output:
        "results/scores/{model}/rerank/{benchmark}/shards/{shard}.npz",
    log:
        "logs/rerank/{model}/{benchmark}/{shard}.log",
    benchmark:
        "benchmarks/rerank_shard/{model}/{benchmark}/{shard}.tsv"
    wildcard_constraints:
        model=union(RERANK_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
        shard=SHARD_PATTERN,
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=lambda wc: (
            GPUS if RERANK_JOBS[(wc.model, wc.benchmark)].device == "gpu" else 0
        ),
        mem_mb=lambda wc, attempt: by_attempt(
            RERANK_JOBS[(wc.model, wc.benchmark)].mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            RERANK_JOBS[(wc.model, wc.benchmark)].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        kind=lambda wc: MODEL_ENTRIES[wc.model]["pair_score"],
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("pairs"),
    script:
        "../scripts/rerank_shard.py"


rule rerank_gather:
    input:
        candidates="results/scores/{model}/rerank/{benchmark}/candidates.npz",
        shards=rerank_shards,
    output:
        "results/scores/{model}/rerank/{benchmark}.npz",
    log:
        "logs/rerank/{model}/{benchmark}/gather.log",
    benchmark:
        "benchmarks/rerank_gather/{model}/{benchmark}.tsv"
    wildcard_constraints:
        model=union(RERANK_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(30, attempt),
    script:
        "../scripts/rerank_gather.py"


rule retrieval_metrics:
    input:
        unpack(fold_order_inputs),
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
        images=lambda wc: benchmark_image_embeddings(wc)[0],
        texts="results/embeddings/{model}/texts/{benchmark}.npy",
        reranked=reranked_scores,
    output:
        json="results/metrics/{model}/{benchmark}.json",
        csv="results/metrics/{model}/{benchmark}.csv",
    log:
        "logs/metrics/{model}/{benchmark}.log",
    benchmark:
        "benchmarks/retrieval_metrics/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=RETRIEVAL_BENCHMARK_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        folds=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("folds"),
        fold_file=lambda wc: fold_order_file(wc.benchmark),
    script:
        "../scripts/retrieval_metrics.py"
