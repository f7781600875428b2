# Benchmarks: BISON's and BiVLC's inputs (rules in benchmarks.smk).

ORDER_BENCHMARK_PATTERN = union(ORDER_BENCHMARKS)


def bivlc_selection():
    """Which negative image each SugarCrepe item gets, and whether it is kept."""
    if BIVLC_NEGATIVES == "generated":
        return "results/generated/bivlc/selection.parquet"
    return "results/generated/bivlc_world/manifest.parquet"


def bison_inputs(wildcards):
    """World scenes and captions, plus the CLIP whose token table embeds captions if asked."""
    inputs = {
        "captions": "results/data/world/captions.parquet",
        "scenes": "results/data/world/scenes.jsonl",
    }
    vectors = config["benchmarks"]["bison"].get("vectors", {})
    if vectors.get("source") == "clip_tokens":
        inputs["model"] = f"results/checkpoints/{vectors['run']}/model.pt"
    return inputs
