import functools
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from vlcomp.benchmarks.classification_plan import classification_plan  # noqa: E402
from vlcomp.config import (  # noqa: E402
    ConfigError,
    benchmark_source,
    converted_folder,
    dataset_names,
    expand_models,
    expand_runs,
    has_embeddings,
    is_captioner,
    model_groups,
    model_role,
    prior_column,
    released_negatives,
    released_rows,
    resolve_extends,
    text_priors,
)
from vlcomp.config_checks import validate_config  # noqa: E402
from vlcomp.config_defaults import section as config_section  # noqa: E402
from vlcomp.data.bison import ITEMS as BISON_ITEMS  # noqa: E402
from vlcomp.data.classification import CIFAR  # noqa: E402
from vlcomp.data.winoground import ITEMS as WINOGROUND_ITEMS  # noqa: E402
from vlcomp.data.datasets import dataset_files  # noqa: E402
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
from vlcomp.report.robustness import GALLERY_TABLE_NAMES, fg_notes  # noqa: E402
from vlcomp.report.visualgptscore_appendix import (  # noqa: E402
    BLIP2_FAMILIES,
    BLIP_FAMILIES,
    TABLE10_KINDS,
)
from vlcomp.jobs import prepend_pythonpath, single_threaded_libraries  # noqa: E402
from vlcomp.plan.estimates import stage_job  # noqa: E402
from vlcomp.shards import SHARD_PATTERN, parse_shard, shard_names  # noqa: E402
from vlcomp.text.wordnet_files import WORDNET_SOURCE  # noqa: E402

# Jobs import vlcomp from this checkout, whichever environment runs them (.venv, envs/*.yaml)
prepend_pythonpath(Path(workflow.basedir) / "src")
single_threaded_libraries()

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


WORLD = config.get("world", {})
# GPUs a GPU job asks a cluster for: one when the models run on CUDA, unless configured
GPUS = config["compute"].get("gpus", 1 if config["compute"]["device"] == "cuda" else 0)
# the compute and embedding settings over their defaults (config/schema.yaml)
COMPUTE = config_section(config, "compute")
EMBED = config_section(config, "embed")
# Caption datasets: the synthetic world (when configured) and the real ones (config.datasets)
DATASETS = {
    name: config.get("datasets", {}).get(name, {"source": "world"})
    for name in dataset_names(config)
}
REAL_DATASETS = {d: spec for d, spec in DATASETS.items() if d != "world"}


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


# Real datasets and checkpoints: every downloadable file and every archive's folder.
REMOTE_FILES = remote_files(config.get("downloads", {}).get("sha256"))
REMOTE_FILE_PATTERN = "|".join(re.escape(p) for p in REMOTE_FILES)
UNPACKED = (
    {}
)  # folder -> the archives unpacked into it (Visual Genome: two zips, one folder)
for _path, _file in REMOTE_FILES.items():
    if _file.unpack_to:
        UNPACKED.setdefault(_file.unpack_to, []).append(_path)
UNPACKED_PATTERN = "|".join(re.escape(p) for p in UNPACKED)
DOWNLOAD_MIRRORS = config.get("downloads", {}).get("mirrors", {})
# size and sha256 of downloads without a published hash (not an output: survives re-runs)
DOWNLOAD_LOCK = config.get("downloads", {}).get("lock", DEFAULT_LOCK)
MANUAL_CHECKS = manual_checks()

# Runs and models with several training seeds expand to one id per seed ({name}_s{seed}).
RUNS = expand_runs(config)
# Small BLIP captioners trained here (VisualGPTScore's demo model), by name
CAPTIONERS = config.get("captioners", {})
RUN_PATTERN = union(RUNS)
# a run's optimisation steps in segments, one job each (config shards; vlcomp.plan.estimates)
TRAIN_JOBS = {r: stage_job(config, "train", r) for r in RUNS}
CAPTIONER_PATTERN = union(CAPTIONERS)
MODEL_ENTRIES = expand_models(config)
MODELS = list(MODEL_ENTRIES)
# BLIP originals converted to transformers folders (rule convert_blip), by model
CONVERTED_MODELS = {m: e["convert"] for m, e in MODEL_ENTRIES.items() if "convert" in e}
MODEL_GROUPS = model_groups(MODEL_ENTRIES)
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
VISUALGPTSCORE = config.get("visualgptscore", {})
# Gaussian null images of the Monte Carlo prior (the paper's appendix: mean 1, std 0.25)
NULL_IMAGES = config_section(config, "visualgptscore.null_images")
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
# (pair_score: none switches a model's pair scores off: cosine everywhere)
PAIR_MODELS = [
    m
    for m, e in MODEL_ENTRIES.items()
    if is_captioner(e) or e.get("pair_score", "none") != "none"
]
EMBEDDING_MODELS = [m for m, e in MODEL_ENTRIES.items() if has_embeddings(e)]
# Pair models that also embed (BLIP ITM for retrieval): one job encodes each picture once for
# both; every other embedding model has its embed_model job.
ITM_PAIR_MODELS = [m for m in PAIR_MODELS if m in EMBEDDING_MODELS]
# Pair models with neither embeddings nor a text prior (BLIP-2's Q-Former ITM / ITC): their
# job scores the choice benchmarks only
PAIR_ONLY_MODELS = [
    m for m in PAIR_MODELS if m not in EMBEDDING_MODELS and m not in GENERATIVE_MODELS
]
EMBED_ONLY_MODELS = [m for m in EMBEDDING_MODELS if m not in PAIR_MODELS]
# a pair scorer's one job (choice benchmarks, a captioner's priors and unsharded galleries):
# its runtime and memory requests (vlcomp.plan.estimates)
PAIR_JOBS = {m: stage_job(config, "pairs", m, MODEL_ENTRIES[m]) for m in PAIR_MODELS}
BENCHMARKS = configured_benchmarks(config)
BENCHMARK_SPECS = {b: config["benchmarks"].get(b, {}) for b in BENCHMARKS}
# Heavy jobs in shards (config shards; vlcomp.plan.estimates): a model's embed_model job
EMBED_JOBS = {
    m: stage_job(config, "embed", m, MODEL_ENTRIES[m]) for m in EMBED_ONLY_MODELS
}
EMBED_SHARDS = {m: job.shards for m, job in EMBED_JOBS.items()}
SHARDED_EMBED_MODELS = [m for m, n in EMBED_SHARDS.items() if n > 1]


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
CREPE_RELEASE = [b for b in CREPE_BENCHMARKS if source_of(b) == "release"]
CREPE_WORLD = [b for b in CREPE_BENCHMARKS if source_of(b) == "world"]


def crepe_negatives(wildcards):
    """crepe_atom -> atom: the CREPE negative type of a benchmark."""
    return wildcards.benchmark.removeprefix(CREPE_PREFIX)


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


def vl_checklist_inputs(wildcards):
    """VL-CheckList's release files and the image folders of the corpora scored (a manual
    download's check file stands for its folder)."""
    inputs = {
        "release": [
            f"resources/vl_checklist/release/{path}" for path in VL_CHECKLIST_BLOBS
        ]
    }
    for corpus in VL_CHECKLIST_CORPORA:
        folder = VL_CHECKLIST_IMAGES[corpus]
        manual = folder.removeprefix("resources/") in MANUAL_CHECKS
        inputs[corpus] = f"{folder}/.vlcomp_checked" if manual else folder
    return inputs


RETRIEVAL_BENCHMARKS = [b for b, kind in BENCHMARK_KIND.items() if kind == "retrieval"]
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
ORDER_BENCHMARK_PATTERN = union(ORDER_BENCHMARKS)
CHOICE_BENCHMARKS = [
    b for b, kind in BENCHMARK_KIND.items() if kind not in ("retrieval", "robustness")
]
CHOICE_BENCHMARK_PATTERN = union(CHOICE_BENCHMARKS)


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


def uncertainty_models(benchmark):
    """The models of a benchmark's uncertainty tables: every model, and the blind baselines
    where image->text choices exist (P(t|null) only where the text prior is computed).
    """
    if benchmark not in BLIND_BENCHMARKS:
        return list(MODELS)
    blind = [
        b for b in BLIND_MODELS if b == "blind_ngram" or benchmark in ALPHA_BENCHMARKS
    ]
    return list(MODELS) + blind


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
# the probe job's GPU (when it runs on CUDA), memory (MB) and minutes per dataset
CLS_PROBE_GPUS = (
    GPUS
    if "linear_probe" in CLASSIFICATION.protocols
    and CLASSIFICATION.probe.get("device") == "cuda"
    else 0
)
CLS_PROBE_RESOURCES = {
    "cifar10": (16000, 120),
    "cifar100": (16000, 120),
    "imagenet": (64000, 480),
    "world_shapes": (4000, 30),
}


def probe_threads(dataset):
    """Torch threads of a probe job: one for the world's shapes (a few hundred rows by a few
    classes: a second thread only adds synchronisation, measured 35x slower on a busy
    2-core machine), compute.threads for the real sets."""
    return 1 if dataset == "world_shapes" else config["compute"]["threads"]


# the numbers with intervals: choice and retrieval benchmarks, and the classification sets
INTERVAL_BENCHMARKS = ANALYSIS_BENCHMARKS + list(CLS_KEYS)
INTERVAL_KINDS = {b: BENCHMARK_KIND[b] for b in ANALYSIS_BENCHMARKS} | {
    k: "classification" for k in CLS_KEYS
}


def classification_metrics_files():
    """Every classified model's record of every classification set."""
    return [f"results/metrics/{m}/{k}.json" for k in CLS_KEYS for m in CLS_MODELS]


def classification_inputs(wildcards):
    """A dataset's train and evaluation image sets, the model's embeddings of both, and its
    class embeddings when zero-shot is configured."""
    model, dataset = wildcards.model, wildcards.cls_dataset
    train, evaluation = CLS_IMAGESETS[dataset]
    inputs = {
        "train_images": f"results/imagesets/{train}.parquet",
        "eval_images": f"results/imagesets/{evaluation}.parquet",
        "train_embeddings": f"results/embeddings/{model}/images/{train}.npy",
        "eval_embeddings": f"results/embeddings/{model}/images/{evaluation}.npy",
    }
    if CLS_ZERO_SHOT:
        inputs["classes"] = f"results/embeddings/{model}/classes/{dataset}.npy"
    return inputs


def interval_benchmarks(key):
    """The benchmarks whose intervals a table's `_ci` companion reads (ARO Table 6 also the
    classification sets')."""
    return INTERVAL_BENCHMARKS if key == "aro/table6" else ANALYSIS_BENCHMARKS


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
    if "convert" in entry:  # a BLIP original converted by rule convert_blip
        entry.pop("convert")
        entry["model"] = converted_folder(model)
    if "run" in entry and is_captioner(entry):  # a captioner trained here
        entry["model"] = f"results/checkpoints/{entry.pop('run')}/hf"
    elif (
        "run" in entry
    ):  # a run trained here: our checkpoint, or an open_clip state dict
        key = "path" if entry["family"] == "checkpoint" else "pretrained"
        entry[key] = f"results/checkpoints/{entry.pop('run')}/model.pt"
    return entry


# entry keys that may name a downloaded file (vlcomp.data.sources) a model reads
MODEL_FILE_KEYS = (
    "path",
    "pretrained",
    "config",
    "vision_config",
    "text_config",
    "lm_head",
)


def model_files(model):
    """Files a model needs before it can score: its checkpoint when trained in the DAG, or the
    downloaded files under resources/ its entry names (NegCLIP's checkpoint; X-VLM's
    checkpoint, its YAML and the Swin / BERT JSONs)."""
    entry = MODEL_ENTRIES[model]
    if "convert" in entry:
        return [converted_folder(model)]
    if "run" in entry and is_captioner(entry):
        return [f"results/checkpoints/{entry['run']}/hf"]
    if "run" in entry:
        return [f"results/checkpoints/{entry['run']}/model.pt"]
    if entry["family"] == "python":
        return list(entry.get("files", []))
    files = []
    for key in MODEL_FILE_KEYS:
        path = str(entry.get(key, "")).removeprefix("resources/")
        if path in REMOTE_FILES:
            files.append(entry[key])
        else:  # a manual download (GNM's checkpoint): its check, which names the folder
            files += [
                f"resources/{folder}/.vlcomp_checked"
                for folder in MANUAL_CHECKS
                if path.startswith(f"{folder}/")
            ]
    return files


def model_inputs(wildcards):
    return model_files(wildcards.model)


def converted_checkpoint(wildcards):
    """The downloaded original checkpoint that rule convert_blip converts for a model."""
    source = SOURCES[CONVERTED_MODELS[wildcards.model]["source"]]
    return f"resources/{source.files[0].path}"


def dataset_inputs(wildcards):
    """The resources/ files a real dataset's tables are built from."""
    name = wildcards.dataset
    files = dataset_files(name, REAL_DATASETS[name])
    return {key: [f"resources/{f}" for f in paths] for key, paths in files.items()}


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


def bivlc_selection():
    """Which negative image each SugarCrepe item gets, and whether it is kept."""
    if BIVLC_NEGATIVES == "generated":
        return "results/generated/bivlc/selection.parquet"
    return "results/generated/bivlc_world/manifest.parquet"


def train_inputs(wildcards):
    """A run's data, the checkpoint it starts from, and its hard negatives / neighbours."""
    run = RUNS[wildcards.run]
    data = run.get("dataset", "world")
    inputs = {
        "images": f"results/data/{data}/images.parquet",
        "captions": f"results/data/{data}/captions.parquet",
    }
    if "init" in run:
        inputs["init"] = f"results/checkpoints/{run['init']}/model.pt"
    if "init_model" in run:
        inputs["init_model"] = model_files(run["init_model"])
    release = released_rows(config, run)  # BiVLC's TROHN rows: one instance per row
    if release == "trohn_text":
        inputs["instances"] = f"results/negatives/{data}/sugarcrepe_release.parquet"
        inputs["val_instances"] = (
            f"results/negatives/{data}/sugarcrepe_release_val.parquet"
        )
    elif "negatives" in run:
        inputs["negatives"] = f"results/negatives/{data}/{run['negatives']}.parquet"
    if "generated" in run:
        inputs["instances"] = f"results/generated/{run['generated']}/instances.parquet"
    if release == "trohn_img":
        inputs["val_instances"] = "results/generated/trohn_img/instances_val.parquet"
    if released_negatives(config, run):  # the release's rows, negatives and neighbours
        inputs["pairs"] = f"results/pairs/{data}/{run['negatives']}_release.parquet"
    elif "neighbours" in run:
        nn = run["neighbours"]
        inputs["pairs"] = (
            f"results/pairs/{data}/nn_{nn['model']}_train_k{nn['k']}.parquet"
        )
    return inputs


def train_segment(wildcards) -> str:
    """The segment a train job runs: its wildcard, or the run's last one (rule train_clip)."""
    return getattr(wildcards, "segment", None) or last_train_segment(wildcards.run)


def last_train_segment(run: str) -> str:
    return shard_names(TRAIN_JOBS[run].shards)[-1]


def train_segment_inputs(wildcards):
    """`train_inputs` and, after a run's first segment, the state its predecessor left."""
    inputs = train_inputs(wildcards)
    index, count = parse_shard(train_segment(wildcards))
    if index > 0:
        inputs["start_state"] = (
            f"results/checkpoints/{wildcards.run}/segments/{index - 1}-of-{count}.pt"
        )
    return inputs


@functools.cache
def estimated_job(stage: str, name: str):
    """The estimate of one job of an unsharded stage (vlcomp.plan.estimates.stage_job): its
    ``runtime`` and ``mem_mb`` requests."""
    return stage_job(config, stage, name)


def train_resources(wildcards) -> dict:
    """A train segment's runtime (estimate) and memory (the run's ``mem_mb``, else estimate)."""
    job = TRAIN_JOBS[wildcards.run]
    return {
        "runtime": job.runtime,
        "mem_mb": RUNS[wildcards.run].get("mem_mb", job.mem_mb),
    }


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
            "groups": opts.get("relation_groups", {}),
        }
    if benchmark == "vg_attribution":
        return {"min_count": opts.get("min_count", 25)}
    return {}


def embed_images_job(wildcards):
    """A model's embedding job of one image set (vlcomp.plan.estimates): its requests."""
    return stage_job(
        config,
        "embed_images",
        wildcards.model,
        MODEL_ENTRIES[wildcards.model],
        imageset=wildcards.imageset,
    )


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


def blind_source(wildcards):
    """A blind baseline's input: the training captions, or a captioner's text prior."""
    if wildcards.blind == "blind_ngram":
        return f"results/data/{BLIND['dataset']}/captions.parquet"
    model = wildcards.blind.removeprefix("blind_null_")
    return f"results/priors/{model}/{wildcards.benchmark}.parquet"


def metrics_files(benchmarks):
    """Every model's metrics of these benchmarks (retrieval: models with embeddings)."""
    files = []
    for b in benchmarks:
        if b not in BENCHMARKS:
            continue
        needs_embeddings = BENCHMARK_KIND[b] in ("retrieval", "robustness")
        for model in EMBEDDING_MODELS if needs_embeddings else MODELS:
            files.append(f"results/metrics/{model}/{b}.json")
    return files


ARO_BENCHMARKS = ["vg_relation", "vg_attribution"] + ORDER_BENCHMARKS
# the world's Order / retrieval columns are compared with the papers' COCO ones
PUBLISHED_ALIASES = (
    WORLD_ALIASES if {"order", "world_retrieval"} & set(BENCHMARKS) else {}
)
# published rows this configuration cannot reproduce, and why (said at start, and in the
# note column of every _vs_published table)
PUBLISHED_ONLY = config.get("published_only", {})


def vgs_names():
    """Display names of benchmarks in the VisualGPTScore tables."""
    return label_vgs_names(config)


def aro_columns():
    """ARO table columns: the VG benchmarks, then each Order benchmark by its dataset."""
    return label_aro_columns(BENCHMARKS)


def benchmark_labels():
    """Display names of the choice benchmarks (cross-benchmark tables and figures)."""
    names = dict(DISPLAY_NAMES)
    retrieval = {
        b: " ".join(filter(None, [dataset_label(b, "retrieval"), "Retrieval"]))
        for b in RETRIEVAL_BENCHMARKS
    }
    classification = {k: CLASSIFICATION_LABELS[d] for k, d in CLS_KEYS.items()}
    return names | aro_columns() | VGS_NAMES | retrieval | classification


def aro6_downstream():
    """ARO Table 6 downstream rows: R@1 both ways of each retrieval benchmark, then each
    classification set's top-1 per protocol."""
    return label_aro6_downstream(RETRIEVAL_BENCHMARKS) | label_aro6_classification(
        CLS_DATASETS, CLASSIFICATION.protocols
    )


# Paper tables whose `_ci` companion (every number with its CI) is written with the table
# itself, and tables that carry their CIs as columns already.
OWN_CI_TABLES = ("visualgptscore/table2", "visualgptscore/table4")
# companions holding intervals that no benchmark's uncertainty table has (alpha-picking
# procedures, per-tag bootstraps, caption metrics as BISON systems): the summary reads them
CELL_CI_TABLES = (
    *OWN_CI_TABLES,
    "visualgptscore/table11",
    "visualgptscore/table13",
    "bison/section6",
)
NO_CI_TABLES = (  # tables of counts, procedures and text statistics: nothing to resample
    "bivlc/filter",
    "bivlc/table5",
    "bison/table4",  # caption metrics of generated captions: not resampled here
    "robustness/granularity_statistics",
)


def ci_tables(tables):
    """Keys (``paper/table``) of the paper tables among ``tables`` that get a `_ci`
    companion."""
    keys = [
        t.removeprefix("results/tables/").removesuffix(".md")
        for t in tables
        if t.startswith("results/tables/") and t.endswith(".md")
    ]
    return [k for k in keys if k not in NO_CI_TABLES and not k.startswith("analysis/")]


def table_index(key):
    """Index columns of a paper table's csv (ARO Table 6: section and task)."""
    return [0, 1] if key == "aro/table6" else 0


def model_roles():
    """Display label -> VisualGPTScore Table 1 role: itm (a cross-encoder's ITM head),
    generative (a captioner) or discriminative (cosine, or an ITC pair score)."""
    return {entry["label"]: model_role(entry) for entry in MODEL_ENTRIES.values()}


def table_interval_inputs(wildcards):
    """A paper table, every benchmark's intervals and seed spreads, and the cells of its
    own kind (robustness conditions, detectors, BiVLC Table 1's benchmarks)."""
    key = f"{wildcards.paper}/{wildcards.table}"
    return {
        "table": f"results/tables/{key}.csv",
        "intervals": expand(
            "results/uncertainty/{benchmark}.csv", benchmark=interval_benchmarks(key)
        ),
        "seeds": expand(
            "results/uncertainty/{benchmark}_seeds.csv",
            benchmark=interval_benchmarks(key),
        ),
        "robustness": (
            ["results/uncertainty/robustness.csv"]
            if key.startswith("robustness/")
            else []
        ),
        "detectors": (
            ["results/uncertainty/detectors.csv"] if key == "bivlc/table4" else []
        ),
        "benchmarks": (
            expand("results/benchmarks/{b}.parquet", b=["sugarcrepe", "bivlc"])
            if key == "bivlc/table1"
            else []
        ),
        "cells": cell_interval_files(key),
    }


def cell_interval_files(key):
    """The intervals of a table's cells that no benchmark's uncertainty table has:
    VisualGPTScore Table 11's alpha rows, Table 13's tags, BISON section 6's caption
    metrics."""
    if key == "visualgptscore/table11":
        return expand(
            "results/uncertainty/alpha/{model}/{benchmark}.csv",
            model=[m for m in BLIP_MODELS if m in GENERATIVE_MODELS],
            benchmark=PAIR_TABLE_BENCHMARKS,
        )
    if key == "visualgptscore/table13":
        return expand(
            "results/uncertainty/winoground_tags/{model}.csv", model=TAG_MODELS
        )
    if key == "bison/section6":
        return ["results/uncertainty/bison_section6.csv"]
    return []


def all_tables():
    tables = []
    if GENERATIVE_MODELS and ALPHA_BENCHMARKS:
        tables += expand(
            "results/tables/visualgptscore/{table}.md",
            table=["table1", "table2", "table4"],
        )
    if BLIP2_MODELS and TABLE10_BENCHMARKS:
        tables += ["results/tables/visualgptscore/table10.md"]
    if BLIP_MODELS and PAIR_TABLE_BENCHMARKS:
        tables += ["results/tables/visualgptscore/table11.md"]
    if TAG_MODELS:
        tables += ["results/tables/visualgptscore/table13.md"]
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS):
        tables += ["results/tables/aro/aro.md"]
    if "vg_relation" in BENCHMARKS:
        tables += ["results/tables/aro/table2.md"]
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS):
        tables += ["results/tables/aro/table6.md", "results/figures/aro_fig3_radar.png"]
    elif CLS_DATASETS:  # classification alone: ARO Table 6's downstream rows
        tables += ["results/tables/aro/table6.md"]
    if "sugarcrepe" in BENCHMARKS:
        tables += ["results/tables/sugarcrepe/sugarcrepe.md"]
    if "bison" in BENCHMARKS:
        tables += ["results/tables/bison/bison.md"]
    if BISON_CAPTION_SCORES:
        tables += ["results/tables/bison/section6.md"]
    if BISON_CAPTIONING:
        tables += ["results/tables/bison/table4.md"]
    if "winoground" in BENCHMARKS:
        tables += ["results/tables/winoground/winoground.md"]
    if "bison_altered" in BENCHMARKS:
        tables += ["results/tables/bison/fig9.md", "results/figures/bison_fig9.png"]
    if ROBUSTNESS:
        tables += expand(
            "results/tables/robustness/{table}.md",
            table=["aro_table3", "aro_table4", "hendriksen", "granularity"],
        )
        tables += ["results/tables/robustness/granularity_statistics.md"]
    if "bivlc" in BENCHMARKS:
        tables += expand(
            "results/tables/bivlc/{table}.md",
            table=["table1", "table2", "table3", "table6"],
        )
    if TROHN_TEXT_ROWS:
        tables += ["results/tables/bivlc/table5.md"]
    if (
        "bivlc" in GENERATION
    ):  # BiVLC's construction, also beside the released benchmark
        tables += [
            "results/tables/bivlc/filter.md",
            "results/figures/bivlc_generated_examples.png",
        ]
    if DETECTORS:
        tables += ["results/tables/bivlc/table4.md"]
    tables += [f"results/tables/{key}_ci.md" for key in ci_tables(tables)]
    tables += [
        t.replace(".md", "_vs_published.md")
        for t in list(tables)
        if t.removeprefix("results/tables/").removesuffix(".md") in PUBLISHED_FOR
    ]
    tables += expand(
        "results/uncertainty/{benchmark}.csv", benchmark=INTERVAL_BENCHMARKS
    )
    if "robustness" in BENCHMARKS:
        tables += ["results/uncertainty/robustness.csv"]
    if DETECTORS:
        tables += ["results/uncertainty/detectors.csv"]
    if len(MODELS) >= 3 and len(CHOICE_BENCHMARKS) >= 2:
        tables += ["results/tables/analysis/rank_correlation.md"]
    if "vg_relation" in BENCHMARKS:
        tables += ["results/figures/aro_relations.png"]
    if "bivlc" in BENCHMARKS:
        tables += ["results/figures/bivlc_scatter.png"]
    if ROBUSTNESS:
        tables += ["results/figures/robustness_drops.png"]
    return tables


# Tables whose `_ci` companion rule table_intervals writes
INTERVAL_TABLES = [k for k in ci_tables(all_tables()) if k not in OWN_CI_TABLES]


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


def alpha_uncertainty_inputs(wildcards):
    """A generative model's α inputs: a retrieval gallery's score matrices, or a choice
    benchmark's items, pair scores and text priors."""
    if wildcards.benchmark in RETRIEVAL_BENCHMARKS:
        return {"scores": f"results/scores/{wildcards.model}/{wildcards.benchmark}.npz"}
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
