"""``results/summary.md``: the headline numbers of a run, each with its confidence interval,
and the reproduced-vs-published comparisons that an item-level interval exists for.

Numbers come from the uncertainty tables (`vlcomp.metrics.uncertainty`): a model's value
with its percentile bootstrap CI over test items; a group of models trained with several
seeds shows the mean over seeds with the CI of that mean over items, and the seeds' standard
deviation beside it (the two spreads are never mixed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from vlcomp.report.intervals import CHANCE_ROWS, CellIntervals, Numbers
from vlcomp.report.tables import STD_SUFFIX

MATCH_TOLERANCE = 0.05  # a published table's reproduced number must be ours (rounding aside)
# published tables that no bootstrap resamples (counts; caption metrics of generated
# captions; VisualGPTScore Table 5's spread over sampling seeds): their _vs_published tables
# stand on their own, outside the summary
EXACT_TABLES = ("bivlc/table1", "bivlc/table5", "bison/table4", "visualgptscore/table5")


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


# a configured model without a number in any headline column
NO_HEADLINE = "not run: no headline benchmark of this configuration scores it"


def headline_table(numbers: Numbers, columns: Mapping[str, tuple[str, str]],
                   groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Rows = model labels (``(n seeds)`` for groups), columns = headline metrics."""
    data = {}
    for label in numbers.order:
        name = label + (f" ({len(groups[label])} seeds)" if len(groups[label]) > 1 else "")
        data[name] = {column: cell(*found) if (found := numbers.get(label, *key)) else "–"
                      for column, key in columns.items()}
        if columns and all(v == "–" for v in data[name].values()):  # says why in the row
            data[name][next(iter(columns))] = NO_HEADLINE
    table = pd.DataFrame.from_dict(data, orient="index", columns=list(columns))
    table.index.name = "model"
    return table


GapInterval = Callable[[str, str, str, str], "tuple[float, float, float] | None"]
NUMERIC = ["table", "model", "column", "published", "reproduced [95 % CI]", "difference"]
DIRECTIONS = ["table", "model", "column", "published", "reproduced [95 % CI]",
              "vs chance: paper → ours [95 % CI]", "vs reference: paper → ours [95 % CI]",
              "agrees"]


def gap_cell(published: float, ours: float, interval: tuple[float, float] | None = None,
             digits: int = 1) -> str:
    """``+9.0 → -5.6 [-9.8, -1.5]``: a gap in the paper, then ours with its interval."""
    if not np.isfinite(published):
        return "–"
    text = f"{published:+.{digits}f} → "
    if not np.isfinite(ours):
        return text + "–"
    text += f"{ours:+.{digits}f}"
    if interval is not None:
        text += f" [{interval[0]:+.{digits}f}, {interval[1]:+.{digits}f}]"
    return text


def published_rows(compared: Mapping[str, pd.DataFrame], lookup: CellIntervals,
                   aliases: Mapping[str, str], gap: GapInterval | None = None
                   ) -> tuple[pd.DataFrame, list[str]]:
    """Reproduced-vs-published rows with our CI, found by ``lookup`` (the same way as the
    tables' ``_ci`` companions); a reproduced number must be ours (else ValueError). A
    published ``X std`` (spread over seeds) joins its ``X`` row: ``mean ± sd`` there, and
    our seeds' sd beside our interval. Returns the rows and the reproduced numbers that have
    no interval here (``table: row / column``). Chance rows (`CHANCE_ROWS`) are exact levels
    and are left out.

    Tables written by direction (a world run: `vlcomp.report.published.DIRECTION_COLUMNS`)
    give the gaps to chance and to the reference model instead of the difference, with our
    intervals: the value's interval less the chance level, and ``gap(table, model,
    reference, column)``'s interval of the difference between two of our rows."""
    rows: list[dict[str, str]] = []
    without: list[str] = []
    directions = False
    for table_name, table in compared.items():
        if "ours" not in table:  # tables written before published rows had counterparts
            table = table.assign(ours=table.row)
        directions |= "agrees" in table
        spreads = {(r.ours, r.column.removesuffix(STD_SUFFIX)): r for r in table.itertuples()
                   if r.column.endswith(STD_SUFFIX)}
        for r in table.itertuples():
            if not np.isfinite(r.reproduced) or r.row in CHANCE_ROWS:
                continue  # chance levels are exact: nothing to resample
            mine = r.ours  # our row facing the published one
            spread = spreads.get((mine, r.column))
            if r.column.endswith(STD_SUFFIX):
                base = table[(table.ours == mine)
                             & (table.column == r.column[:-len(STD_SUFFIX)])]
                if len(base) and np.isfinite(base.reproduced.iloc[0]):
                    continue  # shown with its mean's row
            column = aliases.get(r.column, r.column)
            found = lookup.find(table_name, mine, column)
            if found and abs(found[0] - r.reproduced) > MATCH_TOLERANCE:
                raise ValueError(f"{table_name}: {mine} {r.column} is {r.reproduced} there "
                                 f"but {found[0]} in {lookup.source(table_name, column)}")
            if not found:
                without.append(f"{table_name}: {mine} / {r.column}")
                if spread is not None and np.isfinite(spread.reproduced):
                    without.append(f"{table_name}: {mine} / {spread.column}")
                continue
            digits = decimals_of(r.column)
            published = f"{r.published:.{digits}f}"
            if spread is not None:
                published += f" ± {spread.published:.{digits}f}"
                if found[3] is None and np.isfinite(spread.reproduced):
                    found = (*found[:3], float(spread.reproduced))
            row = {"table": table_name, "model": mine if mine == r.row
                   else f"{mine} (as {r.row})", "column": r.column, "published": published,
                   "reproduced [95 % CI]": cell(*found, decimals=digits)}
            if "agrees" in table:
                row.update(_direction_cells(r, table, table_name, column, found, gap, digits))
            else:
                row["difference"] = f"{r.reproduced - r.published:+.{digits}f}"
            rows.append(row)
    return pd.DataFrame(rows, columns=DIRECTIONS if directions else NUMERIC), without


def _direction_cells(r, table: pd.DataFrame, table_name: str, column: str, found: tuple,
                     gap: GapInterval | None, digits: int) -> dict[str, str]:
    """One direction row's gaps to chance and to the reference, each with our interval."""
    chance = (found[1] - r.chance, found[2] - r.chance) if np.isfinite(r.chance) else None
    reference = "–"
    if isinstance(r.reference, str) and r.reference:
        facing = table[table.row == r.reference]
        ours_ref = facing.ours.iloc[0] if len(facing) else r.reference
        interval = gap(table_name, r.ours, ours_ref, column) if gap else None
        if interval is not None and abs(interval[0] - r.vs_reference_reproduced) > \
                MATCH_TOLERANCE:
            interval = None  # a different number (another seed set): no interval
        reference = f"{r.reference}: " + gap_cell(
            r.vs_reference_published, r.vs_reference_reproduced,
            interval[1:] if interval else None, digits)
    return {"vs chance: paper → ours [95 % CI]":
            gap_cell(r.vs_chance_published, r.vs_chance_reproduced, chance, digits),
            "vs reference: paper → ours [95 % CI]": reference,
            "agrees": r.agrees if isinstance(r.agrees, str) else "–"}


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
                  method: str = "percentile", findings: str = "",
                  exact: Sequence[str] = ()) -> None:
    """Write ``results/summary.md`` (opening with ``findings``, the Markdown of
    `vlcomp.report.findings_text.markdown_overview`, when given; ``exact``: the published
    tables of exact numbers, `EXACT_TABLES`, this run compared outside the summary)."""
    from vlcomp.io import atomic_path

    level = f"{confidence * 100:g} %"
    text = [
        "# vlcomp: results at a glance", "",
        f"Every number is the metric in percent with its {level} confidence interval: a "
        f"{'BCa' if method == 'bca' else 'percentile'} bootstrap over the benchmark's test "
        f"items ({resamples} resamples, seed "
        f"{seed}). A model trained with several seeds shows the mean over its seeds, the "
        "interval of that mean over items, and `sd`, the standard deviation over seeds.",
        "Every paper table has a companion `results/tables/<paper>/<table>_ci.md` in its own "
        "layout with each number's interval. "
        "Paired tests between models (bootstrap and McNemar p-values) are in "
        "`results/uncertainty/<benchmark>_comparisons.csv`; which benchmarks agree on the "
        "models' order is `results/tables/analysis/rank_correlation.md`.", "",
        *(["## Findings: the papers' claims on this run", "", findings, ""] if findings
          else []),
        "## Headline metrics", "", markdown(headline), "",
        "## Reproduced vs published", "",
        "Published numbers are the papers' (no interval); ours carry theirs. A published "
        "`mean ± sd` is a spread over seeds (or repeats); the `sd` beside our interval is the "
        "same spread of this run: over training seeds for a group of models, over "
        "perturbation seeds or validation-split repeats otherwise. Numbers that pick α "
        "(oracle and validation α*) are bootstrapped with α picked again on every resample. "
        "α* values have three decimals; chance levels are exact and left out."
        + (f" {without} further reproduced numbers have no item-level interval here; they "
           "are in `results/tables/*/*_vs_published.md`." if without else "")
        + (" Exact numbers that nothing resamples (counts, caption metrics) are beside their "
           "published ones in " + ", ".join(f"`results/tables/{k}_vs_published.md`"
                                             for k in exact) + "." if exact else "")
        + (" This run is on the synthetic world, which stands for the papers' data without "
           "matching their numbers: each row gives the direction instead of the difference, "
           "the gap to the column's chance level and to its first reproduced model "
           "(reference), in the paper and here with our 95 % interval (the reference gap's "
           "from the paired bootstrap); `agrees` says whether ours points the same way."
           if "agrees" in published else ""), "",
        markdown(published, index=False) if len(published) else
        "No published number matches a benchmark of this configuration.", "",
    ]
    with atomic_path(Path(path)) as tmp:
        tmp.write_text("\n".join(text), encoding="utf-8")
