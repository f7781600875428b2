"""Score matrices S[image, text] per benchmark item from a pair scorer (no embeddings).

Cross-encoders (BLIP ITM) and generative scorers (BLIP captioner, log P(text | image)) score
an (image, text) pair jointly, so every cell of every item's matrix is one forward pass. The
output is the frame `vlcomp.score.matrices.score_items` writes (``item_id`` and ``scores``, a
list of lists of floats, n_images × n_texts), so `compute_metrics` reads either unchanged.

The pair scorer protocol (`PairScorer`): a method

    score_pairs(images: Sequence[PIL.Image.Image], texts: Sequence[str], *,
                batch_size: int, **options) -> np.ndarray

returning one score per aligned pair (``images[k]`` with ``texts[k]``), shape ``(n,)``,
higher meaning a better match. ``BlipItmScorer.score_pairs`` follows it (option ``kind``);
a scorer without ``score_pairs`` but with ``log_likelihood`` of the same signature
(``BlipCaptionScorer``) is used through that (see `pair_method`). The same PIL image object
may appear several times in one call (every text paired with it); scorers must not modify it.

Work is bounded by the distinct pairs, not the cells: identical (picture, text) pairs in
several items are scored once, picture by picture (`vlcomp.score.pair_plan`, which plans one
benchmark's or one model's pairs across all benchmarks and scores them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from PIL import Image

from vlcomp.score.embeddings import image_boxes

log = logging.getLogger(__name__)

PAIR_METHODS = ("score_pairs", "log_likelihood")


@runtime_checkable
class PairScorer(Protocol):
    """Scores aligned (image, text) pairs; see the module docstring."""

    def score_pairs(self, images: Sequence[Image.Image], texts: Sequence[str],
                    batch_size: int = 64) -> np.ndarray:
        """One float score per aligned pair, shape ``(len(texts),)``."""
        ...


class ImageRef(NamedTuple):
    """Where an image set row's pixels come from: a file and an optional crop box."""

    path: str
    box: tuple[float, float, float, float] | None


def table_refs(table: pd.DataFrame) -> list[ImageRef]:
    """One `ImageRef` per row of an image set table (``path``, optional ``bbox``)."""
    return [ImageRef(str(path), None if box is None else tuple(float(v) for v in box))
            for path, box in zip(table.path.tolist(), image_boxes(table), strict=True)]


def image_index(tables: Iterable[pd.DataFrame]) -> dict[str, ImageRef]:
    """``image_id -> ImageRef`` over one or more image set tables (``image_id``, ``path``,
    optional ``bbox``). Only paths and boxes are kept; no image is opened.

    An id in several tables must refer to the same file and box (else ValueError).
    """
    index: dict[str, ImageRef] = {}
    for table in tables:
        for image_id, ref in zip(table.image_id.tolist(), table_refs(table), strict=True):
            old = index.setdefault(image_id, ref)
            if old != ref:
                raise ValueError(f"image {image_id!r} is listed twice with different sources: "
                                 f"{old} and {ref}")
    return index


def pair_method(scorer: Any) -> Callable[..., np.ndarray]:
    """The scorer's pair-scoring method: the first of `PAIR_METHODS` it has."""
    for name in PAIR_METHODS:
        method = getattr(scorer, name, None)
        if callable(method):
            return method
    raise TypeError(f"{type(scorer).__name__} scores no pairs: it has none of {PAIR_METHODS}")
