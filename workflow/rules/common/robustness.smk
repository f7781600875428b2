# Robustness: the galleries' files and each model's embeddings of them (rules in
# robustness.smk).


def robustness_gallery_files(kind, galleries=None):
    names = ROBUSTNESS.get("galleries", {}) if galleries is None else galleries
    return expand(
        "results/benchmarks/robustness/{gallery}/{kind}.parquet",
        gallery=names,
        kind=kind,
    )


def gallery_inputs(wildcards):
    """A gallery's test images and captions; world galleries also read the scenes, folder
    galleries the image set of their folder's other images."""
    data = GALLERY_DATASET[wildcards.gallery]
    inputs = {
        "imageset": f"results/imagesets/{data}_test.parquet",
        "captions": f"results/data/{data}/captions.parquet",
    }
    if data == "world":
        inputs["scenes"] = "results/data/world/scenes.jsonl"
    if wildcards.gallery in FOLDER_IMAGESET:
        inputs["folder"] = (
            f"results/imagesets/{FOLDER_IMAGESET[wildcards.gallery]}.parquet"
        )
    return inputs


def robustness_embeddings(model):
    return {
        f"{model_key}_images": expand(
            "results/embeddings/{model}/images/{imageset}.npy",
            model=name,
            imageset=BENCHMARK_IMAGESETS["robustness"],
        )
        for model_key, name in (("model", model), ("relevance", RELEVANCE_MODEL))
    } | {
        f"{model_key}_texts": f"results/embeddings/{name}/texts/robustness.npy"
        for model_key, name in (("model", model), ("relevance", RELEVANCE_MODEL))
    }


# The robustness galleries re-ranked by ITM (a gallery's `rerank`, default: it feeds ARO's
# tables), per model scoring ITM + ITC: each gallery's k_test
ROBUSTNESS_RERANK_K = {
    m: ks
    for m in EMBEDDING_MODELS
    if (
        ks := {
            g: k
            for g in ROBUSTNESS.get("galleries", {})
            if (k := robustness_k_test(config, m, MODEL_ENTRIES[m], g)) is not None
        }
    )
}
ROBUSTNESS_RERANK_JOBS = {
    m: stage_job(config, "robustness_rerank", m, MODEL_ENTRIES[m])
    for m in ROBUSTNESS_RERANK_K
}


def robustness_reranked(wildcards):
    """A model's re-ranked robustness conditions (none: ranked by its embeddings)."""
    if wildcards.model not in ROBUSTNESS_RERANK_K:
        return []
    return [f"results/scores/{wildcards.model}/robustness_rerank.npz"]


def robustness_rerank_shards(wildcards):
    """The shard files of one model's robustness re-ranking."""
    return expand(
        "results/scores/{model}/robustness_rerank/shards/{shard}.npz",
        model=wildcards.model,
        shard=shard_names(ROBUSTNESS_RERANK_JOBS[wildcards.model].shards),
    )
