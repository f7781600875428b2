# ARO (Yuksekgonul et al.): its tables and Figure 3's radar from every model's metric records.


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
