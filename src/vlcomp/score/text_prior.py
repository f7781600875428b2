"""Monte Carlo estimates of a captioner's text prior log P(t) (VisualGPTScore, Lin et al.
Eq. 6): P(t) ≈ (1/n) Σ_k P(t | i_k) over n images, averaged as probabilities (`log_mean_exp`).

Two image sources: Gaussian "null" images (`gaussian_null_pixels`; the paper's appendix uses
mean 1.0, std 0.25, n = 10, and n = 100 for Winoground, 30 for EqBen: `null_counts`; a
benchmark with its own n uses the first n of one seeded draw), or n images sampled from the
training set. The n images are encoded once; every text is then scored against each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from vlcomp.metrics.debias import log_mean_exp
from vlcomp.seeding import stable_rng

NULL_SPACES = ("normalized", "pixel")


def gaussian_null_pixels(n: int, image_size: int, *, mean: float = 1.0, std: float = 0.25,
                         seed: int = 0, space: str = "normalized",
                         image_mean: Sequence[float] = (0.0, 0.0, 0.0),
                         image_std: Sequence[float] = (1.0, 1.0, 1.0)) -> torch.Tensor:
    """n noise images as model input (n, 3, size, size), float32, seeded.

    ``space="normalized"``: N(mean, std) drawn directly as the normalised tensor the vision
    tower reads. ``space="pixel"``: drawn in [0, 1] pixel space, clipped, then normalised
    with the processor's ``image_mean`` / ``image_std``."""
    if space not in NULL_SPACES:
        raise ValueError(f"null image space {space!r}: one of {NULL_SPACES}")
    if n < 1:
        raise ValueError(f"need at least one null image, got n={n}")
    generator = torch.Generator().manual_seed(int(seed))
    noise = torch.randn((n, 3, image_size, image_size), generator=generator) * std + mean
    if space == "pixel":
        shift = torch.tensor(image_mean, dtype=torch.float32).view(1, 3, 1, 1)
        scale = torch.tensor(image_std, dtype=torch.float32).view(1, 3, 1, 1)
        noise = (noise.clamp(0, 1) - shift) / scale
    return noise.float()


def log_prior_given_states(scorer: Any, states: torch.Tensor, texts: Sequence[str],
                           batch_size: int = 32, chunk: int = 2048,
                           desc: str = "log P(t | prior images)") -> tuple[np.ndarray, np.ndarray]:
    """(log P(t) per text, log P(t | i_k) per text and image (n_texts, n_images)) from the
    vision states of n images, with the captioner's `log_likelihood_given_states`; ``chunk``
    texts at a time, with a progress bar."""
    n_images = int(states.shape[0])
    per_image = np.empty((len(texts), n_images), dtype=np.float64)
    with tqdm(total=len(texts), desc=desc, unit="text", mininterval=5) as bar:
        for start in range(0, len(texts), chunk):
            part = list(texts[start : start + chunk])
            pair_texts = [t for t in part for _ in range(n_images)]
            index = torch.arange(n_images).repeat(len(part))
            scores = scorer.log_likelihood_given_states(states, index, pair_texts, batch_size)
            per_image[start : start + len(part)] = np.asarray(scores, np.float64).reshape(
                len(part), n_images)
            bar.update(len(part))
    return log_mean_exp(per_image, axis=1), per_image


def null_counts(null: dict[str, Any], benchmarks: Sequence[str]) -> dict[str, int]:
    """Null images per benchmark: ``n_by_benchmark`` where given, else ``n``."""
    override = null.get("n_by_benchmark") or {}
    return {b: int(override.get(b, null["n"])) for b in benchmarks}


def null_prior_matrix(scorer: Any, states: torch.Tensor, union: Sequence[str],
                      texts: dict[str, Sequence[str]], n_for: dict[str, int],
                      batch_size: int = 32) -> np.ndarray:
    """log P(t | null image k) for every text of ``union`` (rows) and the first k images its
    benchmarks need (columns, up to len(states)); cells no benchmark needs stay NaN. A text
    of several benchmarks is scored once against the most images any of them uses."""
    need = dict.fromkeys(union, 0)
    for name, items in texts.items():
        for t in items:
            need[t] = max(need[t], n_for[name])
    out = np.full((len(union), len(states)), np.nan)
    row = {t: k for k, t in enumerate(union)}
    for k in sorted(set(need.values()) - {0}):
        group = [t for t in union if need[t] == k]
        _, per_image = log_prior_given_states(scorer, states[:k], group, batch_size)
        out[[row[t] for t in group], :k] = per_image
    return out


def sample_image_ids(image_ids: Sequence[str], n: int, seed: int) -> list[str]:
    """n distinct image ids drawn with a seeded generator, in sorted order (the draw does not
    depend on the table's row order)."""
    pool = sorted(set(map(str, image_ids)))
    if not 1 <= n <= len(pool):
        raise ValueError(f"cannot draw {n} images from {len(pool)}")
    picks = stable_rng("prior-train-images", seed).choice(len(pool), size=n, replace=False)
    return [pool[k] for k in sorted(picks)]
