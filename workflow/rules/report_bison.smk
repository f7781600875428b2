# BISON (Hu et al.): its accuracy tables, section 6's caption scores and Figure 9's query
# alterations.


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
            spice=spice_inputs(
                BISON_CAPTION_SCORES.get(
                    "metrics", ["BLEU-4", "CIDEr-D", "METEOR", "SPICE"]
                )
            ),
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
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: by_attempt(120, attempt),
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
