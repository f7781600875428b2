# Tables across the papers: Winoground, every reproduced table beside its published numbers,
# and the tables' interval companions.


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
        directions=WORLD_ONLY,
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


rule model_vs_published:
    input:
        lambda wc: expand("results/tables/{key}.csv", key=COMPARED_TABLES),
    output:
        csv="results/models/{model}_vs_published.csv",
        md="results/models/{model}_vs_published.md",
    log:
        "logs/report/model_vs_published_{model}.log",
    benchmark:
        "benchmarks/model_vs_published/{model}.tsv"
    wildcard_constraints:
        model=union(config["models"]),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        label=lambda wc: group_label(wc.model),
        tables=COMPARED_TABLES,
        index={key: table_index(key) for key in COMPARED_TABLES},
        published={key: PUBLISHED_FOR[key] for key in COMPARED_TABLES},
        aliases=PUBLISHED_ALIASES,
        world=WORLD_ONLY,
    script:
        "../scripts/report_model_vs_published.py"
