"""CREPE productivity R@1 per negative type, overall and per complexity.

Per item, R@1 is 1 when the positive outranks its own hard negatives (`item_correct` under
the items' tie policy). VisualGPTScore (§5, Tables 1/2a/10) reports one number per type over
"the entire productivity set (with complexities ranging from 4 to 12)": read as the **micro**
average over all items of that type, the default here. CREPE itself reports R@1 per
complexity (one retrieval run per file, ``get_one2many_metrics``); their unweighted mean is
``average="complexity_macro"``. Both are always in the output; ``accuracy`` is the chosen one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.data.crepe import NEGATIVE_TYPES, PAPER_NAMES
from vlcomp.metrics.benchmarks import (
    _header,
    _mean,
    _ordered,
    accuracy_entry,
    item_correct,
    percent,
)

AVERAGES = ("micro", "complexity_macro")

Metrics = dict[str, Any]


def _type_entry(correct: np.ndarray, complexities: np.ndarray, average: str) -> Metrics:
    """One type: micro and per-complexity-macro accuracy, and each complexity's entry."""
    levels = sorted({int(c) for c in complexities.tolist()})
    per = {str(c): accuracy_entry(correct[complexities == c]) for c in levels}
    fractions = [float(correct[complexities == c].mean()) for c in levels]
    entry = accuracy_entry(correct)
    micro, macro = entry["accuracy"], percent(_mean(fractions))
    return {
        "accuracy": micro if average == "micro" else macro,
        "micro_accuracy": micro,
        "complexity_macro_accuracy": macro,
        "correct": entry["correct"],
        "n": entry["n"],
        "complexities": per,
    }


def crepe_aggregate(
    correct: Any, subsets: Sequence[str], complexities: Sequence[int], *,
    average: str = "micro",
) -> Metrics:
    """Per-type R@1 (``types``: ``accuracy`` by ``average``, both averages, per complexity),
    per-complexity R@1 over all types (``complexities``) and the micro average (``overall``).

    Accuracies are percentages rounded like `vlcomp.metrics.benchmarks.percent`; complexity
    keys are strings so the dict is JSON-stable.
    """
    if average not in AVERAGES:
        raise ValueError(f"unknown average {average!r}; expected one of {AVERAGES}")
    correct = np.asarray(correct, dtype=bool).reshape(-1)
    names = np.asarray(subsets, dtype=object).reshape(-1)
    levels = np.asarray(complexities, dtype=int).reshape(-1)
    if not len(correct) == len(names) == len(levels):
        raise ValueError(f"lengths differ: {len(correct)} correct, {len(names)} subsets, "
                         f"{len(levels)} complexities")
    types = {}
    for name in _ordered(names.tolist(), NEGATIVE_TYPES):
        mask = names == name
        types[name] = {"paper_name": PAPER_NAMES.get(name, name),
                       **_type_entry(correct[mask], levels[mask], average)}
    overall = accuracy_entry(correct)
    overall["type_macro_accuracy"] = percent(_mean(
        [float(correct[names == t].mean()) for t in types]))
    return {
        "average": average,
        "overall": overall,
        "types": types,
        "complexities": {str(c): accuracy_entry(correct[levels == c])
                         for c in sorted(set(levels.tolist()))},
    }


def crepe_metrics(df: pd.DataFrame, *, benchmark: str | None = None,
                  average: str = "micro") -> Metrics:
    """CREPE productivity from a merged benchmark + score table (``subset``, ``complexity``)."""
    if "complexity" not in df.columns:
        raise ValueError("crepe metrics need a 'complexity' column")
    body = crepe_aggregate(item_correct(df), list(df["subset"]), list(df["complexity"]),
                           average=average)
    return _header(df, "crepe", benchmark, {"average": average}) | body
