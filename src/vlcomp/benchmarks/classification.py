"""Zero-shot classification as CLIP does it: class names, prompt templates, class embeddings.

Class names and templates are data (``classification_prompts.yaml``, ``imagenet_classes.json``
beside this module; sources in their headers). A class embedding is the mean of the
L2-normalised embeddings of the class name in every template, normalised again (OpenAI's
``Prompt_Engineering_for_ImageNet`` notebook, CLIP_benchmark's ``zero_shot_classifier``); an
image is assigned the class of highest cosine similarity.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

DATASETS = ("cifar10", "cifar100", "imagenet")
PROMPTS_FILE = "classification_prompts.yaml"

TextEncoder = Callable[[list[str]], np.ndarray]


@cache
def _prompts() -> dict[str, Any]:
    text = resources.files("vlcomp.benchmarks").joinpath(PROMPTS_FILE).read_text("utf-8")
    return yaml.safe_load(text)


def class_names(dataset: str) -> list[str]:
    """The zero-shot class names of ``dataset`` in label order (CLIP's published lists)."""
    entry = _entry(dataset)
    if "classes" in entry:
        return list(entry["classes"])
    text = resources.files("vlcomp.benchmarks").joinpath(entry["classes_file"]).read_text(
        "utf-8")
    return list(json.loads(text)["names"])


def templates(dataset: str) -> list[str]:
    """The prompt templates of ``dataset`` (``{}`` is replaced by the class name)."""
    return list(_entry(dataset)["templates"])


def _entry(dataset: str) -> dict[str, Any]:
    prompts = _prompts()
    if dataset not in prompts:
        raise ValueError(f"no class names/templates for {dataset!r}; known: {sorted(prompts)}")
    return prompts[dataset]


def _unit_rows(x: np.ndarray, what: str) -> np.ndarray:
    """Rows divided by their L2 norm (float64); a zero row is an error naming ``what``."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"{what}: a zero vector cannot be normalised")
    return x / norms


def zero_shot_weights(encode_text: TextEncoder, classnames: Sequence[str],
                      templates: Sequence[str]) -> np.ndarray:
    """Class embeddings ``(n_classes, dim)``: per class, the mean of the normalised
    embeddings of ``template.format(name)`` over ``templates``, renormalised.

    ``encode_text`` maps a list of texts to an array ``(n_texts, dim)``; it is called once
    with every prompt (class-major: class 0's templates first).
    """
    if not classnames or not templates:
        raise ValueError("zero-shot weights need at least one class name and one template")
    bad = [t for t in templates if "{}" not in t]
    if bad:
        raise ValueError(f"template {bad[0]!r} has no '{{}}' placeholder")
    texts = [t.format(name) for name in classnames for t in templates]
    emb = np.asarray(encode_text(texts))
    if emb.ndim != 2 or len(emb) != len(texts):
        raise ValueError(f"encode_text returned shape {emb.shape} for {len(texts)} texts")
    per_class = _unit_rows(emb, "text embedding").reshape(len(classnames), len(templates), -1)
    return _unit_rows(per_class.mean(axis=1), "mean class embedding")


def zero_shot_scores(image_features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Cosine similarities ``(n_images, n_classes)`` of the images to the class embeddings
    (CLIP's logits up to its constant scale of 100, which changes no ranking)."""
    images = _unit_rows(image_features, "image embedding")
    weights = np.asarray(weights, dtype=np.float64)
    if images.shape[1] != weights.shape[1]:
        raise ValueError(f"image features have dim {images.shape[1]}, class weights "
                         f"{weights.shape[1]}")
    return images @ weights.T


def zero_shot_predict(image_features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The predicted class of each image (``argmax`` of `zero_shot_scores`; a tie goes to
    the lower class index)."""
    return zero_shot_scores(image_features, weights).argmax(axis=1)
