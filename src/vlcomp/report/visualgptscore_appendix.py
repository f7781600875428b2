"""VisualGPTScore's appendix tables (Lin et al., Tables 10-13): BLIP-2 beside BLIP.

* ``blip2_table`` (Table 10): chance and each BLIP-2 model's headline (ITC, ITM, and
  VisualGPTScore at α = 0) on ARO, Crepe and VL-CheckList: Table 1's builder on those rows.
* ``pair_score_table`` (Tables 11 and 12): on the 2 × 2 pair sets (Winoground, EqBen), each
  BLIP / BLIP-2 model's text, image and group scores; a captioner's row is α = 0, with
  ``(alpha=1)`` (the text score of PMI) and ``(alpha=alpha*)`` (the text, image and group
  scores at the oracle α* of the text score, and α* itself) beside it.
* ``tag_table`` (Table 13): Winoground's text, image and group scores per Diwan et al. tag,
  a captioner's at α = 0 and at each tag's own oracle α* (``(alpha=alpha*)``).

Rows are the models' labels (the published rows face them through ``published_as``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.data.winoground_tags import NO_TAG, PAPER_NAMES, TAGS
from vlcomp.report.cells import Cells
from vlcomp.report.visualgptscore import Records, _benchmarks, benchmark_name, method_table

# the families of the appendix's rows: BLIP (Tables 11-13) and BLIP-2 (Tables 10-11)
BLIP_FAMILIES = ("hf_blip_itm", "hf_blip_lm")
BLIP2_FAMILIES = ("hf_blip2_itm", "hf_blip2_lm", "hf_blip2_qformer_lm")
# Table 10's benchmarks, by metric kind (ARO, Crepe, VL-CheckList)
TABLE10_KINDS = ("aro_relation", "aro_attribution", "order", "crepe", "vl_checklist")
PAIR_SCORES = {" Text Score": "I2T", " Image Score": "T2I", " Group Score": "Group"}
ALPHA1, ORACLE = " (alpha=1)", " (alpha=alpha*)"
COUNT_SUFFIX = " n"  # Table 13's items per tag (a count: exact)
TAG_ORDER = (NO_TAG, *TAGS)


def tag_label(tag: str) -> str:
    """A Diwan tag as Table 13 names it: ``No Tag`` -> ``No-Tag``, ``Non Minimal`` ->
    ``NonCompositional``, the others without spaces (``ComplexReasoning``)."""
    if tag == NO_TAG:
        return "No-Tag"
    return PAPER_NAMES.get(tag, tag).replace(" ", "")


def blip2_table(results: Records, metrics: Mapping[str, str],
                chance: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]],
                roles: Mapping[str, str], names: Mapping[str, str] | None = None,
                ) -> pd.DataFrame:
    """Table 10: Random and each of ``groups`` (the BLIP-2 models) on the benchmarks of
    ``metrics`` whose kind is one of `TABLE10_KINDS`, as Table 1 lays them out (no best
    discriminative row)."""
    kept = {b: k for b, k in metrics.items() if k in TABLE10_KINDS}
    table = method_table(results, kept, chance, groups, roles, names)
    return table.drop(index="Best discriminative", errors="ignore")


def _collector() -> tuple[dict[str, dict[str, float]], list[str],
                          Callable[[str, Mapping[str, float | None]], None]]:
    """Rows being filled, their column order, and ``put(row, values)``: the non-None values
    into the row, new columns appended in first-seen order."""
    rows: dict[str, dict[str, float]] = {}
    columns: list[str] = []

    def put(row: str, values: Mapping[str, float | None]) -> None:
        kept = {c: float(v) for c, v in values.items() if v is not None}
        rows.setdefault(row, {}).update(kept)
        columns.extend(c for c in kept if c not in columns)

    return rows, columns, put


def pair_score_table(results: Records, alpha: Records, labels: Mapping[str, str],
                     names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tables 11-12. ``results``: model -> pair benchmark -> metric record (``overall`` with
    ``I2T``, ``T2I``, ``Group``), in row order; ``alpha``: captioner -> benchmark -> α-curve
    record (`vlcomp.metrics.alpha_curves.alpha_curve`, with ``oracle.pair``). Columns
    ``"{name} Text Score"`` / ``Image Score`` / ``Group Score`` and, for captioners,
    ``"{name} alpha*"`` (the oracle α*)."""
    rows, columns, put = _collector()

    for model, per_model in results.items():
        label = labels.get(model, model)
        for benchmark in _benchmarks({model: per_model}):
            name = benchmark_name(benchmark, names)
            overall = per_model[benchmark]["overall"]
            put(label, {name + suffix: overall.get(key) for suffix, key in PAIR_SCORES.items()})
            record = alpha.get(model, {}).get(benchmark)
            if record is None:
                continue
            put(label + ALPHA1, {f"{name} Text Score": record["accuracy_alpha1"]})
            oracle = record["oracle"]
            put(label + ORACLE, {**{name + suffix: oracle["pair"][key]
                                    for suffix, key in PAIR_SCORES.items()},
                                 f"{name} alpha*": oracle["alpha"]})
    return _frame(rows, columns)


def tag_table(records: Mapping[str, Mapping[str, Any]], labels: Mapping[str, str],
              name: str = "Winoground") -> pd.DataFrame:
    """Table 13. ``records``: model -> its Winoground tag record
    (`vlcomp.metrics.eqben.winoground_tag_metrics`), in row order. Columns
    ``"{name} {Tag} Text Score"`` / ``Image Score`` / ``Group Score`` per tag (`tag_label`)
    and ``"{name} {Tag} n"`` (items); a captioner's ``(alpha=alpha*)`` row adds each tag's
    ``"{name} {Tag} alpha*"``."""
    rows, columns, put = _collector()

    for model, record in records.items():
        label = labels.get(model, model)
        subsets = record.get("subsets", {})
        order = [t for t in TAG_ORDER if t in subsets] + sorted(set(subsets) - set(TAG_ORDER))
        for tag in order:
            prefix = f"{name} {tag_label(tag)}"
            entry = subsets[tag]
            if not entry.get("n"):
                continue
            put(label, {prefix + s: entry.get(k) for s, k in PAIR_SCORES.items()}
                | {prefix + COUNT_SUFFIX: entry["n"]})
            oracle = record.get("oracle", {}).get(tag)
            if oracle is not None:
                put(label + ORACLE, {prefix + s: oracle["oracle"][k]
                                     for s, k in PAIR_SCORES.items()}
                    | {f"{prefix} alpha*": oracle["alpha"]})
    return _frame(rows, columns)


def pair_score_cells(intervals: Mapping[str, Mapping[str, pd.DataFrame]],
                     labels: Mapping[str, str], names: Mapping[str, str] | None = None,
                     table: str = "visualgptscore/table11") -> Cells:
    """The intervals of `pair_score_table`'s α rows: ``intervals``: captioner -> pair
    benchmark -> its α numbers' CIs (`vlcomp.metrics.alpha_uncertainty.alpha_intervals`:
    ``accuracy_alpha1``, ``oracle.pair.*``, ``oracle.alpha``), as
    `vlcomp.report.intervals.CellIntervals` cells. The α = 0 rows are each benchmark's
    headline numbers, found there by column."""
    cells: Cells = {}
    for model, per_benchmark in intervals.items():
        label = labels.get(model, model)
        for benchmark, frame in per_benchmark.items():
            name = benchmark_name(benchmark, names)
            found = {r.measure: (float(r.value), float(r.ci_low), float(r.ci_high), None)
                     for r in frame.itertuples()}
            wanted = {(label + ALPHA1, f"{name} Text Score"): "accuracy_alpha1",
                      (label + ORACLE, f"{name} alpha*"): "oracle.alpha"}
            wanted |= {(label + ORACLE, name + suffix): f"oracle.pair.{key}"
                       for suffix, key in PAIR_SCORES.items()}
            cells |= {(table, row, column): found[measure]
                      for (row, column), measure in wanted.items() if measure in found}
    return cells


def tag_cells(intervals: Mapping[str, pd.DataFrame], labels: Mapping[str, str],
              name: str = "Winoground", table: str = "visualgptscore/table13") -> Cells:
    """The intervals of every number of `tag_table` but the counts: ``intervals``: model ->
    its per-tag CIs (`vlcomp.metrics.tag_uncertainty.tag_intervals`), as
    `vlcomp.report.intervals.CellIntervals` cells."""
    cells: Cells = {}
    for model, frame in intervals.items():
        label = labels.get(model, model)
        for r in frame.itertuples():
            prefix = f"{name} {tag_label(r.subset)}"
            key = r.measure.removeprefix("oracle.pair.").removeprefix("oracle.")
            column = prefix + (" alpha*" if key == "alpha" else
                               next(s for s, k in PAIR_SCORES.items() if k == key))
            row = label + ORACLE if r.measure.startswith("oracle.") else label
            cells[table, row, column] = (float(r.value), float(r.ci_low), float(r.ci_high),
                                         None)
    return cells


def _frame(rows: Mapping[str, Mapping[str, float]], columns: Sequence[str]) -> pd.DataFrame:
    data = [[values.get(c, np.nan) for c in columns] for values in rows.values()]
    return pd.DataFrame(data, index=pd.Index(list(rows), name="method"), columns=list(columns),
                        dtype=float)
