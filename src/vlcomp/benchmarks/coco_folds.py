"""Put our COCO/Flickr test gallery in the reference order of the COCO-1K 5-fold protocol.

`vlcomp.metrics.fold_retrieval` cuts the gallery into consecutive folds in *gallery order*.
The published protocol (VSE++ ``data.py``, SCAN) walks Karpathy's ``dataset_coco.json`` in
file order, keeps the images whose ``split`` is ``test`` and, for each, the sentences listed in
``sentids[:5]``. Our gallery follows BLIP's ``coco_karpathy_test.json`` instead, so folds can
hold other images than the reference's. `karpathy_fold_order` reads the reference order;
`align_gallery` maps our images and texts onto it, and `FoldAlignment` reorders scores and
links for `vlcomp.metrics.fold_retrieval.fold_retrieval_metrics`::

    al = align_gallery(karpathy_fold_order(path), gallery_ids, texts, text_image)
    fold_retrieval_metrics(al.reorder(scores), al.links())
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from vlcomp.metrics.fold_retrieval import fold_texts

PER_IMAGE = 5


@dataclass(frozen=True)
class FoldOrder:
    """The reference order: test image ids (file stems, file order) and, per image, the raw
    text of its first ``per_image`` listed sentences (``sentids`` order)."""

    image_ids: tuple[str, ...]
    captions: tuple[tuple[str, ...], ...]
    source: str = ""


@dataclass(frozen=True)
class FoldAlignment:
    """Our gallery mapped onto a `FoldOrder`.

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


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download Karpathy's dataset_*.json "
                                "(config/README.md lists the URLs)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from err


def _listed_sentences(image: dict[str, Any], where: str, per_image: int) -> tuple[str, ...]:
    """Raw text of the image's first ``per_image`` sentences in ``sentids`` order."""
    sentences = image.get("sentences")
    if not isinstance(sentences, list):
        raise ValueError(f"{where}: missing 'sentences'")
    by_id = {s.get("sentid"): s for s in sentences if isinstance(s, dict)}
    sentids = image.get("sentids", [s.get("sentid") for s in sentences])
    if len(sentids) < per_image:
        raise ValueError(f"{where}: {len(sentids)} sentences, fewer than {per_image}")
    absent = [sid for sid in sentids[:per_image] if sid not in by_id]
    if absent:
        raise ValueError(f"{where}: listed sentid(s) {absent} not among its sentences")
    missing_raw = [sid for sid in sentids[:per_image] if "raw" not in by_id[sid]]
    if missing_raw:
        raise ValueError(f"{where}: sentence(s) {missing_raw} have no 'raw' text")
    return tuple(str(by_id[sid]["raw"]) for sid in sentids[:per_image])


def karpathy_fold_order(path: str | Path, split: str = "test",
                        per_image: int = PER_IMAGE) -> FoldOrder:
    """The fold order of ``split`` in Karpathy's ``dataset_coco.json`` (or
    ``dataset_flickr30k.json``): its images in file order, each with its first ``per_image``
    sentences as VSE++ ``data.py`` selects them (``sentids[:per_image]``)."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{path}: expected an object with an 'images' list")
    ids: list[str] = []
    captions: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for index, image in enumerate(data["images"]):
        if not isinstance(image, dict) or "filename" not in image or "split" not in image:
            raise ValueError(f"{path} image {index}: needs 'filename' and 'split'")
        if image["split"] != split:
            continue
        image_id = Path(image["filename"]).stem
        where = f"{path} image {index} ({image_id})"
        if image_id in seen:
            raise ValueError(f"{where}: image {image_id!r} appears twice in split {split!r}")
        seen.add(image_id)
        ids.append(image_id)
        captions.append(_listed_sentences(image, where, per_image))
    if not ids:
        raise ValueError(f"{path}: no images with split {split!r}")
    return FoldOrder(tuple(ids), tuple(captions), str(path))


def _check_sets(order: FoldOrder, gallery_ids: Sequence[str]) -> dict[str, int]:
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


def align_gallery(order: FoldOrder, gallery_ids: Sequence[str], texts: Sequence[str],
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


FOLD_ORDERS = ("gallery", "karpathy_json")
"""``fold_order`` of a retrieval benchmark: the gallery's own order (BLIP's Karpathy test
JSON), or that of Karpathy's ``dataset_{collection}.json`` (VSE++'s ``coco_test_ids.npy``)."""


def gallery_alignment(order_file: str | Path, gallery_ids: Sequence[str],
                      query_ids: Sequence[str], captions: pd.DataFrame,
                      links: np.ndarray) -> FoldAlignment:
    """`align_gallery` of a retrieval benchmark against Karpathy's file, its queries matched
    by their raw captions (``captions``: caption_id, text; queries are caption ids), not the
    preprocessed query texts."""
    raw = dict(zip(captions.caption_id.astype(str), captions.text.astype(str), strict=True))
    missing = [q for q in query_ids if str(q) not in raw]
    if missing:
        raise ValueError(f"queries without a caption: {missing[:3]}")
    order = karpathy_fold_order(order_file)
    return align_gallery(order, [str(i) for i in gallery_ids],
                         [raw[str(q)] for q in query_ids], links)


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


def fold_alignment(inputs: Any, fold_file: str, gallery: pd.DataFrame, queries: pd.DataFrame,
                   links: np.ndarray) -> FoldAlignment | None:
    """A folded retrieval job's alignment: `gallery_alignment` when its inputs name the
    reference folder (``fold_order``, with ``captions``), else None (gallery order)."""
    folder = getattr(inputs, "fold_order", None)
    if not folder:
        return None
    from vlcomp.io import read_parquet

    return gallery_alignment(Path(folder) / fold_file, gallery.image_id.tolist(),
                             queries.query_id.tolist(), read_parquet(inputs.captions), links)


def fold_order_report(alignment: FoldAlignment | None) -> dict[str, Any]:
    """What the metrics record says of the folds' order."""
    if alignment is None:
        return {"source": "gallery"}
    return {"source": "karpathy_json", **alignment.report}
