import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from vlcomp.config import ConfigError, validate_config  # noqa: E402

try:
    validate_config(config, Path(workflow.basedir) / "config" / "schema.yaml")
except ConfigError as err:
    raise WorkflowError(str(err)) from None


wildcard_constraints:
    model=r"[A-Za-z0-9_-]+",
    run=r"[A-Za-z0-9_-]+",
    benchmark=r"[A-Za-z0-9_-]+",
    imageset=r"[A-Za-z0-9_-]+",
    split=r"train|val|test",
    seed=r"\d+",


MODELS = list(config["models"])
BENCHMARKS = list(config["benchmarks"])

# Metric kind and image sets of each benchmark. Images are embedded once per model and set,
# and every benchmark that shows an image reads the same embedding.
BENCHMARK_KIND = {
    "vg_relation": "aro_relation",
    "vg_attribution": "aro_attribution",
    "order": "order",
    "sugarcrepe": "sugarcrepe",
    "bivlc": "bivlc",
}
BENCHMARK_IMAGESETS = {
    "vg_relation": ["vg_crops"],
    "vg_attribution": ["vg_crops"],
    "order": ["world_test"],
    "sugarcrepe": ["world_test"],
    "bivlc": ["world_test", "bivlc_world"],
}


def model_entry(model):
    """The registry entry of a model, with a checkpoint path for runs trained here."""
    entry = dict(config["models"][model])
    if entry["family"] == "checkpoint" and "run" in entry:
        entry["path"] = f"results/checkpoints/{entry.pop('run')}/model.pt"
    return entry


def model_inputs(wildcards):
    """Files a model needs before it can score: its checkpoint when trained in the DAG."""
    entry = config["models"][wildcards.model]
    if entry["family"] == "checkpoint" and "run" in entry:
        return [f"results/checkpoints/{entry['run']}/model.pt"]
    return []


def benchmark_image_embeddings(wildcards):
    return expand(
        "results/embeddings/{model}/images/{imageset}.npy",
        model=wildcards.model,
        imageset=BENCHMARK_IMAGESETS[wildcards.benchmark],
    )


def metric_options(benchmark):
    opts = dict(config["benchmarks"][benchmark])
    if benchmark == "vg_relation":
        return {
            "symmetric": opts.get("symmetric_relations", []),
            "min_count": opts.get("min_count", 0),
        }
    if benchmark == "vg_attribution":
        return {"min_count": opts.get("min_count", 25)}
    return {}


def metrics_files(benchmarks):
    return expand(
        "results/metrics/{model}/{benchmark}.json",
        model=MODELS,
        benchmark=[b for b in benchmarks if b in BENCHMARKS],
    )


ARO_BENCHMARKS = ["vg_relation", "vg_attribution", "order"]


def all_tables():
    tables = []
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS):
        tables += ["results/tables/aro/aro.md"]
    if "sugarcrepe" in BENCHMARKS:
        tables += ["results/tables/sugarcrepe/sugarcrepe.md"]
    if "bivlc" in BENCHMARKS:
        tables += expand(
            "results/tables/bivlc/{table}.md", table=["table2", "table3", "table6"]
        )
    return tables
