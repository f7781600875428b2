"""The seeded inputs `vlcomp.bench.gpu_check` feeds every model: pictures, choice items of
captions, and training sets with the hard examples of each objective."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

COLOURS = ("red", "blue", "green", "yellow", "white", "black")
NOUNS = ("dog", "cat", "man", "woman", "horse", "car", "table", "chair", "tree", "ball")
RELATIONS = ("on", "under", "near", "behind", "next to", "in front of", "to the left of")
VERBS = ("sitting", "standing", "holding", "riding", "eating")


def picture(rng: np.random.Generator, size: int) -> np.ndarray:
    """(size, size, 3) uint8: a tinted noise background with two coloured boxes."""
    image = (rng.random((size, size, 3)) * 80 + rng.integers(0, 176, 3)).astype(np.uint8)
    for _ in range(2):
        y, x = rng.integers(0, size * 3 // 4, 2)
        h, w = rng.integers(size // 8, size // 3, 2)
        image[y : y + h, x : x + w] = rng.integers(0, 256, 3)
    return image


def pictures(n: int, size: int, seed: int) -> np.ndarray:
    """(n, size, size, 3) uint8 `picture` rows."""
    rng = np.random.default_rng(seed)
    return np.stack([picture(rng, size) for _ in range(n)]) if n else np.zeros(
        (0, size, size, 3), np.uint8)


def caption(rng: np.random.Generator) -> str:
    """A short caption: a coloured thing, a relation, another coloured thing."""
    a, b = rng.choice(COLOURS, 2, replace=False)
    x, y = rng.choice(NOUNS, 2, replace=False)
    verb = f" {rng.choice(VERBS)}" if rng.random() < 0.5 else ""
    return f"a {a} {x}{verb} {rng.choice(RELATIONS)} the {b} {y}"


def swap_negative(text: str) -> str:
    """A hard negative: the caption's two nouns swapped (ARO's relation swap)."""
    words = text.split()
    nouns = [k for k, w in enumerate(words) if w in NOUNS]
    if len(nouns) >= 2:
        i, j = nouns[0], nouns[-1]
        words[i], words[j] = words[j], words[i]
    return " ".join(words)


@dataclass
class ChoiceItems:
    """``images`` and, per image, ``per_image`` captions (its text rows
    ``k * per_image ...``): an item's choice is the argmax of its captions' scores."""

    images: list[Image.Image]
    texts: list[str]
    per_image: int

    @property
    def pair_images(self) -> list[Image.Image]:
        """Each image object once per caption of it, aligned with ``texts``."""
        return [image for image in self.images for _ in range(self.per_image)]

    def split(self, scores: Any) -> list[np.ndarray]:
        """Per item, its captions' scores (from a flat vector aligned with ``texts``)."""
        flat = np.asarray(scores, dtype=np.float64).ravel()
        return [flat[k * self.per_image : (k + 1) * self.per_image]
                for k in range(len(self.images))]

    def matrix_items(self, matrix: Any) -> list[np.ndarray]:
        """Per item, its image's row of an (images, texts) matrix at its own captions."""
        m = np.asarray(matrix, dtype=np.float64)
        return [m[k, k * self.per_image : (k + 1) * self.per_image]
                for k in range(len(self.images))]


def choice_items(n: int, per_image: int, seed: int, size: int = 256) -> ChoiceItems:
    """``n`` pictures, each with a caption and ``per_image - 1`` others (its swap negative
    first, then other pictures' captions)."""
    rng = np.random.default_rng(seed)
    images = [Image.fromarray(p) for p in pictures(n, size, seed)]
    texts: list[str] = []
    for _ in range(n):
        text = caption(rng)
        texts += [text, swap_negative(text), *(caption(rng) for _ in range(per_image - 2))]
    return ChoiceItems(images, texts[: n * per_image], per_image)


def training_set(n: int, size: int, seed: int, generated: bool = True) -> dict[str, Any]:
    """``train_clip``'s inputs for every objective: ``images`` (n, size, size, 3) uint8, two
    ``captions`` per image, one swap ``negatives`` per caption, three ``neighbours`` per
    image, and (``generated``: TROHN-Img) a ``generated_images`` row per negative
    (``negative_images``)."""
    rng = np.random.default_rng(seed + 1)
    captions = [[caption(rng), caption(rng)] for _ in range(n)]
    negatives = [[[swap_negative(t)] for t in caps] for caps in captions]
    neighbours = [[(i + d) % n for d in (1, 2, 3)] for i in range(n)]
    negative_images = [[[2 * i], [2 * i + 1]] for i in range(n)]
    return {"images": pictures(n, size, seed), "captions": captions, "negatives": negatives,
            "neighbours": neighbours, "negative_images": negative_images,
            "generated_images": pictures(2 * n if generated else 0, size, seed + 2)}


def objective_inputs(data: dict[str, Any], objective: str) -> dict[str, Any]:
    """The hard examples ``train_clip`` takes for ``objective`` (keyword arguments)."""
    extra: dict[str, Any] = {}
    if objective != "clip":
        extra["negatives"] = data["negatives"]
    if objective == "negclip":
        extra["neighbours"] = data["neighbours"]
    if objective == "trohn_img":
        extra.update(negative_images=data["negative_images"],
                     generated_images=data["generated_images"])
    return extra
