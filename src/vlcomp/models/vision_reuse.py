"""Run a vision tower once per distinct image of a list of aligned (image, text) pairs, and
the pair-scoring entry points every ITM family shares (`DistinctImagePairs`).

Pair scorers (BLIP ITM, BLIP captioner) get the same image object once per text scored
against it (`vlcomp.score.pairs`). Encoding images by identity, not by position, makes
scoring k captions per image cost one vision pass plus k text passes, instead of k of each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch


def distinct_images(images: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """The distinct objects of ``images`` (by identity) in first-seen order, and for each
    position the index of its object among them."""
    first: dict[int, int] = {}
    unique, index = [], []
    for image in images:
        k = first.setdefault(id(image), len(unique))
        if k == len(unique):
            unique.append(image)
        index.append(k)
    return unique, index


def encode_distinct(
    images: Sequence[Any],
    encode: Callable[[Sequence[Any]], torch.Tensor],
    batch_size: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``encode`` (images -> (n, ...) states) applied to each distinct image once, in batches
    of ``batch_size``; returns (states of the distinct images, LongTensor position -> row)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    unique, index = distinct_images(images)
    states = [encode(unique[s : s + batch_size]) for s in range(0, len(unique), batch_size)]
    return torch.cat(states), torch.tensor(index, dtype=torch.long)


class DistinctImagePairs:
    """Pair scoring through vision states, each distinct image encoded once (BLIP ITM,
    FLAVA, BLIP-2's Q-Former, X-VLM). A family gives ``pair_kinds`` (its first is the
    default), ``_load()``, ``_vision_states(batch)`` and ``score_pairs_given_states``."""

    pair_kinds: tuple[str, ...] = ()
    # (no stubs of the three: a stub here would shadow a base class's own, FLAVA's dual
    # encoder, in the method resolution order)

    def check_pair_kind(self, kind: str | None) -> str:
        """``kind`` (the family's default when None), or ValueError naming the known ones."""
        kind = kind or self.pair_kinds[0]
        if kind not in self.pair_kinds:
            raise ValueError(f"pair score {kind!r}: choose one of {self.pair_kinds}")
        return kind

    def image_states(self, images: Sequence[Any], batch_size: int = 64) -> torch.Tensor:
        """The vision states of each distinct image object, in first-seen order;
        `score_pairs_given_states` reads them."""
        self._load()  # type: ignore[attr-defined]
        with torch.inference_mode():
            return encode_distinct(images, self._vision_states,  # type: ignore[attr-defined]
                                   batch_size)[0]

    def score_pairs(self, images: Sequence[Any], texts: Sequence[str],
                    kind: str | None = None, batch_size: int = 64) -> Any:
        """One ``kind`` score per aligned (image, text) pair; each distinct image encoded
        once."""
        if len(images) != len(texts):
            raise ValueError(f"{len(images)} images but {len(texts)} texts")
        kind = self.check_pair_kind(kind)
        self._load()  # type: ignore[attr-defined]
        with torch.inference_mode():
            states, index = encode_distinct(images, self._vision_states,  # type: ignore[attr-defined]
                                            batch_size)
        return self.score_pairs_given_states(  # type: ignore[attr-defined]
            states, index, texts, kind=kind, batch_size=batch_size)


class DistinctImageCaptions:
    """Captioner scoring through vision states (BLIP, BLIP-2 FLAN-T5 / OPT, BLIP-2's
    Q-Former): log P(text | image) per aligned pair with each distinct image encoded once,
    and the states of images or of Gaussian null images a text prior averages over. A family
    gives ``_load()``, ``_image_states(batch)``, ``vision_states(pixels)``, ``_null_inputs()``
    (the input size and the image processor whose mean / std normalise null images) and
    ``log_likelihood_given_states``."""

    def image_states(self, images: Sequence[Any], batch_size: int = 32) -> torch.Tensor:
        """Vision states of each distinct image object (e.g. sampled training images for a
        prior estimate)."""
        self._load()  # type: ignore[attr-defined]
        with torch.inference_mode():
            return encode_distinct(images, self._image_states,  # type: ignore[attr-defined]
                                   batch_size)[0]

    def null_image_states(self, n: int, *, mean: float = 1.0, std: float = 0.25, seed: int = 0,
                          space: str = "normalized", batch_size: int = 64) -> torch.Tensor:
        """Vision states of n Gaussian null images (`gaussian_null_pixels`) at the model's
        input size, normalised like the processor's images; encoded ``batch_size`` at a time
        (the draw is the same whatever the batch)."""
        from vlcomp.score.text_prior import gaussian_null_pixels

        self._load()  # type: ignore[attr-defined]
        size, processor = self._null_inputs()  # type: ignore[attr-defined]
        pixels = gaussian_null_pixels(n, size, mean=mean, std=std, seed=seed, space=space,
                                      image_mean=processor.image_mean,
                                      image_std=processor.image_std)
        encode = self.vision_states  # type: ignore[attr-defined]
        with torch.inference_mode():
            return torch.cat([encode(pixels[s : s + batch_size]) for s in range(0, n, batch_size)])

    def log_likelihood(self, images: Sequence[Any], texts: Sequence[str],
                       batch_size: int = 32) -> Any:
        """log P(text | image) per aligned pair (the family's token reduction); each
        distinct image object is encoded once."""
        if len(images) != len(texts):
            raise ValueError(f"{len(images)} images but {len(texts)} texts")
        self._load()  # type: ignore[attr-defined]
        with torch.inference_mode():
            states, index = encode_distinct(images, self._image_states,  # type: ignore[attr-defined]
                                            batch_size)
            return self.log_likelihood_given_states(  # type: ignore[attr-defined]
                states, index, texts, batch_size)
