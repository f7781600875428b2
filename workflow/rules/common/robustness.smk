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
