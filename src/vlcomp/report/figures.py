"""Paper figures: the ARO Fig. 3 radar plot (models/groups over compositional and downstream tasks).

Figures are drawn on a bare ``Figure`` with the Agg canvas (no pyplot state, no display) and
written atomically as PNG without a ``Software`` entry, so equal values give equal bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from vlcomp.io import atomic_path
from vlcomp.report.tables import (
    ARO6_COMPOSITIONAL,
    ARO6_DOWNSTREAM,
    STD_SUFFIX,
    Groups,
    Results,
    _aro6_wide,
)

DPI = 150
FIGSIZE = (8.0, 5.5)  # inches: 1200 x 825 px at DPI
RADIAL_TICKS = (20, 40, 60, 80, 100)


def aro_radar_values(
    results: Results,
    groups: Groups | None = None,
    compositional: Mapping[str, str] | None = None,
    downstream: Mapping[str, Mapping[str, str]] | None = None,
) -> pd.DataFrame:
    """Radar axes of ARO Fig. 3 available here: rows = models/groups, columns = tasks (%).

    Axes default to VG-Relation, VG-Attribution, Order, Retrieval I2T R@1 and Retrieval
    T2I R@1 (``aro_table6``'s rows, same options); a group's value is its mean over
    members. Axes missing for every row are left out.
    """
    compositional = ARO6_COMPOSITIONAL if compositional is None else compositional
    downstream = ARO6_DOWNSTREAM if downstream is None else downstream
    wide, _ = _aro6_wide(results, groups, compositional, downstream)
    columns = list(wide.columns)
    tasks = [
        c for c in columns if not (c.endswith(STD_SUFFIX) and c[: -len(STD_SUFFIX)] in columns)
    ]
    values = wide[tasks].dropna(axis=1, how="all")
    values.columns.name = "task"
    return values


def radar_plot(values: pd.DataFrame, path: Path | str, title: str | None = None) -> Path:
    """Write a radar (polar) plot of ``values`` as PNG (dpi 150) atomically; returns ``path``.

    Rows are the polygons (legend labels), columns the axes, clockwise from the top; values
    are percentages on a 0-100 radial scale. A row's NaN values leave gaps in its outline
    and that row is not filled.
    """
    if values.shape[1] < 3:
        raise ValueError(f"a radar plot needs at least 3 axes, got {list(values.columns)}")
    if values.shape[0] == 0:
        raise ValueError("a radar plot needs at least one row")
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.12, 0.1, 0.5, 0.75), projection="polar")
    ax.set_theta_offset(math.pi / 2)
    ax.set_theta_direction(-1)
    angles = np.linspace(0, 2 * math.pi, values.shape[1], endpoint=False)
    closed = np.append(angles, angles[0])
    colors = [f"C{i % 10}" for i in range(values.shape[0])]
    for (label, row), color in zip(values.iterrows(), colors, strict=True):
        data = row.to_numpy(dtype=float)
        data = np.append(data, data[0])
        ax.plot(
            closed, data, color=color, linewidth=1.8, marker="o", markersize=4, label=str(label)
        )
        if not np.isnan(data).any():
            ax.fill(closed, data, color=color, alpha=0.12)
    ax.set_ylim(0, 100)
    ax.set_yticks(RADIAL_TICKS)
    ax.set_yticklabels([str(t) for t in RADIAL_TICKS], fontsize=7, color="0.35")
    for tick in ax.get_yticklabels():
        tick.set_bbox({"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 0.5})
    ax.set_rlabel_position(180 / values.shape[1])
    ax.set_xticks(angles)
    ax.set_xticklabels([_wrap(str(c)) for c in values.columns], fontsize=9)
    for tick, angle in zip(ax.get_xticklabels(), angles, strict=True):
        # clockwise from the top: labels on the right start at the rim, on the left end there
        side = math.sin(angle)
        tick.set_horizontalalignment("left" if side > 0.1 else "right" if side < -0.1 else "center")
    ax.tick_params(axis="x", pad=8)
    ax.grid(color="0.8", linewidth=0.6)
    ax.legend(loc="center left", bbox_to_anchor=(1.2, 0.5), frameon=False, fontsize=9)
    return _save_png(fig, path, title)


def _save_png(fig: Figure, path: Path | str, title: str | None) -> Path:
    """Add the title, then write the figure as PNG (dpi 150, no software tag) atomically."""
    if title:
        fig.suptitle(title, fontsize=12, y=0.97)
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=DPI, metadata={"Software": None})
    return path


FIGURE_METADATA = {"png": {"Software": None},
                   "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}


def save_figure(fig: Figure, path: Path | str) -> Path:
    """Write a figure atomically as PNG or PDF (from the suffix; dpi 150), without software
    tags or dates, so equal values give equal bytes."""
    path = Path(path)
    kind = path.suffix.lstrip(".").lower()
    if kind not in FIGURE_METADATA:
        raise ValueError(f"{path}: figures are written as .png or .pdf")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=kind, dpi=DPI, metadata=FIGURE_METADATA[kind])
    return path


def _wrap(label: str) -> str:
    """Break an axis label of several words into two lines near its middle."""
    words = label.split()
    if len(label) <= 12 or len(words) < 2:
        return label
    best = min(
        range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:])))
    )
    return " ".join(words[:best]) + "\n" + " ".join(words[best:])


def bar_plot(
    values: pd.DataFrame, path: Path | str, title: str | None = None,
    ylabel: str = "%", errors: pd.DataFrame | None = None,
) -> Path:
    """Grouped bars: one group per column (e.g. a query alteration), one bar per row (a
    model), optional error bars; PNG (dpi 150) written atomically."""
    if values.empty:
        raise ValueError("a bar plot needs at least one row and one column")
    fig = Figure(figsize=(8, 4.2), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.08, 0.14, 0.68, 0.74))
    n_rows, n_cols = values.shape
    width = 0.8 / n_rows
    x = np.arange(n_cols)
    for k, (label, row) in enumerate(values.iterrows()):
        err = None if errors is None else errors.loc[label, values.columns].to_numpy(dtype=float)
        ax.bar(x + (k - (n_rows - 1) / 2) * width, row.to_numpy(dtype=float), width,
               yerr=err, capsize=2, color=f"C{k % 10}", label=str(label))
    ax.set_xticks(x)
    ax.set_xticklabels([str(c) for c in values.columns], fontsize=9)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", color="0.85", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False, fontsize=9)
    return _save_png(fig, path, title)


def bison_fig9_values(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """From the Fig. 9 table: % changed predictions per alteration (columns) and model (rows),
    and their std where the table has one."""
    columns = [c for c in table.columns if c.endswith(" changed %")]
    values = table[columns].rename(columns=lambda c: c.removesuffix(" changed %"))
    stds = [f"{c} std" for c in columns]
    if all(s in table.columns for s in stds):
        errors = table[stds].rename(columns=lambda c: c.removesuffix(" changed % std"))
        return values, errors.fillna(0.0)
    return values, None
