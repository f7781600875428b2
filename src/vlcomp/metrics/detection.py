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

import numpy as np

from vlcomp.train.detectors import accuracy


def detection_scores(
    img0: np.ndarray, img1: np.ndarray, txt0: np.ndarray, txt1: np.ndarray
) -> dict[str, float]:
    """Detection accuracies and the BiVLC scores (%) from per-instance probabilities."""
    img0, img1, txt0, txt1 = (np.asarray(a, dtype=np.float64) for a in (img0, img1, txt0, txt1))
    text_order = txt0 < txt1
    image_order = img0 < img1
    from_i0 = (img0 <= 0.5) & text_order
    from_i1 = (img1 > 0.5) & text_order
    from_c0 = (txt0 <= 0.5) & image_order
    from_c1 = (txt1 > 0.5) & image_order
    i2t, t2i = from_i0 & from_i1, from_c0 & from_c1
    return {
        "text_detection": accuracy(txt0, txt1),
        "image_detection": accuracy(img0, img1),
        "I2T": float(100.0 * i2t.mean()),
        "T2I": float(100.0 * t2i.mean()),
        "Group": float(100.0 * (i2t & t2i).mean()),
        "n_items": len(img0),
    }


def sugarcrepe_by_detection(txt_pos: np.ndarray, txt_neg: np.ndarray) -> float:
    """SugarCrepe accuracy (%) of a text detector: the positive looks more natural."""
    return float(100.0 * (np.asarray(txt_pos) < np.asarray(txt_neg)).mean())
