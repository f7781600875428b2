# Blind (text-only) baselines and the bootstrap intervals and paired tests of every choice
# and retrieval benchmark.


if BLIND_BENCHMARKS:

    # Every choice benchmark's blind scores of one blind baseline in one job (the bigram
    # model fitted once)
    rule blind_scores:
        input:
            benchmarks=expand(
                "results/benchmarks/{benchmark}.parquet", benchmark=BLIND_BENCHMARKS
            ),
            sources=blind_sources,
        output:
            expand(
                "results/scores/{{blind}}/{benchmark}.parquet",
                benchmark=BLIND_BENCHMARKS,
            ),
        log:
            "logs/blind/{blind}.log",
        benchmark:
            "benchmarks/blind_scores/{blind}.tsv"
        wildcard_constraints:
            blind=union(BLIND_MODELS),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            benchmarks=BLIND_BENCHMARKS,
            kind=lambda wc: "ngram" if wc.blind == "blind_ngram" else "prior",
            discount=BLIND["discount"],
        script:
            "../scripts/blind_scores.py"


rule uncertainty:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores=lambda wc: expand(
            "results/scores/{model}/{benchmark}.parquet",
            model=uncertainty_models(wc.benchmark),
            benchmark=wc.benchmark,
        ),
    output:
        intervals=report(
            "results/uncertainty/{benchmark}.csv",
            caption="../report/uncertainty.rst",
            category="Uncertainty",
            subcategory="{benchmark}",
        ),
        comparisons=report(
            "results/uncertainty/{benchmark}_comparisons.csv",
            caption="../report/uncertainty.rst",
            category="Uncertainty",
            subcategory="{benchmark}",
        ),
        seeds=report(
            "results/uncertainty/{benchmark}_seeds.csv",
            caption="../report/uncertainty.rst",
            category="Uncertainty",
            subcategory="{benchmark}",
        ),
    log:
        "logs/uncertainty/{benchmark}.log",
    benchmark:
        "benchmarks/uncertainty/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=CHOICE_BENCHMARK_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        models=lambda wc: uncertainty_models(wc.benchmark),
        groups=MODEL_GROUPS,
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty.py"


rule uncertainty_retrieval:
    input:
        unpack(fold_order_inputs),
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
        images=lambda wc: [
            f"results/embeddings/{m}/images/{BENCHMARK_IMAGESETS[wc.benchmark][0]}.npy"
            for m in EMBEDDING_MODELS
        ],
        texts=lambda wc: [
            f"results/embeddings/{m}/texts/{wc.benchmark}.npy"
            for m in EMBEDDING_MODELS
        ],
        reranked=lambda wc: [
            f for m in EMBEDDING_MODELS for f in reranked_file(m, wc.benchmark)
        ],
    output:
        intervals=report(
            "results/uncertainty/{benchmark}.csv",
            caption="../report/uncertainty.rst",
            category="Uncertainty",
            subcategory="{benchmark}",
        ),
        comparisons="results/uncertainty/{benchmark}_comparisons.csv",
        seeds="results/uncertainty/{benchmark}_seeds.csv",
    log:
        "logs/uncertainty/{benchmark}.log",
    benchmark:
        "benchmarks/uncertainty_retrieval/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=RETRIEVAL_BENCHMARK_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        models=EMBEDDING_MODELS,
        reranked_models=lambda wc: [
            m for m in EMBEDDING_MODELS if reranked_file(m, wc.benchmark)
        ],
        groups=MODEL_GROUPS,
        folds=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("folds"),
        fold_file=lambda wc: fold_order_file(wc.benchmark),
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty_retrieval.py"
