# BISON (Hu et al.): its accuracy tables, the rank agreement of its accuracy with retrieval
# (§4.2), section 6's caption scores and Figure 9's query alterations.


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


if BISON_RANK:

    rule bison_rank_agreement:
        input:
            unpack(
                lambda wc: fold_order_inputs(benchmark_wildcards(BISON_RANK_RETRIEVAL))
            ),
            bison="results/benchmarks/bison.parquet",
            scores=expand(
                "results/scores/{model}/bison.parquet", model=BISON_RANK_MODELS
            ),
            gallery=f"results/benchmarks/{BISON_RANK_RETRIEVAL}/gallery.parquet",
            queries=f"results/benchmarks/{BISON_RANK_RETRIEVAL}/queries.parquet",
            images=[
                f"results/embeddings/{m}/images/"
                f"{BENCHMARK_IMAGESETS[BISON_RANK_RETRIEVAL][0]}.npy"
                for m in BISON_RANK_MODELS
            ],
            texts=[
                f"results/embeddings/{m}/texts/{BISON_RANK_RETRIEVAL}.npy"
                for m in BISON_RANK_MODELS
            ],
            reranked=[
                f
                for m in BISON_RANK_MODELS
                for f in reranked_file(m, BISON_RANK_RETRIEVAL)
            ],
        output:
            "results/uncertainty/bison_rank_agreement.csv",
        log:
            "logs/uncertainty/bison_rank_agreement.log",
        benchmark:
            "benchmarks/bison_rank_agreement.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            systems=BISON_RANK_SYSTEMS,
            models=BISON_RANK_MODELS,
            bison_options=metric_options("bison"),
            retrieval=BISON_RANK_RETRIEVAL,
            retrieval_metric=(
                "folds t2i_r1"
                if BENCHMARK_SPECS[BISON_RANK_RETRIEVAL].get("folds")
                else "t2i_r1"
            ),
            folds=BENCHMARK_SPECS[BISON_RANK_RETRIEVAL].get("folds"),
            fold_file=fold_order_file(BISON_RANK_RETRIEVAL),
            reranked_models=[
                m for m in BISON_RANK_MODELS if reranked_file(m, BISON_RANK_RETRIEVAL)
            ],
            resamples=UNCERTAINTY["resamples"],
            seed=UNCERTAINTY["seed"],
            confidence=UNCERTAINTY["confidence"],
            method=UNCERTAINTY["method"],
        script:
            "../scripts/bison_rank_agreement.py"


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
            runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
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
