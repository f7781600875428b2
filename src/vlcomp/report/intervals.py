"""Where a number of a paper table finds its confidence interval.

Two sources, read from the uncertainty jobs' outputs:

* `Numbers`: per (row label, benchmark, metric), a model's value with its bootstrap CI over
  test items, or a seed group's mean with the CI of that mean and the seeds' sd
  (`vlcomp.metrics.uncertainty`);
* cells: ``(table, row, column) -> interval`` of tables whose numbers are not a benchmark's
  metric (robustness conditions, detectors, α-picking procedures, BiVLC's removal rates).

`CellIntervals` joins them with each table's column names, so the summary and every
table's ``_ci`` companion find a number's interval the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from vlcomp.report.cells import Cells, Interval
from vlcomp.report.correlation import HEADLINE_METRICS
from vlcomp.report.visualgptscore_appendix import pair_score_cells, tag_cells

CHANCE_ROWS = frozenset({"Random", "Chance-level"})  # exact levels, not estimates
# tables whose numbers are outputs of a procedure over the items (held-out halves, tuned α),
# never a headline metric's: their intervals come only from cells
PROCEDURE_TABLES = frozenset({"visualgptscore/table4"})


def headline_columns(kinds: Mapping[str, str],
                     labels: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Column label -> (benchmark, metric) of every headline metric."""
    columns = {}
    for benchmark, kind in kinds.items():
        for metric, suffix in HEADLINE_METRICS.get(kind, []):
            columns[labels.get(benchmark, benchmark) + suffix] = (benchmark, metric)
    return columns


def group_intervals(intervals: pd.DataFrame, seeds: pd.DataFrame,
                    groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """One uncertainty row per display label and metric (``model`` = the label): a single
    model's, or a seed group's mean with the CI of that mean and ``seed_std``."""
    parts = []
    for label, members in groups.items():
        if len(members) == 1:
            parts.append(intervals[intervals.model == members[0]].assign(
                model=label, seed_std=np.nan))
        else:
            mine = seeds[seeds.group == label]
            parts.append(pd.DataFrame({"model": label, "metric": mine.metric,
                                       "value": mine["mean"], "ci_low": mine.ci_low,
                                       "ci_high": mine.ci_high,
                                       "seed_std": mine.get("seed_std", np.nan)}))
    parts = [p for p in parts if len(p)]  # a group without the benchmark adds no row
    return pd.concat(parts, ignore_index=True) if parts else intervals.iloc[:0]


class Numbers:
    """Values and CIs per (row label, benchmark, metric): models, and groups of seeds."""

    def __init__(self, intervals: Mapping[str, pd.DataFrame], seeds: Mapping[str, pd.DataFrame],
                 groups: Mapping[str, Sequence[str]]) -> None:
        self.rows: dict[tuple[str, str, str], Interval] = {}
        self.order = list(groups)
        self.metrics: dict[str, list[str]] = {}
        for benchmark, table in intervals.items():
            self.metrics[benchmark] = list(dict.fromkeys(table.metric))
            for r in group_intervals(table, seeds[benchmark], groups).itertuples():
                spread = None if np.isnan(r.seed_std) else float(r.seed_std)
                self.rows[r.model, benchmark, r.metric] = (
                    float(r.value), float(r.ci_low), float(r.ci_high), spread)

    def get(self, label: str, benchmark: str, metric: str) -> Interval | None:
        return self.rows.get((label, benchmark, metric))


def score_columns(columns: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Winoground's text / image / group headline columns under the names the
    VisualGPTScore tables give them (``Winoground-style text`` -> ``... Text Score``)."""
    out = {}
    for label, key in columns.items():
        for suffix in (" text", " image", " group"):
            if label.endswith(suffix):
                out[label.removesuffix(suffix) + suffix.title() + " Score"] = key
    return out


def table_columns(table_name: str, metrics: Mapping[str, Sequence[str]]
                  ) -> dict[str, tuple[str, str]]:
    """Column -> (benchmark, metric) of the columns particular to one paper table, from the
    metric names each benchmark's uncertainty table has: SugarCrepe's subsets and micro
    average, BiVLC's bare scores and per-type columns, ARO Table 2's relations, BISON's
    caption templates and Fig. 9's alterations, Winoground's scores per subset."""
    from vlcomp.report.tables import (
        BISON_ALTERATION_LABELS,
        BISON_COLUMNS,
        BIVLC_TYPE_LABELS,
        COCO_1K_COLUMNS,
        EXCLUDED_SUFFIX,
        SUGARCREPE_COLUMNS,
        WINOGROUND_SCORES,
        WINOGROUND_SUBSET_LABELS,
    )

    def subsets(benchmark: str, suffix: str) -> list[str]:
        return [m.removesuffix(suffix) for m in metrics.get(benchmark, ())
                if m.endswith(suffix) and m != suffix.strip()]

    out: dict[str, tuple[str, str]] = {
        SUGARCREPE_COLUMNS.get(s, s.replace("_", " ").capitalize()): ("sugarcrepe",
                                                                      f"{s} accuracy")
        for s in subsets("sugarcrepe", " accuracy")}
    if table_name == "sugarcrepe/sugarcrepe":
        out["Avg (micro)"] = ("sugarcrepe", "accuracy")
    elif table_name.startswith("bivlc/"):
        out |= {m: ("bivlc", m)
                for m in ("I2T", "T2I", "Group", "Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I")}
        out |= {f"{label} {m}": ("bivlc", f"{kind} {m}")
                for kind, label in BIVLC_TYPE_LABELS.items() for m in ("I2T", "T2I", "Group")}
    elif table_name == "aro/table2":
        out |= {"Accuracy": ("vg_relation", "macro_accuracy")}
        out |= {f"Accuracy ({m.removesuffix(' macro_accuracy')})": ("vg_relation", m)
                for m in metrics.get("vg_relation", ()) if m.endswith(" macro_accuracy")}
        out |= {s: ("vg_relation", f"{s} accuracy") for s in subsets("vg_relation", " accuracy")}
        out |= {s + EXCLUDED_SUFFIX: ("vg_relation", f"{s} accuracy")
                for s in subsets("vg_relation", " accuracy")}
    elif table_name == "bison/bison":
        out |= {"Accuracy": ("bison", "accuracy")}
        folded = [b for b, names in metrics.items()
                  if any(str(n).startswith("folds ") for n in names)]
        if folded:  # COCO-1K beside the accuracy: R@K inside the retrieval's folds
            out |= {label: (folded[0], f"folds {key}")
                    for key, label in COCO_1K_COLUMNS.items()}
        out |= {BISON_COLUMNS.get(s, s): ("bison", f"{s} accuracy")
                for s in subsets("bison", " accuracy")}
    elif table_name == "bison/fig9":
        out |= {"Accuracy": ("bison_altered", "original accuracy")}
        for s in subsets("bison_altered", " accuracy"):
            label = BISON_ALTERATION_LABELS.get(s, s)
            out |= {f"{label} acc.": ("bison_altered", f"{s} accuracy"),
                    f"{label} changed %": ("bison_altered", f"{s} changed_prediction")}
    elif table_name == "winoground/winoground":
        for key, score in WINOGROUND_SCORES.items():
            out[score] = ("winoground", key)
            for s in subsets("winoground", f" {key}"):
                out[f"{WINOGROUND_SUBSET_LABELS.get(s, s)} {score}"] = ("winoground",
                                                                       f"{s} {key}")
    return out


class CellIntervals:
    """A paper table's cell -> its interval ``(value, low, high, seed sd or None)``: the
    table's own cells first, then the uncertainty row of the (benchmark, metric) its column
    stands for (headline labels, Winoground's score names, the table's own columns).
    Procedure tables (`PROCEDURE_TABLES`) take theirs only from cells."""

    def __init__(self, numbers: Numbers, columns: Mapping[str, tuple[str, str]],
                 cells: Cells | None = None) -> None:
        self.numbers = numbers
        self.columns = dict(columns)
        self.cells: Cells = dict(cells or {})
        self._keys: dict[str, dict[str, tuple[str, str]]] = {}

    @classmethod
    def from_frame(cls, table_name: str, frame: pd.DataFrame) -> CellIntervals:
        """Intervals of one table's cells only, from a long ``row, column, value, ci_low,
        ci_high[, seed_sd]`` frame (VisualGPTScore's ``table{2,4}_ci.csv``)."""
        cells: Cells = {}
        for r in frame.itertuples():
            sd = getattr(r, "seed_sd", np.nan)
            cells[table_name, r.row, r.column] = (float(r.value), float(r.ci_low),
                                                  float(r.ci_high),
                                                  None if pd.isna(sd) else float(sd))
        return cls(Numbers({}, {}, {}), {}, cells)

    def column_keys(self, table_name: str) -> dict[str, tuple[str, str]]:
        """Column name -> (benchmark, metric) within one table."""
        if table_name not in self._keys:
            keys: dict[str, tuple[str, str]] = {}
            if table_name not in PROCEDURE_TABLES:
                keys = (self.columns | score_columns(self.columns)
                        | table_columns(table_name, self.numbers.metrics))
            self._keys[table_name] = keys
        return self._keys[table_name]

    def find(self, table_name: str, row: str, column: str) -> Interval | None:
        """The interval of ``row``'s number in ``column`` of ``table_name``, or None."""
        found = self.cells.get((table_name, row, column))
        if found is None and (key := self.column_keys(table_name).get(column)):
            found = self.numbers.get(row, *key)
        return found

    def source(self, table_name: str, column: str) -> str:
        """Where the column's intervals come from (for error messages)."""
        key = self.column_keys(table_name).get(column)
        return f"results/uncertainty/{key[0]}.csv ({key[1]})" if key else "its table's cells"


def load_cell_intervals(benchmarks: Sequence[str], interval_files: Sequence[str | Path],
                        seed_files: Sequence[str | Path], groups: Mapping[str, Sequence[str]],
                        kinds: Mapping[str, str], labels: Mapping[str, str], *,
                        robustness: Iterable[str | Path] = (),
                        detectors: Iterable[str | Path] = (),
                        detector_labels: Mapping[str, str] | None = None,
                        companions: Iterable[str | Path] = (),
                        cells: Cells | None = None) -> CellIntervals:
    """`CellIntervals` from the uncertainty jobs' files: per benchmark its intervals and seed
    spreads, the robustness and detector intervals, and the ``_ci.csv`` companions of tables
    whose intervals no benchmark's uncertainty table has (VisualGPTScore Tables 2, 4, 11
    and 13, BISON section 6)."""
    from vlcomp.report.generation import detector_cells
    from vlcomp.report.robustness import interval_cells

    intervals = {b: pd.read_csv(f) for b, f in zip(benchmarks, interval_files, strict=True)}
    seeds = {b: pd.read_csv(f) for b, f in zip(benchmarks, seed_files, strict=True)}
    found: Cells = dict(cells or {})
    for path in robustness:
        found |= interval_cells(pd.read_csv(path), groups)
    for path in detectors:
        found |= detector_cells(pd.read_csv(path), detector_labels or {})
    for path in companions:  # results/tables/{paper}/{table}_ci.csv
        path = Path(path)
        table = f"{path.parent.name}/{path.name.removesuffix('_ci.csv')}"
        found |= CellIntervals.from_frame(table, pd.read_csv(path)).cells
    return CellIntervals(Numbers(intervals, seeds, groups), headline_columns(kinds, labels),
                         found)


def table_cell_intervals(table_name: str, paths: Sequence[str | Path],
                         model_labels: Mapping[str, str],
                         names: Mapping[str, str] | None = None) -> Cells:
    """Cells of the tables whose intervals no benchmark's uncertainty table has, from the
    files their jobs write: VisualGPTScore Table 11's α rows
    (``results/uncertainty/alpha/{model}/{benchmark}.csv``), Table 13's tags
    (``results/uncertainty/winoground_tags/{model}.csv``), BISON section 6's caption metrics
    (``results/uncertainty/bison_section6.csv``)."""
    frames = {Path(p): pd.read_csv(p) for p in paths}
    if table_name == "visualgptscore/table11":
        per_model: dict[str, dict[str, pd.DataFrame]] = {}
        for frame in frames.values():
            per_model.setdefault(frame.model.iloc[0], {})[frame.benchmark.iloc[0]] = frame
        return pair_score_cells(per_model, model_labels, names, table_name)
    if table_name == "visualgptscore/table13":
        return tag_cells({p.stem: f for p, f in frames.items()}, model_labels, table=table_name)
    if table_name == "bison/section6":
        return {(table_name, r.metric, "Accuracy"): (float(r.value), float(r.ci_low),
                                                     float(r.ci_high), None)
                for frame in frames.values() for r in frame.itertuples()}
    raise ValueError(f"{table_name}: no cell intervals of its own")
