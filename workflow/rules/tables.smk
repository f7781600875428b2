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


if COMPARED_TABLES:

    # Every reproduced table beside its published numbers, in one job (one file pair each)
    rule table_vs_published:
        input:
            expand("results/tables/{key}.csv", key=COMPARED_TABLES),
        output:
            csv=[
                report(
                    f"results/tables/{key}_vs_published.csv",
                    caption="../report/vs_published.rst",
                    category="Reproduced vs published",
                    subcategory=key.split("/")[0],
                )
                for key in COMPARED_TABLES
            ],
            md=expand("results/tables/{key}_vs_published.md", key=COMPARED_TABLES),
        log:
            "logs/report/tables_vs_published.log",
        benchmark:
            "benchmarks/table_vs_published.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            # per table: the paper, its published tables, our index columns, and the rows
            # reproducing each published row (labels, models' published_as)
            tables=[
                {
                    "key": key,
                    "paper": PUBLISHED_FOR[key][0],
                    "tables": PUBLISHED_FOR[key][1],
                    "index": table_index(key),
                    "counterparts": published_counterparts(
                        config, *PUBLISHED_FOR[key]
                    ),
                }
                for key in COMPARED_TABLES
            ],
            aliases=PUBLISHED_ALIASES,
            published_only=PUBLISHED_ONLY,
            directions=WORLD_ONLY,
        script:
            "../scripts/report_vs_published.py"


if INTERVAL_TABLES:

    # Every paper table's companion with its numbers' intervals, in one job (one file pair
    # each)
    rule table_intervals:
        input:
            table_interval_inputs,
        output:
            csv=[
                report(
                    f"results/tables/{key}_ci.csv",
                    caption="../report/table_ci.rst",
                    category="Tables with CIs",
                    subcategory=key.split("/")[0],
                )
                for key in INTERVAL_TABLES
            ],
            md=expand("results/tables/{key}_ci.md", key=INTERVAL_TABLES),
        log:
            "logs/report/tables_ci.log",
        benchmark:
            "benchmarks/table_intervals.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            tables=table_interval_specs(),
            labels=benchmark_labels(),
            groups=MODEL_GROUPS,
            detector_labels={
                m: MODEL_ENTRIES[m]["label"] for m in DETECTORS.get("encoders", [])
            },
            model_labels={m: MODEL_ENTRIES[m]["label"] for m in BLIP_MODELS},
            names=vgs_names(),
            best_of=[
                label
                for label, role in model_roles().items()
                if role == "discriminative"
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
