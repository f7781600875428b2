rule table_aro:
    input:
        metrics_files(ARO_BENCHMARKS),
    output:
        csv=report(
            "results/tables/aro/aro.csv",
            caption="../report/aro_table.rst",
            category="ARO",
        ),
        md="results/tables/aro/aro.md",
    log:
        "logs/report/table_aro.log",
    benchmark:
        "benchmarks/table_aro.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="aro",
        groups=MODEL_GROUPS,
        options={"columns": aro_columns()},
    script:
        "../scripts/report_table.py"


rule table_sugarcrepe:
    input:
        metrics_files(["sugarcrepe"]),
    output:
        csv=report(
            "results/tables/sugarcrepe/sugarcrepe.csv",
            caption="../report/sugarcrepe.rst",
            category="SugarCrepe",
        ),
        md="results/tables/sugarcrepe/sugarcrepe.md",
    log:
        "logs/report/table_sugarcrepe.log",
    benchmark:
        "benchmarks/table_sugarcrepe.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="sugarcrepe",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule table_winoground:
    input:
        metrics_files(["winoground"]),
    output:
        csv=report(
            "results/tables/winoground/winoground.csv",
            caption="../report/winoground.rst",
            category="Winoground",
        ),
        md="results/tables/winoground/winoground.md",
    log:
        "logs/report/table_winoground.log",
    benchmark:
        "benchmarks/table_winoground.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="winoground",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule table_bivlc:
    input:
        metrics_files(["bivlc", "sugarcrepe"]),
    output:
        csv=report(
            "results/tables/bivlc/{table}.csv",
            caption="../report/bivlc.rst",
            category="BiVLC",
        ),
        md="results/tables/bivlc/{table}.md",
    log:
        "logs/report/bivlc_{table}.log",
    benchmark:
        "benchmarks/table_bivlc/{table}.tsv"
    wildcard_constraints:
        table="table2|table3|table6",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table=lambda wc: f"bivlc_{wc.table}",
        groups=MODEL_GROUPS,
        options=lambda wc: (
            {}
            if wc.table == "table6"
            else {"sugarcrepe": "sugarcrepe" if "sugarcrepe" in BENCHMARKS else None}
        ),
    script:
        "../scripts/report_table.py"


rule table_aro_finetuning:
    input:
        lambda wc: metrics_files(ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS)
        + (classification_metrics_files() if wc.table == "table6" else []),
    output:
        csv=report(
            "results/tables/aro/{table}.csv",
            caption="../report/aro_finetuning.rst",
            category="ARO",
        ),
        md="results/tables/aro/{table}.md",
    log:
        "logs/report/aro_{table}.log",
    benchmark:
        "benchmarks/table_aro_finetuning/{table}.tsv"
    wildcard_constraints:
        table="table2|table6",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table=lambda wc: f"aro_{wc.table}",
        groups=MODEL_GROUPS,
        options=lambda wc: (
            {"compositional": aro_columns(), "downstream": aro6_downstream()}
            if wc.table == "table6"
            else {}
        ),
    script:
        "../scripts/report_table.py"


rule figure_aro_radar:
    input:
        metrics_files(ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS),
        classification_metrics_files(),
    output:
        png=report(
            "results/figures/aro_fig3_radar.png",
            caption="../report/aro_radar.rst",
            category="ARO",
        ),
        pdf="results/figures/aro_fig3_radar.pdf",
    log:
        "logs/report/aro_fig3_radar.log",
    benchmark:
        "benchmarks/figure_aro_radar.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        groups=MODEL_GROUPS,
        title="Fine-tuning with hard negatives (ARO Fig. 3)",
        compositional=aro_columns(),
        downstream=aro6_downstream(),
    script:
        "../scripts/report_figure.py"


rule table_bison:
    input:
        metrics_files(["bison", BISON_RETRIEVAL]),
    output:
        csv=report(
            "results/tables/bison/bison.csv",
            caption="../report/bison.rst",
            category="BISON",
        ),
        md="results/tables/bison/bison.md",
    log:
        "logs/report/table_bison.log",
    benchmark:
        "benchmarks/table_bison.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="bison",
        groups=MODEL_GROUPS,
        options={"retrieval": BISON_RETRIEVAL},
    script:
        "../scripts/report_table.py"


if BISON_CAPTION_SCORES:

    rule table_bison_section6:
        input:
            bison="results/benchmarks/bison.parquet",
            annotations="resources/coco/annotations2014",
        output:
            json="results/metrics/bison_section6.json",
            intervals="results/uncertainty/bison_section6.csv",
            csv=report(
                "results/tables/bison/section6.csv",
                caption="../report/bison.rst",
                category="BISON",
            ),
            md="results/tables/bison/section6.md",
        log:
            "logs/report/table_bison_section6.log",
        benchmark:
            "benchmarks/table_bison_section6.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=8000,
            runtime=120,
        params:
            metrics=BISON_CAPTION_SCORES.get(
                "metrics", ["BLEU-4", "CIDEr-D", "METEOR", "SPICE"]
            ),
            seed=BISON_CAPTION_SCORES.get("seed", 0),
            n_negative_refs=BISON_CAPTION_SCORES.get("n_negative_refs", 4),
            tie_policy=BISON_CAPTION_SCORES.get("tie_policy", "strict"),
            resamples=UNCERTAINTY["resamples"],
            bootstrap_seed=UNCERTAINTY["seed"],
            confidence=UNCERTAINTY["confidence"],
            method=UNCERTAINTY["method"],
        script:
            "../scripts/bison_caption_scores.py"


rule table_robustness:
    input:
        metrics_files(["robustness"]),
    output:
        csv=report(
            "results/tables/robustness/{table}.csv",
            caption="../report/robustness.rst",
            category="ITR robustness",
        ),
        md="results/tables/robustness/{table}.md",
    log:
        "logs/report/robustness_{table}.log",
    benchmark:
        "benchmarks/table_robustness/{table}.tsv"
    wildcard_constraints:
        table="aro_table3|aro_table4|hendriksen|granularity",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table=lambda wc: f"robustness_{wc.table}",
        groups=MODEL_GROUPS,
        options={},
        notes=lambda wc: fg_notes(
            wc.table, ROBUSTNESS.get("galleries", {}), config.get("datasets", {})
        ),
    script:
        "../scripts/report_table.py"


rule table_bison_fig9:
    input:
        metrics_files(["bison_altered"]),
    output:
        csv=report(
            "results/tables/bison/fig9.csv",
            caption="../report/bison_fig9.rst",
            category="BISON",
        ),
        md="results/tables/bison/fig9.md",
    log:
        "logs/report/table_bison_fig9.log",
    benchmark:
        "benchmarks/table_bison_fig9.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="bison_fig9",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule figure_bison_fig9:
    input:
        "results/uncertainty/bison_altered.csv",
        "results/uncertainty/bison_altered_seeds.csv",
    output:
        png=report(
            "results/figures/bison_fig9.png",
            caption="../report/bison_fig9.rst",
            category="BISON",
        ),
        pdf="results/figures/bison_fig9.pdf",
    log:
        "logs/report/bison_fig9.log",
    benchmark:
        "benchmarks/figure_bison_fig9.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        groups=MODEL_GROUPS,
    script:
        "../scripts/report_bison_figure.py"


rule table_bivlc_counts:
    input:
        unpack(bivlc_count_inputs),
    output:
        csv=report(
            "results/tables/bivlc/table1.csv",
            caption="../report/bivlc_counts.rst",
            category="BiVLC",
        ),
        md="results/tables/bivlc/table1.md",
    log:
        "logs/report/bivlc_table1.log",
    benchmark:
        "benchmarks/table_bivlc_counts.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table="table1",
        winoground_name=VGS_NAMES.get("winoground", "Winoground"),
    script:
        "../scripts/report_generation.py"


if TROHN_TEXT_ROWS:

    rule table_bivlc_table5:
        input:
            **TROHN_TEXT_ROWS,
        output:
            csv=report(
                "results/tables/bivlc/table5.csv",
                caption="../report/bivlc_counts.rst",
                category="BiVLC",
            ),
            md="results/tables/bivlc/table5.md",
        log:
            "logs/report/bivlc_table5.log",
        benchmark:
            "benchmarks/table_bivlc_table5.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=8000,
            runtime=30,
        script:
            "../scripts/bivlc_table5.py"


if GENERATION:

    rule table_bivlc_filter:
        input:
            report="results/generated/bivlc/filter.json",
            selection="results/generated/bivlc/selection.parquet",
        output:
            csv=report(
                "results/tables/bivlc/filter.csv",
                caption="../report/bivlc_filter.rst",
                category="BiVLC",
            ),
            md="results/tables/bivlc/filter.md",
        log:
            "logs/report/bivlc_filter.log",
        benchmark:
            "benchmarks/table_bivlc_filter.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            table="filter",
            resamples=UNCERTAINTY["resamples"],
            seed=UNCERTAINTY["seed"],
            confidence=UNCERTAINTY["confidence"],
            method=UNCERTAINTY["method"],
        script:
            "../scripts/report_generation.py"


if DETECTORS:

    rule table_bivlc_detectors:
        input:
            metrics=expand(
                "results/detectors/{model}/metrics.json",
                model=DETECTORS.get("encoders", []),
            ),
        output:
            csv=report(
                "results/tables/bivlc/table4.csv",
                caption="../report/bivlc_detectors.rst",
                category="BiVLC",
            ),
            md="results/tables/bivlc/table4.md",
        log:
            "logs/report/bivlc_table4.log",
        benchmark:
            "benchmarks/table_bivlc_detectors.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            table="table4",
            labels={m: e["label"] for m, e in MODEL_ENTRIES.items()},
        script:
            "../scripts/report_generation.py"


if GENERATION:

    rule figure_generated_examples:
        input:
            instances="results/generated/bivlc/instances.parquet",
            manifest="results/generated/bivlc/manifest.parquet",
            images=sugarcrepe_imageset(),
        output:
            report(
                "results/figures/bivlc_generated_examples.png",
                caption="../report/bivlc_examples.rst",
                category="BiVLC",
            ),
        log:
            "logs/report/bivlc_generated_examples.log",
        benchmark:
            "benchmarks/figure_generated_examples.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            n=7,
        script:
            "../scripts/report_generated_examples.py"


rule table_vs_published:
    input:
        "results/tables/{paper}/{table}.csv",
    output:
        csv=report(
            "results/tables/{paper}/{table}_vs_published.csv",
            caption="../report/vs_published.rst",
            category="Reproduced vs published",
            subcategory="{paper}",
        ),
        md="results/tables/{paper}/{table}_vs_published.md",
    log:
        "logs/report/{paper}_{table}_vs_published.log",
    benchmark:
        "benchmarks/table_vs_published/{paper}/{table}.tsv"
    wildcard_constraints:
        paper=union({k.split("/")[0] for k in PUBLISHED_FOR}),
        table=union({k.split("/")[1] for k in PUBLISHED_FOR}),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        paper=lambda wc: PUBLISHED_FOR[f"{wc.paper}/{wc.table}"][0],
        tables=lambda wc: PUBLISHED_FOR[f"{wc.paper}/{wc.table}"][1],
        index=lambda wc: table_index(f"{wc.paper}/{wc.table}"),
        aliases=PUBLISHED_ALIASES,
        # published row -> our rows reproducing it (labels, models' published_as)
        counterparts=lambda wc: published_counterparts(
            config, *PUBLISHED_FOR[f"{wc.paper}/{wc.table}"]
        ),
        published_only=PUBLISHED_ONLY,
    script:
        "../scripts/report_vs_published.py"


rule table_intervals:
    input:
        unpack(table_interval_inputs),
    output:
        csv=report(
            "results/tables/{paper}/{table}_ci.csv",
            caption="../report/table_ci.rst",
            category="Tables with CIs",
            subcategory="{paper}",
        ),
        md="results/tables/{paper}/{table}_ci.md",
    log:
        "logs/report/{paper}_{table}_ci.log",
    benchmark:
        "benchmarks/table_intervals/{paper}/{table}.tsv"
    wildcard_constraints:
        paper=union({k.split("/")[0] for k in INTERVAL_TABLES}),
        table=union({k.split("/")[1] for k in INTERVAL_TABLES}),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table=lambda wc: f"{wc.paper}/{wc.table}",
        index=lambda wc: table_index(f"{wc.paper}/{wc.table}"),
        benchmarks=lambda wc: interval_benchmarks(f"{wc.paper}/{wc.table}"),
        kinds=lambda wc: {
            b: INTERVAL_KINDS[b] for b in interval_benchmarks(f"{wc.paper}/{wc.table}")
        },
        labels=benchmark_labels(),
        groups=MODEL_GROUPS,
        detector_labels={
            m: MODEL_ENTRIES[m]["label"] for m in DETECTORS.get("encoders", [])
        },
        model_labels={m: MODEL_ENTRIES[m]["label"] for m in BLIP_MODELS},
        names=vgs_names(),
        best_of=[
            label for label, role in model_roles().items() if role == "discriminative"
        ],
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/table_intervals.py"


rule blind_scores:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        source=blind_source,
    output:
        "results/scores/{blind}/{benchmark}.parquet",
    log:
        "logs/blind/{blind}/{benchmark}.log",
    benchmark:
        "benchmarks/blind_scores/{blind}/{benchmark}.tsv"
    wildcard_constraints:
        blind=union(BLIND_MODELS),
        benchmark=union(BLIND_BENCHMARKS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
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
        groups=MODEL_GROUPS,
        folds=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("folds"),
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty_retrieval.py"


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


rule summary:
    input:
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
