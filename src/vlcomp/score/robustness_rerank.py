"""The robustness suite re-ranked by ITM, as ARO's ``main_retrieval.py`` ranks every
perturbed gallery of BLIP and X-VLM (`vlcomp.metrics.rerank`), as files. No model here: the
candidates (rule robustness_rerank_candidates), the join of the scored shards (rule
robustness_rerank_gather) and the metrics job's reading run without torch; the shards are
`vlcomp.score.rerank_shards` (rule robustness_rerank_shard).

Each re-ranked gallery's conditions, in `vlcomp.metrics.robustness.gallery_conditions` order,
are keyed ``{gallery}.{n}``. Every file lists its conditions in ``keys``:

* candidates: ``{key}.i2t`` (gallery images × k_test text positions) and ``{key}.t2i``
  (queries × k_test image rows; the rows a text→image query ranks, extra folder images after
  the gallery's), with ``k_test`` and ``t2i_images`` per key;
* a shard: ``{key}.values``, the pair score of each of the condition's `candidate_pairs`;
  a shard scores a contiguous block of whole conditions (`condition_block`, balanced by
  candidate counts), each condition in one pass, so no file depends on the shard count;
* gathered: ``{key}.i2t``, ``{key}.i2t_scores``, ``{key}.t2i``, ``{key}.t2i_scores``, with
  ``k_test`` and ``t2i_images`` per key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from vlcomp.io import read_parquet
from vlcomp.metrics.ranking import Ranking
from vlcomp.metrics.rerank import (
    Candidates,
    candidate_pairs,
    candidate_scores,
    reranked_rankings,
    select_candidates,
)
from vlcomp.metrics.robustness import Condition, Embeddings, Reranked, gallery_conditions
from vlcomp.shards import parse_shard

if TYPE_CHECKING:
    from vlcomp.score.pairs import ImageRef


def condition_key(gallery: str, n: int) -> str:
    """The key of a gallery's ``n``-th condition."""
    return f"{gallery}.{n}"


@dataclass(frozen=True)
class RerankedGallery:
    """One gallery to re-rank: its images, queries, conditions' inputs and ``k_test``."""

    name: str
    image_ids: Sequence[str]
    queries: pd.DataFrame
    k_test: int
    perturbed: pd.DataFrame | None = None
    image_conditions: Sequence[tuple[str, int, str]] = ()
    clean_imageset: str = "world_test"
    t2i_extra: Sequence[tuple[str, str]] = ()
    text_perturbations: Sequence[str] | None = None

    def conditions(self) -> list[Condition]:
        """Its conditions, in record order."""
        return list(gallery_conditions(self.queries, self.perturbed, self.image_conditions,
                                       self.clean_imageset, self.text_perturbations))


def read_embeddings(imagesets: Sequence[str], image_files: Sequence[str],
                    text_file: str) -> Embeddings:
    """One model's robustness embeddings: each image set's file and the texts' file (ids
    beside each, `vlcomp.score.embeddings.ids_path_for`)."""
    from vlcomp.score.embeddings import ids_path_for, load_embeddings

    images = {s: load_embeddings(f, ids_path_for(f))
              for s, f in zip(imagesets, image_files, strict=True)}
    return Embeddings(images, load_embeddings(text_file, ids_path_for(text_file)))


def read_galleries(names: Sequence[str], files: Mapping[str, Sequence[str]],
                   perturbed: pd.DataFrame, perturbed_galleries: Sequence[str],
                   image_conditions: Mapping[str, Sequence[tuple[str, int, str]]],
                   clean_imagesets: Mapping[str, str], k_test: Mapping[str, int],
                   text_perturbations: Mapping[str, Sequence[str]] | None = None
                   ) -> list[RerankedGallery]:
    """The re-ranked galleries (those in ``k_test``) of the robustness suite, from the
    ``files`` of every gallery of ``names`` (``galleries``, ``queries``, ``t2i_extra``);
    ``text_perturbations``: each perturbed gallery's own (default: all of ``perturbed``)."""
    out = []
    for n, name in enumerate(names):
        if name not in k_test:
            continue
        extra = read_parquet(files["t2i_extra"][n])
        chosen = name in perturbed_galleries
        out.append(RerankedGallery(
            name, read_parquet(files["galleries"][n]).image_id.tolist(),
            read_parquet(files["queries"][n]), int(k_test[name]),
            perturbed if chosen else None,
            [tuple(c) for c in image_conditions.get(name, ())] if chosen else (),
            clean_imagesets[name], list(zip(extra.imageset, extra.image_id, strict=True)),
            None if text_perturbations is None else list(text_perturbations.get(name, ()))))
    return out


def condition_sources(gallery: RerankedGallery,
                      refs_of: Callable[[str, Sequence[str]], list[ImageRef]]
                      ) -> dict[str, tuple[list[ImageRef], list[str]]]:
    """Per condition key, the pictures its rows show (the gallery's images from the
    condition's image set, then the extra text→image ones) and its query texts;
    ``refs_of(image set, ids)`` finds pictures."""
    extra: list[ImageRef] = []
    for imageset, image_id in gallery.t2i_extra:
        extra += refs_of(imageset, [image_id])
    return {condition_key(gallery.name, n): (refs_of(c.imageset, gallery.image_ids) + extra,
                                             c.texts)
            for n, c in enumerate(gallery.conditions())}


def gallery_candidates(gallery: RerankedGallery, model: Embeddings) -> dict[str, np.ndarray]:
    """The candidates file's arrays of one gallery: each condition's ``k_test`` candidates
    by the model's embedding cosine, both directions."""
    extra = model.extra_images(gallery.t2i_extra)
    out: dict[str, np.ndarray] = {}
    for n, c in enumerate(gallery.conditions()):
        side = model.side(c.imageset, gallery.image_ids, c.texts, extra)
        found = select_candidates(side.images, side.texts, gallery.k_test,
                                  None if extra is None else side.t2i_images)
        key = condition_key(gallery.name, n)
        # int32 positions: a COCO gallery's 49 conditions stay a few GB
        out[f"{key}.i2t"], out[f"{key}.t2i"] = found.i2t.astype(np.int32), found.t2i.astype(
            np.int32)
        out[f"{key}.k_test"] = np.int64(gallery.k_test)
        out[f"{key}.t2i_images"] = np.int64(len(side.t2i_images))
    return out


def candidate_file(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The candidates file: the galleries' `gallery_candidates`, keyed, with ``keys``."""
    arrays: dict[str, np.ndarray] = {}
    for part in parts:
        arrays.update(part)
    keys = [name[:-len(".i2t")] for name in arrays if name.endswith(".i2t")]
    return {"keys": np.array(keys), **arrays}


def read_keys(path: str) -> list[str]:
    """The condition keys of a candidates, shard or gathered file."""
    with np.load(path) as f:
        return [str(k) for k in f["keys"].tolist()]


def read_condition(path: str, key: str) -> Candidates:
    """One condition's candidates from a candidates or gathered file."""
    with np.load(path) as f:
        return Candidates(f[f"{key}.i2t"], f[f"{key}.t2i"])


def condition_weights(path: str) -> tuple[list[str], np.ndarray]:
    """Each condition's key and candidate count (both directions) in a candidates file."""
    keys = read_keys(path)
    with np.load(path) as f:
        weights = np.array([f[f"{k}.i2t"].size + f[f"{k}.t2i"].size for k in keys],
                           dtype=np.int64)
    return keys, weights


def condition_block(weights: Sequence[int], shard: str) -> slice:
    """The conditions one shard scores: contiguous, each condition in exactly one shard,
    the shards' candidate counts as even as whole conditions allow (a condition belongs to
    the shard its weight's midpoint falls in)."""
    index, count = parse_shard(shard)
    w = np.asarray(weights, dtype=np.float64)
    if not len(w):
        return slice(0, 0)
    if w.sum() <= 0:
        w = np.ones(len(w))
    middle = (np.cumsum(w) - w / 2) / w.sum()
    owner = np.minimum((middle * count).astype(np.int64), count - 1)
    mine = np.flatnonzero(owner == index)
    if not len(mine):
        start = int(np.searchsorted(owner, index))
        return slice(start, start)
    return slice(int(mine[0]), int(mine[-1]) + 1)


def gather_shards(paths: Sequence[str], candidates_path: str) -> dict[str, np.ndarray]:
    """The gathered file's arrays; ValueError naming a shard that scores an unknown condition,
    one scored twice, a wrong pair count, or a condition no shard scored."""
    keys = read_keys(candidates_path)
    known, seen = set(keys), {}
    for path in paths:
        for key in read_keys(path):
            if key not in known:
                raise ValueError(f"{path}: condition {key} is not in {candidates_path}")
            if key in seen:
                raise ValueError(f"{path}: condition {key} was scored by {seen[key]} too")
            seen[key] = path
    missing = [k for k in keys if k not in seen]
    if missing:
        raise ValueError(f"{len(missing)} conditions, e.g. {missing[0]}, are in none of "
                         f"{len(paths)} shards")
    out: dict[str, np.ndarray] = {"keys": np.array(keys)}
    with np.load(candidates_path) as cand:
        for key in keys:
            found = Candidates(cand[f"{key}.i2t"], cand[f"{key}.t2i"])
            pairs = candidate_pairs(found)
            with np.load(seen[key]) as shard:
                values = shard[f"{key}.values"]
            if len(values) != len(pairs):
                raise ValueError(f"{seen[key]}: {len(values)} scores for condition {key}'s "
                                 f"{len(pairs)} candidate pairs")
            i2t_scores, t2i_scores = candidate_scores(found, pairs, values)
            out |= {f"{key}.i2t": found.i2t, f"{key}.i2t_scores": i2t_scores,
                    f"{key}.t2i": found.t2i, f"{key}.t2i_scores": t2i_scores,
                    f"{key}.k_test": cand[f"{key}.k_test"],
                    f"{key}.t2i_images": cand[f"{key}.t2i_images"]}
    return out


class RerankedFile:
    """A gathered file read back: each condition's rankings for `evaluate_gallery`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.keys = set(read_keys(path))

    def k_test(self, gallery: str) -> int | None:
        """The gallery's ``k_test`` (None: the gallery was not re-ranked)."""
        key = condition_key(gallery, 0)
        if key not in self.keys:
            return None
        with np.load(self.path) as f:
            return int(f[f"{key}.k_test"])

    def rankings(self, gallery: str, text_image: np.ndarray) -> Reranked:
        """`evaluate_gallery`'s ``reranked`` for one gallery (its queries' gallery rows
        ``text_image``); KeyError naming a condition the file lacks."""
        def ranked(n: int, condition: Condition) -> tuple[Ranking, Ranking]:
            key = condition_key(gallery, n)
            if key not in self.keys:
                raise KeyError(f"{self.path}: no re-ranked condition {key} "
                               f"({condition.kind} {condition.perturbation} "
                               f"seed {condition.seed})")
            with np.load(self.path) as f:
                found = Candidates(f[f"{key}.i2t"], f[f"{key}.t2i"])
                if found.t2i.shape[0] != len(condition.texts):
                    raise ValueError(f"{self.path}: condition {key} has {found.t2i.shape[0]} "
                                     f"queries, the gallery {len(condition.texts)}")
                return reranked_rankings(found, f[f"{key}.i2t_scores"],
                                         f[f"{key}.t2i_scores"], text_image,
                                         int(f[f"{key}.t2i_images"]))
        return ranked
