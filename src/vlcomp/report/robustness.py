"""Robustness tables from the ``robustness`` metric records (`vlcomp.metrics.robustness`).

* ARO Table 3 (text-shuffled retrieval) and Table 4 (image-shuffled retrieval): per gallery
  and strategy, Text R@1/R@5 (image→text) and Image R@1/R@5 (text→image), hit rates.
* Hendriksen et al.: per gallery and text perturbation, text→image R@1/5/10 and DCG@10, the
  relative R@1 drop, the share of queries whose rsum fell / stayed / rose, the share of
  captions the perturbation changed, and image→text true recall R@1/5/10.
* Granularity: every gallery unperturbed (coarse vs original vs fine-grained captions).

Every row is a (strategy or gallery, model) pair; models with training seeds are grouped
(mean ± sample std over seeds); a single model with several perturbation seeds shows the
spread over those instead.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from vlcomp.metrics.robustness import CLEAN
from vlcomp.report.tables import STD_SUFFIX, Groups, group_members, group_rows

Results = Mapping[str, Mapping[str, Mapping[str, Any]]]
NAN = float("nan")

GALLERY_LABELS = {"coco": "COCO-like", "flickr": "Flickr-like", "coco_coarse": "COCO-like coarse",
                  "coco_fine": "COCO-like fine-grained"}
ARO_TEXT_STRATEGIES = {
    CLEAN: "No Shuffling",
    "shuffle_nouns_and_adj": "Shuffle only nouns and adj.",
    "shuffle_all_words": "Shuffle all words",
    "shuffle_allbut_nouns_and_adj": "Shuffle all but nouns and adj.",
    "shuffle_trigrams": "Shuffle trigrams",
    "shuffle_within_trigrams": "Shuffle within trigrams",
}
ARO_IMAGE_STRATEGIES = {
    CLEAN: "No Shuffling",
    "shuffle_rows": "Shuffle Rows (4)",
    "shuffle_columns": "Shuffle Columns (4)",
    "shuffle_patches": "Shuffle Patches (9)",
}
ARO_COLUMNS = {"Text R@1": "i2t_r1", "Text R@5": "i2t_r5", "Image R@1": "t2i_r1",
               "Image R@5": "t2i_r5"}
HENDRIKSEN_COLUMNS = {
    "T2I R@1": "t2i_r1", "T2I R@5": "t2i_r5", "T2I R@10": "t2i_r10", "DCG@10": "t2i_dcg10",
    "R@1 drop %": "t2i_r1_drop", "rsum decreased %": "t2i_decreased",
    "rsum unchanged %": "t2i_unchanged", "rsum increased %": "t2i_increased",
    "captions changed %": "changed_pct",
    "I2T R@1": "i2t_true_r1", "I2T R@5": "i2t_true_r5", "I2T R@10": "i2t_true_r10",
}
GRANULARITY_COLUMNS = {
    "I2T R@1": "i2t_r1", "I2T R@5": "i2t_r5", "I2T R@10": "i2t_r10",
    "T2I R@1": "t2i_r1", "T2I R@5": "t2i_r5", "T2I R@10": "t2i_r10", "DCG@10": "t2i_dcg10",
}

Condition = Mapping[str, Any]
RowKey = Callable[[Condition], tuple[str, str] | None]


def _conditions(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The record's conditions, each with ``t2i_r1_drop`` (percent of its gallery's clean R@1)."""
    conditions = [dict(c) for c in record["conditions"]]
    clean = {c["gallery"]: c for c in conditions if c["kind"] == "clean"}
    for c in conditions:
        base = clean[c["gallery"]]["t2i_r1"]
        c["t2i_r1_drop"] = 100 * (base - c["t2i_r1"]) / base if base else NAN
    return conditions


def robustness_table(
    results: Results, row_key: RowKey, columns: Mapping[str, str], groups: Groups | None = None,
    benchmark: str = "robustness",
) -> pd.DataFrame:
    """Rows ``(section, "row / model")`` for conditions that ``row_key`` maps to a
    ``(section, row)``; values averaged over perturbation seeds per model, then grouped."""
    models = [m for m in results if benchmark in results[m]]
    cells: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for model in models:
        per_row: dict[tuple[str, str], list[Condition]] = {}
        for c in _conditions(results[model][benchmark]):
            key = row_key(c)
            if key is not None:
                per_row.setdefault(key, []).append(c)
        for key, conds in per_row.items():
            row: dict[str, float] = {}
            for label, metric in columns.items():
                values = [float(c[metric]) for c in conds]
                row[label] = statistics.fmean(values)
                if len(values) > 1:
                    row[label + STD_SUFFIX] = statistics.stdev(values)
            cells.setdefault(key, {})[model] = row
    labels = list(columns)
    out_rows, index = [], []
    for (section, name), rows in cells.items():
        present = [m for m in models if m in rows]
        member_groups = None
        if groups is not None:
            member_groups = {g: ms for g, ms in groups.items() if set(ms) <= set(present)}
        grouped, names = group_rows(
            {m: rows[m] for m in present}, labels + [f"{c}{STD_SUFFIX}" for c in labels],
            member_groups)
        for label in group_members(present, member_groups):
            index.append((section, f"{name} / {label}"))
            out_rows.append([grouped[label].get(n, NAN) for n in names])
        columns_out = names
    if not index:
        raise ValueError(f"no {benchmark} conditions match this table")
    return pd.DataFrame(out_rows, index=pd.MultiIndex.from_tuples(index, names=["", "row"]),
                        columns=columns_out, dtype=float)


def _gallery(name: str) -> str:
    return GALLERY_LABELS.get(name, name)


def _perturbed_galleries(results: Results, kind: str) -> set[str]:
    return {c["gallery"] for c in conditions_of(results) if c["kind"] == kind}


def _aro_table(results: Results, kind: str, strategies: Mapping[str, str],
               groups: Groups | None) -> pd.DataFrame:
    perturbed = _perturbed_galleries(results, kind)

    def key(c: Condition) -> tuple[str, str] | None:
        if (c["gallery"] in perturbed and c["kind"] in ("clean", kind)
                and c["perturbation"] in strategies):
            return _gallery(c["gallery"]), strategies[c["perturbation"]]
        return None
    return robustness_table(results, key, ARO_COLUMNS, groups)


def aro_table3(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """ARO Table 3: text-shuffled retrieval per perturbed gallery and strategy."""
    return _aro_table(results, "text", ARO_TEXT_STRATEGIES, groups)


def aro_table4(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """ARO Table 4: image-shuffled retrieval per perturbed gallery and strategy."""
    return _aro_table(results, "image", ARO_IMAGE_STRATEGIES, groups)


def hendriksen_table(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """Hendriksen et al.: every text perturbation of every perturbed gallery, and its clean
    baseline."""
    perturbed = _perturbed_galleries(results, "text")

    def key(c: Condition) -> tuple[str, str] | None:
        if c["gallery"] in perturbed and c["kind"] in ("clean", "text"):
            return _gallery(c["gallery"]), c["perturbation"]
        return None
    return robustness_table(results, key, HENDRIKSEN_COLUMNS, groups)


def granularity_table(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """Every gallery unperturbed: coarse vs original vs fine-grained captions."""
    def key(c: Condition) -> tuple[str, str] | None:
        return ("Unperturbed", _gallery(c["gallery"])) if c["kind"] == "clean" else None
    return robustness_table(results, key, GRANULARITY_COLUMNS, groups)


def conditions_of(results: Results, benchmark: str = "robustness") -> list[Condition]:
    """Every condition of every model (to see which galleries were perturbed how)."""
    return [c for m in results.values() if benchmark in m for c in m[benchmark]["conditions"]]


ROBUSTNESS_TABLES: dict[str, Callable[..., pd.DataFrame]] = {
    "robustness_aro_table3": aro_table3,
    "robustness_aro_table4": aro_table4,
    "robustness_hendriksen": hendriksen_table,
    "robustness_granularity": granularity_table,
}

