"""What a configuration classifies (``config.classification``), with its defaults.

ARO Table 6's CIFAR10, CIFAR100 and ImageNet rows are linear-probe accuracies (ARO issues #18
and #29: "the same protocol as in the original CLIP paper"); CLIP's zero-shot protocol is the
other choice, and both may run at once. `classification_plan` reads the section once for the
workflow and for the coverage plan: the datasets, the protocols, the model ids evaluated (a
configured model with several seeds stands for all of them), the probe's options and the
world's shape set; `check_classification` names the key of a bad reference.

Each dataset has a train split (the probe's) and an evaluation split: CIFAR's test split,
ImageNet's validation split (CLIP's; its test labels were never released), the world's test
split. Image set names are ``{dataset}_{split}`` (``results/imagesets/cifar10_train.parquet``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vlcomp.config import ConfigError, dataset_names, expand_models

DATASETS = ("cifar10", "cifar100", "imagenet", "world_shapes")
PROTOCOLS = ("linear_probe", "zero_shot")
SPLITS = {"cifar10": ("train", "test"), "cifar100": ("train", "test"),
          "imagenet": ("train", "val"), "world_shapes": ("train", "test")}
KEY_PREFIX = "classification_"
DEFAULT_PROTOCOLS = ("linear_probe",)
PROBE_DEFAULTS: dict[str, Any] = {
    "c_grid": {"min": 1.0e-6, "max": 1.0e6, "points": 97},  # CLIP's: 8 steps per decade
    "val_fraction": 0.1, "seed": 0, "max_iter": 1000,
    # scikit-learn's default tolerance on the summed loss, as CLIP's scikit-learn (< 1.4) ran
    "tol": 1.0e-4, "loss_scale": "sum",
}
WORLD_SHAPES_DEFAULTS = {"train": 1000, "test": 500, "seed": 0}


@dataclass(frozen=True)
class ClassificationPlan:
    """The classification a configuration runs (empty ``datasets``: none)."""

    datasets: tuple[str, ...] = ()
    protocols: tuple[str, ...] = DEFAULT_PROTOCOLS
    models: tuple[str, ...] = ()
    probe: Mapping[str, Any] = field(default_factory=dict)
    world_shapes: Mapping[str, int] = field(default_factory=dict)
    check_sizes: bool = True

    def key(self, dataset: str) -> str:
        """The benchmark name of a dataset's metric records (``classification_cifar10``)."""
        return KEY_PREFIX + dataset

    @property
    def keys(self) -> dict[str, str]:
        """Benchmark name -> dataset, for every configured dataset."""
        return {self.key(d): d for d in self.datasets}

    def imagesets(self, dataset: str) -> tuple[str, str]:
        """The image set names of a dataset's train and evaluation splits."""
        train, evaluation = SPLITS[dataset]
        return f"{dataset}_{train}", f"{dataset}_{evaluation}"

    def c_grid(self) -> tuple[float, ...]:
        """The probe's C values: ``points`` log-spaced from ``min`` to ``max``."""
        return c_grid(self.probe["c_grid"])

    def probe_options(self) -> dict[str, Any]:
        """Keyword options of `vlcomp.metrics.classification.fit_linear_probe`."""
        return {"c_grid": self.c_grid(), "seed": int(self.probe["seed"]),
                "val_fraction": float(self.probe["val_fraction"]),
                "max_iter": int(self.probe["max_iter"]), "tol": float(self.probe["tol"]),
                "loss_scale": str(self.probe["loss_scale"]),
                "device": str(self.probe["device"])}


def c_grid(spec: Mapping[str, float]) -> tuple[float, ...]:
    """``spec["points"]`` values log-spaced from ``spec["min"]`` to ``spec["max"]``
    (the default is CLIP's 10^-6 .. 10^6, 97 values)."""
    low, high, points = float(spec["min"]), float(spec["max"]), int(spec["points"])
    if not 0 < low <= high or points < 1 or (points > 1 and low == high):
        raise ValueError(f"C grid {dict(spec)}: need 0 < min < max and points >= 1")
    return tuple(float(c) for c in np.logspace(np.log10(low), np.log10(high), points))


def embedding_models(models: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Model ids with image and text embeddings (not the generative captioners)."""
    return [m for m, entry in models.items() if entry["family"] != "hf_blip_lm"]


def classification_plan(config: Mapping[str, Any]) -> ClassificationPlan:
    """``config.classification`` with its defaults (an empty plan when absent).

    ``models`` lists configured model names; each stands for its expanded ids (one per
    training seed). Default: every embedding model. ``linear_probe.device`` defaults to
    ``compute.device``.
    """
    section = config.get("classification")
    if not section:
        return ClassificationPlan()
    models = expand_models(dict(config))
    names = section.get("models")
    ids = embedding_models(models) if names is None else [
        m for m, entry in models.items() if entry["group"] in set(names)]
    probe = {**PROBE_DEFAULTS, "device": config["compute"]["device"],
             **section.get("linear_probe", {})}
    probe["c_grid"] = {**PROBE_DEFAULTS["c_grid"], **probe["c_grid"]}
    return ClassificationPlan(
        datasets=tuple(section["datasets"]),
        protocols=tuple(section.get("protocols", DEFAULT_PROTOCOLS)),
        models=tuple(ids), probe=probe,
        world_shapes={**WORLD_SHAPES_DEFAULTS, **section.get("world_shapes", {})},
        check_sizes=bool(section.get("check_sizes", True)))


def check_classification(config: Mapping[str, Any]) -> None:
    """Cross-key checks of ``config.classification``: its models exist and embed, the world's
    shapes need ``config.world``, no caption dataset shares a classification dataset's name,
    the C grid is well formed. Raises ConfigError naming the key."""
    section = config.get("classification")
    if not section:
        return
    key = "config.classification"
    for name in section.get("models", []):
        entry = config["models"].get(name)
        if entry is None:
            raise ConfigError(f"{key}.models: {name!r} is not a model under config.models "
                              f"(known: {sorted(config['models'])})")
        if entry["family"] == "hf_blip_lm":
            raise ConfigError(f"{key}.models: {name!r} is a captioner (hf_blip_lm) without "
                              "image embeddings")
    if "world_shapes" in section["datasets"] and "world" not in config:
        raise ConfigError(f"{key}.datasets: world_shapes renders the world's shapes; it "
                          "needs config.world")
    clash = set(section["datasets"]) & set(dataset_names(dict(config)))
    if clash:
        raise ConfigError(f"{key}.datasets: {sorted(clash)} are also caption datasets under "
                          "config.datasets (their image sets would share a name)")
    if "world_shapes" in section and "world_shapes" not in section["datasets"]:
        raise ConfigError(f"{key}.world_shapes: world_shapes is not under {key}.datasets")
    grid = section.get("linear_probe", {}).get("c_grid")
    if grid is not None:
        try:
            c_grid({**PROBE_DEFAULTS["c_grid"], **grid})
        except ValueError as err:
            raise ConfigError(f"{key}.linear_probe.c_grid: {err}") from None
    if not classification_plan(config).models:
        raise ConfigError(f"{key}: no embedding model to classify with (config.models has "
                          "only captioners)")
