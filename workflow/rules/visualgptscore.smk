# VisualGPTScore (Lin et al.): text priors log P(t) of generative models (hf_blip_lm) and
# their accuracy over alpha, score = log P(t|i) - alpha log P(t), on image->text benchmarks.


rule text_prior:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        model=model_inputs,
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES['dataset']}_train.parquet"
            if PRIOR_TRAIN_IMAGES
            else []
        ),
    output:
        "results/priors/{model}/{benchmark}.parquet",
    log:
        "logs/priors/{model}/{benchmark}.log",
    benchmark:
        "benchmarks/text_prior/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(ALPHA_BENCHMARKS),
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=16000,
        runtime=120,
    params:
        entry=lambda wc: model_entry(wc.model),
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        llm=VISUALGPTSCORE.get("llm", {}),
        batch_size=config["embed"].get("pair_batch_size", 64),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=config["compute"].get("autocast", "none"),
    script:
        "../scripts/text_prior.py"


rule alpha_curve:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
        prior="results/priors/{model}/{benchmark}.parquet",
    output:
        csv="results/metrics/{model}/{benchmark}_alpha.csv",
        json="results/metrics/{model}/{benchmark}_alpha.json",
    log:
        "logs/metrics/{model}/{benchmark}_alpha.log",
    benchmark:
        "benchmarks/alpha_curve/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(ALPHA_BENCHMARKS),
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
        prior=VISUALGPTSCORE.get("alpha_prior", "null"),
    script:
        "../scripts/alpha_curve.py"


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
            model=GENERATIVE_MODELS,
            benchmark=RETRIEVAL_BENCHMARKS,
        ),
    output:
        table2_csv="results/tables/visualgptscore/table2.csv",
        table2_md="results/tables/visualgptscore/table2.md",
        table4_csv="results/tables/visualgptscore/table4.csv",
        table4_md="results/tables/visualgptscore/table4.md",
        figure="results/figures/visualgptscore_alpha_curves.png",
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
        labels={m: MODEL_ENTRIES[m]["label"] for m in GENERATIVE_MODELS},
        names=vgs_names(),
    script:
        "../scripts/report_visualgptscore.py"


rule table_visualgptscore_methods:
    input:
        metrics=metrics_files(METHOD_TABLE_BENCHMARKS),
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=METHOD_TABLE_BENCHMARKS
        ),
    output:
        csv="results/tables/visualgptscore/table1.csv",
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
        roles={
            entry["label"]: (
                "generative"
                if m in GENERATIVE_MODELS
                else "itm" if entry["family"] == "hf_blip_itm" else "discriminative"
            )
            for m, entry in MODEL_ENTRIES.items()
        },
        names=vgs_names(),
    script:
        "../scripts/report_visualgptscore_methods.py"


rule generative_retrieval:
    input:
        gallery="results/benchmarks/{benchmark}/gallery.parquet",
        queries="results/benchmarks/{benchmark}/queries.parquet",
        test_images=lambda wc: f"results/imagesets/{dataset_of(wc.benchmark)}_test.parquet",
        val_images=lambda wc: f"results/imagesets/{dataset_of(wc.benchmark)}_val.parquet",
        captions=lambda wc: f"results/data/{dataset_of(wc.benchmark)}/captions.parquet",
        model=model_inputs,
    output:
        scores="results/scores/{model}/{benchmark}.npz",
        csv="results/metrics/{model}/{benchmark}_alpha.csv",
        json="results/metrics/{model}/{benchmark}_alpha.json",
    log:
        "logs/metrics/{model}/{benchmark}_alpha.log",
    benchmark:
        "benchmarks/generative_retrieval/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=RETRIEVAL_BENCHMARK_PATTERN,
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=16000,
        runtime=720,  # a full COCO gallery is 5k x 25k forward passes of the text decoder
    params:
        entry=lambda wc: model_entry(wc.model),
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        batch_size=config["embed"].get("pair_batch_size", 64),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=config["compute"].get("autocast", "none"),
    script:
        "../scripts/generative_retrieval.py"
