"""Bootstrap CIs of VisualGPTScore Table 13: Winoground's text, image and group scores per
Diwan et al. tag (`vlcomp.metrics.eqben.winoground_tag_metrics`) and, for a captioner, each
tag's own oracle α* with the scores at it, α* picked again on every resample.

The resamples are Winoground's own (`bootstrap_rng` of the benchmark: those of its headline
intervals, the same for every model); a tag's numbers are read from the resampled items that
carry it, as a benchmark's per-subset intervals are.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from vlcomp.metrics.alpha_curves import item_correct_over_alphas, pair_image_scores
from vlcomp.metrics.alpha_uncertainty import GroupedCurves, ProcedureBootstrap, add_oracle_pair
from vlcomp.metrics.debias import alpha_grid
from vlcomp.metrics.eqben import pair_columns, tag_masks
from vlcomp.metrics.uncertainty import bootstrap_rng

PAIR_KEYS = ("I2T", "T2I", "Group")  # text, image and group score
TAG_COLUMNS = ["subset", "measure", "value", "ci_low", "ci_high", "n"]
_SEP = "|"  # between a tag and its measure while the bootstrap names them


def tag_intervals(items: pd.DataFrame, prior: Mapping[str, float] | None = None, *,
                  benchmark: str = "winoground", step: float = 0.001, n_resamples: int = 1000,
                  bootstrap_seed: int = 0, confidence: float = 0.95,
                  method: str = "percentile") -> pd.DataFrame:
    """Rows ``subset`` (No Tag, then each tag with items), ``measure`` (``I2T``, ``T2I``,
    ``Group`` at α = 0; with ``prior``, log P(t) per text of a captioner, also
    ``oracle.pair.{I2T,T2I,Group}`` and ``oracle.alpha`` of the tag's own α*), value, CI and
    ``n`` (the tag's items). ``items``: pair items with ``scores``, ``no_tag`` and
    ``diwan_tags`` (`vlcomp.data.winoground_tags.add_diwan_tags`)."""
    masks = {tag: mask for tag, mask in tag_masks(items).items() if mask.any()}
    columns, _ = pair_columns(items)
    boot = ProcedureBootstrap(len(items), bootstrap_rng(benchmark, bootstrap_seed),
                              n_resamples=n_resamples, confidence=confidence, method=method)
    scores = GroupedCurves(np.stack([columns[k] for k in PAIR_KEYS], axis=1))
    for tag, mask in masks.items():
        chosen = mask.astype(np.float64)
        boot.add(lambda draw, tag=tag, chosen=chosen: {
                     f"{tag}{_SEP}{key}": column for key, column in zip(
                         PAIR_KEYS, draw(chosen).T, strict=True)},
                 lambda w, mask: scores.curves(w * mask), scores.leave_one_out)
    if prior is not None:
        alphas = alpha_grid(step)
        correct = item_correct_over_alphas(items, prior, alphas)
        image = pair_image_scores(items)
        for tag, mask in masks.items():
            add_oracle_pair(boot, correct, image, mask=mask, prefix=f"{tag}{_SEP}",
                            alphas=alphas)
    table = boot.table()
    named = table.measure.str.split(_SEP, n=1, expand=True)
    sizes = {tag: int(mask.sum()) for tag, mask in masks.items()}
    return table.assign(subset=named[0], measure=named[1],
                        n=named[0].map(sizes))[TAG_COLUMNS]
