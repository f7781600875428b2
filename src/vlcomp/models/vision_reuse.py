"""Run a vision tower once per distinct image of a list of aligned (image, text) pairs.

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
