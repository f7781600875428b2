"""Retrieval under perturbation (ARO Tables 3–4, Hendriksen et al.): one record per condition.

A condition is a gallery (images with several captions each) evaluated with its texts
perturbed (every caption, as in ARO's text-shuffled retrieval; Hendriksen perturbs the t2i
queries, which is the same t2i computation), or its images perturbed (ARO's image shuffles),
for one perturbation seed. Each record holds, in percent:

* ``i2t_r{k}`` / ``t2i_r{k}``: hit rates (CLIP_benchmark and ARO: a hit when any relevant
  item is in the top k);
* ``i2t_true_r{k}``: Hendriksen's image→text recall (#relevant in top k / 5);
* ``t2i_dcg10``: Hendriksen's DCG@10 of text→image rankings, gains 1 for the target and the
  relevance model's cosine otherwise (not in percent, as in the paper);
* ``t2i_decreased`` / ``t2i_increased`` / ``t2i_unchanged``: the share of queries whose
  rsum = R@1+R@5+R@10 dropped, rose or stayed under the perturbation (clean conditions: 0).
Ties rank the wrong item first (`vlcomp.metrics.ranking`).

Text→image may rank more images than the gallery's (``t2i_extra``: Hendriksen et al. ranked
the whole image folder, `config.benchmarks.robustness.galleries.<g>.t2i_gallery: folder`):
the extra images are never relevant to a query and are not items of the bootstrap; the
relevance model's gains cover them too. Image→text always ranks the gallery's captions.

A model re-ranked by ITM (ARO's BLIP and X-VLM, `vlcomp.metrics.rerank`) hands
`evaluate_gallery` each condition's re-ranked `Ranking`s in place of its embeddings' ones;
the relevance model's gains and everything computed from a ranking stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.ranking import (
    KS,
    SPLITS,
    Ranking,
    hendriksen_recalls,
    hit_rate_at_k,
    rank_features,
    relevance_dcg,
    split_labels,
)

CLEAN = "none"
UNSCALED = frozenset({"t2i_dcg10"})  # metrics that are not percentages


@dataclass
class Side:
    """One model's (or the relevance model's) embeddings of a condition's images and texts,
    and of the extra images text→image ranks after the gallery's (none by default)."""

    images: np.ndarray
    texts: np.ndarray
    t2i_extra: np.ndarray | None = None

    @property
    def t2i_images(self) -> np.ndarray:
        """The images text→image ranks: the gallery's, then the extra ones."""
        if self.t2i_extra is None or not len(self.t2i_extra):
            return self.images
        return np.concatenate([self.images, self.t2i_extra])


def _round(x: float) -> float:
    return round(float(x), 4)


def rank_both(side: Side, text_image: np.ndarray) -> tuple[Ranking, Ranking]:
    """i2t and t2i rankings; ``text_image[t]`` is the gallery row text ``t`` describes.
    Text→image ranks `Side.t2i_images` (extra images follow the gallery's rows)."""
    n_img = len(side.images)
    i2t = rank_features(side.images, side.texts, np.arange(n_img), text_image)
    t2i_images = side.t2i_images
    t2i = rank_features(side.texts, t2i_images, text_image, np.arange(len(t2i_images)))
    return i2t, t2i


def condition_items(
    model: Side, relevance: Side, text_image: np.ndarray,
    clean_t2i_rsum: np.ndarray | None = None, ks: Sequence[int] = KS,
    rankings: tuple[Ranking, Ranking] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    """Per-item outcomes of one condition: per gallery image (``i2t_r{k}`` hits,
    ``i2t_true_r{k}`` recalls) and per query (``t2i_r{k}`` hits, ``t2i_dcg10``, and 0/1
    flags ``t2i_decreased`` / ``t2i_increased`` / ``t2i_unchanged``), as fractions (DCG as
    it is); and the per-query t2i rsum (for the splits of later conditions). ``rankings``
    (i2t, t2i) replace the model's embedding rankings (a re-ranked model)."""
    i2t, t2i = rank_both(model, text_image) if rankings is None else rankings
    per_image: dict[str, np.ndarray] = {}
    per_query: dict[str, np.ndarray] = {}
    for k in ks:
        per_image[f"i2t_r{k}"] = hit_rate_at_k(i2t, k)
    for k in ks:
        per_query[f"t2i_r{k}"] = hit_rate_at_k(t2i, k)
    true_i2t = hendriksen_recalls(i2t, "i2t", ks)
    for k in ks:
        per_image[f"i2t_true_r{k}"] = true_i2t[f"r{k}"]
    per_query["t2i_dcg10"] = relevance_dcg(t2i, relevance.texts, relevance.t2i_images)
    rsum = hendriksen_recalls(t2i, "t2i", ks)["rsum"]
    labels = split_labels(rsum if clean_t2i_rsum is None else clean_t2i_rsum, rsum)
    for name in SPLITS:
        per_query[f"t2i_{name}"] = (labels == name).astype(np.float64)
    return per_image, per_query, rsum


def condition_record(
    model: Side, relevance: Side, text_image: np.ndarray,
    clean_t2i_rsum: np.ndarray | None = None, ks: Sequence[int] = KS,
) -> tuple[dict[str, float], np.ndarray]:
    """Metrics of one condition (`condition_items` averaged: percent, DCG as it is) and
    its per-query t2i rsum (for the splits of later ones)."""
    per_image, per_query, rsum = condition_items(model, relevance, text_image,
                                                 clean_t2i_rsum, ks)
    return record_of(per_image, per_query), rsum


def record_of(per_image: Mapping[str, np.ndarray],
              per_query: Mapping[str, np.ndarray]) -> dict[str, float]:
    """A condition's record from its per-item outcomes: means in percent, rounded."""
    rec = {}
    for name, values in {**per_image, **per_query}.items():
        scale = 1.0 if name in UNSCALED else 100.0
        rec[name] = _round(values.mean() * scale) if len(values) else float("nan")
    return rec


class Embeddings:
    """One model's embeddings: image sets (matrix, id → row) and texts (matrix, text → row)."""

    def __init__(self, images: Mapping[str, tuple[np.ndarray, Mapping[str, int]]],
                 texts: tuple[np.ndarray, Mapping[str, int]]) -> None:
        self.images = images
        self.texts = texts

    def side(self, imageset: str, image_ids: Sequence[str], texts: Sequence[str],
             t2i_extra: np.ndarray | None = None) -> Side:
        """The gallery's images from ``imageset`` and the given texts, in order (and the
        extra text→image rows, from `extra_images`)."""
        t_emb, t_rows = self.texts
        absent = [t for t in texts if t not in t_rows]
        if absent:
            raise ValueError(f"no text embedding for {len(absent)} texts, e.g. {absent[:2]}")
        return Side(self._rows(imageset, image_ids), t_emb[[t_rows[t] for t in texts]],
                    t2i_extra)

    def extra_images(self, extra: Sequence[tuple[str, str]]) -> np.ndarray | None:
        """Embeddings of ``(image set, image id)`` pairs, in order (None for none)."""
        if not len(extra):
            return None
        runs = groupby(extra, key=lambda pair: pair[0])  # consecutive rows of one set
        return np.concatenate([self._rows(s, [i for _, i in run]) for s, run in runs])

    def _rows(self, imageset: str, image_ids: Sequence[str]) -> np.ndarray:
        emb, rows = self.images[imageset]
        missing = [i for i in image_ids if i not in rows]
        if missing:
            raise ValueError(f"image set {imageset!r}: no embedding for {missing[:3]}")
        return emb[[rows[i] for i in image_ids]]


@dataclass(frozen=True)
class Condition:
    """One condition of a gallery: the image set its gallery images come from, its query
    texts (in the queries' order) and which of them the perturbation changed (0/1)."""

    kind: str
    perturbation: str
    seed: int
    imageset: str
    texts: list[str]
    changed: np.ndarray


def gallery_conditions(
    queries: pd.DataFrame, perturbed: pd.DataFrame | None = None,
    image_conditions: Sequence[tuple[str, int, str]] = (), clean_imageset: str = "world_test",
    text_perturbations: Collection[str] | None = None,
) -> Iterator[Condition]:
    """A gallery's conditions in record order: clean, then each (text perturbation, seed) of
    ``perturbed`` (rows ``caption_id`` = query id, ``perturbation``, ``seed``,
    ``perturbed``, ``changed``; only ``text_perturbations`` when given: the gallery's own,
    `vlcomp.config.gallery_text_perturbations`), then each image condition ``(perturbation,
    seed, image set)``. ValueError naming a text condition that misses a query's text."""
    query_ids = [str(q) for q in queries.query_id]
    originals = [str(t) for t in queries.text]
    yield Condition("clean", CLEAN, -1, clean_imageset, originals, np.zeros(len(query_ids)))
    if perturbed is not None:
        mine = perturbed[perturbed.caption_id.isin(set(query_ids))]
        if text_perturbations is not None:
            mine = mine[mine.perturbation.isin(set(text_perturbations))]
        for (name, seed), rows in mine.groupby(["perturbation", "seed"], sort=False):
            text_of = dict(zip(rows.caption_id, rows.perturbed, strict=True))
            changed = dict(zip(rows.caption_id, rows.changed, strict=True))
            missing = [q for q in query_ids if q not in text_of]
            if missing:
                raise ValueError(f"{name} seed {seed}: no perturbed text for {missing[:3]}")
            yield Condition("text", str(name), int(seed), clean_imageset,
                            [text_of[q] for q in query_ids],
                            np.array([float(changed[q]) for q in query_ids]))
    for name, seed, imageset in image_conditions:
        yield Condition("image", name, int(seed), imageset, originals,
                        np.ones(len(query_ids)))


def gallery_links(gallery: str, image_ids: Sequence[str], queries: pd.DataFrame,
                  t2i_extra: Sequence[tuple[str, str]] = ()) -> np.ndarray:
    """Each query's gallery row; ValueError when an extra text→image image is a gallery
    image already."""
    position = {i: k for k, i in enumerate(image_ids)}
    overlap = position.keys() & {i for _, i in t2i_extra}
    if overlap:
        raise ValueError(f"gallery {gallery}: extra t2i images {sorted(overlap)[:3]} are "
                         "gallery images already")
    return np.array([position[i] for i in queries.image_id], dtype=np.int64)


# a re-ranked model's rankings of a gallery's n-th condition (`gallery_conditions` order)
Reranked = Callable[[int, Condition], tuple[Ranking, Ranking]]


def evaluate_gallery(
    gallery: str, image_ids: Sequence[str], queries: pd.DataFrame, model: Embeddings,
    relevance: Embeddings, perturbed: pd.DataFrame | None = None,
    image_conditions: Sequence[tuple[str, int, str]] = (), clean_imageset: str = "world_test",
    items: list[pd.DataFrame] | None = None, t2i_extra: Sequence[tuple[str, str]] = (),
    reranked: Reranked | None = None, text_perturbations: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """Records of one gallery, one per `gallery_conditions` condition. Text→image also ranks
    the ``t2i_extra`` images ``(image set, image id)``, in every condition (image conditions
    shuffle the gallery's images only). Each record holds ``images`` (the gallery's) and
    ``t2i_images`` (how many each text→image query ranks). With ``items``, each condition's
    per-item outcomes are appended to it (`item_frame`). ``reranked`` gives the model's
    rankings of each condition (a model re-ranked by ITM); the relevance model's gains
    still come from its embeddings."""
    text_image = gallery_links(gallery, image_ids, queries, t2i_extra)
    extra = {m: m.extra_images(t2i_extra) for m in (model, relevance)}
    sizes = {"images": len(image_ids), "t2i_images": len(image_ids) + len(t2i_extra)}
    records: list[dict[str, Any]] = []
    clean = None
    for n, c in enumerate(gallery_conditions(queries, perturbed, image_conditions,
                                             clean_imageset, text_perturbations)):
        sides = [m.side(c.imageset, image_ids, c.texts, extra[m]) for m in (model, relevance)]
        per_image, per_query, rsum = condition_items(
            *sides, text_image, clean, rankings=None if reranked is None else reranked(n, c))
        clean = rsum if clean is None else clean
        records.append({"gallery": gallery, "kind": c.kind, "perturbation": c.perturbation,
                        "seed": c.seed, "changed_pct": round(100 * float(np.mean(c.changed)), 2),
                        **sizes, **record_of(per_image, per_query)})
        if items is not None:
            condition = {"gallery": gallery, "kind": c.kind, "perturbation": c.perturbation,
                         "seed": c.seed}
            items.append(item_frame(condition, per_image,
                                    {**per_query, "changed": c.changed}, text_image))
    return records


ITEM_KEYS = ["gallery", "kind", "perturbation", "seed", "unit", "image"]


def item_frame(condition: Mapping[str, Any], per_image: Mapping[str, np.ndarray],
               per_query: Mapping[str, np.ndarray], text_image: np.ndarray) -> pd.DataFrame:
    """One condition's per-item outcomes in long form: a row per gallery image (``unit``
    image) and per query (``unit`` query), ``image`` the gallery position the row belongs to
    (a query's: its image's), one column per outcome (NaN on the other unit's rows)."""
    n_images = len(next(iter(per_image.values())))
    # float32: 0/1 hits, k/5 recalls and 4-decimal DCGs lose nothing a 4-decimal mean shows
    images = pd.DataFrame({"unit": "image", "image": np.arange(n_images),
                           **{k: np.asarray(v, np.float32) for k, v in per_image.items()}})
    queries = pd.DataFrame({"unit": "query", "image": np.asarray(text_image),
                            **{k: np.asarray(v, np.float32) for k, v in per_query.items()}})
    frame = pd.concat([images, queries], ignore_index=True)
    for key in ("gallery", "kind", "perturbation", "seed"):
        frame.insert(ITEM_KEYS.index(key), key, condition[key])
    return frame


def item_table(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Conditions' `item_frame` rows in one table, the key columns categorical (a paper-scale
    gallery has millions of rows: as strings they would take most of the memory)."""
    table = pd.concat(frames, ignore_index=True)
    for key in ("gallery", "kind", "perturbation", "unit"):
        table[key] = table[key].astype("category")
    return table
