"""``results/summary.md``: the headline numbers of a run, each with its confidence interval,
and the reproduced-vs-published comparisons that an item-level interval exists for.

Numbers come from the uncertainty tables (`vlcomp.metrics.uncertainty`): a model's value
with its percentile bootstrap CI over test items; a group of models trained with several
seeds shows the mean over seeds with the CI of that mean over items, and the seeds' standard
deviation beside it (the two spreads are never mixed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from vlcomp.report.correlation import HEADLINE_METRICS
from vlcomp.report.robustness import Interval
from vlcomp.report.tables import STD_SUFFIX

MATCH_TOLERANCE = 0.05  # a published table's reproduced number must be ours (rounding aside)
CHANCE_ROWS = frozenset({"Random", "Chance-level"})  # exact levels, not estimates
# tables whose numbers are outputs of a procedure over the items (held-out halves, tuned α),
# never a headline metric's: their intervals come only from ``cells``
PROCEDURE_TABLES = frozenset({"visualgptscore/table4"})


def headline_columns(kinds: Mapping[str, str],
                     labels: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Column label -> (benchmark, metric) of every headline metric."""
    columns = {}
    for benchmark, kind in kinds.items():
        for metric, suffix in HEADLINE_METRICS.get(kind, []):
            columns[labels.get(benchmark, benchmark) + suffix] = (benchmark, metric)
    return columns


def cell(value: float, low: float, high: float, spread: float | None = None,
         decimals: int = 1) -> str:
    """``value [low, high]`` with one decimal (and ``sd x`` over seeds when given)."""
    if not np.isfinite(value):
        return "–"
    text = f"{value:.{decimals}f} [{low:.{decimals}f}, {high:.{decimals}f}]"
    if spread is not None and np.isfinite(spread):
        text += f" sd {spread:.{decimals}f}"
    return text


def decimals_of(column: str) -> int:
    """Percentages get one decimal; an α in [0, 1] (VisualGPTScore's α*) three."""
    return 3 if "alpha" in column else 1


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
    return pd.concat(parts, ignore_index=True) if parts else intervals.iloc[:0]


class Numbers:
    """Values and CIs per (row label, benchmark, metric): models, and groups of seeds."""

    def __init__(self, intervals: Mapping[str, pd.DataFrame], seeds: Mapping[str, pd.DataFrame],
                 groups: Mapping[str, Sequence[str]]) -> None:
        self.rows: dict[tuple[str, str, str], tuple[float, float, float, float | None]] = {}
        self.order = list(groups)
        for benchmark, table in intervals.items():
            for r in group_intervals(table, seeds[benchmark], groups).itertuples():
                spread = None if np.isnan(r.seed_std) else r.seed_std
                self.rows[r.model, benchmark, r.metric] = (r.value, r.ci_low, r.ci_high, spread)

    def get(self, label: str, benchmark: str, metric: str):
        return self.rows.get((label, benchmark, metric))


def headline_table(numbers: Numbers, columns: Mapping[str, tuple[str, str]],
                   groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Rows = model labels (``(n seeds)`` for groups), columns = headline metrics."""
    data = {}
    for label in numbers.order:
        name = label + (f" ({len(groups[label])} seeds)" if len(groups[label]) > 1 else "")
        data[name] = {column: cell(*found) if (found := numbers.get(label, *key)) else "–"
                      for column, key in columns.items()}
    table = pd.DataFrame.from_dict(data, orient="index", columns=list(columns))
    table.index.name = "model"
    return table


def published_rows(compared: Mapping[str, pd.DataFrame], numbers: Numbers,
                   columns: Mapping[str, tuple[str, str]], aliases: Mapping[str, str],
                   subsets: Mapping[str, str],
                   cells: Mapping[tuple[str, str, str], Interval] | None = None,
                   ) -> tuple[pd.DataFrame, list[str]]:
    """Reproduced-vs-published rows with our CI: each comparison whose column is a headline
    metric (or a SugarCrepe subset, or a BiVLC table's I2T/T2I/Group), or whose
    ``(table, row, column)`` is in ``cells`` (the robustness tables'); its reproduced number
    must be ours (else ValueError). A published ``X std`` (spread over seeds) joins its
    ``X`` row: ``mean ± sd`` there, and our seeds' sd beside our interval. Returns the rows
    and the reproduced numbers that have no interval here (``table: row / column``). Chance
    rows (`CHANCE_ROWS`) are exact levels and are left out."""
    cells = cells or {}
    rows: list[dict[str, str]] = []
    without: list[str] = []
    for table_name, table in compared.items():
        local = {} if table_name in PROCEDURE_TABLES else dict(columns)
        if local:
            local |= {name: ("sugarcrepe", f"{s} accuracy") for name, s in subsets.items()}
            local |= score_columns(columns)
            local |= table_columns(table_name, set(table.column))
        spreads = {(r.row, r.column.removesuffix(STD_SUFFIX)): r for r in table.itertuples()
                   if r.column.endswith(STD_SUFFIX)}
        for r in table.itertuples():
            if not np.isfinite(r.reproduced) or r.row in CHANCE_ROWS:
                continue  # chance levels are exact: nothing to resample
            spread = spreads.get((r.row, r.column))
            if r.column.endswith(STD_SUFFIX):
                base = table[(table.row == r.row) & (table.column == r.column[:-len(STD_SUFFIX)])]
                if len(base) and np.isfinite(base.reproduced.iloc[0]):
                    continue  # shown with its mean's row
            column = aliases.get(r.column, r.column)
            key = local.get(column)
            found = cells.get((table_name, r.row, column))
            found = found or (numbers.get(r.row, *key) if key else None)
            if found and abs(found[0] - r.reproduced) > MATCH_TOLERANCE:
                raise ValueError(f"{table_name}: {r.row} {r.column} is {r.reproduced} there "
                                 f"but {found[0]} in the uncertainty table of {key}")
            if not found:
                without.append(f"{table_name}: {r.row} / {r.column}")
                if spread is not None and np.isfinite(spread.reproduced):
                    without.append(f"{table_name}: {r.row} / {spread.column}")
                continue
            digits = decimals_of(r.column)
            published = f"{r.published:.{digits}f}"
            if spread is not None:
                published += f" ± {spread.published:.{digits}f}"
                if found[3] is None and np.isfinite(spread.reproduced):
                    found = (*found[:3], float(spread.reproduced))
            rows.append({"table": table_name, "model": r.row, "column": r.column,
                         "published": published,
                         "reproduced [95 % CI]": cell(*found, decimals=digits),
                         "difference": f"{r.reproduced - r.published:+.{digits}f}"})
    return pd.DataFrame(rows, columns=["table", "model", "column", "published",
                                       "reproduced [95 % CI]", "difference"]), without


def score_columns(columns: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Winoground's text / image / group headline columns under the names the
    VisualGPTScore tables give them (``Winoground-style text`` -> ``... Text Score``)."""
    out = {}
    for label, key in columns.items():
        for suffix in (" text", " image", " group"):
            if label.endswith(suffix):
                out[label.removesuffix(suffix) + suffix.title() + " Score"] = key
    return out


def table_columns(table_name: str, names: set[str]) -> dict[str, tuple[str, str]]:
    """Column -> (benchmark, metric) of the columns particular to one paper table: BiVLC's
    bare I2T/T2I/Group and per-type columns (Table 6), ARO Table 2's relations, BISON's
    caption templates."""
    from vlcomp.report.tables import BISON_COLUMNS, BIVLC_TYPE_LABELS

    if table_name.startswith("bivlc/"):
        out = {m: ("bivlc", m)
               for m in ("I2T", "T2I", "Group", "Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I")}
        out |= {f"{label} {m}": ("bivlc", f"{kind} {m}")
                for kind, label in BIVLC_TYPE_LABELS.items() for m in ("I2T", "T2I", "Group")}
        return out
    if table_name == "aro/table2":
        return {"Accuracy": ("vg_relation", "macro_accuracy")} | {
            c: ("vg_relation", f"{c} accuracy") for c in names if c != "Accuracy"}
    if table_name == "bison/bison":
        return {"Accuracy": ("bison", "accuracy")} | {
            label: ("bison", f"{t} accuracy") for t, label in BISON_COLUMNS.items()}
    return {}


def markdown(table: pd.DataFrame, index: bool = True) -> str:
    """A plain Markdown table (strings as they are, ``|`` escaped)."""
    frame = table.reset_index() if index else table

    def text(value) -> str:
        return str(value).replace("|", "\\|")

    header = "| " + " | ".join(text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    lines = ["| " + " | ".join(text(v) for v in row) + " |" for row in frame.to_numpy()]
    return "\n".join([header, rule, *lines])


def write_summary(path: str | Path, headline: pd.DataFrame, published: pd.DataFrame,
                  without: int, *, resamples: int, seed: int, confidence: float,
                  method: str = "percentile") -> None:
    """Write ``results/summary.md``."""
    from vlcomp.io import atomic_path

    level = f"{confidence * 100:g} %"
    text = [
        "# vlcomp: results at a glance", "",
        f"Every number is the metric in percent with its {level} confidence interval: a "
        f"{'BCa' if method == 'bca' else 'percentile'} bootstrap over the benchmark's test "
        f"items ({resamples} resamples, seed "
        f"{seed}). A model trained with several seeds shows the mean over its seeds, the "
        "interval of that mean over items, and `sd`, the standard deviation over seeds.",
        "Paired tests between models (bootstrap and McNemar p-values) are in "
        "`results/uncertainty/<benchmark>_comparisons.csv`; which benchmarks agree on the "
        "models' order is `results/tables/analysis/rank_correlation.md`.", "",
        "## Headline metrics", "", markdown(headline), "",
        "## Reproduced vs published", "",
        "Published numbers are the papers' (no interval); ours carry theirs. A published "
        "`mean ± sd` is a spread over seeds (or repeats); the `sd` beside our interval is the "
        "same spread of this run: over training seeds for a group of models, over "
        "perturbation seeds or validation-split repeats otherwise. Numbers that pick α "
        "(oracle and validation α*) are bootstrapped with α picked again on every resample. "
        "α* values have three decimals; chance levels are exact and left out."
        + (f" {without} further reproduced numbers have no item-level interval here; they "
           "are in `results/tables/*/*_vs_published.md`." if without else ""), "",
        markdown(published, index=False) if len(published) else
        "No published number matches a benchmark of this configuration.", "",
    ]
    with atomic_path(Path(path)) as tmp:
        tmp.write_text("\n".join(text), encoding="utf-8")


def sugarcrepe_subset_columns(intervals: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """Published SugarCrepe column names (``Replace obj``) -> our subset (``replace_obj``)."""
    table = intervals.get("sugarcrepe")
    if table is None:
        return {}
    names = {m.removesuffix(" accuracy") for m in table.metric if m.endswith(" accuracy")}
    return {n.replace("_", " ").capitalize(): n for n in sorted(names)}
