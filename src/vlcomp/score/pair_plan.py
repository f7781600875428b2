"""Every (picture, text) pair a pair-scoring model needs, scored picture by picture.

A pair scorer (BLIP ITM, BLIP's captioner) needs its vision tower for each picture of every
choice benchmark, every retrieval gallery and every prior image, and a text pass per
(picture, text) pair. `PairPlan` collects all of them for one model before anything is
encoded: pictures are identified by content (`content_key`: the file's sha256 and the crop
box), so a picture shown by several benchmarks, or stored twice, is one picture with the union
of its texts. `score_plan` then opens and encodes each picture once, and scores all of its
texts against the same vision states.

Scorers with vision states (``image_states`` and ``score_pairs_given_states``, see
`hf_blip` / `hf_blip_lm`) are called per chunk of whole pictures; those also having
``embed_image_states`` can embed pictures from the same states (a model used both ways, e.g.
BLIP ITM for pairs and ITC retrieval). Other pair scorers (`vlcomp.score.pairs.PairScorer`)
get each chunk's pairs with the picture object repeated per text, which their own
`encode_distinct` turns into one pass per picture.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from vlcomp.image.shuffle_views import raw_shuffled
from vlcomp.score.embeddings import content_key, open_image
from vlcomp.score.pairs import ImageRef, pair_method
from vlcomp.shards import shard_block

log = logging.getLogger(__name__)


CHUNK_PAIRS = 512  # pairs `score_plan` scores together (`picture_chunks`)


class PairPlan:
    """Pictures (by content) and the texts each is to be scored with, and pictures to embed."""

    def __init__(self) -> None:
        self.refs: list[ImageRef] = []
        self.texts: list[str] = []
        self.wanted: list[set[int]] = []
        self.embedded: set[int] = set()
        self._picture: dict[tuple, int] = {}
        self._text: dict[str, int] = {}
        self._digest: dict[str, str] = {}

    def picture(self, ref: ImageRef) -> int:
        """The picture index of ``ref`` (added on first sight; equal content, equal index)."""
        if ref.path not in self._digest:
            self._digest[ref.path] = content_key(ref.path)[0]
        key = (self._digest[ref.path], ref.box)
        index = self._picture.setdefault(key, len(self.refs))
        if index == len(self.refs):
            self.refs.append(ref)
            self.wanted.append(set())
        return index

    def text_index(self, text: str) -> int:
        index = self._text.setdefault(text, len(self.texts))
        if index == len(self.texts):
            self.texts.append(text)
        return index

    def want(self, ref: ImageRef, texts: Sequence[str]) -> int:
        """Score ``texts`` against the picture of ``ref``; returns its picture index."""
        picture = self.picture(ref)
        self.wanted[picture].update(self.text_index(t) for t in texts)
        return picture

    def embed(self, ref: ImageRef) -> int:
        """Also embed the picture of ``ref`` (scorers with ``embed_image_states``)."""
        picture = self.picture(ref)
        self.embedded.add(picture)
        return picture

    def add_items(self, items: pd.DataFrame, images: Mapping[str, ImageRef]) -> None:
        """Every (image, text) cell of choice items (``item_id``, ``image_ids``, ``texts``).
        Raises KeyError naming the first item whose image id is not in ``images``."""
        for item in items.itertuples():
            for image_id in item.image_ids:
                if image_id not in images:
                    raise KeyError(f"item {item.item_id!r}: image {image_id!r} is in no image "
                                   "set")
                self.want(images[image_id], item.texts)

    def part(self, pictures: Iterable[int]) -> PairPlan:
        """A plan of these pictures (indices here) and their texts, the texts indexed as
        here, so that each picture's texts sort and batch as here; file digests are kept."""
        part = PairPlan()
        part._digest = dict(self._digest)
        for text in self.texts:
            part.text_index(text)
        for picture in pictures:
            part.want(self.refs[picture], [self.texts[t] for t in self.wanted[picture]])
        return part

    @property
    def n_pairs(self) -> int:
        return sum(len(w) for w in self.wanted)

    def needs_vision(self) -> list[int]:
        """Pictures with texts or to embed, in a stable order (path, then box)."""
        keep = [p for p, w in enumerate(self.wanted) if w or p in self.embedded]
        return sorted(keep, key=lambda p: (self.refs[p].path, self.refs[p].box or ()))


@dataclass
class PlanScores:
    """The scores of a `PairPlan`: per picture, its sorted text indices and their scores."""

    plan: PairPlan
    offsets: np.ndarray
    text_ids: np.ndarray
    values: np.ndarray
    embeddings: np.ndarray | None

    @classmethod
    def empty(cls, plan: PairPlan) -> PlanScores:
        """Every pair of ``plan`` unscored (NaN): per picture its text indices, sorted."""
        text_ids = [np.array(sorted(w), dtype=np.int64) for w in plan.wanted]
        counts = np.array([len(t) for t in text_ids], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        flat = np.concatenate(text_ids) if text_ids else np.zeros(0, np.int64)
        return cls(plan, offsets, flat, np.full(len(flat), np.nan), None)

    def slots(self, pictures: Sequence[int]) -> np.ndarray:
        """Positions in ``values`` of these pictures' pairs, picture after picture."""
        spans = [np.arange(self.offsets[p], self.offsets[p + 1]) for p in pictures]
        return np.concatenate(spans) if spans else np.zeros(0, np.int64)

    def scores(self, picture: int, texts: Sequence[str]) -> np.ndarray:
        """Scores of ``texts`` against one picture (KeyError for a pair not in the plan)."""
        start, end = self.offsets[picture], self.offsets[picture + 1]
        have = self.text_ids[start:end]
        ids = np.array([self.plan._text.get(t, -1) for t in texts], dtype=np.int64)
        pos = np.searchsorted(have, ids)
        found = pos < len(have)
        found[found] = have[pos[found]] == ids[found]
        if not found.all():
            missing = texts[int(np.flatnonzero(~found)[0])]
            raise KeyError(f"{self.plan.refs[picture]}: text {missing!r} was not scored")
        return self.values[start + pos]

    def matrix(self, refs: Sequence[ImageRef], texts: Sequence[str]) -> np.ndarray:
        """float64 (len(refs), len(texts)) of scores."""
        out = np.empty((len(refs), len(texts)), dtype=np.float64)
        for row, ref in enumerate(refs):
            out[row] = self.scores(self.plan.picture(ref), texts)
        return out

    def item_scores(self, items: pd.DataFrame, images: Mapping[str, ImageRef]) -> pd.DataFrame:
        """``item_id`` and ``scores`` (n_images × n_texts lists) per item, the frame
        `vlcomp.score.matrices.score_items` writes."""
        rows = []
        for item in items.itertuples():
            refs = [images[i] for i in item.image_ids]
            rows.append({"item_id": item.item_id,
                         "scores": self.matrix(refs, list(item.texts)).tolist()})
        return pd.DataFrame(rows)

    def embedding(self, refs: Sequence[ImageRef]) -> np.ndarray:
        """Embeddings of embedded pictures, one row per ref."""
        if self.embeddings is None:
            raise ValueError("this plan embedded no pictures")
        rows = [self.plan.picture(r) for r in refs]
        if not set(rows) <= self.plan.embedded:
            raise KeyError(f"{refs[0]} ...: not planned for embedding")
        return self.embeddings[rows]


def states_api(scorer: Any) -> bool:
    """Whether the scorer exposes vision states (``image_states``, ``score_pairs_given_states``)."""
    return all(callable(getattr(scorer, m, None))
               for m in ("image_states", "score_pairs_given_states"))


def picture_chunks(order: Sequence[int], counts: np.ndarray, chunk_pairs: int,
                   max_pictures: int) -> list[list[int]]:
    """Consecutive runs of ``order`` holding about ``chunk_pairs`` pairs and at most
    ``max_pictures`` pictures (a picture is never split)."""
    chunks, current, pairs = [], [], 0
    for p in order:
        current.append(p)
        pairs += int(counts[p])
        if pairs >= chunk_pairs or len(current) >= max_pictures:
            chunks.append(current)
            current, pairs = [], 0
    if current:
        chunks.append(current)
    return chunks


def score_plan(scorer: Any, plan: PairPlan, *, batch_size: int = 64, image_batch: int = 32,
               chunk_pairs: int = CHUNK_PAIRS, options: Mapping[str, Any] | None = None,
               desc: str = "score pairs") -> PlanScores:
    """Score every pair of ``plan``, each picture through the vision tower once; embed the
    pictures marked with `PairPlan.embed` from the same states."""
    import torch

    if chunk_pairs < 1 or image_batch < 1:
        raise ValueError(f"chunk_pairs and image_batch must be >= 1 ({chunk_pairs}, "
                         f"{image_batch})")
    options = dict(options or {})
    stateful = states_api(scorer)
    if plan.embedded and not callable(getattr(scorer, "embed_image_states", None)):
        raise TypeError(f"{type(scorer).__name__} cannot embed from vision states")
    scored = PlanScores.empty(plan)
    offsets, flat, values = scored.offsets, scored.text_ids, scored.values
    counts = np.diff(offsets)
    embeddings: np.ndarray | None = None
    order = plan.needs_vision()
    log.info("%d pictures (by content), %d distinct pairs, %d distinct texts, %d to embed",
             len(order), len(flat), len(plan.texts), len(plan.embedded))
    method = None if stateful else pair_method(scorer)
    with tqdm(total=len(flat), desc=desc, unit="pair", mininterval=5) as bar:
        for chunk in picture_chunks(order, counts, chunk_pairs, image_batch):
            images = raw_shuffled([open_image(plan.refs[p].path, plan.refs[p].box)
                                   for p in chunk], scorer)
            slots = scored.slots(chunk)
            texts = [plan.texts[t] for t in flat[slots]]
            if stateful:
                states = scorer.image_states(images, batch_size=image_batch)
                index = torch.repeat_interleave(torch.arange(len(chunk)),
                                                torch.as_tensor(counts[chunk]))
                scores = scorer.score_pairs_given_states(states, index, texts,
                                                         batch_size=batch_size, **options)
                embed = [k for k, p in enumerate(chunk) if p in plan.embedded]
                if embed:
                    vectors = scorer.embed_image_states(states[embed])
                    if embeddings is None:
                        embeddings = np.full((len(plan.refs), vectors.shape[1]), np.nan,
                                             dtype=np.float32)
                    embeddings[[chunk[k] for k in embed]] = vectors
            else:
                per_pair = [images[k] for k, p in enumerate(chunk) for _ in range(counts[p])]
                scores = method(per_pair, texts, batch_size=batch_size, **options) \
                    if texts else np.zeros(0)
            scores = np.asarray(scores, dtype=np.float64)
            if scores.shape != (len(texts),):
                raise ValueError(f"pair scorer returned shape {scores.shape} for {len(texts)} "
                                 "pairs")
            values[slots] = scores
            bar.update(len(texts))
    scored.embeddings = embeddings
    return scored


def plan_chunks(plan: PairPlan, image_batch: int,
                chunk_pairs: int = CHUNK_PAIRS) -> list[list[int]]:
    """The picture chunks `score_plan` scores ``plan`` in, in order."""
    counts = np.array([len(w) for w in plan.wanted], dtype=np.int64)
    return picture_chunks(plan.needs_vision(), counts, chunk_pairs, image_batch)


def shard_plan(plan: PairPlan, shard: str, image_batch: int,
               chunk_pairs: int = CHUNK_PAIRS) -> tuple[PairPlan, list[int], slice, int]:
    """One shard's part of ``plan``: a block of the whole picture chunks `score_plan` would
    score (`PairPlan.part`), so each picture sees the batches it sees in one job; returns the
    part, its pictures (indices in ``plan``, in scoring order), the block of chunks and
    their number."""
    chunks = plan_chunks(plan, image_batch, chunk_pairs)
    block = shard_block(len(chunks), shard)
    pictures = [p for chunk in chunks[block] for p in chunk]
    return plan.part(pictures), pictures, block, len(chunks)


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
    `vlcomp.score.matrices.score_items` returns, every cell scored by ``scorer``.

    ``images`` maps image_id to `ImageRef` (`image_index` of the benchmark's image sets).
    One benchmark's `vlcomp.score.pair_plan.PairPlan`: each distinct (picture, text) pair is
    scored once, about ``chunk`` pairs per call, whole pictures only, so each picture is
    opened and goes through the vision tower once.
    """
    plan = PairPlan()
    plan.add_items(items, images)
    n_cells = sum(len(i) * len(t) for i, t in zip(items.image_ids, items.texts, strict=True))
    log.info("%d items: %d cells", len(items), n_cells)
    scored = score_plan(scorer, plan, batch_size=batch_size, chunk_pairs=chunk,
                        options=options)
    return scored.item_scores(items, images)
