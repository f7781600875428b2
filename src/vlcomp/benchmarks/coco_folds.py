"""Put our COCO/Flickr test gallery in the reference order of the COCO-1K 5-fold protocol.

`vlcomp.metrics.fold_retrieval` cuts the gallery into consecutive folds in *gallery order*.
The published protocol (VSE++ ``data.py``, SCAN) walks Karpathy's ``dataset_coco.json`` in
file order, keeps the images whose ``split`` is ``test`` and, for each, the sentences listed in
``sentids[:5]``. Our gallery follows BLIP's ``coco_karpathy_test.json`` instead, so folds can
hold other images than the reference's. `vlcomp.data.karpathy.karpathy_fold_order` reads
the reference order; `align_gallery` maps our images and texts onto it, and `FoldAlignment`
reorders scores and links for `vlcomp.metrics.fold_retrieval.fold_retrieval_metrics`::

    al = align_gallery(karpathy_fold_order(path), gallery_ids, texts, text_image)
    fold_retrieval_metrics(al.reorder(scores), al.links())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from vlcomp.metrics.fold_retrieval import fold_texts


class ReferenceOrder(Protocol):
    """A reference fold order (`vlcomp.data.karpathy.FoldOrder`): image ids in order, and
    per image its reference captions."""

    image_ids: Sequence[str]
    captions: Sequence[Sequence[str]]


@dataclass(frozen=True)
class FoldAlignment:
    """Our gallery mapped onto a `ReferenceOrder`.

    ``image_order[r]``: our gallery row at reference row ``r``; ``text_order``: positions of
    our texts, grouped by reference image, each group in the reference's sentence order;
    ``text_links[j]``: reference row of text ``text_order[j]``; ``report``: see
    `align_gallery`."""

    image_order: np.ndarray
    text_order: np.ndarray
    text_links: np.ndarray
    report: dict[str, Any] = field(default_factory=dict)

    def links(self) -> np.ndarray:
        """Text→image links (new image rows) of the reordered texts."""
        return self.text_links.copy()

    def reorder(self, scores: ArrayLike) -> np.ndarray:
        """Our ``images × texts`` scores with rows and columns in the reference order."""
        return np.asarray(scores)[np.ix_(self.image_order, self.text_order)]


def _normalise(text: str) -> str:
    """Whitespace-normalised text (strip, collapse runs of whitespace)."""
    return " ".join(text.split())


def _check_sets(order: ReferenceOrder, gallery_ids: Sequence[str]) -> dict[str, int]:
    """Row of every gallery image; errors when the gallery and reference sets differ."""
    rows: dict[str, int] = {}
    for row, image_id in enumerate(gallery_ids):
        if image_id in rows:
            raise ValueError(f"gallery image {image_id!r} appears twice (rows {rows[image_id]} "
                             f"and {row})")
        rows[image_id] = row
    ref = set(order.image_ids)
    for name, diff in (("in the reference but not in our gallery",
                        [i for i in order.image_ids if i not in rows]),
                       ("in our gallery but not in the reference",
                        [i for i in gallery_ids if i not in ref])):
        if diff:
            raise ValueError(f"{len(diff)} images {name} ({order.source or 'reference'}), "
                             f"e.g. {diff[:3]}")
    return rows


def _match_texts(ref: Sequence[str], mine: list[int], texts: Sequence[str]
                 ) -> tuple[list[int], int]:
    """Positions (from ``mine``) for the reference sentences ``ref``, by normalised text, the
    unmatched ones filled from the unused positions in order; also the unmatched count."""
    free = list(mine)
    chosen: list[int | None] = []
    for sentence in ref:
        key = _normalise(sentence)
        hit = next((p for p in free if _normalise(texts[p]) == key), None)
        if hit is not None:
            free.remove(hit)
        chosen.append(hit)
    misses = sum(c is None for c in chosen)
    rest = iter(free)
    return [c if c is not None else next(rest) for c in chosen], misses


def align_gallery(order: ReferenceOrder, gallery_ids: Sequence[str], texts: Sequence[str],
                  text_image: Sequence[int] | np.ndarray) -> FoldAlignment:
    """Map our gallery (``gallery_ids`` in our row order; ``texts`` with their gallery row
    ``text_image``) onto the reference ``order``.

    Report: ``same_image_order`` (our rows already in reference order), ``images_moved``
    (rows that change place), ``caption_mismatches`` (reference sentences not found, after
    whitespace normalisation, among their image's texts; those take the image's unused texts
    in our order), ``same_caption_order`` (no mismatches and every image's chosen texts are
    its first ones in our order, in that order: the selection `fold_texts` would make)."""
    links = np.asarray(text_image)
    if links.ndim != 1 or len(links) != len(texts):
        raise ValueError(f"{len(texts)} texts but text_image has shape {links.shape}")
    if len(links) and (links.min() < 0 or links.max() >= len(gallery_ids)):
        raise ValueError(f"text_image holds rows outside 0..{len(gallery_ids) - 1}")
    rows = _check_sets(order, gallery_ids)
    by_row: dict[int, list[int]] = {}
    for pos, row in enumerate(links.tolist()):
        by_row.setdefault(row, []).append(pos)
    text_order: list[int] = []
    new_links: list[int] = []
    mismatches, same_captions = 0, True
    for new_row, (image_id, ref) in enumerate(zip(order.image_ids, order.captions, strict=True)):
        mine = by_row.get(rows[image_id], [])
        if len(mine) < len(ref):
            raise ValueError(f"gallery image {image_id!r} has {len(mine)} texts, fewer than "
                             f"the reference's {len(ref)}")
        chosen, misses = _match_texts(ref, mine, texts)
        mismatches += misses
        same_captions &= chosen == mine[:len(ref)]
        text_order.extend(chosen)
        new_links.extend([new_row] * len(chosen))
    image_order = np.asarray([rows[i] for i in order.image_ids], dtype=np.int64)
    moved = int(np.count_nonzero(image_order != np.arange(len(image_order))))
    report = {"same_image_order": moved == 0, "images_moved": moved,
              "caption_mismatches": mismatches,
              "same_caption_order": bool(same_captions and mismatches == 0)}
    return FoldAlignment(image_order, np.asarray(text_order, dtype=np.int64),
                         np.asarray(new_links, dtype=np.int64), report)


def fold_inputs(images: np.ndarray, texts: np.ndarray, links: np.ndarray,
                alignment: FoldAlignment | None) -> tuple[np.ndarray, np.ndarray]:
    """The fold protocol's score matrix (images × texts, embedding cosine) and text→image
    links: in the reference's order when aligned, else in gallery order, each image's first
    five texts (`vlcomp.metrics.fold_retrieval.fold_texts`)."""
    if alignment is None:
        kept = fold_texts(links)
        return images @ texts[kept].T, links[kept]
    return (images[alignment.image_order] @ texts[alignment.text_order].T,
            alignment.links())


def fold_order_report(alignment: FoldAlignment | None) -> dict[str, Any]:
    """What the metrics record says of the folds' order."""
    if alignment is None:
        return {"source": "gallery"}
    return {"source": "karpathy_json", **alignment.report}
