import functools
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.settings.types import DeploymentMethod

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from vlcomp.benchmarks.classification_plan import classification_plan  # noqa: E402
from vlcomp.config import (  # noqa: E402
    GALLERY_TABLE_NAMES,
    ConfigError,
    benchmark_source,
    conversion_name,
    converted_folder,
    dataset_names,
    expand_models,
    expand_runs,
    gallery_text_perturbations,
    has_embeddings,
    is_captioner,
    model_groups,
    model_role,
    model_threads,
    null_sampling,
    null_sampling_models,
    prior_column,
    released_negatives,
    released_rows,
    rerank_k_test,
    resolve_extends,
    retrieval_null_images,
    robustness_k_test,
    text_priors,
)
from vlcomp.config_checks import validate_config  # noqa: E402
from vlcomp.precision_choice import job_precision  # noqa: E402
from vlcomp.config_defaults import section as config_section  # noqa: E402
from vlcomp.data.bison import ITEMS as BISON_ITEMS  # noqa: E402
from vlcomp.data.classification import CIFAR  # noqa: E402
from vlcomp.data.winoground import ITEMS as WINOGROUND_ITEMS  # noqa: E402
from vlcomp.data.datasets import KARPATHY_JSON, dataset_files  # noqa: E402
from vlcomp.data.lockfile import DEFAULT_LOCK  # noqa: E402
from vlcomp.data.sources import (  # noqa: E402
    SOURCES,
    SUGARCREPE_SUBSETS,
    VL_CHECKLIST_BLOBS,
    manual_checks,
    remote_files,
    resolve_url,
)
from vlcomp.report.published import COMPARED as PUBLISHED_FOR  # noqa: E402
from vlcomp.report.published import WORLD_ALIASES  # noqa: E402
from vlcomp.report.coverage import published_counterparts  # noqa: E402
from vlcomp.report.labels import aro_columns as label_aro_columns  # noqa: E402
from vlcomp.report.labels import aro6_downstream as label_aro6_downstream  # noqa: E402
from vlcomp.report.labels import (  # noqa: E402
    aro6_classification as label_aro6_classification,
)
from vlcomp.report.labels import (
    folded_retrieval as label_folded_retrieval,
)  # noqa: E402
from vlcomp.report.labels import vgs_names as label_vgs_names  # noqa: E402
from vlcomp.report.labels import world_names as label_world_names  # noqa: E402
from vlcomp.report.labels import (  # noqa: E402
    ALPHA_KINDS,
    CLASSIFICATION_LABELS,
    CREPE_PREFIX,
    DISPLAY_NAMES,
    benchmark_kind,
    configured_benchmarks,
    dataset_label,
)
from vlcomp.report.claims import claim_tables  # noqa: E402
from vlcomp.report.paper_models import (  # noqa: E402
    models_playing_no_paper_model,
    paper_model_labels,
    unplayed_paper_models,
)
from vlcomp.report.robustness import fg_notes  # noqa: E402
from vlcomp.report.visualgptscore_appendix import (  # noqa: E402
    BLIP2_FAMILIES,
    BLIP_FAMILIES,
    TABLE10_KINDS,
)
from vlcomp.data.hub_job import download_spec, run_download, take_token  # noqa: E402
from vlcomp.model_files import missing_own_files, named_files  # noqa: E402
from vlcomp.models.auto_batch import vision_batch  # noqa: E402
from vlcomp.text.spacy_models import spacy_model_problem  # noqa: E402
from vlcomp.pins import (  # noqa: E402
    config_pins,
    dataset_pins,
    diffusers_pins,
    lm_pins,
    model_pins,
    selection_pins,
)
from vlcomp.jobs import (  # noqa: E402
    cuda_determinism_environment,
    offline_hub_environment,
    prepend_pythonpath,
    single_threaded_libraries,
)
from vlcomp.plan.estimates import stage_job  # noqa: E402
from vlcomp.plan.requests import by_attempt  # noqa: E402
from vlcomp.plan.requests import runtime_by_attempt as retry_runtime  # noqa: E402
from vlcomp.shards import SHARD_PATTERN, parse_shard, shard_names  # noqa: E402
from vlcomp.text.wordnet_files import (  # noqa: E402
    DOWNLOAD as WORDNET_DOWNLOAD,
    RELEASE_DICT,
    RELEASE_FOLDER,
    WORDNET_SOURCE,
)

# Jobs import vlcomp from this checkout, whichever environment runs them (.venv, envs/*.yaml)
prepend_pythonpath(Path(workflow.basedir) / "src")
single_threaded_libraries()
cuda_determinism_environment()
offline_hub_environment()
# The hub token leaves the environment every job inherits (SLURM: --export=ALL); only the
# snapshot downloads get it, in their own processes (vlcomp.data.hub_job)
HUB_TOKEN = take_token()

# extends: FILE (e.g. config/evaluate.yaml extends config/paper.yaml): FILE, updated by the rest;
# looked up as given, beside the config files, then in the workflow's config/
try:
    whole = resolve_extends(
        config,
        [
            *(Path(f).parent for f in workflow.overwrite_configfiles or []),
            Path(workflow.basedir) / "config",
        ],
    )
    if whole is not config:
        config.clear()
        config.update(whole)
    validate_config(config, Path(workflow.basedir) / "config" / "schema.yaml")
except ConfigError as err:
    raise WorkflowError(str(err)) from None


# The spaCy pipeline must be installed where its jobs run: this Python, or envs/nlp.yaml when
# jobs run in conda environments (vlcomp.text.spacy_models)
_spacy_problem = spacy_model_problem(
    config["nlp"]["spacy_model"],
    (
        Path(workflow.basedir) / "envs" / "nlp.yaml"
        if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
        else None
    ),
)
if _spacy_problem:
    raise WorkflowError(f"configuration: {_spacy_problem}")


for unplayed in unplayed_paper_models(config):  # its claims' findings are "not run"
    logger.warning(f"vlcomp: {unplayed}")

WORLD = config.get("world", {})
# GPUs a GPU job asks a cluster for: one when the models run on CUDA, unless configured
GPUS = config["compute"].get("gpus", 1 if config["compute"]["device"] == "cuda" else 0)
# the GPU model the heavy GPU jobs ask for, only when they ask for a GPU (None: not asked)
HEAVY_GPU_MODEL = config["compute"].get("gpu_model") if GPUS else None
# the compute and embedding settings over their defaults (config/schema.yaml)
COMPUTE = config_section(config, "compute")
# the environment of the rules that run torch: PyTorch's CUDA 13 wheels (PyPI, envs/torch.yaml),
# or its CUDA 12 ones for nodes whose driver predates CUDA 13 (envs/*-cuda12.yaml); with
# `--sdm conda` (the .venv and the image hold the CUDA 13 build)
CUDA_SUFFIX = "-cuda12" if COMPUTE["torch_cuda"] == "12.8" else ""
TORCH_ENV = f"../../envs/torch{CUDA_SUFFIX}.yaml"
DIFFUSION_ENV = f"../../envs/diffusion{CUDA_SUFFIX}.yaml"
# torch threads per job: a training job (its weights depend on them) gets compute.threads,
# a job that only runs a model (or trains the detectors' small heads, the same bytes on one
# thread or two) compute.inference_threads (by default the same)
TRAIN_THREADS = COMPUTE["threads"]
MODEL_THREADS = model_threads(config)
# Training jobs start first when lighter jobs are ready too (their `priority:`): a one-thread
# job started first would leave a core idle while the training job waits for both.
TRAIN_PRIORITY = 10
EMBED = config_section(config, "embed")
# pictures per vision pass of a pair scorer, and per chunk its shards split at (never auto)
VISION_BATCH = vision_batch(EMBED)
# Caption datasets: the synthetic world (when configured) and the real ones (config.datasets)
DATASETS = {
    name: config.get("datasets", {}).get(name, {"source": "world"})
    for name in dataset_names(config)
}
REAL_DATASETS = {d: spec for d, spec in DATASETS.items() if d != "world"}


# A heavy job's memory and time requests double on each retry (the profiles retry once); time
# is capped at the partition limit config cluster.max_runtime_min (vlcomp.plan.requests)
MAX_RUNTIME_MIN = (config.get("cluster") or {}).get("max_runtime_min")


def runtime_by_attempt(minutes, attempt):
    """A heavy job's time request on its ``attempt``-th try, at most the partition limit."""
    return retry_runtime(minutes, attempt, MAX_RUNTIME_MIN)


def union(names):
    """A wildcard pattern matching exactly these names (nothing when empty)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


wildcard_constraints:
    model=r"[A-Za-z0-9_-]+",
    dataset=union(DATASETS),
    run=r"[A-Za-z0-9_-]+",
    benchmark=r"[A-Za-z0-9_-]+",
    imageset=r"[A-Za-z0-9_-]+",
    split=r"train|val|test",
    seed=r"\d+",


# Runs and models with several training seeds expand to one id per seed ({name}_s{seed}).
RUNS = expand_runs(config)
# Small BLIP captioners trained here (VisualGPTScore's demo model), by name
CAPTIONERS = config.get("captioners", {})
RUN_PATTERN = union(RUNS)
CAPTIONER_PATTERN = union(CAPTIONERS)
MODEL_ENTRIES = expand_models(config)
MODELS = list(MODEL_ENTRIES)
# WordNet 3.0: a folder here (Debian's wordnet-base), or Princeton's release archive fetched
# and checksummed by the download rules (nlp.wordnet_source: download)
_WORDNET_SETTING = config["nlp"].get("wordnet_source", str(WORDNET_SOURCE))
WORDNET_INPUTS = [RELEASE_FOLDER] if _WORDNET_SETTING == WORDNET_DOWNLOAD else []
WORDNET_DICT = (
    RELEASE_DICT if _WORDNET_SETTING == WORDNET_DOWNLOAD else _WORDNET_SETTING
)
# A file of one's own that a model names and that does not exist stops the run here, before a
# finished folder's tables could stand in for the model's missing jobs (vlcomp.model_files)
_missing_files = missing_own_files(MODEL_ENTRIES, Path.cwd())
if _missing_files:
    raise WorkflowError(
        "configuration: a model names a file that does not exist:\n  "
        + "\n  ".join(_missing_files)
    )
# Every hub snapshot and weight file the models, LMs, generators and hub datasets load,
# pinned (vlcomp.pins): fetched by download rules, inputs of the jobs that load them
try:
    PINS = config_pins(config, MODEL_ENTRIES)
except ValueError as err:
    raise WorkflowError(f"configuration: {err}") from None
# Real datasets and checkpoints: every downloadable file and every archive's folder.
REMOTE_FILES = remote_files(config.get("downloads", {}).get("sha256"), PINS.files)
UNPACKED = (
    {}
)  # folder -> the archives unpacked into it (Visual Genome: two zips, one folder)
for _path, _file in REMOTE_FILES.items():
    if _file.unpack_to:
        UNPACKED.setdefault(_file.unpack_to, []).append(_path)
MANUAL_CHECKS = manual_checks()
# hub snapshots by folder (resources/models/hub/{repo}, resources/datasets/hub/{repo})
HUB_REFS = {ref.folder: ref for ref in PINS.hub}
# original checkpoints converted to transformers folders (rule convert_blip), by conversion
# name (models sharing a `convert.name` share the folder): BLIP's, and LAVIS' BLIP-2 ViT-L
CONVERTED_MODELS = {
    conversion_name(m, e): {**e["convert"], "family": e["family"], "model": m}
    for m, e in MODEL_ENTRIES.items()
    if "convert" in e
}
MODEL_GROUPS = model_groups(MODEL_ENTRIES)


def model_precision(stage):
    """A model job's precision (`vlcomp.precision_choice.job_precision`), by its ``model``
    wildcard: ``none`` (float32, no autocast) for fp32 and for every job off CUDA."""

    def of_job(wc):
        if COMPUTE["device"] != "cuda":
            return "none"
        found = job_precision(MODEL_ENTRIES[wc.model], stage, COMPUTE)
        return "none" if found == "fp32" else found

    return of_job


# Blind (text-only) baselines on every benchmark with image->text choices: a bigram model
# of a caption dataset's training captions, and each captioner's prior log P(t|null)
BLIND = config_section(config, "blind")
# bootstrap CIs over test items and paired tests (vlcomp.metrics.uncertainty)
UNCERTAINTY = config_section(config, "uncertainty")
# Cross-encoders and generative scorers score each (image, text) pair of a choice benchmark;
# models without embeddings (captioners, BLIP-2's Q-Former ITM / ITC) skip retrieval.
# Generative scorers (log P(t|i): BLIP, BLIP-2 captioners) and the benchmarks whose
# image->text choices alpha affects
GENERATIVE_MODELS = [m for m, e in MODEL_ENTRIES.items() if is_captioner(e)]
# captioners that also score the log P(t|i) retrieval galleries (model key retrieval)
GENERATIVE_RETRIEVAL_MODELS = [
    m for m in GENERATIVE_MODELS if MODEL_ENTRIES[m].get("retrieval", True)
]
GENERATIVE_CHOICE_MODELS = [
    m for m in GENERATIVE_MODELS if m not in GENERATIVE_RETRIEVAL_MODELS
]
# (pair_score: none switches a model's pair scores off: cosine everywhere)
PAIR_MODELS = [
    m
    for m, e in MODEL_ENTRIES.items()
    if is_captioner(e) or e.get("pair_score", "none") != "none"
]
EMBEDDING_MODELS = [m for m, e in MODEL_ENTRIES.items() if has_embeddings(e)]
# a pair scorer's one job (choice benchmarks, a captioner's priors and unsharded galleries):
# its runtime and memory requests (vlcomp.plan.estimates)
PAIR_JOBS = {m: stage_job(config, "pairs", m, MODEL_ENTRIES[m]) for m in PAIR_MODELS}
BENCHMARKS = configured_benchmarks(config)
BENCHMARK_SPECS = {b: config["benchmarks"].get(b, {}) for b in BENCHMARKS}


def source_of(benchmark):
    """``world`` or the released source of a benchmark's items (bison_altered: bison's)."""
    return benchmark_source(
        config, "bison" if benchmark == "bison_altered" else benchmark
    )


def dataset_of(benchmark):
    """The caption dataset of an Order or retrieval benchmark."""
    return BENCHMARK_SPECS[benchmark].get("dataset", "world")


BENCHMARK_KIND = {b: benchmark_kind(b) for b in BENCHMARKS}
ALPHA_BENCHMARKS = [b for b in BENCHMARKS if BENCHMARK_KIND[b] in ALPHA_KINDS]
# VisualGPTScore Table 4a's ITMScore row: every ITM model on the 2 x 2 pair sets' held-out
# halves (the captioners' validation splits), and its retrieval metrics
HALVES_BENCHMARKS = [
    b for b in ALPHA_BENCHMARKS if BENCHMARK_KIND[b] in ("bivlc", "winoground")
]
ITM_MODELS = [m for m, e in MODEL_ENTRIES.items() if model_role(e) == "itm"]
# VisualGPTScore's appendix: Table 10 (BLIP-2 on ARO, Crepe, VL-CheckList), Tables 11-12
# (BLIP and BLIP-2 on the 2 x 2 pair sets), Table 13 (released Winoground per Diwan tag)
BLIP_MODELS = [
    m for m, e in MODEL_ENTRIES.items() if e["family"] in BLIP_FAMILIES + BLIP2_FAMILIES
]
BLIP2_MODELS = [m for m in BLIP_MODELS if MODEL_ENTRIES[m]["family"] in BLIP2_FAMILIES]
TABLE10_BENCHMARKS = [b for b in BENCHMARKS if BENCHMARK_KIND[b] in TABLE10_KINDS]
PAIR_TABLE_BENCHMARKS = [
    b for b in ALPHA_BENCHMARKS if BENCHMARK_KIND[b] == "winoground"
]
TAG_MODELS = (
    BLIP_MODELS
    if "winoground" in BENCHMARKS and source_of("winoground") == "release"
    else []
)
ORDER_BENCHMARKS = [b for b in BENCHMARKS if BENCHMARK_KIND[b] == "order"]
# VisualGPTScore Table 1: every choice benchmark with a headline, each model in its role
METHOD_TABLE_KINDS = ALPHA_KINDS + ("bison",)
METHOD_TABLE_BENCHMARKS = [
    b for b in BENCHMARKS if BENCHMARK_KIND[b] in METHOD_TABLE_KINDS
]
# the world's sets are not the papers' (Winoground-style ...); retrieval is named by dataset
VGS_NAMES = label_world_names(config)
# Generated negative images (BiVLC): sets under config.generation, and which negative
# images the BiVLC benchmark uses (generated + filtered, or exact renders of edited scenes).
GENERATION = config.get("generation", {})
# generation.trohn_img.source: release reads BiVLC's TROHN-Img instead of generating it
TROHN_IMG_RELEASE = GENERATION.get("trohn_img", {}).get("source") == "release"
# the caption dataset whose SugarCrepe-style negatives TROHN-Img selects and illustrates
TROHN_IMG_DATASET = GENERATION.get("trohn_img", {}).get("dataset", "world")
DETECTORS = config.get("detectors", {})
BIVLC_NEGATIVES = config["benchmarks"].get("bivlc", {}).get("negatives", "rendered")
BIVLC_IMAGESET = "bivlc_generated" if BIVLC_NEGATIVES == "generated" else "bivlc_world"
# The robustness suite (ARO Tables 3-4, Hendriksen et al.): galleries, perturbed texts and
# shuffled copies of each perturbed gallery's test images, evaluated by its own rule.
ROBUSTNESS = config["benchmarks"].get("robustness", {})
ROBUSTNESS_SEEDS = ROBUSTNESS.get("seeds", [0])
GALLERY_DATASET = {
    g: spec.get("dataset", "world")
    for g, spec in ROBUSTNESS.get("galleries", {}).items()
}
GALLERY_IMAGESET = {g: f"{d}_test" for g, d in GALLERY_DATASET.items()}
# BISON Table 1 on the world: the oracle judges each R@1 error of the world's galleries of
# COCO-like captions (not the coarse or fine-grained ones), for every embedding model
JUDGED_GALLERIES = [
    g
    for g, spec in ROBUSTNESS.get("galleries", {}).items()
    if GALLERY_DATASET[g] == "world" and "granularity" not in spec
]
# the report tables each gallery feeds (default all); ARO's image shuffles only for "aro"
GALLERY_TABLES = {
    g: list(spec.get("tables", GALLERY_TABLE_NAMES))
    for g, spec in ROBUSTNESS.get("galleries", {}).items()
}
# t2i_gallery: folder: text->image also ranks the rest of the image folder of a dataset
# (folder_dataset, default the gallery's), an image set of the folder's non-test images
FOLDER_IMAGESET = {
    g: f"{spec.get('folder_dataset', GALLERY_DATASET[g])}_folder_extra"
    for g, spec in ROBUSTNESS.get("galleries", {}).items()
    if spec.get("t2i_gallery", "test") == "folder"
}
IMAGE_CONDITIONS = {
    g: [
        (name, seed, f"{GALLERY_IMAGESET[g]}_{name}_s{seed}")
        for name in ROBUSTNESS.get("image_perturbations", [])
        for seed in ROBUSTNESS_SEEDS
    ]
    for g in ROBUSTNESS.get("perturbed_galleries", [])
    if "aro" in GALLERY_TABLES[g]
}
# each perturbed gallery's text perturbations: those a table it feeds reads (ARO's five
# word-order shuffles for an ARO-only gallery; vlcomp.config.gallery_text_perturbations)
TEXT_PERTURBATIONS = {
    g: gallery_text_perturbations(config, g)
    for g in ROBUSTNESS.get("perturbed_galleries", [])
}
RELEVANCE_MODEL = ROBUSTNESS.get("relevance_model", "")


def benchmark_imagesets(benchmark):
    """The image sets a benchmark shows, each embedded once per model for all benchmarks."""
    kind, world = BENCHMARK_KIND[benchmark], source_of(benchmark) == "world"
    if kind in ("aro_relation", "aro_attribution"):
        return ["vg_crops"]
    if kind in ("order", "retrieval"):
        return [f"{dataset_of(benchmark)}_test"]
    if kind == "sugarcrepe":
        return ["world_test"] if world else ["sugarcrepe"]
    if kind == "bivlc":
        return ["world_test", BIVLC_IMAGESET] if world else ["bivlc"]
    if kind == "winoground":  # Winoground, its No-Tag subset, EqBen
        return ["world_test", f"{benchmark}_world"] if world else [benchmark]
    if kind in ("crepe", "vl_checklist"):  # the world's on its test images
        return ["world_test"] if world else [benchmark]
    if kind in ("bison", "bison_altered"):
        return ["world_test"] if world else ["bison"]
    # robustness: the galleries' test images, the folders' other images, shuffled copies
    clean = list(dict.fromkeys([*GALLERY_IMAGESET.values(), *FOLDER_IMAGESET.values()]))
    return clean + [c[2] for conds in IMAGE_CONDITIONS.values() for c in conds]


BENCHMARK_IMAGESETS = {b: benchmark_imagesets(b) for b in BENCHMARKS}
CREPE_BENCHMARKS = [b for b in BENCHMARKS if BENCHMARK_KIND[b] == "crepe"]


VL_CHECKLIST_CORPORA = (
    BENCHMARK_SPECS["vl_checklist"].get("corpora", ["hake", "swig", "vg"])
    if "vl_checklist" in BENCHMARKS
    else []
)


def bivlc_count_inputs(wildcards):
    """BiVLC Table 1's benchmarks: SugarCrepe, BiVLC and, when configured, Winoground."""
    inputs = {
        "sugarcrepe": "results/benchmarks/sugarcrepe.parquet",
        "bivlc": "results/benchmarks/bivlc.parquet",
    }
    if "winoground" in BENCHMARKS:
        inputs["winoground"] = "results/benchmarks/winoground.parquet"
    return inputs


# each VL-CheckList corpus's image folder (Visual Genome shared with CREPE, SWiG
# downloaded, HAKE a checked manual download)
VL_CHECKLIST_IMAGES = {
    "vg": "resources/vg/images",
    "swig": "resources/vl_checklist/swig",
    "hake": "resources/vl_checklist/hake",
}


RETRIEVAL_BENCHMARKS = [b for b, kind in BENCHMARK_KIND.items() if kind == "retrieval"]
CHOICE_BENCHMARKS = [
    b for b, kind in BENCHMARK_KIND.items() if kind not in ("retrieval", "robustness")
]
CHOICE_BENCHMARK_PATTERN = union(CHOICE_BENCHMARKS)


BLIND_KINDS = (
    "aro_relation",
    "aro_attribution",
    "order",
    "sugarcrepe",
    "bivlc",
    "winoground",
    "crepe",
    "vl_checklist",
)
BLIND_BENCHMARKS = [b for b in CHOICE_BENCHMARKS if BENCHMARK_KIND[b] in BLIND_KINDS]
BLIND_MODELS = {
    "blind_ngram": f"Blind: bigram LM of {BLIND['dataset']} captions",
    **{
        f"blind_null_{m}": f"Blind: P(t|null) of {MODEL_ENTRIES[m]['label']}"
        for m in GENERATIVE_MODELS
    },
}


# the image sets choice benchmarks show (one image id, one picture: no shuffled copies)
CHOICE_IMAGESETS = sorted(
    {s for b in CHOICE_BENCHMARKS for s in BENCHMARK_IMAGESETS[b]}
)
RETRIEVAL_BENCHMARK_PATTERN = union(RETRIEVAL_BENCHMARKS)
# BISON section 6: captioning metrics as BISON systems, on the released items and COCO's
# reference captions
BISON_CAPTION_SCORES = (
    config["benchmarks"]["bison"].get("caption_scores", {})
    if "bison" in BENCHMARKS and source_of("bison") == "release"
    else {}
)
# BISON Tables 4 / 6 on the BLIP captioners configured here (hf_blip_lm; BLIP-2's captioners
# score but do not generate here): each captions a caption dataset's test images; COCO
# caption metrics beside its BISON accuracy
CAPTIONING_MODELS = [
    m for m in GENERATIVE_MODELS if MODEL_ENTRIES[m]["family"] == "hf_blip_lm"
]
# BISON's captioning settings over their defaults (config/schema.yaml)
CAPTIONING_SETTINGS = config_section(config, "benchmarks.bison.captioning")
BISON_CAPTIONING = (
    CAPTIONING_SETTINGS
    if "bison" in BENCHMARKS
    and CAPTIONING_MODELS
    and "captioning" in config["benchmarks"]["bison"]
    else {}
)
# the decoding settings of caption generation (a change re-generates the captions)
CAPTION_DECODING = {
    k: CAPTIONING_SETTINGS[k] for k in ("beams", "max_length", "min_length")
}
# display label -> the captioners it averages (seeds of one captioner)
CAPTIONER_GROUPS = {
    label: members
    for label, members in MODEL_GROUPS.items()
    if all(m in CAPTIONING_MODELS for m in members)
}
# the COCO-1K retrieval BISON's table sets beside its accuracy (a retrieval scored in folds)
BISON_RETRIEVAL = label_folded_retrieval(config)
# BISON §4.2's rank agreement: the retrieval systems config paper_models.BISON names (those
# with embeddings), their accuracy against their T2I R@1 on that retrieval (the world's:
# world_retrieval, which has no folds); three systems at least
BISON_RANK_RETRIEVAL = BISON_RETRIEVAL or (
    "world_retrieval" if "world_retrieval" in RETRIEVAL_BENCHMARKS else None
)
BISON_RANK_SYSTEMS = {
    label: [m for m in MODEL_GROUPS.get(label, []) if m in EMBEDDING_MODELS]
    for label in paper_model_labels(config).get("BISON", {}).get("retrieval system", [])
}
BISON_RANK_SYSTEMS = {k: v for k, v in BISON_RANK_SYSTEMS.items() if v}
BISON_RANK = bool(
    "bison" in BENCHMARKS and BISON_RANK_RETRIEVAL and len(BISON_RANK_SYSTEMS) >= 3
)
# the retrieval systems' model ids, in config order (their seeds together)
BISON_RANK_MODELS = [m for members in BISON_RANK_SYSTEMS.values() for m in members]


def benchmark_wildcards(benchmark):
    """A job's wildcards for a helper that reads ``wildcards.benchmark``."""
    return SimpleNamespace(benchmark=benchmark)


# benchmarks with uncertainty tables (choice benchmarks and retrieval galleries)
ANALYSIS_BENCHMARKS = CHOICE_BENCHMARKS + RETRIEVAL_BENCHMARKS

# Image classification (config.classification): ARO Table 6's CIFAR10 / CIFAR100 / ImageNet
# rows and the world's shapes; each dataset's image sets are embedded by embed_images
CLASSIFICATION = classification_plan(config)
CLS_DATASETS = list(CLASSIFICATION.datasets)
CLS_MODELS = list(CLASSIFICATION.models)
# classification_cifar10 -> cifar10: the benchmark name of its records
CLS_KEYS = CLASSIFICATION.keys
# each dataset's (train, evaluation) image sets
CLS_IMAGESETS = {d: CLASSIFICATION.imagesets(d) for d in CLS_DATASETS}
CLS_ZERO_SHOT = "zero_shot" in CLASSIFICATION.protocols


# Image sets and text sets every evaluated model embeds, in one job per model (loading torch
# and the model once); other image sets (e.g. world_train for neighbours) are embedded alone.
EVAL_IMAGESETS = sorted({s for b in BENCHMARKS for s in BENCHMARK_IMAGESETS[b]})


def model_entry(model):
    """The registry entry of a model, with a checkpoint path for runs trained here."""
    entry = {
        k: v for k, v in MODEL_ENTRIES[model].items() if k not in ("label", "group")
    }
    if "convert" in entry:  # a BLIP original converted by rule convert_blip
        entry.pop("convert")
        entry["model"] = converted_folder(model, MODEL_ENTRIES[model])
    if "run" in entry and is_captioner(entry):  # a captioner trained here
        entry["model"] = f"results/checkpoints/{entry.pop('run')}/hf"
    elif (
        "run" in entry
    ):  # a run trained here: our checkpoint, or an open_clip state dict
        key = "path" if entry["family"] == "checkpoint" else "pretrained"
        entry[key] = f"results/checkpoints/{entry.pop('run')}/model.pt"
    return entry


def model_files(model):
    """Files a model needs before it can score: its checkpoint when trained in the DAG, or the
    downloaded files under resources/ its entry names (NegCLIP's checkpoint; X-VLM's
    checkpoint, its YAML and the Swin / BERT JSONs), its hub snapshots and open_clip weights.
    """
    entry = MODEL_ENTRIES[model]
    if "convert" in entry:
        return [converted_folder(model, entry)]
    if "run" in entry and is_captioner(entry):
        return [f"results/checkpoints/{entry['run']}/hf"]
    if "run" in entry:
        return [f"results/checkpoints/{entry['run']}/model.pt"]
    if entry["family"] == "python":
        return list(entry.get("files", []))
    # hub snapshots and open_clip weights (vlcomp.pins), fetched by the download rules
    files = model_pins(model, entry).inputs
    # (hub ids and open_clip tags are no files: vlcomp.pins has them)
    for _, value in named_files(model, entry):
        path = value.removeprefix("resources/")
        manual = [f for f in MANUAL_CHECKS if path.startswith(f"{f}/")]
        if path in REMOTE_FILES:
            files.append(value)
        elif manual:  # a manual download (GNM's checkpoint): its check names the folder
            files += [f"resources/{folder}/.vlcomp_checked" for folder in manual]
        else:  # a file or folder of one's own (it exists: checked above)
            files.append(str(value))
    return files


def model_inputs(wildcards):
    return model_files(wildcards.model)


def xvlm_yaml(model):
    """An X-VLM's retrieval YAML (its k_test is checked against the configured one), else
    nothing."""
    entry = MODEL_ENTRIES[model]
    return (
        [entry["config"]] if entry["family"] == "xvlm" and entry.get("config") else []
    )


def sugarcrepe_imageset():
    """The natural images of the SugarCrepe items (the positives of BiVLC's generation)."""
    return f"results/imagesets/{benchmark_imagesets('sugarcrepe')[0]}.parquet"


def neighbour_imagesets(model):
    """Image sets a model embeds anyway, to mine training runs' nearest neighbours."""
    return sorted(
        {
            f"{run.get('dataset', 'world')}_train"
            for run in RUNS.values()
            if run.get("neighbours", {}).get("model") == model
        }
    )


def trohn_text_rows():
    """BiVLC Table 5's rows: the TROHN-Text instances of the first run trained on them, the
    released train / validation rows or the generated negatives (which carry a category).
    """
    for run in RUNS.values():
        if run.get("objective") != "trohn_text":
            continue
        data = run.get("dataset", "world")
        if released_rows(config, run) == "trohn_text":
            return {
                "train": f"results/negatives/{data}/sugarcrepe_release.parquet",
                "validation": f"results/negatives/{data}/sugarcrepe_release_val.parquet",
            }
        return {"train": f"results/negatives/{data}/{run['negatives']}.parquet"}
    return {}


TROHN_TEXT_ROWS = trohn_text_rows()


@functools.cache
def estimated_job(stage: str, name: str):
    """The estimate of one job of an unsharded stage (vlcomp.plan.estimates.stage_job): its
    ``runtime`` and ``mem_mb`` requests."""
    return stage_job(config, stage, name)


def metric_options(benchmark):
    opts = dict(config["benchmarks"].get(benchmark, {}))
    if benchmark == "vg_relation":
        return {
            "symmetric": opts.get("symmetric_relations", []),
            "min_count": opts.get("min_count", 0),
            "groups": opts.get("relation_groups", {}),
        }
    if benchmark == "vg_attribution":
        return {"min_count": opts.get("min_count", 25)}
    # VL-CheckList: a tag's corpus mean (default) or its pooled items
    if "within" in opts:
        return {"within": opts["within"]}
    return {}


# Each stage's helpers (globals and input functions), beside its rules' file.
include: "common/download.smk"
include: "common/data.smk"
include: "common/benchmarks.smk"
include: "common/vgs_benchmarks.smk"
include: "common/train.smk"
include: "common/generate.smk"
include: "common/score.smk"
include: "common/visualgptscore.smk"
include: "common/robustness.smk"
include: "common/classification.smk"
include: "common/uncertainty.smk"
include: "common/tables.smk"
