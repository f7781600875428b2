"""The papers' reported numbers (``published.yaml``) beside the reproduced ones."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.report.intervals import CHANCE_ROWS  # a record's exact chance level
from vlcomp.yaml_text import safe_load

COLUMNS = ["row", "ours", "column", "published", "reproduced", "difference", "source", "note"]
# A world run faces the papers by direction (`side_by_side(directions=True)`): each number's
# gap to the column's chance level and to the record's first model (the reference), in the
# paper and here, and whether their signs agree; never the absolute difference.
DIRECTION_COLUMNS = ["row", "ours", "column", "published", "reproduced", "chance",
                     "vs_chance_published", "vs_chance_reproduced", "reference",
                     "vs_reference_published", "vs_reference_reproduced", "agrees", "source",
                     "note"]
DIRECTION_TOLERANCE = 1.0  # points: a smaller gap has no direction (0.01 on a 0-1 column)
DIRECTION_NOTE = (
    "This run is on the synthetic world, which stands for the papers' data without matching "
    "their numbers: each number faces the paper's by direction. `vs_chance_*` is the gap to "
    "the column's chance level and `vs_reference_*` the gap to the column's first published "
    "model that this run reproduces (`reference`), in the paper and here; `agrees` says "
    f"whether ours points the same way (gaps under {DIRECTION_TOLERANCE:g} point have no "
    f"direction; {DIRECTION_TOLERANCE / 100:g} in a column on a 0–1 scale, such as α*). "
    "`results/summary.md` gives each with its 95 % confidence interval.")
# Reproduced table (``results/tables/{key}.csv``) -> the paper and published tables it is
# compared with (``results/tables/{key}_vs_published.*``).
COMPARED = {
    "aro/aro": ("aro", ["aro"]),
    "aro/table2": ("aro", ["table2"]),
    "aro/table6": ("aro", ["table6"]),
    "robustness/aro_table3": ("aro", ["table3"]),
    "robustness/aro_table4": ("aro", ["table4"]),
    "bivlc/table1": ("bivlc", ["table1"]),
    "bivlc/table2": ("bivlc", ["table2"]),
    "bivlc/table3": ("bivlc", ["table3"]),
    "bivlc/table4": ("bivlc", ["table4"]),
    "bivlc/table5": ("bivlc", ["table5"]),
    "bivlc/table6": ("bivlc", ["table6"]),
    "bison/bison": ("bison", ["table3"]),
    # the captioners' table: caption metrics and BISON accuracy (Tables 4 and 6)
    "bison/table4": ("bison", ["table4", "table6"]),
    "bison/section6": ("bison", ["section6"]),
    "sugarcrepe/sugarcrepe": ("sugarcrepe", ["sugarcrepe"]),
    "visualgptscore/table1": ("visualgptscore", ["table1"]),
    "visualgptscore/table2": ("visualgptscore", ["table2a", "table2b"]),
    "visualgptscore/table4": ("visualgptscore", ["table4a", "table6"]),
    # appendix Table 5: P(t) from n null images (its LAION rows need LAION-114M)
    "visualgptscore/table5": ("visualgptscore", ["table5"]),
    # the appendix: BLIP-2 on ARO / Crepe / VL-CheckList; text, image and group scores of BLIP
    # and BLIP-2 on Winoground / EqBen (Table 12's BLIP rows are Table 11's, with groups);
    # Winoground per Diwan tag
    "visualgptscore/table10": ("visualgptscore", ["table10"]),
    "visualgptscore/table11": ("visualgptscore", ["table11", "table12"]),
    "visualgptscore/table13": ("visualgptscore", ["table13"]),
}
# The world's tables name ARO's order and retrieval tasks without a dataset: they stand for
# the COCO ones (the world's captions are COCO-like), as the paper configuration labels them;
# the world's Winoground-style set stands for Winoground.
WORLD_ALIASES = {
    "COCO-Order": "Order",
    "COCO-Order std": "Order std",
    "COCO Retrieval I2T R@1": "Retrieval I2T R@1",
    "COCO Retrieval T2I R@1": "Retrieval T2I R@1",
    **{f"Winoground {m}": f"Winoground-style {m}"
       for m in ("Text Score", "Text Score std", "Image Score", "alpha*", "alpha* std")},
    **{f"COCO {m}": f"Retrieval {m}" for m in ("I2T R@1", "I2T R@5", "alpha*")},
}


def load_published(
    paper: str | None = None, table: str | Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Records ``{paper, table, rows: {row: value}, column, source}``, optionally filtered by
    paper and by one table id or several (e.g. BISON's ``["table3", "table4"]``)."""
    tables = {table} if isinstance(table, str) else None if table is None else set(table)
    return [copy.deepcopy(r) for r in _records()
            if (paper is None or r["paper"] == paper) and (tables is None or r["table"] in tables)]


@functools.cache
def _records() -> tuple[dict[str, Any], ...]:
    """``published.yaml`` parsed once (libyaml's safe loader where installed)."""
    text = resources.files("vlcomp.report").joinpath("published.yaml").read_text("utf-8")
    return tuple(safe_load(text))


def published_tables() -> list[tuple[str, str]]:
    """Every ``(paper, table)`` with published records, in file order."""
    return list(dict.fromkeys((r["paper"], r["table"]) for r in load_published()))


def row_labels(table: pd.DataFrame) -> tuple[list, bool]:
    """Each row's label as the records name it, and whether the table has tasks as rows
    (models as columns), so that `models_as_rows` transposes it.

    * ARO Table 6 (``(section, task)`` rows) and ARO Table 2 (``relation`` rows): the task.
    * Robustness tables (`vlcomp.report.robustness`: ``(gallery, "strategy / model")`` rows,
      level ``row``): one flat label ``"gallery / strategy / model"``; read from csv with one
      index column (``row`` then a column) they are flattened the same way.
    * Any other table: its index as it is.
    """
    names = list(table.index.names or [])
    if "task" in names:
        level = names.index("task")
        return [k[level] if isinstance(k, tuple) else k for k in table.index], True
    if names == ["relation"]:
        return list(table.index), True
    if table.index.nlevels > 1 and names[-1] == "row":
        return [" / ".join(map(str, key)) for key in table.index], False
    if table.index.nlevels == 1 and "row" in table.columns:
        return [f"{section} / {row}" for section, row in
                zip(table.index, table["row"], strict=True)], False
    return list(table.index), False


def models_as_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Our tables with models as rows, as the records have them (rows named by
    `row_labels`; tables with tasks as rows transposed)."""
    labels, transposed = row_labels(table)
    if transposed:
        return table.set_axis(pd.Index(labels, name=table.index.names[-1])).T
    if labels == list(table.index):
        return table
    return table.drop(columns="row", errors="ignore").set_axis(pd.Index(labels, name="row"))


def published_only_reason(row: str, published_only: Mapping[str, str] | None,
                          paper: str | None = None, table: str | None = None) -> str | None:
    """Why a published row is not reproduced (config ``published_only``), matched by the
    row of that paper's table (``"paper/table/row"``), the whole table (``"paper/table"``),
    then by the whole row, its model (the last part of ``"gallery / strategy / model"``), or
    the name before a parenthesised variant (``ShowTell (XE)`` -> ``ShowTell``)."""
    reasons = published_only or {}
    model = row.rsplit(" / ", 1)[-1]
    scoped = [f"{paper}/{table}/{row}", f"{paper}/{table}"] if paper and table else []
    for name in (*scoped, row, model, model.split(" (", 1)[0]):
        if name in reasons:
            return reasons[name]
    return None


def chance_levels(paper: str) -> dict[str, float]:
    """A paper's chance level per column, from its records' chance rows (ARO's
    ``Chance-level``, VisualGPTScore's ``Random``)."""
    levels: dict[str, float] = {}
    for record in load_published(paper):
        for row, value in record["rows"].items():
            if row in CHANCE_ROWS:
                levels.setdefault(record["column"], float(value))
    return levels


def sign_of(gap: float, tolerance: float = DIRECTION_TOLERANCE) -> int:
    """+1, -1, or 0 for a gap within ``tolerance`` (or unknown)."""
    if not np.isfinite(gap) or abs(gap) < tolerance:
        return 0
    return 1 if gap > 0 else -1


def column_tolerance(published: Sequence[float]) -> float:
    """The direction tolerance of a column: `DIRECTION_TOLERANCE` points, or the same share
    of a column whose published values are all on a 0–1 scale (α*)."""
    values = [abs(float(v)) for v in published if np.isfinite(float(v))]
    return DIRECTION_TOLERANCE / 100 if values and max(values) <= 1 else DIRECTION_TOLERANCE


def agreement(pairs: Sequence[tuple[float, float]],
              tolerance: float = DIRECTION_TOLERANCE) -> str:
    """``yes`` when every published gap with a direction has ours on the same side, ``no``
    when none does, ``partly`` in between, ``–`` with nothing to compare."""
    signs = [(sign_of(p, tolerance), sign_of(o, tolerance)) for p, o in pairs
             if sign_of(p, tolerance) and np.isfinite(o)]
    if not signs:
        return "–"
    same = sum(p == o for p, o in signs)
    return "yes" if same == len(signs) else "no" if same == 0 else "partly"


def _directions(out: pd.DataFrame, records: Sequence[dict[str, Any]],
                chance: Mapping[str, float]) -> pd.DataFrame:
    """`side_by_side`'s rows with gaps to chance and to each record's reference instead of
    the difference."""
    # each published (row, column)'s first reproduced value (its first counterpart's)
    reproduced: dict[tuple[str, str], float] = {}
    for r in out.itertuples(index=False):
        reproduced.setdefault((r.row, r.column), r.reproduced)

    # column -> its first published model that we reproduce (in record order), else its first
    reference: dict[str, tuple[str, float]] = {}
    settled: set[str] = set()
    for record in records:
        column = record["column"]
        models = [r for r in record["rows"] if r not in CHANCE_ROWS]
        found = [r for r in models if np.isfinite(reproduced.get((r, column), np.nan))]
        if column in settled or not models or (column in reference and not found):
            continue
        first = (found or models)[0]
        reference[column] = (first, float(record["rows"][first]))
        if found:
            settled.add(column)
    # each column's tolerance from its published values (a 0-1 column: 0.01)
    tolerance = {column: column_tolerance(group.published)
                 for column, group in out.groupby("column", sort=False)}
    rows = []
    for r in out.itertuples(index=False):
        level = chance.get(r.column, np.nan)
        ref, ref_published = reference.get(r.column, (None, np.nan))
        ref_mine = np.nan
        if ref is not None and ref != r.row:
            ref_mine = reproduced.get((ref, r.column), np.nan)
        else:
            ref, ref_published = None, np.nan
        pairs = [(r.published - level, r.reproduced - level),
                 (r.published - ref_published, r.reproduced - ref_mine)]
        rows.append({**r._asdict(), "chance": level,
                     "vs_chance_published": pairs[0][0], "vs_chance_reproduced": pairs[0][1],
                     "reference": ref or "", "vs_reference_published": pairs[1][0],
                     "vs_reference_reproduced": pairs[1][1],
                     "agrees": agreement(pairs, tolerance[r.column])
                     if np.isfinite(r.reproduced) else "–"})
    return pd.DataFrame(rows, columns=DIRECTION_COLUMNS)


def side_by_side(
    ours: pd.DataFrame, records: Sequence[dict[str, Any]],
    aliases: dict[str, str] | None = None,
    counterparts: Mapping[str, Sequence[str]] | None = None,
    published_only: Mapping[str, str] | None = None,
    directions: bool = False,
) -> pd.DataFrame:
    """One row per published cell and reproduced row facing it, grouped by published row:
    the published value, ours (NaN where we have no such row or column), their difference,
    and where the published value was read. ``counterparts`` maps a published row to our
    rows that reproduce it (`vlcomp.report.coverage.published_counterparts`; default: the
    row of the same name); a cell with several (a released checkpoint and our retrained
    model) gets a line for each, ``ours`` naming the row. ``aliases`` maps a published column
    to ours where the names differ (`WORLD_ALIASES`). ``published_only`` maps a published row
    that cannot be reproduced here to the reason (config ``published_only``): its cells
    without a reproduced value say so in ``note``.

    ``directions`` (a world run, which stands for the papers' data without matching their
    numbers): instead of the difference, each cell's gap to its column's chance level and to
    the record's first model, published and reproduced, and whether their directions agree
    (`DIRECTION_COLUMNS`; gaps under `DIRECTION_TOLERANCE` points have no direction)."""
    ours = models_as_rows(ours)
    aliases = aliases or {}
    rows = []
    for record in records:
        column = record["column"]
        mine_column = column if column in ours.columns else aliases.get(column, column)
        for row, value in record["rows"].items():
            facing = list((counterparts or {}).get(row, [row])) or [row]
            for mine_row in facing:
                mine = np.nan
                if mine_row in ours.index and mine_column in ours.columns:
                    mine = float(ours.loc[mine_row, mine_column])
                reason = published_only_reason(row, published_only, record.get("paper"),
                                               record.get("table"))
                note = f"published only: {reason}" if np.isnan(mine) and reason else ""
                rows.append({"row": row, "ours": mine_row, "column": column,
                             "published": float(value), "reproduced": mine,
                             "difference": mine - float(value), "source": record["source"],
                             "note": note})
    out = pd.DataFrame(rows, columns=COLUMNS)
    if directions:
        papers = {r["paper"] for r in records}
        chance = {k: v for paper in papers for k, v in chance_levels(paper).items()}
        out = _directions(out.drop(columns="difference"), records, chance)
    # group by model (first appearance order), columns in the records' order within each
    order = pd.Categorical(out.row, categories=list(dict.fromkeys(out.row)))
    out = out.iloc[np.argsort(order.codes, kind="stable")]
    return out.set_index(["row", "column"])
