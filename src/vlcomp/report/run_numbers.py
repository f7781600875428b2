"""A run's numbers as the papers' claims read them: one operand of a claim (a model's metric
on a benchmark, a robustness condition, a table cell, a paired difference of two models, or
a constant) looked up in ``results/uncertainty/`` and ``results/tables/``, with its interval.

Operands here name models by their display labels (config ``label``); the claims name the
papers' models, and `vlcomp.report.claims` resolves those to labels first.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

SOURCES = ("uncertainty", "detectors", "robustness", "alpha", "granularity", "comparisons",
           "table")


class NotRun(Exception):
    """The run has no number for an operand (its model, benchmark or metric)."""


@dataclass(frozen=True)
class Operand:
    """Where one side of a claim is read: a source file's row, or a constant.

    ``model`` and ``versus`` are display labels here (paper model names in a claim before
    `vlcomp.report.claims.resolve`); ``versus`` is the second model of a ``comparisons``
    operand (the paired difference ``model`` − ``versus``). ``table`` names a paper table
    (``bison/table4``) whose ``_ci.csv`` a ``table`` operand reads: ``row`` (default the
    model's label) and column ``metric``."""

    source: str = "uncertainty"
    benchmark: tuple[str, ...] = ()
    model: tuple[str, ...] = ()
    versus: tuple[str, ...] = ()
    metric: str | tuple[str, ...] | None = None  # a tuple: candidates in order
    gallery: tuple[str, ...] = ()
    kind: str | None = None
    perturbation: str | None = None
    table: str | None = None
    row: str | None = None
    value: float | None = None
    label: str | None = None

    @property
    def constant(self) -> bool:
        return self.value is not None

    @property
    def metrics(self) -> tuple[str | None, ...]:
        return self.metric if isinstance(self.metric, tuple) else (self.metric,)


@dataclass(frozen=True)
class Reading:
    """One operand read: the benchmark and label it resolved to, and per seed (model id)
    the value and its interval."""

    benchmark: str
    label: str
    metric: str
    members: tuple[str, ...]
    values: tuple[tuple[float, float, float], ...]
    gallery: str = ""  # a robustness or granularity row's gallery


def seed_pairs(n_a: int, n_b: int) -> list[tuple[int, int]]:
    """Seed i of a with seed i of b; a single model faces every seed of the other."""
    if n_a == n_b or n_a == 1 or n_b == 1:
        return [(i if n_a > 1 else 0, i if n_b > 1 else 0) for i in range(max(n_a, n_b))]
    return [(i, i) for i in range(min(n_a, n_b))]


class RunNumbers:
    """The run's uncertainty tables under ``folder`` (``results/uncertainty``) and paper
    tables' intervals under ``tables`` (default ``results/tables``), read once each;
    ``groups`` maps a display label to its model ids (seeds), in config order."""

    def __init__(self, folder: str | Path, groups: Mapping[str, Sequence[str]],
                 tables: str | Path | None = None) -> None:
        self.folder = Path(folder)
        self.tables = Path(tables) if tables else self.folder.parent / "tables"
        self.groups = {label: list(members) for label, members in groups.items()}

    @functools.cache  # noqa: B019 (one instance per findings job)
    def table(self, name: str) -> pd.DataFrame | None:
        path = self.folder / f"{name}.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if "measure" in frame.columns:  # alpha tables
            frame = frame.rename(columns={"measure": "metric"})
        return frame

    @functools.cache  # noqa: B019
    def paper_table(self, name: str) -> pd.DataFrame | None:
        """A paper table's numbers as rows of (row, metric, value, ci_low, ci_high): its
        interval companion (``results/tables/{name}_ci.csv``), or the table itself
        (``{name}.csv``, rows by its first column) where it has none; a number without an
        interval is exact."""
        path = self.tables / f"{name}_ci.csv"
        if path.is_file():
            frame = pd.read_csv(path, dtype={"row": str, "column": str})
            frame = frame.rename(columns={"column": "metric"})
        elif (self.tables / f"{name}.csv").is_file():
            wide = pd.read_csv(self.tables / f"{name}.csv")
            first = wide.columns[0]
            numbers = [c for c in wide.columns[1:] if pd.api.types.is_numeric_dtype(wide[c])]
            frame = wide.melt(id_vars=[first], value_vars=numbers, var_name="metric")
            frame = frame.rename(columns={first: "row"}).astype({"row": str})
            frame["ci_low"] = frame["ci_high"] = float("nan")
        else:
            return None
        frame = frame[frame["value"].notna()].copy()
        for bound in ("ci_low", "ci_high"):
            frame[bound] = frame[bound].fillna(frame["value"])
        return frame

    def labels(self, names: Sequence[str]) -> list[str]:
        """The labels of ``names`` the run has, in order."""
        return [name for name in names if name in self.groups]

    def _condition(self, frame: pd.DataFrame, op: Operand) -> pd.DataFrame:
        """A robustness or granularity table's rows of the operand's condition; galleries
        are candidates in order: the first the run has."""
        present = [g for g in op.gallery if (frame.gallery == g).any()]
        keep = (frame.gallery == present[0]) if present else \
            (frame.gallery.isin(op.gallery) if op.gallery else True)
        if op.kind:
            keep = keep & (frame.kind == op.kind)
        if op.perturbation:
            keep = keep & (frame.perturbation == op.perturbation)
        return frame[keep]

    def rows(self, op: Operand, benchmark: str, model: str, metric: str | None = None
             ) -> pd.DataFrame | None:
        """The operand's rows for one model id on one benchmark (None: no such file), of
        ``metric`` (default: the operand's)."""
        if op.source == "alpha":
            frame = self.table(f"alpha/{model}/{benchmark}")
        elif op.source == "detectors":
            frame = self.table("detectors")
            if frame is not None and "benchmark" in frame:
                frame = frame[frame.benchmark == benchmark]
        elif op.source in ("robustness", "granularity"):
            frame = self.table(op.source)
            if frame is not None:
                frame = self._condition(frame, op)
        else:
            frame = self.table(benchmark)
        if frame is None:
            return None
        if "model" in frame:  # a model-less operand reads only a table of none
            if not model:
                return None
            frame = frame[frame.model == model]
        return frame[frame.metric == (metric or op.metric)]

    def has(self, op: Operand) -> bool:
        """Whether the run has a number for ``op`` (a constant always)."""
        if op.constant:
            return True
        try:
            self.read(op)
        except NotRun:
            return False
        return True

    def benchmarks(self, op: Operand) -> list[str]:
        """The operand's candidate benchmarks (a robustness condition: ``robustness``; a
        caption set's granularity: ``granularity``; a table cell: the table)."""
        if op.source == "table":
            return [op.table] if op.table else []
        if op.benchmark:
            return list(op.benchmark)
        return [op.source] if op.source in ("robustness", "granularity") else []

    def read(self, op: Operand) -> Reading:
        """The first candidate benchmark and metric with a number for ``op`` (NotRun with
        what is missing otherwise)."""
        benchmarks = self.benchmarks(op)
        if not benchmarks:
            raise NotRun("no benchmark named")
        labels = self.labels(op.model) if op.model else [""]
        if op.model and not labels:
            raise NotRun(f"no model labelled {' or '.join(op.model)} in this run")
        for benchmark, metric in itertools.product(benchmarks, op.metrics):
            for label in labels:
                found = self._read_one(op, benchmark, label, metric)
                if found is not None:
                    return found
        where = {"uncertainty": "uncertainty tables", "table": "its _ci.csv"}.get(
            op.source, op.source)
        of = f" of {' or '.join(op.model)}" if op.model else ""
        if op.source == "comparisons":
            of += f" vs {' or '.join(op.versus)}"
        raise NotRun(f"no {' or '.join(m for m in op.metrics if m)}{of} on "
                     f"{' or '.join(benchmarks)} ({where})")

    def _read_one(self, op: Operand, benchmark: str, label: str, metric: str | None
                  ) -> Reading | None:
        if op.source == "table":
            return self._read_cell(op, benchmark, label, metric)
        if op.source == "comparisons":
            return self._read_comparison(op, benchmark, label, metric)
        values, members, gallery = [], [], ""
        for model in self.groups[label] if label else [""]:
            rows = self.rows(op, benchmark, model, metric)
            if rows is None or rows.empty:
                continue
            if len(rows) > 1:
                raise ValueError(f"findings: {len(rows)} rows for {model} {metric} on "
                                 f"{benchmark} ({op.source}); the claim must name one "
                                 "condition")
            row = rows.iloc[0]
            values.append((float(row.value), float(row.ci_low), float(row.ci_high)))
            members.append(model)
            gallery = str(row.get("gallery", ""))
        if not values:
            return None
        return Reading(benchmark, label, metric or "", tuple(members), tuple(values), gallery)

    def _read_cell(self, op: Operand, table: str, label: str, metric: str | None
                   ) -> Reading | None:
        """One cell of a paper table's ``_ci.csv``: the operand's fixed ``row`` or the
        model's label."""
        frame = self.paper_table(table)
        row = op.row or label
        if frame is None or not row:
            return None
        hit = frame[(frame.row == row) & (frame.metric == metric)]
        if hit.empty:
            return None
        r = hit.iloc[0]
        return Reading(table, op.row or label, metric or "", (row,),
                       ((float(r.value), float(r.ci_low), float(r.ci_high)),))

    def _read_comparison(self, op: Operand, benchmark: str, label: str, metric: str | None
                         ) -> Reading | None:
        """The paired difference label − versus on one benchmark and metric, seed by seed."""
        versus = self.labels(op.versus)
        if not label or not versus:
            return None
        a, b = self.groups[label], self.groups[versus[0]]
        values, members = [], []
        for i, j in seed_pairs(len(a), len(b)):
            found = self.paired(replace(op, metric=metric), a[i], b[j], benchmark)
            if found is None:
                return None
            values.append(found[:3])
            members.append(a[i])
        return Reading(benchmark, label, metric or "", tuple(members), tuple(values))

    def paired(self, op_a: Operand, a: str, b: str, benchmark: str,
               metric_b: str | None = None, gallery: str = ""
               ) -> tuple[float, float, float, float] | None:
        """The paired bootstrap difference a - b (difference, low, high, p), if the run
        compared the two models on this benchmark and metric, or (``metric_b``: model a's
        metric less its ``metric_b``, ``a`` = ``b``) the two metrics on the same items. A
        robustness condition is matched on ``gallery`` (the one its reading resolved to)."""
        name = "robustness_comparisons" if op_a.source == "robustness" else \
            f"{benchmark}_comparisons"
        frame = self.table(name)
        if frame is None:
            return None
        metric = op_a.metrics[0]
        if op_a.source == "robustness":
            galleries = (gallery,) if gallery else op_a.gallery
            frame = self._condition(frame, replace(op_a, gallery=galleries))
        first_metric, second_metric = metric, metric_b or metric
        paired_metric = frame.get("metric_b", frame.metric)
        for first, second, x, y, sign in ((a, b, first_metric, second_metric, 1.0),
                                          (b, a, second_metric, first_metric, -1.0)):
            hit = frame[(frame.model_a == first) & (frame.model_b == second)
                        & (frame.metric == x) & (paired_metric == y)]
            if len(hit) == 1:
                r = hit.iloc[0]
                low, high = sorted((sign * r.ci_low, sign * r.ci_high))
                return sign * float(r.difference), low, high, float(r.p_bootstrap)
        return None
