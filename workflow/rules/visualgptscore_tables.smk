# VisualGPTScore (Lin et al.)'s tables: Tables 1, 2 and 4 (with their own intervals), the
# methods table, appendix Table 5 (null sampling) and Tables 10-13 (BLIP-2, pair sets, tags).


# (it writes its own table{2,4}_ci.csv; rule table_intervals skips them: OWN_CI_TABLES)
rule table_visualgptscore:
    input:
        json=expand(
            "results/metrics/{model}/{benchmark}_alpha.json",
            model=GENERATIVE_MODELS,
            benchmark=ALPHA_BENCHMARKS,
        ),
        csv=expand(
            "results/metrics/{model}/{benchmark}_alpha.csv",
            model=GENERATIVE_MODELS,
            benchmark=ALPHA_BENCHMARKS,
        ),
        retrieval=expand(
            "results/metrics/{model}/{benchmark}_alpha.json",
            model=GENERATIVE_RETRIEVAL_MODELS,
            benchmark=RETRIEVAL_BENCHMARKS,
        ),
        intervals=alpha_interval_files(),
        itm=expand(
            "results/metrics/{model}/{benchmark}_halves.json",
            model=ITM_MODELS,
            benchmark=HALVES_BENCHMARKS,
        ),
        itm_retrieval=expand(
            "results/metrics/{model}/{benchmark}.json",
            model=[m for m in ITM_MODELS if m in EMBEDDING_MODELS],
            benchmark=RETRIEVAL_BENCHMARKS,
        ),
    output:
        table2_csv=report(
            "results/tables/visualgptscore/table2.csv",
            caption="../report/visualgptscore_table2.rst",
            category="VisualGPTScore",
        ),
        table2_md="results/tables/visualgptscore/table2.md",
        table4_csv=report(
            "results/tables/visualgptscore/table4.csv",
            caption="../report/visualgptscore_table2.rst",
            category="VisualGPTScore",
        ),
        table4_md="results/tables/visualgptscore/table4.md",
        table2_ci=report(
            "results/tables/visualgptscore/table2_ci.csv",
            caption="../report/uncertainty_alpha.rst",
            category="VisualGPTScore",
        ),
        table4_ci=report(
            "results/tables/visualgptscore/table4_ci.csv",
            caption="../report/uncertainty_alpha.rst",
            category="VisualGPTScore",
        ),
        table2_ci_md="results/tables/visualgptscore/table2_ci.md",
        table4_ci_md="results/tables/visualgptscore/table4_ci.md",
        figure=report(
            "results/figures/visualgptscore_alpha_curves.png",
            caption="../report/visualgptscore_table2.rst",
            category="VisualGPTScore",
        ),
        figure_pdf="results/figures/visualgptscore_alpha_curves.pdf",
    log:
        "logs/report/table_visualgptscore.log",
    benchmark:
        "benchmarks/table_visualgptscore.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        labels={m: MODEL_ENTRIES[m]["label"] for m in GENERATIVE_MODELS + ITM_MODELS},
        names=vgs_names(),
        llms={name: lm["label"] for name, lm in TEXT_PRIORS.items()},
        confidence=UNCERTAINTY["confidence"],
    script:
        "../scripts/report_visualgptscore.py"


rule table_visualgptscore_methods:
    input:
        metrics=metrics_files(METHOD_TABLE_BENCHMARKS),
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=METHOD_TABLE_BENCHMARKS
        ),
        sampling=VL_CHECKLIST_SAMPLING,
    output:
        csv=report(
            "results/tables/visualgptscore/table1.csv",
            caption="../report/visualgptscore_table1.rst",
            category="VisualGPTScore",
        ),
        md="results/tables/visualgptscore/table1.md",
    log:
        "logs/report/table_visualgptscore_methods.log",
    benchmark:
        "benchmarks/table_visualgptscore_methods.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        metrics={b: BENCHMARK_KIND[b] for b in METHOD_TABLE_BENCHMARKS},
        groups=MODEL_GROUPS,
        roles=model_roles(),
        names=vgs_names(),
    script:
        "../scripts/report_visualgptscore_methods.py"


rule table_visualgptscore_null_sampling:
    input:
        benchmark=expand(
            "results/benchmarks/{benchmark}.parquet",
            benchmark=NULL_SAMPLING.get("benchmark", []),
        ),
        scores=expand(
            "results/scores/{model}/{benchmark}.parquet",
            model=NULL_SAMPLING_MODELS,
            benchmark=NULL_SAMPLING.get("benchmark", []),
        ),
        priors=expand(
            "results/priors/{model}/{benchmark}_null_sampling.parquet",
            model=NULL_SAMPLING_MODELS,
            benchmark=NULL_SAMPLING.get("benchmark", []),
        ),
    output:
        csv=report(
            "results/tables/visualgptscore/table5.csv",
            caption="../report/visualgptscore_appendix.rst",
            category="VisualGPTScore",
        ),
        md="results/tables/visualgptscore/table5.md",
        runs="results/metrics/visualgptscore_null_sampling.csv",
        # null against training images, per count: t intervals over the seeds
        intervals="results/uncertainty/visualgptscore_null_sampling.csv",
    log:
        "logs/report/table_visualgptscore_null_sampling.log",
    benchmark:
        "benchmarks/table_visualgptscore_null_sampling.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        models=NULL_SAMPLING_MODELS,
        labels={m: MODEL_ENTRIES[m]["label"] for m in NULL_SAMPLING_MODELS},
        benchmark=NULL_SAMPLING.get("benchmark"),
        counts=NULL_SAMPLING.get("counts", []),
        seeds=NULL_SAMPLING.get("seeds", []),
        sources=NULL_SAMPLING.get("sources", []),
        confidence=UNCERTAINTY["confidence"],
        kind=lambda wc: BENCHMARK_KIND.get(NULL_SAMPLING.get("benchmark"), ""),
        options=lambda wc: metric_options(NULL_SAMPLING.get("benchmark")),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        names=vgs_names(),
        notes=[
            "alpha=alpha*: the oracle alpha* of the text score on all items (grid step "
            "visualgptscore.alpha_step, the smallest alpha with the best score); P(t) from "
            "the first n of each seed's Gaussian null images (null), or of each seed's "
            "training images in a seeded order (train); mean and population std (ddof 0) "
            "over the seeds (per-seed rows: "
            "results/metrics/visualgptscore_null_sampling.csv). The paper's LAION rows "
            "sample LAION-114M training images, which the workflow does not have; "
            + (
                f"the train rows sample the train split of "
                f"{PRIOR_TRAIN_IMAGES.get('dataset')} instead."
                if "train" in NULL_SAMPLING.get("sources", [])
                else "no train rows are configured (null_sampling.sources)."
            ),
        ],
    script:
        "../scripts/report_visualgptscore_null_sampling.py"


rule table_visualgptscore_blip2:
    input:
        metrics=expand(
            "results/metrics/{model}/{benchmark}.json",
            model=BLIP2_MODELS,
            benchmark=TABLE10_BENCHMARKS,
        ),
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=TABLE10_BENCHMARKS
        ),
        sampling=(VL_CHECKLIST_SAMPLING if "vl_checklist" in TABLE10_BENCHMARKS else []),
    output:
        csv=report(
            "results/tables/visualgptscore/table10.csv",
            caption="../report/visualgptscore_appendix.rst",
            category="VisualGPTScore",
        ),
        md="results/tables/visualgptscore/table10.md",
    log:
        "logs/report/table_visualgptscore_blip2.log",
    benchmark:
        "benchmarks/table_visualgptscore_blip2.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        metrics={b: BENCHMARK_KIND[b] for b in TABLE10_BENCHMARKS},
        groups={MODEL_ENTRIES[m]["label"]: [m] for m in BLIP2_MODELS},
        roles=model_roles(),
        names=vgs_names(),
        notes=[BLIP2_NOTE],
    script:
        "../scripts/report_visualgptscore_blip2.py"


rule table_visualgptscore_pairs:
    input:
        metrics=expand(
            "results/metrics/{model}/{benchmark}.json",
            model=BLIP_MODELS,
            benchmark=PAIR_TABLE_BENCHMARKS,
        ),
        alpha=expand(
            "results/metrics/{model}/{benchmark}_alpha.json",
            model=[m for m in BLIP_MODELS if m in GENERATIVE_MODELS],
            benchmark=PAIR_TABLE_BENCHMARKS,
        ),
    output:
        csv=report(
            "results/tables/visualgptscore/table11.csv",
            caption="../report/visualgptscore_appendix.rst",
            category="VisualGPTScore",
        ),
        md="results/tables/visualgptscore/table11.md",
    log:
        "logs/report/table_visualgptscore_pairs.log",
    benchmark:
        "benchmarks/table_visualgptscore_pairs.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        models=BLIP_MODELS,
        labels={m: MODEL_ENTRIES[m]["label"] for m in BLIP_MODELS},
        names=vgs_names(),
        notes=[
            "alpha=alpha*: the oracle alpha* of each benchmark's text score (all items); "
            "the image score does not depend on alpha.",
            BLIP2_NOTE,
        ],
    script:
        "../scripts/report_visualgptscore_pairs.py"


rule table_visualgptscore_tags:
    input:
        tags=expand("results/metrics/{model}/winoground_tags.json", model=TAG_MODELS),
    output:
        csv=report(
            "results/tables/visualgptscore/table13.csv",
            caption="../report/visualgptscore_appendix.rst",
            category="VisualGPTScore",
        ),
        md="results/tables/visualgptscore/table13.md",
    log:
        "logs/report/table_visualgptscore_tags.log",
    benchmark:
        "benchmarks/table_visualgptscore_tags.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        models=TAG_MODELS,
        labels={m: MODEL_ENTRIES[m]["label"] for m in TAG_MODELS},
        notes=[
            "alpha=alpha*: each tag's own oracle alpha* (the smallest alpha with its best "
            "text score); No-Tag: the items without any tag in Diwan et al.'s file.",
            BLIP2_NOTE,
        ],
    script:
        "../scripts/report_visualgptscore_tags.py"
