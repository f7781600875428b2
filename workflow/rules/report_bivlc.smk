# BiVLC (Miranda et al.) and SugarCrepe: their tables, the generated sets' filter and
# detectors, and the generated examples' figure.


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
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(30, attempt),
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
