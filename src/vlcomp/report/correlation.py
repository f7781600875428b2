"""Do benchmarks agree on which models are better? (BiVLC's Finding 3)

Rank correlation of all evaluated models between every two benchmark metrics: Kendall's τ
(tau-b, with ties) and Spearman's ρ, each with its p-value, over the models that have both
numbers; the τ matrix is drawn as a heatmap. The headline metric of each benchmark kind is
`HEADLINE_METRICS`; values come from the uncertainty tables (`vlcomp.metrics.uncertainty`),
which hold every model's headline metrics next to their confidence intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

# benchmark kind -> (metric in the uncertainty table, column label suffix)
HEADLINE_METRICS: dict[str, list[tuple[str, str]]] = {
    "aro_relation": [("macro_accuracy", "")],
    "aro_attribution": [("macro_accuracy", "")],
    "order": [("mean", "")],
    "sugarcrepe": [("accuracy", "")],
    "bivlc": [("I2T", " I2T"), ("T2I", " T2I"), ("Group", " Group"),
              ("Ipos2T", " Ipos2T")],  # Ipos2T: SugarCrepe's direction on BiVLC's items
    "winoground": [("I2T", " text"), ("T2I", " image"), ("Group", " group")],
    "bison": [("accuracy", "")],
    "crepe": [("accuracy", "")],
    "vl_checklist": [("relation", "")],
    "retrieval": [("i2t_r1", " I2T R@1"), ("t2i_r1", " T2I R@1")],
    # ARO Table 6's rows: the linear probe under the dataset's name, zero-shot beside it
    # (vlcomp.report.labels.PROTOCOL_SUFFIXES)
    "classification": [("linear_probe top1", ""), ("zero_shot top1", " zero-shot")],
}


def headline_matrix(intervals: Mapping[str, pd.DataFrame], kinds: Mapping[str, str],
                    labels: Mapping[str, str]) -> pd.DataFrame:
    """Models × benchmark-metric columns (``labels[benchmark] + suffix``) of headline values,
    from each benchmark's uncertainty table (``model``, ``metric``, ``value``)."""
    columns = {}
    for benchmark, table in intervals.items():
        for metric, suffix in HEADLINE_METRICS.get(kinds[benchmark], []):
            rows = table[table.metric == metric]
            if len(rows):
                columns[labels.get(benchmark, benchmark) + suffix] = rows.set_index(
                    "model").value
    return pd.DataFrame(columns)


def rank_correlations(matrix: pd.DataFrame, min_models: int = 3) -> pd.DataFrame:
    """Kendall τ-b and Spearman ρ (with p-values) for every two columns, over the models
    with values in both; pairs with fewer than ``min_models`` models get NaN."""
    from scipy.stats import kendalltau, spearmanr  # here: the table jobs import only names

    rows = []
    names = list(matrix.columns)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = matrix[[a, b]].dropna()
            row = {"benchmark_a": a, "benchmark_b": b, "models": len(both)}
            constant = both[a].nunique() < 2 or both[b].nunique() < 2
            if len(both) >= min_models and not constant:
                tau = kendalltau(both[a], both[b])
                rho = spearmanr(both[a], both[b])
                row |= {"kendall_tau": float(tau.statistic), "kendall_p": float(tau.pvalue),
                        "spearman_rho": float(rho.statistic), "spearman_p": float(rho.pvalue)}
            else:
                row |= dict.fromkeys(("kendall_tau", "kendall_p", "spearman_rho",
                                      "spearman_p"), float("nan"))
            rows.append(row)
    return pd.DataFrame(rows, columns=["benchmark_a", "benchmark_b", "models", "kendall_tau",
                                       "kendall_p", "spearman_rho", "spearman_p"])


def correlation_square(pairs: pd.DataFrame, names: Sequence[str],
                       statistic: str = "kendall_tau") -> pd.DataFrame:
    """The symmetric matrix of one statistic (1 on the diagonal)."""
    square = pd.DataFrame(np.eye(len(names)), index=list(names), columns=list(names))
    for row in pairs.itertuples():
        value = getattr(row, statistic)
        square.loc[row.benchmark_a, row.benchmark_b] = value
        square.loc[row.benchmark_b, row.benchmark_a] = value
    return square


def plot_heatmap(tau: pd.DataFrame, rho: pd.DataFrame, paths: Sequence[str | Path],
                 title: str, models: int) -> None:
    """Kendall τ above the diagonal and Spearman ρ below it, annotated; one file per path
    (PNG or PDF, from the suffix)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from vlcomp.report.figures import save_figure

    n = len(tau)
    values = np.where(np.triu(np.ones((n, n), bool), 1), tau.to_numpy(), rho.to_numpy())
    np.fill_diagonal(values, np.nan)
    size = max(5.0, 0.62 * n + 2.5)
    fig = Figure(figsize=(size, size * 0.85))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(values, cmap="RdBu_r", vmin=-1, vmax=1)
    ax.set_xticks(range(n), tau.columns, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(n), tau.index, fontsize=8)
    for i in range(n):
        for j in range(n):
            if i != j and np.isfinite(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(values[i, j]) > 0.6 else "black")
    fig.colorbar(image, ax=ax, shrink=0.75, label="rank correlation")
    ax.set_title(f"{title}\n(upper: Kendall τ, lower: Spearman ρ; {models} models)",
                 fontsize=10)
    fig.tight_layout()
    for path in paths:
        save_figure(fig, path)
