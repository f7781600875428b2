"""Which configured model plays each paper's model, for the papers' claims.

``paper_models.yaml`` (beside this module) lists the models each paper evaluates, by the
paper's own name; a configuration maps them to its models (config ``paper_models``)::

    paper_models:
      VisualGPTScore: {VisualGPTScore: blip_pretrained_large, ITMScore: blip_itm_large}
      BISON: {retrieval system: [openai_clip, blip_itm_base]}

A claim names only its paper's models. A paper model the configuration does not map is
absent: its findings are "not run", never scored on a stand-in the code picked.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from vlcomp.config import ConfigError
from vlcomp.yaml_text import safe_load

BLIND_PRIOR = "Blind: P(t|null) of {label}"  # the blind baselines' labels (rule blind_scores)


@dataclass(frozen=True)
class PaperModel:
    """One model (or kind of system) a paper evaluates."""

    paper: str
    name: str
    what: str
    many: bool = False
    blind_of: str | None = None


@functools.cache
def registry() -> dict[str, dict[str, PaperModel]]:
    """``paper_models.yaml``: paper → its models by name."""
    text = resources.files("vlcomp.report").joinpath("paper_models.yaml").read_text("utf-8")
    out: dict[str, dict[str, PaperModel]] = {}
    for paper, models in safe_load(text).items():
        out[paper] = {name: PaperModel(paper, name, **spec) for name, spec in models.items()}
        for model in out[paper].values():
            if model.blind_of and model.blind_of not in out[paper]:
                raise ValueError(f"paper_models.yaml: {paper}: {model.name}: blind_of "
                                 f"{model.blind_of!r} is not one of {paper}'s models")
    return out


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def check_paper_models(config: Mapping[str, Any]) -> None:
    """Raise ConfigError naming the key for an unknown paper or paper model, or several models
    for a paper model that is one model. A model key that is not configured is not an error
    (a configuration that trims ``models`` keeps the rest of its mapping): its paper model is
    unplayed, which `unplayed_paper_models` says."""
    papers = registry()
    for paper, mapping in (config.get("paper_models") or {}).items():
        key = f"config.paper_models.{paper}"
        if paper not in papers:
            raise ConfigError(f"{key}: unknown paper (one of {sorted(papers)})")
        for name, chosen in (mapping or {}).items():
            if chosen is None:
                continue
            spec = papers[paper].get(name)
            if spec is None:
                raise ConfigError(f"{key}.{name}: {paper} has no model of that name (its "
                                  f"models: {', '.join(papers[paper])})")
            if spec.blind_of:
                raise ConfigError(f"{key}.{name}: the blind prior of {spec.blind_of} follows "
                                  f"the model that plays {spec.blind_of}; it is not mapped")
            names = _as_list(chosen)
            if len(names) > 1 and not spec.many:
                raise ConfigError(f"{key}.{name}: one model plays {paper}'s {name}, not "
                                  f"{len(names)} ({', '.join(names)})")


def unplayed_paper_models(config: Mapping[str, Any]) -> list[str]:
    """One line per mapped model key that is not under ``models`` (a typo, or a model the
    configuration left out): the paper model it was to play is played by the rest of its
    list, or by none, and then its claims' findings are not run."""
    models = config.get("models") or {}
    out = []
    for paper, mapping in (config.get("paper_models") or {}).items():
        for name, chosen in (mapping or {}).items():
            missing = [m for m in _as_list(chosen) if chosen is not None and m not in models]
            if missing:
                out.append(f"config.paper_models.{paper}.{name}: {', '.join(missing)} not under "
                           f"models, so it does not play {paper}'s {name}")
    return out


def paper_model_labels(config: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """paper → paper model → the display labels of the configured models playing it (a
    blind prior: its model's blind baseline label). Unmapped paper models are left out."""
    models = config.get("models") or {}
    out: dict[str, dict[str, list[str]]] = {}
    for paper, mapping in (config.get("paper_models") or {}).items():
        labels = {name: [models[m]["label"] for m in _as_list(chosen) if m in models]
                  for name, chosen in (mapping or {}).items() if chosen is not None}
        labels = {name: played for name, played in labels.items() if played}
        for name, spec in registry().get(paper, {}).items():
            if spec.blind_of and spec.blind_of in labels:
                labels[name] = [BLIND_PRIOR.format(label=label)
                                for label in labels[spec.blind_of]]
        out[paper] = labels
    return out


def models_playing_no_paper_model(config: Mapping[str, Any]) -> list[str]:
    """The display labels of the configured models (``models``) that play no paper model: their
    rows stand in the paper tables and the summary, but no claim tests them (a claim tests its
    paper's own models)."""
    playing = {m for mapping in (config.get("paper_models") or {}).values()
               for chosen in (mapping or {}).values() if chosen is not None
               for m in _as_list(chosen)}
    return [str(entry.get("label", key)) for key, entry in (config.get("models") or {}).items()
            if key not in playing]
