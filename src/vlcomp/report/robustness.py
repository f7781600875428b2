"""Robustness tables from the ``robustness`` metric records (`vlcomp.metrics.robustness`).

* ARO Table 3 (text-shuffled retrieval) and Table 4 (image-shuffled retrieval): per gallery
  and strategy, Text R@1/R@5 (image→text) and Image R@1/R@5 (text→image), hit rates.
* Hendriksen et al.: per gallery and text perturbation, text→image R@1/5/10 and DCG@10, the
  relative R@1 drop, the share of queries whose rsum fell / stayed / rose, the share of
  captions the perturbation changed, and image→text true recall R@1/5/10.
* Granularity: every gallery unperturbed (coarse vs original vs fine-grained captions).

A gallery feeds the tables its conditions' ``tables`` field names (config
``galleries.<g>.tables``: ``aro`` for Tables 3-4, ``hendriksen``, ``granularity``; absent:
all), so that ARO's 1k/5k test galleries and Hendriksen's whole-folder text→image galleries
(``t2i_gallery: folder``) can be evaluated side by side; `gallery_notes` says under each
table which images text→image ranked.

Every row is a (strategy or gallery, model) pair; models with training seeds are grouped
(mean ± sample std over seeds); a single model with several perturbation seeds shows the
spread over those instead.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from vlcomp.metrics.robustness import CLEAN
from vlcomp.report.cells import Interval
from vlcomp.report.tables import STD_SUFFIX, Groups, group_members, group_rows

Results = Mapping[str, Mapping[str, Mapping[str, Any]]]
NAN = float("nan")

GALLERY_LABELS = {"coco": "COCO-like", "flickr": "Flickr-like", "coco_coarse": "COCO-like coarse",
                  "coco_fine": "COCO-like fine-grained", "flickr_fine": "Flickr-like fine-grained",
                  "coco_hendriksen": "COCO-like (Hendriksen)",
                  "flickr_hendriksen": "Flickr-like (Hendriksen)"}
# each robustness table's gallery table (config galleries.<g>.tables:
# vlcomp.config.GALLERY_TABLE_NAMES)
TABLE_OF = {"robustness_aro_table3": "aro", "robustness_aro_table4": "aro",
            "robustness_hendriksen": "hendriksen", "robustness_granularity": "granularity"}
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


FG_TABLES = ("hendriksen", "granularity")


def fg_notes(table: str, galleries: Mapping[str, Mapping[str, Any]],
             datasets: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The note under a Hendriksen or granularity table naming its fine-grained galleries and
    how their captions were substituted (none when no gallery uses FG captions)."""
    fine = sorted(g for g, spec in galleries.items()
                  if datasets.get(spec.get("dataset", ""), {}).get("fg"))
    if table not in FG_TABLES or not fine:
        return []
    return [f"FG galleries ({', '.join(_gallery(g) for g in fine)}): each test image's first "
            "five captions are Chen et al.'s fine-grained captions, in order; captions past the "
            "fifth (COCO Karpathy test images have 5-7) keep their original text, as Hendriksen "
            "et al.'s `update_ds` pairs them with `zip`."]


def _gallery(name: str) -> str:
    return GALLERY_LABELS.get(name, name)


def table_specs(conditions: Sequence[Condition]) -> dict[str, tuple[RowKey, Mapping[str, str]]]:
    """Per table, the key that maps a condition (``gallery``, ``kind``, ``perturbation``) to
    its ``(section, row)`` (None: not in the table) and the table's columns (label ->
    metric), given every condition of the run (which galleries were perturbed how)."""
    text = {c["gallery"] for c in conditions if c["kind"] == "text"}
    image = {c["gallery"] for c in conditions if c["kind"] == "image"}

    def aro(kind: str, perturbed: set[str], strategies: Mapping[str, str]) -> RowKey:
        def key(c: Condition) -> tuple[str, str] | None:
            if (c["gallery"] in perturbed and c["kind"] in ("clean", kind)
                    and c["perturbation"] in strategies):
                return _gallery(c["gallery"]), strategies[c["perturbation"]]
            return None
        return key

    def hendriksen(c: Condition) -> tuple[str, str] | None:
        if c["gallery"] in text and c["kind"] in ("clean", "text"):
            return _gallery(c["gallery"]), c["perturbation"]
        return None

    def granularity(c: Condition) -> tuple[str, str] | None:
        return ("Unperturbed", _gallery(c["gallery"])) if c["kind"] == "clean" else None

    specs = {
        "robustness_aro_table3": (aro("text", text, ARO_TEXT_STRATEGIES), ARO_COLUMNS),
        "robustness_aro_table4": (aro("image", image, ARO_IMAGE_STRATEGIES), ARO_COLUMNS),
        "robustness_hendriksen": (hendriksen, HENDRIKSEN_COLUMNS),
        "robustness_granularity": (granularity, GRANULARITY_COLUMNS),
    }
    return {name: (_only_fed(TABLE_OF[name], key), columns)
            for name, (key, columns) in specs.items()}


def feeds(condition: Condition, table: str) -> bool:
    """Whether a condition's gallery feeds ``table`` (aro, hendriksen, granularity): its
    ``tables`` field (space-separated names) names it, or it has none (older records)."""
    names = condition.get("tables")
    if not isinstance(names, str):  # absent, or NaN in a csv without the column filled
        return True
    return table in names.split()


def _only_fed(table: str, key: RowKey) -> RowKey:
    return lambda c: key(c) if feeds(c, table) else None


def _build(name: str, results: Results, groups: Groups | None) -> pd.DataFrame:
    key, columns = table_specs(conditions_of(results))[name]
    return robustness_table(results, key, columns, groups)


def aro_table3(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """ARO Table 3: text-shuffled retrieval per perturbed gallery and strategy."""
    return _build("robustness_aro_table3", results, groups)


def aro_table4(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """ARO Table 4: image-shuffled retrieval per perturbed gallery and strategy."""
    return _build("robustness_aro_table4", results, groups)


def hendriksen_table(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """Hendriksen et al.: every text perturbation of every perturbed gallery, and its clean
    baseline."""
    return _build("robustness_hendriksen", results, groups)


def granularity_table(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """Every gallery unperturbed: coarse vs original vs fine-grained captions."""
    return _build("robustness_granularity", results, groups)




def interval_cells(intervals: pd.DataFrame, groups: Groups
                   ) -> dict[tuple[str, str, str], Interval]:
    """The robustness tables' cells with their CIs, from `RobustnessBootstrap.table`:
    ``(table, "section / row / label", column) -> (value, low, high, sd)`` with the tables'
    names (``robustness/aro_table3``), rows and columns. ``sd`` is the training seeds' for
    a group, the perturbation seeds' for a single model (as the tables show it); the
    drop's metric is ``t2i_r1_drop`` and "captions changed %" the ``changed`` outcome."""
    metric_of = {"changed_pct": "changed"}
    keys = ["gallery", "kind", "perturbation"] + (["tables"] if "tables" in intervals else [])
    conditions = intervals[keys].drop_duplicates()
    specs = table_specs(conditions.to_dict("records"))
    indexed = intervals.set_index(["gallery", "kind", "perturbation", "model", "metric"])
    out: dict[tuple[str, str, str], Interval] = {}
    for label, members in groups.items():
        model = members[0] if len(members) == 1 else label
        for c in conditions.to_dict("records"):
            for table, (key, columns) in specs.items():
                place = key(c)
                if place is None:
                    continue
                for column, metric in columns.items():
                    where = (c["gallery"], c["kind"], c["perturbation"], model,
                             metric_of.get(metric, metric))
                    if where not in indexed.index:
                        continue
                    r = indexed.loc[where]
                    sd = r.training_seed_std if len(members) > 1 else r.perturbation_seed_std
                    out[table.replace("_", "/", 1), f"{place[0]} / {place[1]} / {label}",
                        column] = (float(r.value), float(r.ci_low), float(r.ci_high),
                                   None if pd.isna(sd) else float(sd))
    return out


def gallery_notes(table: str, results: Results) -> list[str]:
    """The note under a robustness table naming, per gallery in it, which images text→image
    ranked (its test images, or the whole image folder with their count) and what
    image→text ranked; none for a table of test galleries only or another table."""
    if table not in TABLE_OF:
        return []
    conditions = conditions_of(results)
    key, _ = table_specs(conditions)[table]
    shown = {c["gallery"]: c for c in conditions if key(c) is not None}
    if not any(c.get("t2i_gallery") == "folder" for c in shown.values()):
        return []
    parts = [_gallery_note(g, c) for g, c in shown.items()]
    return ["Galleries: " + "; ".join(parts) + "."]


def _gallery_note(gallery: str, c: Condition) -> str:
    images = int(c["images"])
    if c.get("t2i_gallery") != "folder":
        return f"{_gallery(gallery)}: both directions over its {images:,} test images"
    return (f"{_gallery(gallery)}: T2I over the whole image folder ({int(c['t2i_images']):,} "
            f"images: its {images:,} test images and every other image in their folder, as "
            f"Hendriksen et al.'s released results), I2T over the captions of its {images:,} "
            "test images")


def conditions_of(results: Results, benchmark: str = "robustness") -> list[Condition]:
    """Every condition of every model (to see which galleries were perturbed how)."""
    return [c for m in results.values() if benchmark in m for c in m[benchmark]["conditions"]]


ROBUSTNESS_TABLES: dict[str, Callable[..., pd.DataFrame]] = {
    "robustness_aro_table3": aro_table3,
    "robustness_aro_table4": aro_table4,
    "robustness_hendriksen": hendriksen_table,
    "robustness_granularity": granularity_table,
}

