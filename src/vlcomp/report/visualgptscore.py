"""VisualGPTScore tables and figure (Lin et al.) from the α-curve records of generative models
(`vlcomp.metrics.alpha_curves`, ``results/metrics/{model}/{benchmark}_alpha.{json,csv}``).

* ``prior_table`` (Table 2): per benchmark, the accuracy of the language prior alone
  (P(t|null): the text with the highest prior wins, whatever the image), of P(t|i) (α = 0)
  and of PMI (α = 1).
* ``alpha_table`` (Table 4): α = 0, α = 1, α* picked on validation halves (held-out accuracy
  and α*, mean ± std over repeats) and the oracle α* picked on all items.
* ``alpha_curves_figure`` (Table 3's curves): accuracy against α, one panel per benchmark.

Rows are benchmarks, columns are ``"{model label} {measure}"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from vlcomp.report.figures import _save_png

BENCHMARK_LABELS = {
    "vg_relation": "VG-Relation",
    "vg_attribution": "VG-Attribution",
    "order": "Order",
    "coco_order": "COCO-Order",
    "flickr30k_order": "Flickr30k-Order",
    "sugarcrepe": "SugarCrepe",
    "bivlc": "BiVLC (text score)",
}
PRIOR_MEASURES = {"P_LLM(t)": "accuracy_prior_only_llm", "P(t|null)": "accuracy_prior_only",
                  "P(t|i)": "accuracy_alpha0", "PMI": "accuracy_alpha1"}

Records = Mapping[str, Mapping[str, Mapping[str, Any]]]  # model -> benchmark -> record


def benchmark_label(benchmark: str) -> str:
    return BENCHMARK_LABELS.get(benchmark, benchmark)


def _benchmarks(records: Records) -> list[str]:
    names = {b for per_model in records.values() for b in per_model}
    order = list(BENCHMARK_LABELS)
    return sorted(names, key=lambda b: (order.index(b) if b in order else len(order), b))


def _frame(rows: dict[str, dict[str, float]], benchmarks: Sequence[str]) -> pd.DataFrame:
    df = pd.DataFrame.from_dict(rows, orient="index")
    df = df.loc[[benchmark_label(b) for b in benchmarks if benchmark_label(b) in rows]]
    df.index.name = "benchmark"
    return df


def prior_table(records: Records, labels: Mapping[str, str]) -> pd.DataFrame:
    """Table 2: accuracy of P_LLM(t) (when a text-only LM is configured), P(t|null), P(t|i)
    and PMI per benchmark and model."""
    benchmarks = _benchmarks(records)
    rows: dict[str, dict[str, float]] = {}
    for model, per_model in records.items():
        for benchmark, record in per_model.items():
            row = rows.setdefault(benchmark_label(benchmark), {})
            for measure, key in PRIOR_MEASURES.items():
                if key in record:
                    row[f"{labels.get(model, model)} {measure}"] = record[key]
    return _frame(rows, benchmarks)


def alpha_table(records: Records, labels: Mapping[str, str]) -> pd.DataFrame:
    """Table 4: α = 0, α = 1, validation α* (held-out accuracy, α*; mean and std over
    repeats) and the oracle α* on all items, per benchmark and model."""
    benchmarks = _benchmarks(records)
    rows: dict[str, dict[str, float]] = {}
    for model, per_model in records.items():
        label = labels.get(model, model)
        for benchmark, record in per_model.items():
            summary = record["validation"]["summary"]
            rows.setdefault(benchmark_label(benchmark), {}).update({
                f"{label} alpha=0": summary["test_accuracy_alpha0"]["mean"],
                f"{label} alpha=0 std": summary["test_accuracy_alpha0"]["std"],
                f"{label} alpha=1": summary["test_accuracy_alpha1"]["mean"],
                f"{label} alpha=1 std": summary["test_accuracy_alpha1"]["std"],
                f"{label} alpha*val": summary["test_accuracy"]["mean"],
                f"{label} alpha*val std": summary["test_accuracy"]["std"],
                f"{label} alpha*": summary["alpha"]["mean"],
                f"{label} alpha* std": summary["alpha"]["std"],
                f"{label} oracle alpha*": record["oracle"]["alpha"],
                f"{label} oracle": record["oracle"]["accuracy"],
            })
    return _frame(rows, benchmarks)


def alpha_curves_figure(curves: Mapping[tuple[str, str], pd.DataFrame],
                        records: Records, labels: Mapping[str, str], path: Path | str,
                        title: str | None = None) -> Path:
    """Accuracy (%) against α, one panel per benchmark, one line per model; a dot marks each
    model's oracle α*. ``curves`` maps (model, benchmark) to its curve (``alpha``,
    ``accuracy``)."""
    benchmarks = _benchmarks(records)
    cols = min(3, len(benchmarks)) or 1
    rows_n = int(np.ceil(len(benchmarks) / cols)) or 1
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows_n + 0.6))
    FigureCanvasAgg(fig)
    for k, benchmark in enumerate(benchmarks):
        ax = fig.add_subplot(rows_n, cols, k + 1)
        for model in records:
            curve = curves.get((model, benchmark))
            if curve is None:
                continue
            line = ax.plot(curve["alpha"], curve["accuracy"], lw=1.5,
                           label=labels.get(model, model))[0]
            oracle = records[model][benchmark]["oracle"]
            ax.plot([oracle["alpha"]], [oracle["accuracy"]], "o", color=line.get_color(), ms=4)
        ax.set_title(benchmark_label(benchmark), fontsize=10)
        ax.set_xlabel("α")
        ax.set_ylabel("accuracy (%)")
        ax.set_xlim(0, 1)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 0.93 if title else 1))
    return _save_png(fig, path, title)
