rule table_aro:
    input:
        metrics_files(ARO_BENCHMARKS),
    output:
        csv="results/tables/aro/aro.csv",
        md="results/tables/aro/aro.md",
    log:
        "logs/report/table_aro.log",
    conda:
        "../../envs/core.yaml"
    params:
        table="aro",
        groups=MODEL_GROUPS,
        options={
            "columns": {
                "vg_relation": "VG-Relation",
                "vg_attribution": "VG-Attribution",
                "order": "Order",
            }
        },
    script:
        "../scripts/report_table.py"


rule table_sugarcrepe:
    input:
        metrics_files(["sugarcrepe"]),
    output:
        csv="results/tables/sugarcrepe/sugarcrepe.csv",
        md="results/tables/sugarcrepe/sugarcrepe.md",
    log:
        "logs/report/table_sugarcrepe.log",
    conda:
        "../../envs/core.yaml"
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
        csv="results/tables/bivlc/{table}.csv",
        md="results/tables/bivlc/{table}.md",
    log:
        "logs/report/bivlc_{table}.log",
    wildcard_constraints:
        table="table2|table3|table6",
    conda:
        "../../envs/core.yaml"
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
        metrics_files(ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS),
    output:
        csv="results/tables/aro/{table}.csv",
        md="results/tables/aro/{table}.md",
    log:
        "logs/report/aro_{table}.log",
    wildcard_constraints:
        table="table2|table6",
    conda:
        "../../envs/core.yaml"
    params:
        table=lambda wc: f"aro_{wc.table}",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule figure_aro_radar:
    input:
        metrics_files(ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS),
    output:
        png="results/figures/aro_fig3_radar.png",
    log:
        "logs/report/aro_fig3_radar.log",
    conda:
        "../../envs/core.yaml"
    params:
        groups=MODEL_GROUPS,
        title="Fine-tuning with hard negatives (ARO Fig. 3)",
    script:
        "../scripts/report_figure.py"


rule table_bison:
    input:
        metrics_files(["bison"]),
    output:
        csv="results/tables/bison/bison.csv",
        md="results/tables/bison/bison.md",
    log:
        "logs/report/table_bison.log",
    conda:
        "../../envs/core.yaml"
    params:
        table="bison",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule table_robustness:
    input:
        metrics_files(["robustness"]),
    output:
        csv="results/tables/robustness/{table}.csv",
        md="results/tables/robustness/{table}.md",
    log:
        "logs/report/robustness_{table}.log",
    wildcard_constraints:
        table="aro_table3|aro_table4|hendriksen|granularity",
    conda:
        "../../envs/core.yaml"
    params:
        table=lambda wc: f"robustness_{wc.table}",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule table_bison_fig9:
    input:
        metrics_files(["bison_altered"]),
    output:
        csv="results/tables/bison/fig9.csv",
        md="results/tables/bison/fig9.md",
    log:
        "logs/report/table_bison_fig9.log",
    conda:
        "../../envs/core.yaml"
    params:
        table="bison_fig9",
        groups=MODEL_GROUPS,
        options={},
    script:
        "../scripts/report_table.py"


rule figure_bison_fig9:
    input:
        metrics_files(["bison_altered"]),
    output:
        png="results/figures/bison_fig9.png",
    log:
        "logs/report/bison_fig9.log",
    conda:
        "../../envs/core.yaml"
    params:
        groups=MODEL_GROUPS,
    script:
        "../scripts/report_bison_figure.py"
