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

Work is bounded by the distinct pairs, not the cells: identical (image_id, text) pairs in
several items are scored once. Pairs are sorted by image, and cut into chunks; each image of
a chunk is opened (and cropped) once, so only one chunk's images are in memory at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from PIL import Image
from tqdm import tqdm

from vlcomp.score.embeddings import image_boxes, open_image

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


def image_index(tables: Iterable[pd.DataFrame]) -> dict[str, ImageRef]:
    """``image_id -> ImageRef`` over one or more image set tables (``image_id``, ``path``,
    optional ``bbox``). Only paths and boxes are kept; no image is opened.

    An id in several tables must refer to the same file and box (else ValueError).
    """
    index: dict[str, ImageRef] = {}
    for table in tables:
        for image_id, path, box in zip(table.image_id.tolist(), table.path.tolist(),
                                       image_boxes(table), strict=True):
            ref = ImageRef(str(path), None if box is None else tuple(float(v) for v in box))
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


def distinct_pairs(items: pd.DataFrame, images: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The distinct (image_id, text) cells of all items, sorted (image by image).

    Raises KeyError naming the first item whose image id is not in ``images``.
    """
    pairs = set()
    for item in items.itertuples():
        for image_id in item.image_ids:
            if image_id not in images:
                raise KeyError(f"item {item.item_id!r}: image {image_id!r} is in no image set")
            pairs.update((image_id, t) for t in item.texts)
    return sorted(pairs)


def image_chunks(pairs: Sequence[tuple[str, str]], chunk: int) -> list[tuple[int, int]]:
    """``(start, end)`` slices of image-sorted ``pairs``, each about ``chunk`` pairs long and
    ending at an image boundary, so no image is opened (or encoded) in two chunks."""
    bounds, start = [], 0
    while start < len(pairs):
        end = min(start + chunk, len(pairs))
        while end < len(pairs) and pairs[end][0] == pairs[end - 1][0]:
            end += 1
        bounds.append((start, end))
        start = end
    return bounds


def _score_chunk(method: Callable[..., np.ndarray], pairs: Sequence[tuple[str, str]],
                 images: Mapping[str, ImageRef], batch_size: int,
                 options: Mapping[str, Any]) -> np.ndarray:
    opened: dict[str, Image.Image] = {}
    for image_id, _ in pairs:
        if image_id not in opened:
            ref = images[image_id]
            opened[image_id] = open_image(ref.path, ref.box)
    texts = [t for _, t in pairs]
    scores = np.asarray(method([opened[i] for i, _ in pairs], texts, batch_size=batch_size,
                               **options), dtype=np.float64)
    if scores.shape != (len(pairs),):
        raise ValueError(f"pair scorer returned shape {scores.shape} for {len(pairs)} pairs")
    return scores


def score_items_pairwise(
    items: pd.DataFrame,
    images: Mapping[str, ImageRef],
    scorer: Any,
    *,
    batch_size: int = 64,
    chunk: int = 512,
    options: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per item: ``item_id`` and ``scores`` (list of lists, n_images × n_texts), as
    `vlcomp.score.matrices.score_items` returns, every cell scored by ``scorer``'s pair method
    (`pair_method`) called with ``batch_size=batch_size`` and ``**options``.

    ``images`` maps image_id to `ImageRef` (`image_index` of the benchmark's image sets).
    Each distinct (image_id, text) pair is scored once; about ``chunk`` pairs go to the
    scorer per call, whole images only (`image_chunks`), so each image is opened and goes
    through the vision tower once.
    """
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    method = pair_method(scorer)
    pairs = distinct_pairs(items, images)
    n_cells = sum(len(i) * len(t) for i, t in zip(items.image_ids, items.texts, strict=True))
    log.info("%d items: %d cells, %d distinct pairs, %d images", len(items), n_cells,
             len(pairs), len({i for i, _ in pairs}))
    values = np.empty(len(pairs), dtype=np.float64)
    with tqdm(total=len(pairs), desc="score pairs", unit="pair", mininterval=5) as bar:
        for start, end in image_chunks(pairs, chunk):
            values[start:end] = _score_chunk(method, pairs[start:end], images, batch_size,
                                             options or {})
            bar.update(end - start)
    cell = {p: k for k, p in enumerate(pairs)}
    out = []
    for item in items.itertuples():
        rows = np.array([[cell[i, t] for t in item.texts] for i in item.image_ids],
                        dtype=np.intp).reshape(len(item.image_ids), len(item.texts))
        out.append({"item_id": item.item_id, "scores": values[rows].tolist()})
    return pd.DataFrame(out)
