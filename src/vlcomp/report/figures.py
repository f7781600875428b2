"""Paper figures: the ARO Fig. 3 radar plot (models/groups over compositional and downstream tasks).

Figures are drawn on a bare ``Figure`` with the Agg canvas (no pyplot state, no display) and
written atomically as PNG without a ``Software`` entry, so equal values give equal bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


def radar_plot(values: pd.DataFrame, path: Path | str, title: str | None = None,
               pdf: Path | str | None = None) -> Path:
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
    # room on the left for the labels that end at the rim (ARO Fig. 3: "World shapes")
    ax = fig.add_axes((0.17, 0.1, 0.46, 0.75), projection="polar")
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
    return _save_png(fig, path, title, pdf)


def _save_png(fig: Figure, path: Path | str, title: str | None,
              pdf: Path | str | None = None) -> Path:
    """Add the title, then write the figure as PNG (dpi 150, no software tag) atomically,
    and as PDF too when ``pdf`` is given (`save_figure`)."""
    if title:
        fig.suptitle(title, fontsize=12, y=0.97)
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=DPI, metadata={"Software": None})
    if pdf is not None:
        save_figure(fig, pdf)
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
    ylabel: str = "%", errors: pd.DataFrame | None = None, pdf: Path | str | None = None,
    figsize: tuple[float, float] = (8, 4.2), rotate: int = 0,
    bounds: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> Path:
    """Grouped bars: one group per column (e.g. a query alteration), one bar per row (a
    model), optional error bars: symmetric ``errors``, or confidence intervals ``bounds``
    (lower, upper frames shaped like ``values``); PNG (dpi 150) written atomically."""
    if values.empty:
        raise ValueError("a bar plot needs at least one row and one column")
    fig = Figure(figsize=figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    bottom = 0.14 if not rotate else 0.3
    ax = fig.add_axes((0.1, bottom, 0.66, 0.88 - bottom))
    _grouped_bars(ax, values, errors, bounds, rotate)
    ax.set_ylabel(ylabel)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False, fontsize=9)
    return _save_png(fig, path, title, pdf)


def panel_bar_plot(panels: Mapping[str, Bars], path: Path | str, title: str | None = None,
                   ylabel: str = "%", pdf: Path | str | None = None, rotate: int = 30,
                   ) -> Path:
    """Grouped bars with CIs in one panel per entry (e.g. a gallery), stacked, sharing the
    y range and one legend: ``panels`` maps a panel title to (values, CI low, CI high)."""
    if not panels or any(values.empty for values, _, _ in panels.values()):
        raise ValueError("every panel needs at least one row and one column")
    widest = max(values.shape[1] for values, _, _ in panels.values())
    fig = Figure(figsize=(max(8.0, 0.55 * widest + 3), 3.3 * len(panels) + 0.8), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, squeeze=False, sharey=True)[:, 0]
    for ax, (name, (values, low, high)) in zip(axes, panels.items(), strict=True):
        _grouped_bars(ax, values, bounds=(low, high), rotate=rotate)
        ax.set_title(name, loc="left", fontsize=10)
        ax.set_ylabel(ylabel)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9)
    fig.subplots_adjust(left=0.07, right=0.8, top=1 - 0.7 / fig.get_figheight(),
                        bottom=1.1 / fig.get_figheight(), hspace=0.9)
    return _save_png(fig, path, title, pdf)


def _grouped_bars(ax: Any, values: pd.DataFrame, errors: pd.DataFrame | None = None,
                  bounds: tuple[pd.DataFrame, pd.DataFrame] | None = None,
                  rotate: int = 0) -> None:
    """One group of bars per column of ``values``, one bar per row, with error bars."""
    n_rows, n_cols = values.shape
    width = 0.8 / n_rows
    x = np.arange(n_cols)
    for k, (label, row) in enumerate(values.iterrows()):
        height = row.to_numpy(dtype=float)
        err = None if errors is None else errors.loc[label, values.columns].to_numpy(dtype=float)
        if bounds is not None:
            low, high = (b.loc[label, values.columns].to_numpy(dtype=float) for b in bounds)
            err = np.nan_to_num(np.stack([height - low, high - height]).clip(min=0))
        ax.bar(x + (k - (n_rows - 1) / 2) * width, height, width,
               yerr=err, capsize=2, color=f"C{k % 10}", label=str(label))
    ax.set_xticks(x)
    ax.set_xticklabels([str(c) for c in values.columns], fontsize=9 if not rotate else 7,
                       rotation=rotate, ha="right" if rotate else "center")
    ax.grid(axis="y", color="0.85", linewidth=0.6)
    ax.set_axisbelow(True)


def bison_fig9_intervals(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame,
                                                       pd.DataFrame]:
    """BISON Fig. 9: % changed predictions per alteration (columns, the paper's order and
    labels) and model (rows) with its CI, from uncertainty rows of model labels
    (`vlcomp.report.summary.group_intervals`): the ``<alteration> changed_prediction``
    metrics."""
    from vlcomp.report.tables import BISON_ALTERATION_LABELS

    mine = rows[rows.metric.str.endswith(" changed_prediction")]
    mine = mine.assign(alteration=mine.metric.str.removesuffix(" changed_prediction"))
    present = set(mine.alteration)
    order = [a for a in BISON_ALTERATION_LABELS if a in present]
    order += sorted(present - set(order))
    models = list(dict.fromkeys(mine.model))
    wide = [mine.pivot(index="model", columns="alteration", values=c).loc[models, order]
            .rename(columns=lambda a: BISON_ALTERATION_LABELS.get(a, a))
            for c in ("value", "ci_low", "ci_high")]
    return wide[0], wide[1], wide[2]


Bars = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]  # values, CI low, CI high


def relation_intervals(rows: pd.DataFrame) -> Bars:
    """VG-Relation accuracy per relation (columns) and model (rows) with its CI, from
    uncertainty rows of model labels (`vlcomp.report.summary.group_intervals`): the
    ``<relation> accuracy`` metrics."""
    mine = rows[rows.metric.str.endswith(" accuracy")]
    mine = mine.assign(relation=mine.metric.str.removesuffix(" accuracy"))
    models = list(dict.fromkeys(mine.model))
    relations = list(dict.fromkeys(mine.relation))
    wide = {c: mine.pivot(index="model", columns="relation", values=c).loc[models, relations]
            for c in ("value", "ci_low", "ci_high")}
    return wide["value"], wide["ci_low"], wide["ci_high"]


def drop_intervals(cells: Mapping[tuple[str, str, str], tuple[float, float, float, Any]],
                   column: str = "R@1 drop %") -> dict[str, Bars]:
    """Per gallery, Hendriksen's relative R@1 drop per text perturbation (columns) and model
    (rows) with its CI, from `vlcomp.report.robustness.interval_cells`; the unperturbed
    rows are left out."""
    rows = []
    for (table, row, name), (value, low, high, _) in cells.items():
        if table != "robustness/hendriksen" or name != column:
            continue
        gallery, perturbation, model = row.split(" / ", 2)
        if perturbation != "none":
            rows.append((gallery, perturbation, model, value, low, high))
    frame = pd.DataFrame(rows, columns=["gallery", "perturbation", "model", "value", "ci_low",
                                       "ci_high"])
    out = {}
    for gallery, part in frame.groupby("gallery", sort=False):
        order = list(dict.fromkeys(part.model))
        wide = [part.pivot(index="model", columns="perturbation", values=c).loc[order]
                for c in ("value", "ci_low", "ci_high")]
        out[str(gallery)] = (wide[0], wide[1], wide[2])
    return out


def i2t_t2i_scatter(intervals: pd.DataFrame, labels: Mapping[str, str], path: Path | str,
                    pdf: Path | str | None = None, title: str | None = None) -> Path:
    """BiVLC-style scatter: each model's I2T (x) against its T2I (y) with their confidence
    intervals as error bars (from an uncertainty table), the diagonal for reference."""
    wide = intervals[intervals.metric.isin(["I2T", "T2I"])].pivot(
        index="model", columns="metric", values=["value", "ci_low", "ci_high"])
    if wide.empty:
        raise ValueError("no I2T / T2I rows to plot")
    fig = Figure(figsize=(6.4, 5.2), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.12, 0.11, 0.84, 0.76))
    for k, model in enumerate(wide.index):
        x, y = wide.loc[model, ("value", "I2T")], wide.loc[model, ("value", "T2I")]
        xerr = [[x - wide.loc[model, ("ci_low", "I2T")]], [wide.loc[model, ("ci_high", "I2T")] - x]]
        yerr = [[y - wide.loc[model, ("ci_low", "T2I")]], [wide.loc[model, ("ci_high", "T2I")] - y]]
        ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt="o", color=f"C{k % 10}", capsize=2,
                    ms=5, label=labels.get(model, model))
    ax.plot([0, 100], [0, 100], color="0.7", lw=0.8, ls="--")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("I2T (%)")
    ax.set_ylabel("T2I (%)")
    ax.grid(color="0.9", linewidth=0.6)
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    return _save_png(fig, path, title, pdf)
