# VisualGPTScore: text priors, the captioners' retrieval galleries and choice jobs in shards,
# and the appendix tables' inputs (rules in visualgptscore.smk).

VISUALGPTSCORE = config.get("visualgptscore", {})


# Gaussian null images of the Monte Carlo prior (the paper's appendix: mean 1, std 0.25)
NULL_IMAGES = config_section(config, "visualgptscore.null_images")


# Table 6's "Null Images": retrieval queries' P(t) from the first N null images (rule
# retrieval_null_prior), beside the gallery mean's; 0: none
RETRIEVAL_NULL_IMAGES = retrieval_null_images(config)


# Appendix Table 5's null half, by rule null_sampling_prior; the captioners that score its
# pair benchmark with P(t) from n null images per sampling seed; none when not configured
NULL_SAMPLING = null_sampling(config) or {}
NULL_SAMPLING_MODELS = null_sampling_models(config)


# Text-only LM priors P_LLM(t) (Table 2a: BART, FLAN-T5, OPT), by name: each scored once
# on every image->text benchmark's texts (rule llm_prior), a column of every prior table
TEXT_PRIORS = {lm["name"]: lm for lm in text_priors(config)}


# the log_prior_{...} column alpha divides by (null images, training images or the first LM)
PRIOR_COLUMN = prior_column(config)


# Training images for a second prior estimate (optional): n drawn with a seed
PRIOR_TRAIN_IMAGES = (
    config_section(config, "visualgptscore.train_images")
    if "train_images" in VISUALGPTSCORE
    else {}
)


# a captioner's log P(t|i) galleries in shards (config shards; vlcomp.plan.estimates): all of
# a model's retrieval benchmarks once any needs more than one shard
RETRIEVAL_JOBS = {
    (m, b): stage_job(config, "retrieval", m, MODEL_ENTRIES[m], b)
    for m in GENERATIVE_RETRIEVAL_MODELS
    for b in RETRIEVAL_BENCHMARKS
}


SHARDED_RETRIEVAL_MODELS = [
    m
    for m in GENERATIVE_RETRIEVAL_MODELS
    if any(RETRIEVAL_JOBS[(m, b)].shards > 1 for b in RETRIEVAL_BENCHMARKS)
]


# captioners whose choice pairs and priors run in shards (rules score_generative_choice_shard
# and _gather): those scoring no gallery in that job, when it is long (BLIP-2 FLAN-T5)
SHARDED_CHOICE_MODELS = [
    m
    for m in GENERATIVE_CHOICE_MODELS + SHARDED_RETRIEVAL_MODELS
    if PAIR_JOBS[m].shards > 1
]


def converted_checkpoint(wildcards):
    """The downloaded original files a conversion reads (the checkpoint, the source's only
    file or ``convert.checkpoint``) and, for BLIP-2, LAVIS' ViT file."""
    spec = CONVERTED_MODELS[wildcards.model]
    source = SOURCES[spec["source"]]
    files = {"checkpoint": f"resources/{spec.get('checkpoint', source.files[0].path)}"}
    if "vit" in spec:
        files["vit"] = f"resources/{spec['vit']}"
    return files


def retrieval_files(benchmark):
    """A retrieval benchmark's gallery, queries, test and validation images and captions."""
    b, d = benchmark, dataset_of(benchmark)
    return {
        "gallery": f"results/benchmarks/{b}/gallery.parquet",
        "queries": f"results/benchmarks/{b}/queries.parquet",
        "test_images": f"results/imagesets/{d}_test.parquet",
        "val_images": f"results/imagesets/{d}_val.parquet",
        "captions": f"results/data/{d}/captions.parquet",
    }


def retrieval_inputs(kind):
    """One input file per retrieval benchmark (`retrieval_files`; ``galleries``: the
    gallery)."""
    key = "gallery" if kind == "galleries" else kind
    return [retrieval_files(b)[key] for b in RETRIEVAL_BENCHMARKS]


def generative_retrieval_inputs(wildcards):
    """The retrieval files of a shard's or gather's benchmark."""
    return retrieval_files(wildcards.benchmark)


def alpha_interval_files():
    """Every generative model's α intervals: its choice benchmarks', and its retrieval
    galleries' where it scores them."""
    return expand(
        "results/uncertainty/alpha/{model}/{benchmark}.csv",
        model=GENERATIVE_MODELS,
        benchmark=ALPHA_BENCHMARKS,
    ) + expand(
        "results/uncertainty/alpha/{model}/{benchmark}.csv",
        model=GENERATIVE_RETRIEVAL_MODELS,
        benchmark=RETRIEVAL_BENCHMARKS,
    )


def retrieval_alpha_inputs(wildcards):
    """A captioner's log P(t|i) galleries of a retrieval benchmark and, with
    ``visualgptscore.retrieval.null_images``, its queries' null-image prior."""
    inputs = {"scores": f"results/scores/{wildcards.model}/{wildcards.benchmark}.npz"}
    if RETRIEVAL_NULL_IMAGES:
        inputs["null"] = (
            f"results/priors/{wildcards.model}/{wildcards.benchmark}_null.npz"
        )
    return inputs


def alpha_uncertainty_inputs(wildcards):
    """A generative model's α inputs: a retrieval gallery's score matrices, or a choice
    benchmark's items, pair scores and text priors."""
    if wildcards.benchmark in RETRIEVAL_BENCHMARKS:
        return retrieval_alpha_inputs(wildcards)
    return {
        "benchmark": f"results/benchmarks/{wildcards.benchmark}.parquet",
        "scores": f"results/scores/{wildcards.model}/{wildcards.benchmark}.parquet",
        "prior": f"results/priors/{wildcards.model}/{wildcards.benchmark}.parquet",
    }


# VisualGPTScore's appendix. BLIP-2 rows are the hub's ViT-g checkpoints, the paper's ViT-L.
BLIP2_NOTE = (
    "BLIP-2 rows: the hub's ViT-g checkpoints (Salesforce/blip2-itm-vit-g, "
    "blip2-flan-t5-xl); the paper's BLIP-2 used ViT-L, which transformers cannot load."
)


def winoground_tag_inputs(wildcards):
    """Winoground's items, Diwan et al.'s tags and a model's pair scores (a captioner's
    text prior too)."""
    inputs = {
        "winoground": "results/benchmarks/winoground.parquet",
        "tags": "resources/winoground/new_tag_assignments.json",
        "scores": f"results/scores/{wildcards.model}/winoground.parquet",
    }
    if wildcards.model in GENERATIVE_MODELS:
        inputs["prior"] = f"results/priors/{wildcards.model}/winoground.parquet"
    return inputs
