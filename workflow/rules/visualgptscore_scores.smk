# VisualGPTScore (Lin et al.), the GPU stages: each captioner's log P(t|i) of the choice
# benchmarks and retrieval galleries (whole or in shards), its text priors log P(t) (null
# images, training images, text-only LMs; Tables 5 and 6's null-image priors), and BLIP's
# original checkpoints converted for transformers.


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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            PAIR_JOBS[wc.model].runtime, attempt
        ),
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
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("llm_prior", wc.lm).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            estimated_job("llm_prior", wc.lm).runtime, attempt
        ),
    params:
        entry=lambda wc: TEXT_PRIORS[wc.lm],
        threads=MODEL_THREADS,
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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(PAIR_JOBS[wc.model].mem_mb, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            PAIR_JOBS[wc.model].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        choice=CHOICE_BENCHMARKS,
        alpha=ALPHA_BENCHMARKS,
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
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
        TORCH_ENV  # the pair plan comes with the pair-scoring modules
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        choice=CHOICE_BENCHMARKS,
        alpha=ALPHA_BENCHMARKS,
        null=NULL_IMAGES,
        train_images=PRIOR_TRAIN_IMAGES,
        llm=list(TEXT_PRIORS),
        image_batch=VISION_BATCH,
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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=lambda wc: (
            GPUS if RETRIEVAL_JOBS[(wc.model, wc.benchmark)].device == "gpu" else 0
        ),
        mem_mb=lambda wc, attempt: by_attempt(
            RETRIEVAL_JOBS[(wc.model, wc.benchmark)].mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            RETRIEVAL_JOBS[(wc.model, wc.benchmark)].runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
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
        TORCH_ENV  # retrieval_galleries comes with the pair-scoring modules
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
    script:
        "../scripts/score_generative_retrieval_gather.py"


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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("retrieval_null_prior", wc.model).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            estimated_job("retrieval_null_prior", wc.model).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        queries=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("queries", "finest"),
        gallery_images=VISUALGPTSCORE.get("retrieval", {}).get("images"),
        null=NULL_IMAGES,
        n=RETRIEVAL_NULL_IMAGES,
        batch_size=EMBED["pair_batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
    script:
        "../scripts/retrieval_null_prior.py"


# Appendix Table 5: a captioner's log P(t) of the pair benchmark's texts from the first n
# of max(counts) null images, per sampling seed (visualgptscore.null_sampling), and from the
# first n of max(counts) training images (sources: train)
rule null_sampling_prior:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        train_images=(
            f"results/imagesets/{PRIOR_TRAIN_IMAGES.get('dataset')}_train.parquet"
            if "train" in NULL_SAMPLING.get("sources", [])
            else []
        ),
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
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("null_sampling_prior", wc.model).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            estimated_job("null_sampling_prior", wc.model).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        null=NULL_IMAGES,
        counts=NULL_SAMPLING.get("counts", []),
        seeds=NULL_SAMPLING.get("seeds", []),
        sources=NULL_SAMPLING.get("sources", []),
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
    script:
        "../scripts/null_sampling_prior.py"


# An original checkpoint as a transformers folder that a model with `convert` scores with:
# BLIP's (e.g. VisualGPTScore's ViT-L pre-trained on LAION-114M) as a captioner, LAVIS'
# BLIP-2 with a CLIP ViT-L (VisualGPTScore's appendix) as its Q-Former or FLAN-T5 model.
rule convert_blip:
    input:
        unpack(converted_checkpoint),
        tokenizer=lambda wc: model_pins(
            CONVERTED_MODELS[wc.model]["model"],
            MODEL_ENTRIES[CONVERTED_MODELS[wc.model]["model"]],
        ).inputs,
    output:
        directory("resources/models/{model}_hf"),
    log:
        "logs/convert_blip/{model}.log",
    benchmark:
        "benchmarks/convert_blip/{model}.tsv"
    wildcard_constraints:
        model=union(CONVERTED_MODELS),
    conda:
        TORCH_ENV
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(
            48000 if "t5" in CONVERTED_MODELS[wc.model] else 16000, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        convert=lambda wc: CONVERTED_MODELS[wc.model],
    script:
        "../scripts/convert_blip.py"
