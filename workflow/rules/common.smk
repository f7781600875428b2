import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from vlcomp.config import (  # noqa: E402
    ConfigError,
    expand_models,
    expand_runs,
    model_groups,
    validate_config,
)
from vlcomp.data.sources import remote_files, resolve_url  # noqa: E402
from vlcomp.text.wordnet import WORDNET_SOURCE  # noqa: E402

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


# Real datasets and checkpoints: every downloadable file and every archive's folder.
REMOTE_FILES = remote_files()
REMOTE_FILE_PATTERN = "|".join(re.escape(p) for p in REMOTE_FILES)
UNPACKED = {f.unpack_to: p for p, f in REMOTE_FILES.items() if f.unpack_to}
UNPACKED_PATTERN = "|".join(re.escape(p) for p in UNPACKED)
DOWNLOAD_MIRRORS = config.get("downloads", {}).get("mirrors", {})

# Runs and models with several training seeds expand to one id per seed ({name}_s{seed}).
RUNS = expand_runs(config)
MODEL_ENTRIES = expand_models(config)
MODELS = list(MODEL_ENTRIES)
MODEL_GROUPS = model_groups(MODEL_ENTRIES)
BENCHMARKS = list(config["benchmarks"])
# BISON's query alterations make a benchmark of their own (BISON Fig. 9)
if config["benchmarks"].get("bison", {}).get("alterations"):
    BENCHMARKS.append("bison_altered")

# Metric kind and image sets of each benchmark. Images are embedded once per model and set,
# and every benchmark that shows an image reads the same embedding.
BENCHMARK_KIND = {
    "vg_relation": "aro_relation",
    "vg_attribution": "aro_attribution",
    "order": "order",
    "sugarcrepe": "sugarcrepe",
    "bivlc": "bivlc",
    "world_retrieval": "retrieval",
    "bison": "bison",
    "bison_altered": "bison_altered",
}
# Generated negative images (BiVLC): sets under config.generation, and which negative
# images the BiVLC benchmark uses (generated + filtered, or exact renders of edited scenes).
GENERATION = config.get("generation", {})
GENERATED_SET_PATTERN = "|".join(GENERATION) or "(?!)"
TROHN_IMG_SELECTION = GENERATION.get("trohn_img", {}).get("selection", {})
DETECTORS = config.get("detectors", {})
BIVLC_NEGATIVES = config["benchmarks"].get("bivlc", {}).get("negatives", "rendered")
BIVLC_IMAGESET = "bivlc_generated" if BIVLC_NEGATIVES == "generated" else "bivlc_world"
BENCHMARK_IMAGESETS = {
    "vg_relation": ["vg_crops"],
    "vg_attribution": ["vg_crops"],
    "order": ["world_test"],
    "sugarcrepe": ["world_test"],
    "bivlc": ["world_test", BIVLC_IMAGESET],
    "world_retrieval": ["world_test"],
    "bison": ["world_test"],
    "bison_altered": ["world_test"],
}
# The robustness suite (ARO Tables 3-4, Hendriksen et al.): galleries, perturbed texts and
# shuffled copies of the test images, evaluated by its own metrics rule.
ROBUSTNESS = config["benchmarks"].get("robustness", {})
ROBUSTNESS_SEEDS = ROBUSTNESS.get("seeds", [0])
IMAGE_CONDITIONS = [
    (name, seed, f"world_test_{name}_s{seed}")
    for name in ROBUSTNESS.get("image_perturbations", [])
    for seed in ROBUSTNESS_SEEDS
]
RELEVANCE_MODEL = ROBUSTNESS.get("relevance_model", "")
BENCHMARK_KIND["robustness"] = "robustness"
BENCHMARK_IMAGESETS["robustness"] = ["world_test"] + [c[2] for c in IMAGE_CONDITIONS]
RETRIEVAL_BENCHMARKS = [b for b, kind in BENCHMARK_KIND.items() if kind == "retrieval"]
CHOICE_BENCHMARK_PATTERN = "|".join(
    b for b, kind in BENCHMARK_KIND.items() if kind not in ("retrieval", "robustness")
)
RETRIEVAL_BENCHMARK_PATTERN = "|".join(RETRIEVAL_BENCHMARKS)

# Image sets and text sets every evaluated model embeds, in one job per model (loading torch
# and the model once); other image sets (e.g. world_train for neighbours) are embedded alone.
EVAL_IMAGESETS = sorted({s for b in BENCHMARKS for s in BENCHMARK_IMAGESETS[b]})
# (the lookahead sees the rest of the path, so it stops at the "." of ".npy" / ".ids.json")
OTHER_IMAGESET_PATTERN = rf"(?!(?:{'|'.join(EVAL_IMAGESETS)})\.)[A-Za-z0-9_-]+"


def text_source(benchmark):
    """The file whose texts a benchmark needs embedded: items, or a retrieval's queries."""
    if benchmark in RETRIEVAL_BENCHMARKS:
        return f"results/benchmarks/{benchmark}/queries.parquet"
    if benchmark == "robustness":
        return "results/benchmarks/robustness/texts.parquet"
    return f"results/benchmarks/{benchmark}.parquet"


def model_entry(model):
    """The registry entry of a model, with a checkpoint path for runs trained here."""
    entry = {
        k: v for k, v in MODEL_ENTRIES[model].items() if k not in ("label", "group")
    }
    if entry["family"] == "checkpoint" and "run" in entry:
        entry["path"] = f"results/checkpoints/{entry.pop('run')}/model.pt"
    return entry


def model_inputs(wildcards):
    """Files a model needs before it can score: its checkpoint when trained in the DAG."""
    entry = MODEL_ENTRIES[wildcards.model]
    if entry["family"] == "checkpoint" and "run" in entry:
        return [f"results/checkpoints/{entry['run']}/model.pt"]
    return []


def model_files(model):
    """The checkpoint a model id needs, as a list (empty for downloaded models)."""
    entry = MODEL_ENTRIES[model]
    if entry["family"] == "checkpoint" and "run" in entry:
        return [f"results/checkpoints/{entry['run']}/model.pt"]
    return []


def generation_source(wildcards):
    """The captions a generated set is made for: SugarCrepe items or TROHN-Img's pairs."""
    if wildcards.genset == "bivlc":
        return "results/benchmarks/sugarcrepe.parquet"
    return f"results/negatives/world/{wildcards.genset}.parquet"


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
        inputs["images"] = "results/data/world/images.parquet"
        inputs["model"] = model_files(model)
    return inputs


def filter_model_entry(genset):
    model = GENERATION[genset].get("filter", {}).get("model")
    return model_entry(model) if model else {}


def bivlc_negative_imageset():
    return f"results/imagesets/{BIVLC_IMAGESET}.parquet"


def bivlc_selection():
    """Which negative image each SugarCrepe item gets, and whether it is kept."""
    if BIVLC_NEGATIVES == "generated":
        return "results/generated/bivlc/selection.parquet"
    return "results/generated/bivlc_world/manifest.parquet"


def train_inputs(wildcards):
    """A run's data, the checkpoint it starts from, and its hard negatives / neighbours."""
    run = RUNS[wildcards.run]
    inputs = {
        "images": "results/data/world/images.parquet",
        "captions": "results/data/world/captions.parquet",
    }
    if "init" in run:
        inputs["init"] = f"results/checkpoints/{run['init']}/model.pt"
    if "negatives" in run:
        inputs["negatives"] = f"results/negatives/world/{run['negatives']}.parquet"
    if "generated" in run:
        inputs["instances"] = f"results/generated/{run['generated']}/instances.parquet"
    if "neighbours" in run:
        nn = run["neighbours"]
        inputs["pairs"] = (
            f"results/pairs/world/nn_{nn['model']}_train_k{nn['k']}.parquet"
        )
    return inputs


def benchmark_image_embeddings(wildcards):
    return expand(
        "results/embeddings/{model}/images/{imageset}.npy",
        model=wildcards.model,
        imageset=BENCHMARK_IMAGESETS[wildcards.benchmark],
    )


def metric_options(benchmark):
    opts = dict(config["benchmarks"].get(benchmark, {}))
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
    if "vg_relation" in BENCHMARKS:
        tables += ["results/tables/aro/table2.md"]
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS):
        tables += ["results/tables/aro/table6.md", "results/figures/aro_fig3_radar.png"]
    if "sugarcrepe" in BENCHMARKS:
        tables += ["results/tables/sugarcrepe/sugarcrepe.md"]
    if "bison" in BENCHMARKS:
        tables += ["results/tables/bison/bison.md"]
    if "bison_altered" in BENCHMARKS:
        tables += ["results/tables/bison/fig9.md", "results/figures/bison_fig9.png"]
    if ROBUSTNESS:
        tables += expand(
            "results/tables/robustness/{table}.md",
            table=["aro_table3", "aro_table4", "hendriksen", "granularity"],
        )
    if "bivlc" in BENCHMARKS:
        tables += expand(
            "results/tables/bivlc/{table}.md",
            table=["table1", "table2", "table3", "table6"],
        )
    if "bivlc" in GENERATION and BIVLC_NEGATIVES == "generated":
        tables += [
            "results/tables/bivlc/filter.md",
            "results/figures/bivlc_generated_examples.png",
        ]
    if DETECTORS:
        tables += ["results/tables/bivlc/table4.md"]
    published = {"aro/table6", "bivlc/table3", "bivlc/table4", "sugarcrepe/sugarcrepe"}
    tables += [
        t.replace(".md", "_vs_published.md")
        for t in list(tables)
        if t.removeprefix("results/tables/").removesuffix(".md") in published
    ]
    return tables


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


def robustness_gallery_files(kind, galleries=None):
    names = ROBUSTNESS.get("galleries", {}) if galleries is None else galleries
    return expand(
        "results/benchmarks/robustness/{gallery}/{kind}.parquet",
        gallery=names,
        kind=kind,
    )


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
