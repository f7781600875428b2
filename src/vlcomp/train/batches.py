"""Which images, captions and hard negative captions make up one training step.

Three objectives share one trainer; they differ only in the batch they assemble:

* ``clip``: B images and one caption each (in-batch negatives only; CLIP-FT).
* ``negclip``: B images plus, for each, one of its K nearest-neighbour images as a further
  anchor with its own caption; each anchor's caption also brings one of its NegCLIP negatives,
  so images ``[I; I_nn]`` meet texts ``[T; T_nn; N; N_nn]`` (ARO §C).
* ``trohn_text``: B images, texts ``[T; N]`` with one SugarCrepe-style negative per caption
  (BiVLC TROHN-Text).
* ``trohn_img``: as ``trohn_text``, plus each negative caption's generated image: images
  ``[I; I_neg]`` meet texts ``[T; N]`` in one symmetric loss, the generated image being
  the positive of its negative caption (BiVLC TROHN-Img).

Negative captions are only extra image→text columns (`vlcomp.train.losses`). A caption
without negatives (or an image without usable neighbours) simply contributes none, as the
reference drops such rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

OBJECTIVES = ("clip", "negclip", "trohn_text", "trohn_img")
NEEDS_NEGATIVES = ("negclip", "trohn_text", "trohn_img")
Tokenizer = Callable[[list[str]], torch.Tensor]


@dataclass
class StepRows:
    """Rows of one step: images (pixel rows), their captions (token rows), negative tokens.

    For ``trohn_img`` the image rows end with the generated images of the negatives, in the
    order of ``negatives`` (rows ``>= n_images`` of the trainer's pixel table)."""

    images: np.ndarray
    texts: np.ndarray
    negatives: np.ndarray


class BatchComposer:
    """Assembles the rows of each step for one objective; all draws come from the given rng."""

    def __init__(
        self,
        objective: str,
        caption_counts: np.ndarray,
        tokenizer: Tokenizer | None = None,
        negatives: Sequence[Sequence[Sequence[str]]] | None = None,
        neighbours: Sequence[Sequence[int]] | None = None,
        negative_images: Sequence[Sequence[Sequence[int]]] | None = None,
        n_images: int = 0,
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}; known: {', '.join(OBJECTIVES)}")
        self.objective = objective
        self.neg_tokens = torch.zeros(0, dtype=torch.long)
        if objective in NEEDS_NEGATIVES:
            if negatives is None or tokenizer is None:
                raise ValueError(f"objective {objective!r} needs negative captions")
            if [len(n) for n in negatives] != list(caption_counts):
                raise ValueError("negatives must list one entry per caption of every image")
            per_caption = [list(negs) for image in negatives for negs in image]
            counts = np.array([len(n) for n in per_caption], dtype=np.int64)
            if counts.sum() == 0:
                raise ValueError(f"objective {objective!r}: no caption has a negative")
            self.neg_counts = counts
            self.neg_offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
            self.neg_tokens = tokenizer([n for negs in per_caption for n in negs])
        self.neg_image_rows = np.zeros(0, dtype=np.int64)
        if objective == "trohn_img":
            if negative_images is None:
                raise ValueError("objective 'trohn_img' needs the generated image of every "
                                 "negative caption")
            flat = [r for image in negative_images for caption in image for r in caption]
            shape = [len(c) for image in negative_images for c in image]
            if shape != [len(n) for n in per_caption]:
                raise ValueError("negative_images must give one image row per negative caption")
            # generated images follow the n_images training images in the pixel table
            self.neg_image_rows = n_images + np.asarray(flat, dtype=np.int64)
        self.neighbours: list[np.ndarray] = []
        if objective == "negclip":
            if neighbours is None or len(neighbours) != len(caption_counts):
                raise ValueError("objective 'negclip' needs a neighbour list for every image")
            self.neighbours = [np.asarray(n, dtype=np.int64) for n in neighbours]
            self._nn_counts = np.array([len(n) for n in self.neighbours], dtype=np.int64)

    def _negatives_of(self, text_rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        counts = self.neg_counts[text_rows]
        picks = np.floor(rng.random(len(text_rows)) * counts).astype(np.int64)
        has = counts > 0
        return (self.neg_offsets[text_rows] + picks)[has]

    def step(self, batch: np.ndarray, chosen: np.ndarray, rng: np.random.Generator) -> StepRows:
        """Rows for the images in ``batch``; ``chosen[i]`` is image i's caption row this epoch."""
        images = batch
        if self.objective == "negclip":
            counts = self._nn_counts[batch]
            picks = np.floor(rng.random(len(batch)) * counts).astype(np.int64)
            drawn = zip(batch, picks, counts, strict=True)
            partners = np.array(
                [self.neighbours[i][p] for i, p, c in drawn if c > 0], dtype=np.int64
            )
            images = np.concatenate([batch, partners])
        texts = chosen[images]
        if self.objective == "clip":
            negatives = np.zeros(0, dtype=np.int64)
        else:
            negatives = self._negatives_of(texts, rng)
        if self.objective == "trohn_img":
            images = np.concatenate([images, self.neg_image_rows[negatives]])
        return StepRows(images=images, texts=texts, negatives=negatives)


_LEFT_RIGHT = re.compile(r"\bto the (left|right) of\b")


def mirror_caption(text: str) -> str | None:
    """The caption of the left-right mirrored picture: "to the left of" and "to the right of"
    trade places; None when the caption names no left/right relation (its mirror would be
    described by the same words, so the pair would teach nothing)."""
    if not _LEFT_RIGHT.search(text):
        return None
    return _LEFT_RIGHT.sub(lambda m: f"to the {'right' if m[1] == 'left' else 'left'} of", text)


def add_mirror_pairs(rows: StepRows, mirror_text_rows: np.ndarray, n_images: int,
                     fraction: float, rng: np.random.Generator) -> StepRows:
    """Join some images of a ``clip`` step by their left-right mirror image.

    Each image whose caption this epoch has a mirrored caption (``mirror_text_rows[t] >= 0``)
    brings, with probability ``fraction``, its mirror (pixel row ``n_images + i``) captioned by
    the mirrored text. The two differ only in which side each object is on, so the in-batch
    loss can only tell them apart by binding shapes to positions: web-scale batches hold such
    pairs now and then, and without them a CLIP trained on the world learns a bag of shapes
    (ARO §3). One draw per image of the batch, whatever its caption.
    """
    draws = rng.random(len(rows.images))
    mirrored = mirror_text_rows[rows.texts]
    keep = (draws < fraction) & (mirrored >= 0)
    return replace(rows, images=np.concatenate([rows.images, n_images + rows.images[keep]]),
                   texts=np.concatenate([rows.texts, mirrored[keep]]))
