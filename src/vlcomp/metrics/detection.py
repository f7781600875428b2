"""BiVLC retrieval by natural-vs-synthetic detection (BiVLC Table 4, reference §B).

With p = P(synthetic) from the image and text detectors, per instance (C0/I0 natural, C1/I1
synthetic):

* from I0: the image is judged natural and ``p_txt(C0) < p_txt(C1)``;
* from I1: the image is judged synthetic and ``p_txt(C0) < p_txt(C1)``;
* from C0: the caption is judged natural and ``p_img(I0) < p_img(I1)``;
* from C1: the caption is judged synthetic and ``p_img(I0) < p_img(I1)``;

I2T = I0 and I1, T2I = C0 and C1, Group = I2T and T2I. "Judged synthetic" is ``p > 0.5``
(the reference's ``round``). SugarCrepe: correct iff ``p_txt(positive) < p_txt(negative)``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from vlcomp.metrics.uncertainty import Outcome, bootstrap_outcomes


def detection_outcomes(
    img0: np.ndarray, img1: np.ndarray, txt0: np.ndarray, txt1: np.ndarray
) -> list[Outcome]:
    """Per BiVLC instance: detection correctness (the mean of its natural and synthetic
    member's, so the item mean is the accuracy over all images or texts) and the I2T / T2I /
    Group outcomes of retrieval by detection."""
    img0, img1, txt0, txt1 = (np.asarray(a, dtype=np.float64) for a in (img0, img1, txt0, txt1))
    text_order = txt0 < txt1
    image_order = img0 < img1
    from_i0 = (img0 <= 0.5) & text_order
    from_i1 = (img1 > 0.5) & text_order
    from_c0 = (txt0 <= 0.5) & image_order
    from_c1 = (txt1 > 0.5) & image_order
    i2t, t2i = from_i0 & from_i1, from_c0 & from_c1
    everyone = np.ones(len(img0), dtype=bool)
    values = {
        "text_detection": ((txt0 <= 0.5).astype(float) + (txt1 > 0.5)) / 2,
        "image_detection": ((img0 <= 0.5).astype(float) + (img1 > 0.5)) / 2,
        "I2T": i2t, "T2I": t2i, "Group": i2t & t2i,
    }
    return [Outcome(name, v, everyone) for name, v in values.items()]


def detection_scores(
    img0: np.ndarray, img1: np.ndarray, txt0: np.ndarray, txt1: np.ndarray
) -> dict[str, float]:
    """Detection accuracies and the BiVLC scores (%) from per-instance probabilities."""
    out: dict[str, float] = {o.metric: float(o.value()[0])
                             for o in detection_outcomes(img0, img1, txt0, txt1)}
    return {**out, "n_items": len(img0)}


def sugarcrepe_detection_outcome(txt_pos: np.ndarray, txt_neg: np.ndarray) -> Outcome:
    """SugarCrepe by a text detector, per item: the positive looks more natural."""
    correct = np.asarray(txt_pos) < np.asarray(txt_neg)
    return Outcome("SugarCrepe", correct, np.ones(len(correct), dtype=bool))


def sugarcrepe_by_detection(txt_pos: np.ndarray, txt_neg: np.ndarray) -> float:
    """SugarCrepe accuracy (%) of a text detector: the positive looks more natural."""
    return float(sugarcrepe_detection_outcome(txt_pos, txt_neg).value()[0])


def detector_uncertainty(probabilities: Mapping[str, pd.DataFrame], *, n_resamples: int = 1000,
                         seed: int = 0, confidence: float = 0.95, method: str = "percentile",
                         ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Bootstrap CIs of every encoder's detector-based numbers (BiVLC Table 4) and paired
    tests between encoders, from each test item's probabilities (``benchmark``, ``item_id``,
    ``p_image0/1``, ``p_text0/1``). Each benchmark is resampled as in its own uncertainty
    job (`bootstrap_rng` of its name over the same items), so the intervals pair with the
    models'. Returns (intervals, comparisons), both with a ``benchmark`` column."""
    builders = {
        "bivlc": lambda f: detection_outcomes(f.p_image0, f.p_image1, f.p_text0, f.p_text1),
        "sugarcrepe": lambda f: [sugarcrepe_detection_outcome(f.p_text0, f.p_text1)],
    }
    tables, comparisons = [], []
    for benchmark, build in builders.items():
        parts = {e: f[f.benchmark == benchmark] for e, f in probabilities.items()}
        ids = {tuple(p.item_id) for p in parts.values()}
        if len(ids) != 1:
            raise ValueError(f"{benchmark}: the encoders' detectors scored different items")
        outcomes = {e: build(p) for e, p in parts.items()}
        boot = bootstrap_outcomes(outcomes, len(ids.pop()), benchmark=benchmark,
                                  n_resamples=n_resamples, seed=seed, confidence=confidence,
                                  method=method)
        tables.append(boot.table().assign(benchmark=benchmark))
        if len(outcomes) > 1:
            comparisons.append(boot.comparisons().assign(benchmark=benchmark))
    return (pd.concat(tables, ignore_index=True),
            pd.concat(comparisons, ignore_index=True) if comparisons else pd.DataFrame())
