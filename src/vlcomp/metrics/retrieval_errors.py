"""BISON's Table 1 on the world: are text-to-image R@1 "errors" errors?

BISON had people judge each image SCAN t2i ranked first for a COCO caption whose own image it
missed: 56.1 % of these "errors" were images the caption describes, marked wrong only because
retrieval assumes every other image negative. In the world the oracle reads the scene graph:
for each query a model misses at R@1, is its caption true of the scene the model ranked
first? The outcome (`judged_errors_outcome`) is the share of a model's R@1 errors that are
right, over the gallery's images as items (each image with its missed queries), so the
retrieval bootstrap resamples it with every other R@K.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from vlcomp.metrics.uncertainty import Outcome

JUDGED = "t2i_r1 errors judged right"


def top_wrong_images(image_features: np.ndarray, text_features: np.ndarray,
                     text_image: Sequence[int]) -> np.ndarray:
    """For each query, the best-scoring image other than its own (the first of equal
    scores): the image a missed query ranked above its own."""
    scores = np.asarray(text_features, dtype=np.float32) @ np.asarray(image_features).T
    links = np.asarray(text_image, dtype=np.int64)
    scores[np.arange(len(links)), links] = -np.inf
    return scores.argmax(axis=1)


def judged_errors_outcome(missed: np.ndarray, wrong_images: np.ndarray,
                          text_image: Sequence[int], right: Callable[[int, int], bool]
                          ) -> tuple[Outcome, dict[str, int]]:
    """The share of R@1 errors whose first image the caption describes: ``missed[t]``
    (query t's own image not first), ``wrong_images[t]`` (the image first instead) and
    ``right(t, image)`` (the judge). Items are the gallery's images, each standing for its
    missed queries."""
    links = np.asarray(text_image, dtype=np.int64)
    missed = np.asarray(missed, dtype=bool)
    n_images = int(links.max()) + 1 if len(links) else 0
    judged = np.array([bool(right(t, int(wrong_images[t]))) if missed[t] else False
                       for t in range(len(links))])
    errors = np.bincount(links, weights=missed.astype(float), minlength=n_images)
    correct = np.bincount(links, weights=judged.astype(float), minlength=n_images)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(errors > 0, correct / np.maximum(errors, 1), 0.0)
    outcome = Outcome(JUDGED, share, errors > 0, sizes=errors)
    return outcome, {"errors": int(missed.sum()), "judged_right": int(judged.sum())}
