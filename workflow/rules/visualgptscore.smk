# VisualGPTScore (Lin et al.): text priors log P(t) of generative models (the captioner
# families: BLIP, BLIP-2) and their accuracy over alpha, score = log P(t|i) - alpha log P(t),
# on image->text benchmarks.


# One job per captioner: every choice benchmark's pairs, the text priors (null images,
# training images, text-only LM) and the retrieval galleries, each picture encoded once.
rule score_generative:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        galleries=retrieval_inputs("galleries"),
        queries=retrieval_inputs("queries"),
        test_images=retrieval_inputs("test_images"),
        val_images=retrieval_inputs("val_images"),
        captions=retrieval_inputs("captions"),
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES['dataset']}_train.parquet"
            if PRIOR_TRAIN_IMAGES
            else []
        ),
        llm_priors=expand("results/text_priors/{lm}.parquet", lm=TEXT_PRIORS),
        model=model_inputs,
    output:
        scores=expand(
            "results/scores/{{model}}/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        priors=expand(
            "results/priors/{{model}}/{benchmark}.parquet", benchmark=ALPHA_BENCHMARKS
        ),
        prior_images=(
            ["results/priors/{model}/prior_images.json"] if ALPHA_BENCHMARKS else []
        ),
        retrieval=expand(
            "results/scores/{{model}}/{benchmark}.npz", benchmark=RETRIEVAL_BENCHMARKS
        ),
    log:
        "logs/score_pairs/{model}.log",
    benchmark:
        "benchmarks/score_generative/{model}.tsv"
    wildcard_constraints:
        model=union(
            m for m in GENERATIVE_RETRIEVAL_MODELS if m not in SHARDED_RETRIEVAL_MODELS
        ),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].runtime, attempt),
    params:
        entry=lambda wc: model_entry(wc.model),
        choice=CHOICE_BENCHMARKS,
        alpha=ALPHA_BENCHMARKS,
        retrieval=RETRIEVAL_BENCHMARKS,
        queries={
            b: BENCHMARK_SPECS[b].get("queries", "finest")
            for b in RETRIEVAL_BENCHMARKS
        },
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        llm=list(TEXT_PRIORS),
        batch_size=EMBED["pair_batch_size"],
        image_batch=EMBED["batch_size"],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=COMPUTE["autocast"],
    script:
        "../scripts/score_pair_model.py"


# A text-only LM's log P_LLM(t) of every image->text benchmark's texts, once per LM (not
# per captioner); every captioner's prior tables carry it as log_prior_llm_{lm}.
rule llm_prior:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=ALPHA_BENCHMARKS
        ),
        lm=lambda wc: lm_pins(TEXT_PRIORS[wc.lm], f"visualgptscore.llm {wc.lm}").inputs,
    output:
        "results/text_priors/{lm}.parquet",
    log:
        "logs/text_priors/{lm}.log",
    benchmark:
        "benchmarks/llm_prior/{lm}.tsv"
    wildcard_constraints:
        lm=union(TEXT_PRIORS),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("llm_prior", wc.lm).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: by_attempt(
            estimated_job("llm_prior", wc.lm).runtime, attempt
        ),
    params:
        entry=lambda wc: TEXT_PRIORS[wc.lm],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    script:
        "../scripts/llm_prior.py"


# A captioner with retrieval: false (BLIP-2's: every gallery pair would be an LLM pass)
# scores the choice benchmarks and the text priors only; so does one whose galleries are
# scored in shards (rules score_generative_retrieval_shard / _gather).
use rule score_generative as score_generative_choice with:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES['dataset']}_train.parquet"
            if PRIOR_TRAIN_IMAGES
            else []
        ),
        llm_priors=expand("results/text_priors/{lm}.parquet", lm=TEXT_PRIORS),
        model=model_inputs,
    output:
        scores=expand(
            "results/scores/{{model}}/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        priors=expand(
            "results/priors/{{model}}/{benchmark}.parquet", benchmark=ALPHA_BENCHMARKS
        ),
        prior_images=(
            ["results/priors/{model}/prior_images.json"] if ALPHA_BENCHMARKS else []
        ),
    benchmark:
        "benchmarks/score_generative_choice/{model}.tsv"
    wildcard_constraints:
        model=union(
            m
            for m in GENERATIVE_CHOICE_MODELS + SHARDED_RETRIEVAL_MODELS
            if m not in SHARDED_CHOICE_MODELS
        ),
    params:
        retrieval=[],


# A captioner's choice pairs and text priors in shards: each scores a block of the whole
# picture chunks and a block of the null prior's calls, the model loaded once; the gather
# writes the files score_generative_choice writes, byte for byte.
rule score_generative_choice_shard:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES['dataset']}_train.parquet"
            if PRIOR_TRAIN_IMAGES
            else []
        ),
        model=model_inputs,
    output:
        "results/scores/{model}/shards/choice/{shard}.npz",
    log:
        "logs/score_pairs/{model}/choice/{shard}.log",
    benchmark:
        "benchmarks/score_generative_choice_shard/{model}/{shard}.tsv"
    wildcard_constraints:
        model=union(SHARDED_CHOICE_MODELS),
        shard=SHARD_PATTERN,
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].runtime, attempt),
    params:
        entry=lambda wc: model_entry(wc.model),
        choice=CHOICE_BENCHMARKS,
        alpha=ALPHA_BENCHMARKS,
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        batch_size=EMBED["pair_batch_size"],
        image_batch=EMBED["batch_size"],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=COMPUTE["autocast"],
    script:
        "../scripts/score_generative_choice_shard.py"


rule score_generative_choice_gather:
    input:
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        imagesets=expand(
            "results/imagesets/{imageset}.parquet", imageset=CHOICE_IMAGESETS
        ),
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES['dataset']}_train.parquet"
            if PRIOR_TRAIN_IMAGES
            else []
        ),
        llm_priors=expand("results/text_priors/{lm}.parquet", lm=TEXT_PRIORS),
        shards=lambda wc: expand(
            "results/scores/{model}/shards/choice/{shard}.npz",
            model=wc.model,
            shard=shard_names(PAIR_JOBS[wc.model].shards),
        ),
    output:
        scores=expand(
            "results/scores/{{model}}/{benchmark}.parquet", benchmark=CHOICE_BENCHMARKS
        ),
        priors=expand(
            "results/priors/{{model}}/{benchmark}.parquet", benchmark=ALPHA_BENCHMARKS
        ),
        prior_images=(
            ["results/priors/{model}/prior_images.json"] if ALPHA_BENCHMARKS else []
        ),
    log:
        "logs/score_pairs/{model}.log",
    benchmark:
        "benchmarks/score_generative_choice_gather/{model}.tsv"
    wildcard_constraints:
        model=union(SHARDED_CHOICE_MODELS),
    conda:
        "../../envs/torch.yaml"  # the pair plan comes with the pair-scoring modules
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: by_attempt(60, attempt),
    params:
        choice=CHOICE_BENCHMARKS,
        alpha=ALPHA_BENCHMARKS,
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        llm=list(TEXT_PRIORS),
        image_batch=EMBED["batch_size"],
    script:
        "../scripts/score_generative_choice_gather.py"


# A captioner's log P(t|i) over one retrieval benchmark's galleries in shards: each scores a
# block of whole picture chunks against every query; the gather writes the benchmark's
# score file as score_generative does.
rule score_generative_retrieval_shard:
    input:
        unpack(generative_retrieval_inputs),
        model=model_inputs,
    output:
        "results/scores/{model}/shards/{benchmark}/{shard}.npz",
    log:
        "logs/score_pairs/{model}/{benchmark}/{shard}.log",
    benchmark:
        "benchmarks/score_generative_retrieval_shard/{model}/{benchmark}/{shard}.tsv"
    wildcard_constraints:
        model=union(SHARDED_RETRIEVAL_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
        shard=SHARD_PATTERN,
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=lambda wc: (
            GPUS if RETRIEVAL_JOBS[(wc.model, wc.benchmark)].device == "gpu" else 0
        ),
        mem_mb=lambda wc, attempt: by_attempt(
            RETRIEVAL_JOBS[(wc.model, wc.benchmark)].mem_mb, attempt
        ),
        runtime=lambda wc, attempt: by_attempt(
            RETRIEVAL_JOBS[(wc.model, wc.benchmark)].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        batch_size=EMBED["pair_batch_size"],
        image_batch=EMBED["batch_size"],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=COMPUTE["autocast"],
    script:
        "../scripts/score_generative_retrieval_shard.py"


rule score_generative_retrieval_gather:
    input:
        unpack(generative_retrieval_inputs),
        shards=lambda wc: expand(
            "results/scores/{model}/shards/{benchmark}/{shard}.npz",
            model=wc.model,
            benchmark=wc.benchmark,
            shard=shard_names(RETRIEVAL_JOBS[(wc.model, wc.benchmark)].shards),
        ),
    output:
        "results/scores/{model}/{benchmark}.npz",
    log:
        "logs/score_pairs/{model}/{benchmark}.log",
    benchmark:
        "benchmarks/score_generative_retrieval_gather/{model}/{benchmark}.tsv"
    wildcard_constraints:
        model=union(SHARDED_RETRIEVAL_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
    conda:
        "../../envs/torch.yaml"  # retrieval_galleries comes with the pair-scoring modules
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: by_attempt(60, attempt),
    params:
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
    script:
        "../scripts/score_generative_retrieval_gather.py"


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
        prior=PRIOR_COLUMN,
    script:
        "../scripts/alpha_curve.py"


# its table{2,4}_ci.csv, not rule table_intervals's (which skips them: OWN_CI_TABLES)
ruleorder: table_visualgptscore > table_intervals


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


rule held_out_accuracy:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
    output:
        "results/metrics/{model}/{benchmark}_halves.json",
    log:
        "logs/metrics/{model}/{benchmark}_halves.log",
    benchmark:
        "benchmarks/held_out_accuracy/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(HALVES_BENCHMARKS),
        model=union(ITM_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
    script:
        "../scripts/held_out_accuracy.py"


rule table_visualgptscore_methods:
    input:
        metrics=metrics_files(METHOD_TABLE_BENCHMARKS),
        benchmarks=expand(
            "results/benchmarks/{benchmark}.parquet", benchmark=METHOD_TABLE_BENCHMARKS
        ),
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


# VisualGPTScore Table 6's "Null Images": every test and validation query of a captioner's
# retrieval galleries scored against a few null images (one caption pass each)
rule retrieval_null_prior:
    input:
        unpack(generative_retrieval_inputs),
        model=model_inputs,
    output:
        "results/priors/{model}/{benchmark}_null.npz",
    log:
        "logs/priors/{model}/{benchmark}_null.log",
    benchmark:
        "benchmarks/retrieval_null_prior/{model}/{benchmark}.tsv"
    wildcard_constraints:
        model=union(GENERATIVE_RETRIEVAL_MODELS),
        benchmark=union(RETRIEVAL_BENCHMARKS),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("retrieval_null_prior", wc.model).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: by_attempt(
            estimated_job("retrieval_null_prior", wc.model).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        null=NULL_IMAGES,
        n=RETRIEVAL_NULL_IMAGES,
        batch_size=EMBED["pair_batch_size"],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=COMPUTE["autocast"],
    script:
        "../scripts/retrieval_null_prior.py"


rule generative_retrieval:
    input:
        unpack(retrieval_alpha_inputs),
    output:
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
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
    script:
        "../scripts/generative_retrieval.py"


# Appendix Table 5's null half: a captioner's log P(t) of the pair benchmark's texts from
# the first n of max(counts) null images, per sampling seed (visualgptscore.null_sampling)
rule null_sampling_prior:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        model=model_inputs,
    output:
        "results/priors/{model}/{benchmark}_null_sampling.parquet",
    log:
        "logs/priors/{model}/{benchmark}_null_sampling.log",
    benchmark:
        "benchmarks/null_sampling_prior/{model}/{benchmark}.tsv"
    wildcard_constraints:
        model=union(NULL_SAMPLING_MODELS),
        benchmark=union([NULL_SAMPLING.get("benchmark", "")]),
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("null_sampling_prior", wc.model).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: by_attempt(
            estimated_job("null_sampling_prior", wc.model).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        null=NULL_IMAGES,
        counts=NULL_SAMPLING.get("counts", []),
        seeds=NULL_SAMPLING.get("seeds", []),
        batch_size=EMBED["pair_batch_size"],
        image_batch=EMBED["batch_size"],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
        autocast=COMPUTE["autocast"],
    script:
        "../scripts/null_sampling_prior.py"


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
        kind=lambda wc: BENCHMARK_KIND.get(NULL_SAMPLING.get("benchmark"), ""),
        options=lambda wc: metric_options(NULL_SAMPLING.get("benchmark")),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        names=vgs_names(),
        notes=[
            "alpha=alpha*: the oracle alpha* of the text score on all items (grid step "
            "visualgptscore.alpha_step, the smallest alpha with the best score); P(t) from "
            "the first n of each seed's Gaussian null images; mean and population std "
            "(ddof 0) over the seeds (per-seed rows: "
            "results/metrics/visualgptscore_null_sampling.csv). The paper's LAION rows "
            "sample LAION-114M training images, which the workflow does not have.",
        ],
    script:
        "../scripts/report_visualgptscore_null_sampling.py"


rule uncertainty_alpha:
    input:
        unpack(alpha_uncertainty_inputs),
    output:
        report(
            "results/uncertainty/alpha/{model}/{benchmark}.csv",
            caption="../report/uncertainty_alpha.rst",
            category="Uncertainty",
            subcategory="VisualGPTScore",
        ),
    log:
        "logs/uncertainty/alpha/{model}/{benchmark}.log",
    benchmark:
        "benchmarks/uncertainty_alpha/{model}/{benchmark}.tsv"
    wildcard_constraints:
        benchmark=union(ALPHA_BENCHMARKS + RETRIEVAL_BENCHMARKS),
        model=union(GENERATIVE_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        retrieval=lambda wc: wc.benchmark in RETRIEVAL_BENCHMARKS,
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        seed=VISUALGPTSCORE.get("validation", {}).get("seed", 0),
        repeats=VISUALGPTSCORE.get("validation", {}).get("repeats", 10),
        prior=PRIOR_COLUMN,
        resamples=UNCERTAINTY["resamples"],
        bootstrap_seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/uncertainty_alpha.py"


# BLIP's original checkpoint (e.g. VisualGPTScore's ViT-L pre-trained on LAION-114M) as a
# transformers captioner folder that an hf_blip_lm model with `convert` scores with.
rule convert_blip:
    input:
        checkpoint=converted_checkpoint,
        tokenizer=lambda wc: model_pins(wc.model, MODEL_ENTRIES[wc.model]).inputs,
    output:
        directory("resources/models/{model}_hf"),
    log:
        "logs/convert_blip/{model}.log",
    benchmark:
        "benchmarks/convert_blip/{model}.tsv"
    wildcard_constraints:
        model=union(CONVERTED_MODELS),
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
        runtime=lambda wc, attempt: by_attempt(60, attempt),
    params:
        convert=lambda wc: CONVERTED_MODELS[wc.model],
    script:
        "../scripts/convert_blip.py"


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


rule winoground_tags:
    input:
        unpack(winoground_tag_inputs),
    output:
        metrics="results/metrics/{model}/winoground_tags.json",
        intervals="results/uncertainty/winoground_tags/{model}.csv",
    log:
        "logs/metrics/{model}/winoground_tags.log",
    benchmark:
        "benchmarks/winoground_tags/{model}.tsv"
    wildcard_constraints:
        model=union(TAG_MODELS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        exclude=BENCHMARK_SPECS.get("winoground_no_tag", {}).get("exclude", []),
        prior=PRIOR_COLUMN,
        step=VISUALGPTSCORE.get("alpha_step", 0.001),
        resamples=UNCERTAINTY["resamples"],
        bootstrap_seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/winoground_tags.py"


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
