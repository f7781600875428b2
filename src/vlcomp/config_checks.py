"""Validate a workflow configuration: the schema (config/schema.yaml), then the cross-key
checks it cannot express, each error naming the key (``config.a.b: message``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from vlcomp.benchmarks.classification_plan import check_classification
from vlcomp.config import (
    CAPTIONER_FAMILIES,
    PAIR_ONLY_FAMILIES,
    ConfigError,
    benchmark_source,
    conversion_name,
    converted_folder,
    dataset_names,
    expand_models,
    is_captioner,
    released_negatives,
    released_rows,
    text_priors,
)
from vlcomp.config_defaults import load_schema
from vlcomp.report.paper_models import check_paper_models


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = ["config", *(str(p) for p in error.absolute_path)]
    return ".".join(parts)


def validate_config(config: dict[str, Any], schema_path: str | Path) -> None:
    """Raise ConfigError listing every problem as ``config.a.b: message``."""
    schema = load_schema(Path(schema_path).resolve())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [f"{_key_path(e)}: {e.message}" for e in errors]
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))
    _check_references(config)
    _check_null_sampling(config)
    check_paper_models(config)


def _check_null_sampling(config: dict[str, Any]) -> None:
    """``visualgptscore.null_sampling`` names a 2 × 2 pair benchmark and captioners
    (appendix Table 5 is a text score at α*). A configuration cut down from another may
    leave the benchmark or a model out: Table 5 then skips what is absent."""
    from vlcomp.report.labels import NAMED_KINDS

    spec = config.get("visualgptscore", {}).get("null_sampling")
    if not spec:
        return
    key = "config.visualgptscore.null_sampling"
    benchmark = spec.get("benchmark", "winoground")
    if NAMED_KINDS.get(benchmark) != "winoground":
        raise ConfigError(f"{key}.benchmark: {benchmark!r} is not a 2 x 2 pair benchmark of "
                          "Winoground's kind (Table 5 is its text score at alpha*)")
    if "train" in (spec.get("sources") or []) and \
            not config.get("visualgptscore", {}).get("train_images"):
        raise ConfigError(f"{key}.sources: 'train' samples visualgptscore.train_images' "
                          "dataset, which is not configured")
    models = expand_models(config)
    for name in spec.get("models") or []:
        if name in models and not is_captioner(models[name]):
            raise ConfigError(f"{key}.models: {name!r} is not a captioner (captioner "
                              f"families: {list(CAPTIONER_FAMILIES)})")


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
    _check_shared_conversions(config["models"])
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
    check_classification(config)
    for g, spec in (robustness or {}).get("galleries", {}).items():
        _check_folder_gallery(config, g, spec)
        _check_rerank_models(config, g, spec)
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


def _check_rerank_models(config: dict[str, Any], gallery: str, spec: dict[str, Any]) -> None:
    """A gallery's ``rerank`` list names models re-ranked by ITM (`rerank_k_test`)."""
    from vlcomp.config import rerank_k_test

    rerank = spec.get("rerank")
    if not isinstance(rerank, list):
        return
    models = expand_models(config)
    benchmark = f"{spec.get('dataset', 'world')}_retrieval"
    for model in rerank:
        if model not in models:
            raise ConfigError(f"config.benchmarks.robustness.galleries.{gallery}.rerank: "
                              f"{model!r} is not a model (known: {sorted(models)})")
        if rerank_k_test(config, model, models[model], benchmark) is None:
            raise ConfigError(f"config.benchmarks.robustness.galleries.{gallery}.rerank: "
                              f"{model!r} is not re-ranked by ITM (its pair_score is not "
                              "itm_plus_itc, it has no embeddings, or retrieval.rerank is none)")


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


BLIP2_STAGES = {"hf_blip2_itm": "qformer", "hf_blip2_qformer_lm": "qformer", "hf_blip2_lm": "t5"}
"""The conversion stage each BLIP-2 family reads (`vlcomp.models.blip2_vitl_convert`)."""


def _check_conversion(name: str, entry: dict[str, Any]) -> None:
    """``convert``: an hf_blip_lm model read from a folder converted from a source's file, or
    a BLIP-2 family's from LAVIS' ViT file and BLIP-2 checkpoint (stage by family)."""
    from vlcomp.data.sources import SOURCES

    spec, where = entry["convert"], f"config.models.{name}.convert"
    source = SOURCES.get(spec["source"])
    if "run" in entry or entry["family"] not in ("hf_blip_lm", *BLIP2_STAGES):
        raise ConfigError(f"{where}: only for family hf_blip_lm or {sorted(BLIP2_STAGES)}, "
                          "without run")
    if source is None:
        raise ConfigError(f"{where}.source: {spec['source']!r} is not a source of "
                          "vlcomp.data.sources")
    paths = [f.path for f in source.files]
    if "checkpoint" not in spec and len(paths) != 1:
        raise ConfigError(f"{where}.checkpoint: source {spec['source']!r} has {len(paths)} "
                          f"files; name the one to convert ({paths})")
    for key in ("checkpoint", "vit"):
        if key in spec and spec[key] not in paths:
            raise ConfigError(f"{where}.{key}: {spec[key]!r} is not a file of source "
                              f"{spec['source']!r} ({paths})")
    stage = BLIP2_STAGES.get(entry["family"])
    if stage is None and any(k in spec for k in ("vit", "stage", "t5", "vit_precision")):
        raise ConfigError(f"{where}: vit / stage / t5 / vit_precision are BLIP-2's keys")
    if stage is not None:
        if "vit" not in spec or spec.get("stage") != stage:
            raise ConfigError(f"{where}: family {entry['family']} converts with `vit` (LAVIS' "
                              f"ViT file) and `stage: {stage}`")
        if (stage == "t5") != ("t5" in spec):
            raise ConfigError(f"{where}.t5: the frozen T5's hub id, for stage t5 only")
    folder = converted_folder(name, entry)
    if entry.get("model", folder) != folder:
        raise ConfigError(f"config.models.{name}.model: a converted model is read from "
                          f"{folder} (leave model out or give that)")


def _check_shared_conversions(models: dict[str, dict[str, Any]]) -> None:
    """Models naming the same conversion (``convert.name``) must convert alike."""
    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, entry in models.items():
        if "convert" not in entry:
            continue
        key = conversion_name(name, entry)
        spec = {k: v for k, v in entry["convert"].items() if k != "name"}
        if key in seen and seen[key][1] != spec:
            raise ConfigError(f"config.models.{name}.convert: conversion {key!r} is also "
                              f"{seen[key][0]}'s, with another spec; give it another name")
        seen.setdefault(key, (name, spec))


# pair scores each family computes (`pair_score`; python: the factory's scorer decides)
FAMILY_PAIR_SCORES = {"hf_blip_itm": ("itm_logit", "itm_prob", "itm_plus_itc"),
                      "hf_flava": ("itm_prob", "itm_logit"),
                      "xvlm": ("itm_logit", "itm_prob", "itm_plus_itc"),
                      "hf_blip2_itm": ("itm_logit", "itm_prob", "itc")}


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
