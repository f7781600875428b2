"""Validate a workflow configuration against config/schema.yaml with messages naming the key."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml


class ConfigError(ValueError):
    """A configuration that does not match the schema."""


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = ["config", *(str(p) for p in error.absolute_path)]
    return ".".join(parts)


def merge_config(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``override``: mappings merge key by key, a ``null`` value deletes
    its key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_config(out[key], value)
        else:
            out[key] = value
    return out


def resolve_extends(config: dict[str, Any], folders: Sequence[str | Path] = (),
                    seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A configuration with ``extends: FILE`` made whole: FILE (found as given, else in each
    of ``folders``; it may extend another in turn) updated by the rest (`merge_config`).
    Raises ConfigError naming a missing or circular file."""
    if "extends" not in config:
        return config
    name = Path(str(config["extends"]))
    candidates = [name, *(Path(f) / name for f in folders)]
    found = next((c.resolve() for c in candidates if c.is_file()), None)
    if found is None:
        raise ConfigError(f"config.extends: {name} not found (looked in "
                          f"{', '.join(str(c) for c in candidates)})")
    if found in seen:
        raise ConfigError(f"config.extends: {found} extends itself")
    base = yaml.safe_load(found.read_text()) or {}
    base = resolve_extends(base, [found.parent, *folders], (*seen, found))
    return merge_config(base, {k: v for k, v in config.items() if k != "extends"})


def validate_config(config: dict[str, Any], schema_path: str | Path) -> None:
    """Raise ConfigError listing every problem as ``config.a.b: message``."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [f"{_key_path(e)}: {e.message}" for e in errors]
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))
    _check_references(config)


def _check_references(config: dict[str, Any]) -> None:
    """Cross-key checks the schema cannot express."""
    compute = config["compute"]
    if compute["device"] == "cuda" and compute.get("gpus") == 0:
        raise ConfigError("config.compute.gpus: 0 with device cuda; GPU jobs would get no GPU "
                          "on a cluster (leave gpus out: it defaults to 1 with cuda)")
    benchmarks = config["benchmarks"]
    if "winoground_no_tag" in benchmarks and \
            benchmarks.get("winoground", {}).get("source", "world") != "release":
        raise ConfigError("config.benchmarks.winoground_no_tag: Diwan et al.'s tags describe "
                          "the released Winoground; add benchmarks.winoground with source "
                          "release (the world's pairs have no such tags)")
    train = config.get("train", {})
    for name, entry in config["models"].items():
        if entry["family"] == "checkpoint":
            if ("run" in entry) == ("path" in entry):
                raise ConfigError(f"config.models.{name}: give exactly one of 'run' or 'path'")
            if "run" in entry and entry["run"] in train and "init_model" in train[entry["run"]] \
                    and config["models"].get(train[entry["run"]]["init_model"], {}).get(
                        "family") == "open_clip":
                raise ConfigError(f"config.models.{name}.run: {entry['run']!r} fine-tunes an "
                                  "open_clip model; use family open_clip with run")
            if "run" in entry and entry["run"] not in train:
                raise ConfigError(
                    f"config.models.{name}.run: no training run {entry['run']!r} under "
                    f"config.train (known: {sorted(train)})"
                )
        if entry["family"] == "hf_blip_lm" and "run" in entry:
            captioners = config.get("captioners", {})
            if entry["run"] not in captioners:
                raise ConfigError(f"config.models.{name}.run: no captioner {entry['run']!r} "
                                  f"under config.captioners (known: {sorted(captioners)})")
            if "model" in entry:
                raise ConfigError(f"config.models.{name}: give 'run' (a captioner trained "
                                  "here) or 'model' (hub id or folder), not both")
        if entry["family"] == "hf_blip2_qformer_lm" and "lm_head" not in entry:
            raise ConfigError(f"config.models.{name}: family hf_blip2_qformer_lm needs "
                              "'lm_head' (LAVIS' checkpoint with the Q-Former's LM head, e.g. "
                              "resources/models/blip2/blip2_pretrained.pth)")
        if "retrieval" in entry and not is_captioner(entry):
            raise ConfigError(f"config.models.{name}.retrieval: only for captioner families "
                              f"{list(CAPTIONER_FAMILIES)} (log P(t|i) retrieval galleries)")
        if entry["family"] == "xvlm":
            missing = [k for k in ("path", "config") if k not in entry]
            if missing:
                raise ConfigError(f"config.models.{name}: family xvlm needs {missing} (X-VLM's "
                                  "retrieval checkpoint and the YAML that came with it)")
        if "convert" in entry:
            _check_conversion(name, entry)
        _check_pair_options(name, entry)
        if entry["family"] == "open_clip":
            if "arch" not in entry or ("pretrained" in entry) == ("run" in entry):
                raise ConfigError(f"config.models.{name}: open_clip needs 'arch' and one of "
                                  "'pretrained' or 'run' (a run fine-tuned from init_model)")
            if "run" in entry and "init_model" not in train.get(entry["run"], {}):
                raise ConfigError(f"config.models.{name}.run: {entry['run']!r} is not a run "
                                  "under config.train with init_model")
    for name, run in train.items():
        _check_run(config, name, run)
    vgs = config.get("visualgptscore", {})
    unknown = set(vgs.get("null_images", {}).get("n_by_benchmark", {})) - set(
        config["benchmarks"])
    if unknown:
        raise ConfigError(f"config.visualgptscore.null_images.n_by_benchmark: {sorted(unknown)} "
                          "are not under config.benchmarks")
    needs = {"train": "train_images", "llm": "llm"}.get(vgs.get("alpha_prior", "null"))
    if needs and needs not in vgs:
        raise ConfigError(f"config.visualgptscore.alpha_prior: {vgs['alpha_prior']!r} needs "
                          f"config.visualgptscore.{needs}")
    text_priors(config)  # names unique
    clash = set(config.get("captioners", {})) & set(train)
    if clash:
        raise ConfigError(f"config.captioners: {sorted(clash)} are also training runs under "
                          "config.train (their checkpoints would share a folder)")
    if "bivlc" in config["benchmarks"] and benchmark_source(config, "bivlc") == "world" \
            and "sugarcrepe" not in config["benchmarks"]:
        raise ConfigError("config.benchmarks.bivlc: source world needs config.benchmarks."
                          "sugarcrepe (its negative captions)")
    robustness = config["benchmarks"].get("robustness")
    if robustness:
        unknown = set(robustness.get("perturbed_galleries", [])) - set(robustness["galleries"])
        if unknown:
            raise ConfigError(
                f"config.benchmarks.robustness.perturbed_galleries: {sorted(unknown)} are not "
                f"galleries (known: {sorted(robustness['galleries'])})"
            )
        relevance = robustness["relevance_model"]
        if relevance not in expand_models(config):
            raise ConfigError(
                f"config.benchmarks.robustness.relevance_model: {relevance!r} is not a model "
                f"(known: {sorted(expand_models(config))})"
            )
    _check_generation(config)
    _check_datasets(config)
    from vlcomp.benchmarks.classification_plan import check_classification

    check_classification(config)
    for g, spec in (robustness or {}).get("galleries", {}).items():
        _check_folder_gallery(config, g, spec)
    vectors = config["benchmarks"].get("bison", {}).get("vectors", {})
    if vectors.get("source") == "clip_tokens":
        run = vectors.get("run")
        if run not in train or "seeds" in train[run]:
            raise ConfigError(
                "config.benchmarks.bison.vectors.run: source clip_tokens needs a single-seed "
                f"run under config.train (got {run!r}; known: {sorted(train)})"
            )


# benchmarks whose ``source`` may be the world (the default) or a released file
WORLD_SOURCED = ("vg_relation", "vg_attribution", "sugarcrepe", "bivlc", "bison", "winoground")


def dataset_names(config: dict[str, Any]) -> list[str]:
    """Datasets a config can use: ``world`` (when it has a world) and ``config.datasets``."""
    return (["world"] if "world" in config else []) + list(config.get("datasets", {}))


def benchmark_source(config: dict[str, Any], benchmark: str) -> str:
    """Where a benchmark's items come from: ``world`` or a released source."""
    return config["benchmarks"].get(benchmark, {}).get("source", "world")


def _check_datasets(config: dict[str, Any]) -> None:
    """Datasets named by benchmarks, galleries and runs exist; world sources need a world."""
    known = dataset_names(config)
    benchmarks = config["benchmarks"]
    refs = [(f"benchmarks.{b}.dataset", spec.get("dataset", "world"))
            for b, spec in benchmarks.items() if b.endswith(("_order", "_retrieval"))
            or b == "order"]
    refs += [(f"benchmarks.robustness.galleries.{g}.dataset", spec.get("dataset", "world"))
             for g, spec in benchmarks.get("robustness", {}).get("galleries", {}).items()]
    refs += [(f"train.{r}.dataset", run.get("dataset", "world"))
             for r, run in config.get("train", {}).items()]
    if "trohn_img" in config.get("generation", {}):
        refs.append(("generation.trohn_img.dataset",
                     config["generation"]["trohn_img"].get("dataset", "world")))
    refs += [(f"benchmarks.{b}.source", "world") for b in WORLD_SOURCED
             if b in benchmarks and benchmark_source(config, b) == "world"]
    captioning = benchmarks.get("bison", {}).get("captioning")
    if captioning is not None:
        refs.append(("benchmarks.bison.captioning.dataset", captioning.get("dataset", "world")))
    for key, name in refs:
        if name not in known:
            hint = "; a world source needs config.world" if name == "world" else ""
            raise ConfigError(f"config.{key}: no dataset {name!r} (known: {known}){hint}")
    for g, spec in benchmarks.get("robustness", {}).get("galleries", {}).items():
        if spec.get("dataset", "world") != "world" and \
                spec.get("granularity", "original") != "original":
            raise ConfigError(f"config.benchmarks.robustness.galleries.{g}.granularity: only "
                              "world galleries can be regranulated; use a dataset with fg: true")
    _check_gallery_splits(config)
    if captioning is not None:
        name = captioning.get("dataset", "world")
        if not _dataset_has_split(config, name, "test"):
            raise ConfigError(f"config.benchmarks.bison.captioning.dataset: {name!r} has no "
                              f"test split to caption (config.datasets.{name}.splits)")
    if benchmark_source(config, "bivlc") == "hub" and "negatives" in benchmarks.get("bivlc", {}):
        raise ConfigError("config.benchmarks.bivlc.negatives: only for source world (the hub "
                          "release has its negative images)")


def _dataset_has_split(config: dict[str, Any], name: str, split: str) -> bool:
    """Whether a dataset builds ``split`` (world datasets have every split)."""
    if name == "world":
        return True
    from vlcomp.data.datasets import dataset_splits

    return split in dataset_splits(name, config["datasets"][name])


def _check_folder_gallery(config: dict[str, Any], name: str, spec: dict[str, Any]) -> None:
    """``t2i_gallery: folder``: the folder's dataset exists, holds the gallery's images (the
    same collection) and every split (COCO's restval images in val2014 come with train); such
    a gallery cannot feed ARO Tables 3-4 when perturbed (ARO ranks the test split, and its
    image shuffles copy the test images only)."""
    key = f"config.benchmarks.robustness.galleries.{name}"
    if spec.get("t2i_gallery", "test") != "folder":
        if "folder_dataset" in spec:
            raise ConfigError(f"{key}.folder_dataset: only with t2i_gallery: folder")
        return
    dataset = spec.get("dataset", "world")
    folder = spec.get("folder_dataset", dataset)
    datasets = config.get("datasets", {})
    if folder not in dataset_names(config):
        raise ConfigError(f"{key}.folder_dataset: no dataset {folder!r} "
                          f"(known: {dataset_names(config)})")
    if (folder == "world") != (dataset == "world") or (
            folder != "world" and datasets[folder].get("collection")
            != datasets.get(dataset, {}).get("collection")):
        raise ConfigError(f"{key}.folder_dataset: {folder!r} holds other images than the "
                          f"gallery's dataset {dataset!r} (not the same collection)")
    if folder != "world" and datasets[folder].get("source") not in ("karpathy", "karpathy_json"):
        raise ConfigError(f"{key}.folder_dataset: {folder!r} is not a Karpathy dataset")
    missing = [s for s in ("train", "val", "test") if not _dataset_has_split(config, folder, s)]
    if missing:
        raise ConfigError(f"{key}: t2i_gallery folder ranks every image of the folder, but "
                          f"config.datasets.{folder}.splits has no {missing} (add them)")
    if name in config["benchmarks"]["robustness"].get("perturbed_galleries", []) and \
            "aro" in spec.get("tables", ["aro"]):
        raise ConfigError(f"{key}.tables: a folder gallery cannot feed ARO Tables 3-4 (aro): "
                          "ARO ranks the test split; name the tables without aro")


def _check_gallery_splits(config: dict[str, Any]) -> None:
    """No gallery can come out empty: retrieval and robustness galleries need their dataset's
    test split, and VisualGPTScore's retrieval with a captioner picks alpha* on the val split
    (an empty gallery would otherwise fail hours into the run)."""
    benchmarks = config["benchmarks"]
    captioners = [m for m, e in expand_models(config).items()
                  if is_captioner(e) and e.get("retrieval", True)]
    needs = [(f"benchmarks.{b}", spec.get("dataset", "world"), "test")
             for b, spec in benchmarks.items() if b.endswith(("_order", "_retrieval"))
             or b == "order"]
    needs += [(f"benchmarks.robustness.galleries.{g}", spec.get("dataset", "world"), "test")
              for g, spec in benchmarks.get("robustness", {}).get("galleries", {}).items()]
    if captioners:
        needs += [(f"benchmarks.{b} (VisualGPTScore's alpha* for {', '.join(captioners)})",
                   spec.get("dataset", "world"), "val")
                  for b, spec in benchmarks.items() if b.endswith("_retrieval")]
    for key, name, split in needs:
        if not _dataset_has_split(config, name, split):
            raise ConfigError(
                f"config.{key}: its gallery would be empty: config.datasets.{name}.splits has "
                f"no {split!r} split (add it)")


def _check_generation(config: dict[str, Any]) -> None:
    """Generated sets name models that exist; generated BiVLC and detectors need their sets."""
    models = expand_models(config)
    generation = config.get("generation", {})
    for name, block in generation.items():
        refs = [("filter.model", block.get("filter", {}).get("model")),
                ("selection.similarity_model", block.get("selection", {}).get("similarity_model"))]
        for key, model in refs:
            if model is not None and model not in models:
                raise ConfigError(f"config.generation.{name}.{key}: {model!r} is not a model "
                                  f"(known: {sorted(models)})")
        if block.get("filter", {}).get("decider") == "model" and "model" not in block["filter"]:
            raise ConfigError(f"config.generation.{name}.filter: decider 'model' needs 'model'")
    if "source" in generation.get("bivlc", {}):
        raise ConfigError("config.generation.bivlc.source: only TROHN-Img has a released set "
                          "(generation.trohn_img.source)")
    trohn_img = generation.get("trohn_img", {})
    if trohn_img.get("source", "generate") == "release" \
            and trohn_img.get("dataset", "world") == "world":
        raise ConfigError("config.generation.trohn_img.dataset: the released TROHN-Img names "
                          "COCO 2017 images; set a COCO 2017 caption dataset")
    bivlc = config["benchmarks"].get("bivlc")
    if bivlc is not None and bivlc.get("source", "world") == "world" \
            and bivlc.get("negatives", "rendered") == "generated" \
            and "bivlc" not in generation:
        raise ConfigError("config.benchmarks.bivlc.negatives: 'generated' needs "
                          "config.generation.bivlc")
    detectors = config.get("detectors")
    if detectors:
        unknown = sorted(set(detectors["encoders"]) - set(models))
        if unknown:
            raise ConfigError(f"config.detectors.encoders: {unknown} are not models "
                              f"(known: {sorted(models)})")
        if "trohn_img" not in generation or "bivlc" not in config["benchmarks"]:
            raise ConfigError("config.detectors: needs config.generation.trohn_img (training "
                              "data) and config.benchmarks.bivlc (evaluation)")


def _check_release(config: dict[str, Any], key: str, run: dict[str, Any]) -> None:
    """Released TROHN rows fit their objective; BiVLC's selection has validation rows."""
    objective = run.get("objective", "clip")
    release = released_rows(config, run)
    if release is not None and objective != release:
        raise ConfigError(f"{key}.objective: BiVLC's released {release} rows train objective "
                          f"{release!r}, not {objective!r}")
    if release is not None and run.get("dataset", "world") == "world":
        raise ConfigError(f"{key}.dataset: BiVLC's released {release} rows name COCO 2017 "
                          "images; set a COCO 2017 caption dataset")
    if run.get("selection") == "bivlc_val_accuracy" and objective != "clip" and release is None:
        raise ConfigError(
            f"{key}.selection: bivlc_val_accuracy for objective {objective!r} needs BiVLC's "
            "released validation rows (hard_negatives.sugarcrepe.source or "
            "generation.trohn_img.source: release); objective clip uses the val captions")
    if run.get("val_split") == "bivlc_captions" and (objective != "clip" or release):
        raise ConfigError(f"{key}.val_split: bivlc_captions (CLIP_COCO's 80/20 caption split) "
                          "is for objective clip on a caption dataset")


def _check_run(config: dict[str, Any], name: str, run: dict[str, Any]) -> None:
    key = f"config.train.{name}"
    train = config.get("train", {})
    if ("seed" in run) == ("seeds" in run):
        raise ConfigError(f"{key}: give exactly one of 'seed' or 'seeds'")
    if "init_model" in run:
        model = config["models"].get(run["init_model"], {})
        pretrained = (model.get("family") == "open_clip" and "pretrained" in model) or \
            (model.get("family") == "checkpoint" and "path" in model)
        if not pretrained:
            raise ConfigError(f"{key}.init_model: {run['init_model']!r} is not a pretrained "
                              "open_clip model (or a checkpoint file) under config.models")
        if run.get("dataset", "world") == "world":
            raise ConfigError(f"{key}.init_model: fine-tunes on a real dataset; set dataset")
    if "init" in run:
        init = run["init"]
        if init not in train or init == name:
            raise ConfigError(
                f"{key}.init: no other training run {init!r} (known: {sorted(train)})"
            )
        if "seeds" in train[init]:
            raise ConfigError(f"{key}.init: run {init!r} has several seeds; start from one run")
    objective = run.get("objective", "clip")
    needs = {"negclip": ["negatives", "neighbours"], "trohn_text": ["negatives"],
             "trohn_img": ["generated"]}.get(objective, [])
    if released_negatives(config, run):  # the release names each image's neighbours
        needs = [n for n in needs if n != "neighbours"]
    for field in needs:
        if field not in run:
            raise ConfigError(f"{key}: objective {objective!r} needs '{field}'")
    if "negatives" in run and run["negatives"] not in config.get("hard_negatives", {}):
        raise ConfigError(
            f"{key}.negatives: no config.hard_negatives.{run['negatives']} section to build them"
        )
    if "generated" in run and run["generated"] not in config.get("generation", {}):
        raise ConfigError(
            f"{key}.generated: no config.generation.{run['generated']} section to build it"
        )
    _check_release(config, key, run)
    if "neighbours" in run and run["neighbours"]["model"] not in config["models"]:
        raise ConfigError(
            f"{key}.neighbours.model: no model {run['neighbours']['model']!r} under config.models"
        )


def released_negatives(config: dict[str, Any], run: dict[str, Any]) -> bool:
    """Whether a run's NegCLIP negatives (and neighbour images) come from NegCLIP's released
    training data rather than vlcomp's generators (``hard_negatives.negclip.source``)."""
    if run.get("negatives") != "negclip":
        return False
    block = config.get("hard_negatives", {}).get("negclip", {})
    return block.get("source", "generate") == "release"


def released_rows(config: dict[str, Any], run: dict[str, Any]) -> str | None:
    """``trohn_text`` / ``trohn_img`` when a run trains on BiVLC's released rows
    (``hard_negatives.sugarcrepe.source`` / ``generation.trohn_img.source: release``: one
    instance per released row, best epoch on the released validation split), else None."""
    if "generated" in run:
        block = config.get("generation", {}).get(run["generated"], {})
        return "trohn_img" if block.get("source", "generate") == "release" else None
    if run.get("negatives") == "sugarcrepe":
        block = config.get("hard_negatives", {}).get("sugarcrepe", {})
        return "trohn_text" if block.get("source", "generate") == "release" else None
    return None


def expand_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Training runs by id: a run with ``seeds`` becomes ``{name}_s{seed}``, one per seed."""
    runs: dict[str, dict[str, Any]] = {}
    for name, run in config.get("train", {}).items():
        if "seeds" not in run:
            runs[name] = dict(run)
            continue
        for seed in run["seeds"]:
            settings = {k: v for k, v in run.items() if k != "seeds"}
            runs[f"{name}_s{seed}"] = {**settings, "seed": seed}
    return runs


def converted_folder(model: str) -> str:
    """Where rule convert_blip writes the transformers folder of a model with ``convert``."""
    return f"resources/models/{model}_hf"


def _check_conversion(name: str, entry: dict[str, Any]) -> None:
    """``convert``: an hf_blip_lm model read from a folder converted from a source's file."""
    from vlcomp.data.sources import SOURCES

    source = SOURCES.get(entry["convert"]["source"])
    if entry["family"] != "hf_blip_lm" or "run" in entry:
        raise ConfigError(f"config.models.{name}.convert: only for family hf_blip_lm without run")
    if source is None or len(source.files) != 1:
        raise ConfigError(f"config.models.{name}.convert.source: "
                          f"{entry['convert']['source']!r} is not a source with one file in "
                          "vlcomp.data.sources")
    if entry.get("model", converted_folder(name)) != converted_folder(name):
        raise ConfigError(f"config.models.{name}.model: a converted model is read from "
                          f"{converted_folder(name)} (leave model out or give that)")


# pair scores each family computes (`pair_score`; python: the factory's scorer decides)
FAMILY_PAIR_SCORES = {"hf_blip_itm": ("itm_logit", "itm_prob", "itm_plus_itc"),
                      "hf_flava": ("itm_prob", "itm_logit"),
                      "xvlm": ("itm_logit", "itm_prob", "itm_plus_itc"),
                      "hf_blip2_itm": ("itm_logit", "itm_prob", "itc")}
# generative scorers, log P(text | image) (VisualGPTScore): BLIP's captioner, BLIP-2 with a
# frozen LLM, BLIP-2's Q-Former captioner; every place that treats captioners treats these
CAPTIONER_FAMILIES = ("hf_blip_lm", "hf_blip2_lm", "hf_blip2_qformer_lm")
# families without single-vector embeddings: they score choice benchmarks pair by pair and
# get no retrieval or robustness metrics (BLIP-2's ITC is a max over 32 query embeddings)
PAIR_ONLY_FAMILIES = (*CAPTIONER_FAMILIES, "hf_blip2_itm")
# cross-encoders whose pair score is an ITM head: VisualGPTScore Table 1's ITMScore role
ITM_FAMILIES = ("hf_blip_itm", "xvlm", "hf_blip2_itm")


def is_captioner(entry: dict[str, Any]) -> bool:
    """Whether a model entry scores log P(text | image) (a captioner family)."""
    return entry["family"] in CAPTIONER_FAMILIES


def has_embeddings(entry: dict[str, Any]) -> bool:
    """Whether a model entry embeds images and texts (retrieval, robustness, cosine)."""
    return entry["family"] not in PAIR_ONLY_FAMILIES


def model_role(entry: dict[str, Any]) -> str:
    """VisualGPTScore Table 1's role of a model: ``generative`` (a captioner), ``itm`` (a
    cross-encoder scoring pairs with its ITM head) or ``discriminative`` (embeddings' cosine,
    or an ITC pair score)."""
    if is_captioner(entry):
        return "generative"
    if entry["family"] in ITM_FAMILIES and entry.get("pair_score", "none") not in ("none", "itc"):
        return "itm"
    return "discriminative"
# benchmarks of (image, text) choices, scored per item: by name, or any ``*_order``
CHOICE_NAMES = ("vg_relation", "vg_attribution", "order", "sugarcrepe", "bivlc", "winoground",
                "bison", "bison_altered")


def _check_pair_options(name: str, entry: dict[str, Any]) -> None:
    """``pair_score`` fits the family; ``pair_benchmarks`` names choice benchmarks."""
    score, family = entry.get("pair_score", "none"), entry["family"]
    if family == "hf_blip2_itm" and score == "none":
        raise ConfigError(f"config.models.{name}.pair_score: family hf_blip2_itm has no "
                          f"embeddings; give one of {list(FAMILY_PAIR_SCORES[family])}")
    if family in PAIR_ONLY_FAMILIES and "pair_benchmarks" in entry:
        raise ConfigError(f"config.models.{name}.pair_benchmarks: family {family} has no "
                          "embeddings to score the other benchmarks by cosine")
    allowed = FAMILY_PAIR_SCORES.get(family)
    if score != "none" and allowed is not None and score not in allowed:
        raise ConfigError(f"config.models.{name}.pair_score: {score!r} is not a {family} "
                          f"pair score (one of {list(allowed)}, or none)")
    if score != "none" and family not in (*FAMILY_PAIR_SCORES, "python"):
        raise ConfigError(f"config.models.{name}.pair_score: family {family} scores no pairs "
                          f"({', '.join(FAMILY_PAIR_SCORES)} or python)")
    wrong = [b for b in entry.get("pair_benchmarks", [])
             if b not in CHOICE_NAMES and not b.endswith("_order")]
    if wrong:
        raise ConfigError(f"config.models.{name}.pair_benchmarks: {wrong} are not choice "
                          f"benchmarks ({', '.join(CHOICE_NAMES)} or *_order); retrieval and "
                          "robustness always use the embeddings")


def expand_models(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Model entries by id: a model of a multi-seed run becomes ``{model}_s{seed}`` per seed.

    Every entry gets ``label`` (its display name: the configured label or the model name) and
    ``group`` (the configured model name, shared by all seeds).
    """
    train = config.get("train", {})
    models: dict[str, dict[str, Any]] = {}
    for name, entry in config["models"].items():
        base = {**entry, "label": entry.get("label", name), "group": name}
        run = train.get(entry.get("run", ""), {})
        if "run" in entry and "seeds" in run:
            for seed in run["seeds"]:
                models[f"{name}_s{seed}"] = {**base, "run": f"{entry['run']}_s{seed}"}
        else:
            models[name] = base
    return models


def model_groups(models: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Display label → model ids (the seeds of one configured model), in config order."""
    groups: dict[str, list[str]] = {}
    for model_id, entry in models.items():
        groups.setdefault(entry["label"], []).append(model_id)
    return groups


def _llm_slug(model: str) -> str:
    """A text prior's default name: the last part of its model id or folder, lower case, runs
    of other characters as ``_`` (``facebook/opt-2.7b`` -> ``opt_2_7b``)."""
    import re

    last = str(model).rstrip("/").rsplit("/", 1)[-1].lower()
    return re.sub(r"[^a-z0-9]+", "_", last).strip("_") or "llm"


def text_priors(config: dict[str, Any]) -> list[dict[str, Any]]:
    """VisualGPTScore's text-only LM priors P_LLM(t) (``visualgptscore.llm``: one mapping or a
    list of them), each with ``name`` (its column ``log_prior_llm_{name}``; default from the
    model id) and ``label`` (its Table 2 row ``P_LLM(t) {label}``; default the model id's
    last part). Names must be unique."""
    value = config.get("visualgptscore", {}).get("llm") or []
    entries = [value] if isinstance(value, dict) else list(value)
    out, seen = [], set()
    for k, entry in enumerate(entries):
        name = entry.get("name") or _llm_slug(entry["model"])
        if name in seen:
            raise ConfigError(f"config.visualgptscore.llm[{k}]: name {name!r} is taken by "
                              "another text prior (give each a distinct name)")
        seen.add(name)
        label = entry.get("label") or str(entry["model"]).rstrip("/").rsplit("/", 1)[-1]
        out.append({**entry, "name": name, "label": label})
    return out


def prior_column(config: dict[str, Any]) -> str:
    """The prior α divides by, as the ``log_prior_{...}`` column of the prior tables:
    ``null``, ``train`` or, for ``alpha_prior: llm``, the first text prior's
    ``llm_{name}``."""
    prior = config.get("visualgptscore", {}).get("alpha_prior", "null")
    if prior == "llm":
        return f"llm_{text_priors(config)[0]['name']}"
    return prior
