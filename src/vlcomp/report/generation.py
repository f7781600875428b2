"""BiVLC generation reports: the automatic filter's numbers, Table 4 (detectors), and a
figure of generated candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# Random baseline of BiVLC Table 4.
RANDOM_ROW = {"Text detection acc": 50.0, "Img detection acc": 50.0, "I2T": 25.0,
              "T2I": 25.0, "Group": 16.67, "SugarCrepe": 50.0}


def filter_table(report: Mapping[str, Any],
                 intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """The automatic filter: candidate validity, kept items, and the model decider's
    precision and recall against the oracle (when both ran), in a ``value`` column; with
    ``intervals`` (`vlcomp.metrics.uncertainty.ratio_intervals` of
    `vlcomp.generate.filters.filter_ratios`) every rate's CI beside it."""
    rows: list[tuple[str, Any, str | None]] = [
        ("decider", report["decider"], None), ("items", report["items"], None),
        ("candidates", report["candidates"], None)]
    if "candidate_valid_rate" in report:
        rows.append(("candidates true to their caption (%)", report["candidate_valid_rate"],
                     "candidate_valid_rate"))
    rows += [("kept items", report["kept"], None), ("kept (%)", report["kept_rate"], "kept_rate")]
    for kind, rate in sorted(report.get("kept_rate_by_type", {}).items()):
        rows.append((f"kept {kind.upper()} (%)", rate, f"kept_rate_by_type.{kind}"))
    agreement = report.get("model_vs_oracle")
    if agreement:
        rows += [("oracle keeps", agreement["oracle_keep"], None),
                 ("model keeps", agreement["model_keep"], None)]
        for label, name in (("step (a) precision", "pick_precision"),
                            ("step (a) recall", "pick_recall"),
                            ("kept-instance precision", "keep_precision"),
                            ("kept-instance recall", "keep_recall")):
            rows.append((f"model {label} (%)", agreement[name], f"model_vs_oracle.{name}"))
    table = pd.DataFrame({"value": pd.Series({r[0]: r[1] for r in rows}, dtype=object)})
    table.index.name = "filter"
    if intervals is not None:
        bounds = intervals.set_index("metric")
        for column in ("ci_low", "ci_high"):
            table[column] = [float(bounds.loc[key, column]) if key in bounds.index
                             else float("nan") for _, _, key in rows]
    return table


DETECTOR_COLUMNS = {"text_detection": "Text detection acc",
                    "image_detection": "Img detection acc", "I2T": "I2T", "T2I": "T2I",
                    "Group": "Group", "SugarCrepe": "SugarCrepe"}


def detector_table(
    records: Sequence[Mapping[str, Any]], labels: Mapping[str, str]
) -> pd.DataFrame:
    """BiVLC Table 4: detection accuracies and BiVLC scores of detector-based systems."""
    rows = {"Random": RANDOM_ROW}
    for record in records:
        label = labels.get(record["encoder"], record["encoder"])
        rows[f"{label}/Det"] = {column: record[key] for key, column in DETECTOR_COLUMNS.items()}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    return table


def detector_cells(intervals: pd.DataFrame, labels: Mapping[str, str]
                   ) -> dict[tuple[str, str, str], tuple[float, float, float, None]]:
    """BiVLC Table 4's cells with their CIs (`vlcomp.metrics.detection.detector_uncertainty`):
    ``("bivlc/table4", "<label>/Det", column) -> (value, low, high, None)``."""
    return {("bivlc/table4", f"{labels.get(r.model, r.model)}/Det", DETECTOR_COLUMNS[r.metric]):
            (float(r.value), float(r.ci_low), float(r.ci_high), None)
            for r in intervals.itertuples() if r.metric in DETECTOR_COLUMNS}


def removal_cells(sugarcrepe: pd.DataFrame, bivlc: pd.DataFrame, *, n_resamples: int,
                  seed: int, confidence: float = 0.95, method: str = "percentile",
                  ) -> dict[tuple[str, str, str], tuple[float, float, float, None]]:
    """BiVLC Table 1's removal rates (% of SugarCrepe items the filters removed, per
    category and in total) with bootstrap CIs over the SugarCrepe items:
    ``("bivlc/table1", REMOVED_ROW, column) -> (value, low, high, None)``. Empty when the
    BiVLC items are not a subset of the SugarCrepe ones (released data: no item matches)."""
    from vlcomp.benchmarks.bivlc import CATEGORIES, REMOVED_ROW, category_columns
    from vlcomp.metrics.uncertainty import ratio_intervals

    if len(bivlc) == 0 or not set(bivlc.item_id) <= set(sugarcrepe.item_id):
        return {}
    removed = (~sugarcrepe.item_id.isin(set(bivlc.item_id))).to_numpy(np.float64)
    ratios = {}
    for column, (kind, sub) in zip(category_columns(), CATEGORIES, strict=True):
        member = ((sugarcrepe.type == kind) & (sugarcrepe.subtype == sub)).to_numpy(np.float64)
        ratios[column] = (removed * member, member)
    ratios["Total"] = (removed, np.ones(len(sugarcrepe)))
    rates = ratio_intervals(ratios, len(sugarcrepe), benchmark="bivlc_table1",
                            n_resamples=n_resamples, seed=seed, confidence=confidence,
                            method=method)
    return {("bivlc/table1", REMOVED_ROW, r.metric): (float(r.value), float(r.ci_low),
                                                       float(r.ci_high), None)
            for r in rates.itertuples() if np.isfinite(r.value)}


def examples_figure(
    instances: pd.DataFrame, candidates: pd.DataFrame, natural_paths: Mapping[str, str],
    path: Path | str, n: int = 6, title: str | None = None,
) -> Path:
    """One row per example: the positive image (its caption above), then the N candidates
    of the negative caption (above the first): green frame and label for the kept one, a red
    "false" under candidates the oracle rejects (when known)."""
    import matplotlib  # here: the table jobs that import this module draw nothing

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vlcomp.io import open_rgb
    from vlcomp.report.figures import _save_png

    shown = instances.head(n)
    k = int(candidates.candidate.max()) + 1 if len(candidates) else 0
    fig, axes = plt.subplots(len(shown), k + 1, figsize=(1.9 * (k + 1), 2.3 * len(shown)),
                             squeeze=False)
    by_item = {i: g.sort_values("candidate") for i, g in candidates.groupby("item_id")}
    for r, inst in enumerate(shown.itertuples()):
        ax = axes[r][0]
        ax.imshow(open_rgb(natural_paths[inst.image_id]))
        ax.set_title(_short(inst.caption), fontsize=6)
        ax.set_ylabel(f"{inst.type} {inst.subtype}", fontsize=7)
        for c, cand in enumerate(by_item[inst.item_id].itertuples(), start=1):
            ax = axes[r][c]
            ax.imshow(open_rgb(cand.path))
            kept = cand.image_id == inst.negative_image_id
            rejected = hasattr(cand, "oracle_valid") and not bool(cand.oracle_valid)
            label = "kept" if kept else ("false" if rejected else "")
            colour = "green" if kept else ("red" if rejected else "black")
            if c == 1:
                ax.set_title(_short(inst.negative), fontsize=6)
            ax.set_xlabel(label, fontsize=7, color=colour)
            for spine in ax.spines.values():
                spine.set_edgecolor(colour if kept else "lightgray")
                spine.set_linewidth(3 if kept else 1)
        for ax in axes[r]:
            ax.set_xticks([])
            ax.set_yticks([])
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    out = _save_png(fig, path, title)
    plt.close(fig)
    return out


def _short(text: str, width: int = 34) -> str:
    """Wrap a caption onto at most three lines."""
    words, lines, line = text.split(), [], ""
    for word in words:
        if len(line) + len(word) + 1 > width and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "\n".join(lines[:3])
