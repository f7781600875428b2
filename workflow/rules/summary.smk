# The run's summary: every model's headline metrics with intervals, their rank correlation
# across benchmarks, and the analysis figures.


rule rank_correlation:
    input:
        expand("results/uncertainty/{benchmark}.csv", benchmark=ANALYSIS_BENCHMARKS),
    output:
        csv=report(
            "results/tables/analysis/rank_correlation.csv",
            caption="../report/rank_correlation.rst",
            category="Cross-benchmark analysis",
        ),
        md="results/tables/analysis/rank_correlation.md",
        png=report(
            "results/figures/rank_correlation.png",
            caption="../report/rank_correlation.rst",
            category="Cross-benchmark analysis",
        ),
        pdf="results/figures/rank_correlation.pdf",
    log:
        "logs/report/rank_correlation.log",
    benchmark:
        "benchmarks/rank_correlation.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        benchmarks=ANALYSIS_BENCHMARKS,
        kinds=BENCHMARK_KIND,
        labels=benchmark_labels(),
        models=MODELS,  # evaluated models only: no blind baseline
    script:
        "../scripts/rank_correlation.py"


rule findings:
    input:
        intervals=expand(
            "results/uncertainty/{benchmark}.csv", benchmark=INTERVAL_BENCHMARKS
        ),
        comparisons=expand(
            "results/uncertainty/{benchmark}_comparisons.csv",
            benchmark=INTERVAL_BENCHMARKS,
        ),
        robustness=(
            [
                "results/uncertainty/robustness.csv",
                "results/uncertainty/robustness_comparisons.csv",
                "results/uncertainty/granularity.csv",
            ]
            if "robustness" in BENCHMARKS
            else []
        ),
        detectors=["results/uncertainty/detectors.csv"] if DETECTORS else [],
        alpha=alpha_interval_files(),
        judged=expand(
            "results/uncertainty/retrieval_errors_{gallery}.csv",
            gallery=JUDGED_GALLERIES,
        ),
        # BISON §4.2: its accuracy and retrieval's R@1 rank the retrieval systems alike
        rank=(["results/uncertainty/bison_rank_agreement.csv"] if BISON_RANK else []),
        # BISON Figure 8: its captioners' caption scores, items predicted right vs wrong
        figure8=(["results/uncertainty/bison_figure8.csv"] if BISON_CAPTIONING else []),
        # VisualGPTScore appendix Table 5: null against training images over the seeds
        null_sampling=(
            ["results/uncertainty/visualgptscore_null_sampling.csv"]
            if NULL_SAMPLING_MODELS
            else []
        ),
        # paper tables a claim reads a cell of (BISON Table 4's caption scores): the
        # interval companion where the table has one, else the table (exact numbers)
        tables=[
            (
                f"results/tables/{key}_ci.csv"
                if key in ci_tables(all_tables())
                else f"results/tables/{key}.csv"
            )
            for key in claim_tables()
            if f"results/tables/{key}.md" in all_tables()
        ],
        claims=f"{workflow.basedir}/src/vlcomp/report/claims.yaml",
        paper_models=f"{workflow.basedir}/src/vlcomp/report/paper_models.yaml",
        front_page=f"{workflow.basedir}/workflow/report/workflow.rst",
    output:
        claims="results/claims.csv",
        csv="results/findings.csv",
        md=report(
            "results/findings.md", caption="../report/findings.rst", category="Summary"
        ),
        front_page="results/report_front.rst",
    log:
        "logs/report/findings.log",
    benchmark:
        "benchmarks/findings.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        groups=MODEL_GROUPS | {label: [b] for b, label in BLIND_MODELS.items()},
        paper_labels=paper_model_labels(config),
        untested=models_playing_no_paper_model(config),
        confidence=UNCERTAINTY["confidence"],
    script:
        "../scripts/findings.py"


rule summary:
    input:
        claims="results/claims.csv",
        findings="results/findings.csv",
        comparisons=expand(
            "results/uncertainty/{benchmark}_comparisons.csv",
            benchmark=INTERVAL_BENCHMARKS,
        ),
        intervals=expand(
            "results/uncertainty/{benchmark}.csv", benchmark=INTERVAL_BENCHMARKS
        ),
        seeds=expand(
            "results/uncertainty/{benchmark}_seeds.csv", benchmark=INTERVAL_BENCHMARKS
        ),
        published=[
            t.removesuffix(".md") + ".csv"
            for t in all_tables()
            if t.endswith("_vs_published.md")
        ],
        robustness=(
            ["results/uncertainty/robustness.csv"]
            if "robustness" in BENCHMARKS
            else []
        ),
        detectors=["results/uncertainty/detectors.csv"] if DETECTORS else [],
        companions=[
            f"results/tables/{key}_ci.csv"
            for key in ci_tables(all_tables())
            if key in CELL_CI_TABLES
        ],
    output:
        report(
            "results/summary.md", caption="../report/summary.rst", category="Summary"
        ),
    log:
        "logs/report/summary.log",
    benchmark:
        "benchmarks/summary.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        benchmarks=INTERVAL_BENCHMARKS,
        kinds=INTERVAL_KINDS,
        labels=benchmark_labels(),
        groups=MODEL_GROUPS | {label: [b] for b, label in BLIND_MODELS.items()},
        aliases=PUBLISHED_ALIASES,
        detector_labels={
            m: MODEL_ENTRIES[m]["label"] for m in DETECTORS.get("encoders", [])
        },
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/summary.py"


rule figure_analysis:
    input:
        lambda wc: {
            "aro_relations": [
                "results/uncertainty/vg_relation.csv",
                "results/uncertainty/vg_relation_seeds.csv",
            ],
            "bivlc_scatter": [
                "results/uncertainty/bivlc.csv",
                "results/uncertainty/bivlc_seeds.csv",
            ],
            "robustness_drops": "results/uncertainty/robustness.csv",
        }[wc.figure],
    output:
        png=report(
            "results/figures/{figure}.png",
            caption="../report/figures.rst",
            category="Figures",
        ),
        pdf="results/figures/{figure}.pdf",
    log:
        "logs/report/figure_{figure}.log",
    benchmark:
        "benchmarks/figure_analysis/{figure}.tsv"
    wildcard_constraints:
        figure="aro_relations|bivlc_scatter|robustness_drops",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        figure=lambda wc: wc.figure,
        groups=MODEL_GROUPS,
    script:
        "../scripts/report_analysis_figure.py"


# The results page (config report): findings, headline figures, paper tables, item browsers
rule results_page:
    input:
        claims="results/claims.csv",
        findings="results/findings.csv",
        tables=all_tables(),
        benchmark_items=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        scores=[
            f"results/scores/{m}/{b}.parquet"
            for b in CHOICE_BENCHMARKS
            for m in uncertainty_models(b)
            if m in MODEL_ENTRIES
        ],
        imagesets=sorted(
            {
                f"results/imagesets/{s}.parquet"
                for b in CHOICE_BENCHMARKS
                for s in BENCHMARK_IMAGESETS[b]
            }
        ),
    output:
        "results/index.html",
    log:
        "logs/report/results_page.log",
    benchmark:
        "benchmarks/results_page.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        benchmarks={b: BENCHMARK_IMAGESETS[b] for b in CHOICE_BENCHMARKS},
        models=MODELS,
        labels={m: e.get("label", m) for m, e in MODEL_ENTRIES.items()},
        sample=config_section(config, "report")["items"],
        seed=config_section(config, "report")["seed"],
    script:
        "../scripts/results_page.py"
