# VisualGPTScore (Lin et al.): accuracy over alpha, score = log P(t|i) - alpha log P(t), on
# image->text benchmarks and retrieval galleries; alpha* on validation halves and on all
# items, with bootstrap intervals; Winoground per Diwan tag.


rule alpha_curve:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
        prior="results/priors/{model}/{benchmark}.parquet",
    output:
        csv="results/metrics/{model}/{benchmark}_alpha.csv",
        json="results/metrics/{model}/{benchmark}_alpha.json",
    log:
        "logs/metrics/{model}/{benchmark}_alpha.log",
    benchmark:
        "benchmarks/alpha_curve/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(ALPHA_BENCHMARKS),
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
        prior=PRIOR_COLUMN,
    script:
        "../scripts/alpha_curve.py"


rule held_out_accuracy:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
    output:
        "results/metrics/{model}/{benchmark}_halves.json",
    log:
        "logs/metrics/{model}/{benchmark}_halves.log",
    benchmark:
        "benchmarks/held_out_accuracy/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(HALVES_BENCHMARKS),
        model=union(ITM_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
    script:
        "../scripts/held_out_accuracy.py"


rule generative_retrieval:
    input:
        unpack(retrieval_alpha_inputs),
    output:
        csv="results/metrics/{model}/{benchmark}_alpha.csv",
        json="results/metrics/{model}/{benchmark}_alpha.json",
    log:
        "logs/metrics/{model}/{benchmark}_alpha.log",
    benchmark:
        "benchmarks/generative_retrieval/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=RETRIEVAL_BENCHMARK_PATTERN,
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
    script:
        "../scripts/generative_retrieval.py"


rule uncertainty_alpha:
    input:
        unpack(alpha_uncertainty_inputs),
    output:
        report(
            "results/uncertainty/alpha/{model}/{benchmark}.csv",
            caption="../report/uncertainty_alpha.rst",
            category="Uncertainty",
            subcategory="VisualGPTScore",
        ),
    log:
        "logs/uncertainty/alpha/{model}/{benchmark}.log",
    benchmark:
        "benchmarks/uncertainty_alpha/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(ALPHA_BENCHMARKS + RETRIEVAL_BENCHMARKS),
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        retrieval=lambda wc: wc.benchmark in RETRIEVAL_BENCHMARKS,
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
        prior=PRIOR_COLUMN,
        resamples=UNCERTAINTY["resamples"],
        bootstrap_seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty_alpha.py"


rule winoground_tags:
    input:
        unpack(winoground_tag_inputs),
    output:
        metrics="results/metrics/{model}/winoground_tags.json",
        intervals="results/uncertainty/winoground_tags/{model}.csv",
    log:
        "logs/metrics/{model}/winoground_tags.log",
    benchmark:
        "benchmarks/winoground_tags/{model}.tsv"
    wildcard_constraints:
        model=union(TAG_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        exclude=BENCHMARK_SPECS.get("winoground_no_tag", {}).get("exclude", []),
        prior=PRIOR_COLUMN,
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        resamples=UNCERTAINTY["resamples"],
        bootstrap_seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/winoground_tags.py"
