"""VL-CheckList Relation accuracy: per corpus, per tag (action, spatial) and "relation".

VL-CheckList scores each corpus file separately (``total_acc`` in ``evaluate.py``) and its
``radar.py`` averages a tag over its corpora (``corpus.json``: ``action_r`` = vg, swig, hake;
``spatial`` = vg), unweighted. VisualGPTScore reports "Relation" as the mean of the action and
spatial tags. The default here is VL-CheckList's corpus mean within a tag (``within =
"corpus_macro"``); ``within = "micro"`` pools a tag's items instead. Both are always reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.benchmarks import _header, accuracy_entry, item_correct, percent

SUBSETS = ("action", "spatial")
WITHIN = ("corpus_macro", "micro")

Metrics = dict[str, Any]


def _fraction(correct: np.ndarray) -> float | None:
    return float(correct.mean()) if correct.size else None


def _tag(correct: np.ndarray, corpora: np.ndarray) -> tuple[Metrics, dict[str, float | None]]:
    """One tag's entry and its unrounded fractions (corpus macro and micro)."""
    per_corpus = {name: correct[corpora == name] for name in sorted(set(corpora.tolist()))}
    fractions = [float(c.mean()) for c in per_corpus.values() if c.size]
    macro = float(np.mean(fractions)) if fractions else None
    raw = {"corpus_macro": macro, "micro": _fraction(correct)}
    entry = accuracy_entry(correct) | {
        "corpus_macro_accuracy": percent(raw["corpus_macro"]),
        "micro_accuracy": percent(raw["micro"]),
        "corpora": {name: accuracy_entry(c) for name, c in per_corpus.items()},
    }
    return entry, raw


def vl_checklist_aggregate(
    correct: Any, subsets: Sequence[str], corpora: Sequence[str], *,
    within: str = "corpus_macro",
) -> Metrics:
    """Per-tag and per-corpus accuracy and ``overall.relation`` = mean of the action and
    spatial tags (each by ``within``); with one tag (the world has no actions) it is that
    tag's, and ``missing_subsets`` names the other."""
    if within not in WITHIN:
        raise ValueError(f"within must be one of {WITHIN}, got {within!r}")
    correct = np.asarray(correct, dtype=bool)
    tags = np.asarray(subsets, dtype=object)
    names = np.asarray(corpora, dtype=object)
    if not len(tags) == len(names) == correct.size:
        raise ValueError(f"lengths differ: {correct.size} flags, {len(tags)} subsets, "
                         f"{len(names)} corpora")
    unknown = sorted(set(tags.tolist()) - set(SUBSETS))
    if unknown:
        raise ValueError(f"unknown VL-CheckList Relation tag(s) {unknown}; known: {SUBSETS}")
    entries: dict[str, Metrics] = {}
    raw: dict[str, dict[str, float | None]] = {}
    for tag in SUBSETS:
        mask = tags == tag
        if mask.any():
            entries[tag], raw[tag] = _tag(correct[mask], names[mask])

    def relation(mode: str) -> float | None:
        values = [raw[t][mode] for t in SUBSETS if t in raw and raw[t][mode] is not None]
        return percent(float(np.mean(values))) if values else None

    overall = {
        "relation": relation(within),
        "relation_corpus_macro": relation("corpus_macro"),
        "relation_micro": relation("micro"),
        "micro_accuracy": percent(_fraction(correct)),
        "n": int(correct.size),
        "missing_subsets": [t for t in SUBSETS if t not in raw],
    }
    for entry in entries.values():
        entry["accuracy"] = entry[f"{within}_accuracy"]
    return {"overall": overall, "subsets": entries}


def vl_checklist_metrics(
    df: pd.DataFrame, *, benchmark: str | None = None, within: str = "corpus_macro"
) -> Metrics:
    """VL-CheckList Relation over a merged benchmark + score table (needs ``corpus``)."""
    if "corpus" not in df.columns:
        raise ValueError("VL-CheckList items need a 'corpus' column")
    body = vl_checklist_aggregate(item_correct(df), list(df["subset"]), list(df["corpus"]),
                                  within=within)
    return _header(df, "vl_checklist", benchmark, {"within": within}) | body
