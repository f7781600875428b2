"""The results page's paper tables: each table of ``results/tables/{paper}/`` with its 95 %
intervals (``{table}_ci.csv``) and the paper's number beside each cell it publishes
(``{table}_vs_published.csv``), the difference marked by its direction; tables without
intervals as they are (``{table}.csv``). Figures are embedded as PNG data."""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path

import pandas as pd

from vlcomp.report.html import cell, esc, section, table

COMPANIONS = ("_ci", "_vs_published")
PAPER_TITLES = {"aro": "ARO / NegCLIP", "bivlc": "BiVLC / SugarCrepe", "sugarcrepe": "SugarCrepe",
                "bison": "BISON", "visualgptscore": "VisualGPTScore",
                "robustness": "ITR robustness",
                "winoground": "Winoground", "analysis": "Across benchmarks"}


def _natural(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def table_names(folder: Path) -> list[str]:
    """The base tables of a paper folder (their companions aside), in natural order."""
    names = {p.stem for p in folder.glob("*.csv")}
    bases = {n for n in names if not any(n.endswith(c) for c in COMPANIONS)}
    return sorted(bases, key=_natural)


def _fmt(value: float) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.1f}"


def published_beside(path: Path) -> dict[tuple[str, str], float]:
    """(row, column) → the paper's number, from a ``_vs_published.csv``."""
    if not path.is_file():
        return {}
    frame = pd.read_csv(path)
    return {(str(r.row), str(r.column)): float(r.published) for r in frame.itertuples()
            if not pd.isna(r.published)}


def difference_html(ours: float, published: float) -> str:
    """The paper's number and ours − it, marked up or down."""
    diff = ours - published
    arrow, klass = ("▲", "up") if diff > 0 else (("▼", "down") if diff < 0 else ("=", ""))
    return (f'<div class="paper">paper {_fmt(published)} '
            f'<span class="{klass}">{arrow}{abs(diff):.1f}</span></div>')


def interval_table_html(ci: pd.DataFrame, published: dict[tuple[str, str], float]) -> str:
    """Rows × columns of ``value [low, high]``, the paper's number under the cells it has."""
    rows = list(dict.fromkeys(ci["row"].astype(str)))
    columns = list(dict.fromkeys(ci["column"].astype(str)))
    lookup = {(str(r.row), str(r.column)): r for r in ci.itertuples()}
    body = []
    for row in rows:
        cells = [cell(f"<b>{esc(row)}</b>")]
        for column in columns:
            r = lookup.get((row, column))
            if r is None or pd.isna(r.value):
                cells.append(cell(""))
                continue
            text = _fmt(float(r.value))
            if not pd.isna(r.ci_low):
                text += f' <span class="ci">[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]</span>'
            if (row, column) in published:
                text += difference_html(float(r.value), published[(row, column)])
            cells.append(cell(text, classes="num"))
        body.append(cells)
    return table(["", *columns], body)


def plain_table_html(frame: pd.DataFrame, max_rows: int = 60) -> str:
    """A table as it is (numbers to one decimal), its first ``max_rows`` rows."""
    body = []
    for _, r in frame.head(max_rows).iterrows():
        body.append([cell(_fmt(v) if isinstance(v, float) else esc(v),
                          classes="num" if isinstance(v, float) else "") for v in r])
    more = (f'<p class="note">{len(frame) - max_rows} more rows in the CSV.</p>'
            if len(frame) > max_rows else "")
    return table([str(c) for c in frame.columns], body) + more


def paper_tables_html(tables: Path) -> tuple[str, list[tuple[str, str]]]:
    """Every paper's section and the navigation entries (anchor, title)."""
    sections, nav = [], []
    for folder in sorted(p for p in tables.iterdir() if p.is_dir()):
        parts = []
        for name in table_names(folder):
            ci, base = folder / f"{name}_ci.csv", folder / f"{name}.csv"
            where = f'<p class="note">results/tables/{folder.name}/{name}.csv</p>'
            if ci.is_file():
                body = interval_table_html(
                    pd.read_csv(ci), published_beside(folder / f"{name}_vs_published.csv"))
            else:
                body = plain_table_html(pd.read_csv(base))
            parts.append(section(f"{folder.name}-{name}", name,
                                 where + body, level=3))
        anchor = f"paper-{folder.name}"
        title = PAPER_TITLES.get(folder.name, folder.name)
        sections.append(section(anchor, title, "".join(parts)))
        nav.append((anchor, title))
    return "".join(sections), nav


def figures_html(paths: list[Path]) -> str:
    """PNG figures embedded as data, each with its file name."""
    out = []
    for path in paths:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        out.append(f'<figure><img alt="{esc(path.name)}" src="data:image/png;base64,{data}">'
                   f"<figcaption class=\"note\">{esc(path.name)}</figcaption></figure>")
    return f'<div class="figures">{"".join(out)}</div>'
