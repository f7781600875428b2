# Generated negative images: the generated sets, their shards, filter and detector inputs
# (rules in generate.smk).

GENERATED_SET_PATTERN = (
    "|".join(g for g in GENERATION if not (g == "trohn_img" and TROHN_IMG_RELEASE))
    or "(?!)"
)


# a generated set's candidates in shards (config shards; vlcomp.plan.estimates)
GENERATE_JOBS = {
    g: stage_job(config, "generate", g)
    for g in GENERATION
    if not (g == "trohn_img" and TROHN_IMG_RELEASE)
}


SHARDED_GENSETS = [g for g, job in GENERATE_JOBS.items() if job.shards > 1]


TROHN_IMG_SELECTION = GENERATION.get("trohn_img", {}).get("selection", {})


def generation_source(wildcards):
    """The captions a generated set is made for: SugarCrepe items or TROHN-Img's pairs."""
    if wildcards.genset == "bivlc":
        return "results/benchmarks/sugarcrepe.parquet"
    return f"results/negatives/{TROHN_IMG_DATASET}/{wildcards.genset}.parquet"


def filter_inputs(wildcards):
    """Candidates and their source; world scenes for the oracle; the filter model."""
    block = GENERATION[wildcards.genset]
    inputs = {
        "candidates": f"results/generated/{wildcards.genset}/candidates.parquet",
        "source": generation_source(wildcards),
    }
    if block["backend"] == "world":
        inputs["scenes"] = "results/data/world/scenes.jsonl"
    model = block.get("filter", {}).get("model")
    if model:
        inputs["images"] = sugarcrepe_imageset()
        inputs["model"] = model_files(model)
    return inputs


def detector_embeddings(wildcards):
    """Embeddings a detector job reuses instead of encoding again: the BiVLC benchmark's
    image sets (every evaluated model embeds them) and the natural training images when the
    model embeds them for neighbour mining. The job encodes only what is left."""
    sets = list(BENCHMARK_IMAGESETS.get("bivlc", []))
    sets += [
        s
        for s in neighbour_imagesets(wildcards.model)
        if s == f"{TROHN_IMG_DATASET}_train"
    ]
    return expand(
        "results/embeddings/{model}/images/{imageset}.npy",
        model=wildcards.model,
        imageset=sets,
    )


def detector_imagesets():
    """Images a detector embeds: TROHN-Img's natural images and the BiVLC benchmark's."""
    sets = [f"{TROHN_IMG_DATASET}_train"] + BENCHMARK_IMAGESETS.get("bivlc", [])
    return expand("results/imagesets/{imageset}.parquet", imageset=sets)


def filter_model_entry(genset):
    model = GENERATION[genset].get("filter", {}).get("model")
    return model_entry(model) if model else {}
