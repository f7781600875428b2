# Scoring: the embedding, pair and metric jobs' models, shards and inputs (rules in
# score.smk).

# Pair models that also embed (BLIP ITM for retrieval): one job encodes each picture once for
# both; every other embedding model has its embed_model job.
ITM_PAIR_MODELS = [m for m in PAIR_MODELS if m in EMBEDDING_MODELS]


# Pair models with neither embeddings nor a text prior (BLIP-2's Q-Former ITM / ITC): their
# job scores the choice benchmarks only
PAIR_ONLY_MODELS = [
    m for m in PAIR_MODELS if m not in EMBEDDING_MODELS and m not in GENERATIVE_MODELS
]


EMBED_ONLY_MODELS = [m for m in EMBEDDING_MODELS if m not in PAIR_MODELS]


# Heavy jobs in shards (config shards; vlcomp.plan.estimates): a model's embed_model job
EMBED_JOBS = {
    m: stage_job(config, "embed", m, MODEL_ENTRIES[m]) for m in EMBED_ONLY_MODELS
}


EMBED_SHARDS = {m: job.shards for m, job in EMBED_JOBS.items()}


SHARDED_EMBED_MODELS = [m for m, n in EMBED_SHARDS.items() if n > 1]


def cosine_benchmarks(model):
    """A pair model's choice benchmarks outside its ``pair_benchmarks`` (FLAVA: all but
    ARO's), scored in its score_pairs job by the cosine of the embeddings it writes."""
    pairs = MODEL_ENTRIES[model].get("pair_benchmarks", CHOICE_BENCHMARKS)
    return {
        b: {
            "images": expand(
                "results/embeddings/{m}/images/{s}.npy",
                m=model,
                s=BENCHMARK_IMAGESETS[b],
            ),
            "texts": f"results/embeddings/{model}/texts/{b}.npy",
        }
        for b in CHOICE_BENCHMARKS
        if b not in pairs
    }


# Retrieval re-ranked by ITM (config retrieval; vlcomp.metrics.rerank): the candidates each
# query re-scores, per (model, benchmark), for the embedding models scoring ITM + ITC
RERANK_K = {
    (m, b): k
    for m in EMBEDDING_MODELS
    for b in RETRIEVAL_BENCHMARKS
    if (k := rerank_k_test(config, m, MODEL_ENTRIES[m], b)) is not None
}


RERANK_JOBS = {
    (m, b): stage_job(config, "rerank", m, MODEL_ENTRIES[m], b) for m, b in RERANK_K
}


RERANK_MODELS = sorted({m for m, _ in RERANK_K})


def reranked_file(model, benchmark):
    """The re-ranked scores of a model's retrieval (none: ranked by the embeddings)."""
    if (model, benchmark) not in RERANK_K:
        return []
    return [f"results/scores/{model}/rerank/{benchmark}.npz"]


def reranked_scores(wildcards):
    """`reranked_file` of a job's model and benchmark."""
    return reranked_file(wildcards.model, wildcards.benchmark)


def rerank_shards(wildcards):
    """The shard files of one re-ranked retrieval."""
    job = RERANK_JOBS[(wildcards.model, wildcards.benchmark)]
    return expand(
        "results/scores/{model}/rerank/{benchmark}/shards/{shard}.npz",
        model=wildcards.model,
        benchmark=wildcards.benchmark,
        shard=shard_names(job.shards),
    )


def fold_order_inputs(wildcards):
    """A folded retrieval's reference order (fold_order: karpathy_json): Karpathy's unpacked
    caption_datasets folder and the dataset's captions (queries are matched by raw caption).
    """
    spec = BENCHMARK_SPECS[wildcards.benchmark]
    if not spec.get("folds") or spec.get("fold_order", "gallery") != "karpathy_json":
        return {}
    return {
        "fold_order": f"resources/{KARPATHY_JSON['folder']}",
        "captions": f"results/data/{dataset_of(wildcards.benchmark)}/captions.parquet",
    }


def fold_order_file(benchmark):
    """The file inside `fold_order_inputs`' folder: ``dataset_{collection}.json``."""
    dataset = dataset_of(benchmark)
    collection = (
        (config.get("datasets") or {}).get(dataset, {}).get("collection", dataset)
    )
    return KARPATHY_JSON["file"].format(collection=collection)


# (the lookahead sees the rest of the path, so it stops at the "." of ".npy" / ".ids.json")
OTHER_IMAGESET_PATTERN = rf"(?!(?:{'|'.join(EVAL_IMAGESETS)})\.)[A-Za-z0-9_-]+"


def text_source(benchmark):
    """The file whose texts a benchmark needs embedded: items, or a retrieval's queries."""
    if benchmark in RETRIEVAL_BENCHMARKS:
        return f"results/benchmarks/{benchmark}/queries.parquet"
    if benchmark == "robustness":
        return "results/benchmarks/robustness/texts.parquet"
    return f"results/benchmarks/{benchmark}.parquet"


def benchmark_image_embeddings(wildcards, benchmark=None):
    """A model's image embedding files of a benchmark (``benchmark``, else the wildcard's)."""
    return expand(
        "results/embeddings/{model}/images/{imageset}.npy",
        model=wildcards.model,
        imageset=BENCHMARK_IMAGESETS[benchmark or wildcards.benchmark],
    )


def choice_image_embeddings(wildcards):
    """A model's image embedding files of every choice benchmark (each once)."""
    return sorted(
        {f for b in CHOICE_BENCHMARKS for f in benchmark_image_embeddings(wildcards, b)}
    )


def embed_images_job(wildcards):
    """A model's embedding job of one image set (vlcomp.plan.estimates): its requests."""
    return stage_job(
        config,
        "embed_images",
        wildcards.model,
        MODEL_ENTRIES[wildcards.model],
        imageset=wildcards.imageset,
    )
