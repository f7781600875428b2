"""Monte Carlo estimates of a captioner's text prior log P(t) (VisualGPTScore, Lin et al.
Eq. 6): P(t) ≈ (1/n) Σ_k P(t | i_k) over n images, averaged as probabilities (`log_mean_exp`).

Two image sources: Gaussian "null" images (`gaussian_null_pixels`; the paper's appendix uses
mean 1.0, std 0.25, n = 10, and n = 100 for Winoground, 30 for EqBen: `null_counts`; a
benchmark with its own n uses the first n of one seeded draw), or n images sampled from the
training set. The n images are encoded once; every text is then scored against each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from vlcomp.io import open_rgb
from vlcomp.metrics.debias import log_mean_exp
from vlcomp.metrics.null_sampling import null_sampling_column
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
                           desc: str = "log P(t | prior images)",
                           progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(log P(t) per text, log P(t | i_k) per text and image (n_texts, n_images)) from the
    vision states of n images, with the captioner's `log_likelihood_given_states`; ``chunk``
    texts at a time, with a progress bar."""
    n_images = int(states.shape[0])
    per_image = np.empty((len(texts), n_images), dtype=np.float64)
    with tqdm(total=len(texts), desc=desc, unit="text", mininterval=5,
              disable=not progress) as bar:
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


PRIOR_CHUNK = 2048  # texts `log_prior_given_states` scores in one call


@dataclass(frozen=True)
class NullTask:
    """One call of the null prior: up to `PRIOR_CHUNK` texts (rows of the union) scored
    against the first ``images`` null images."""

    images: int
    rows: tuple[int, ...]

    @property
    def pairs(self) -> int:
        return self.images * len(self.rows)


def null_tasks(union: Sequence[str], texts: dict[str, Sequence[str]],
               n_for: dict[str, int], chunk: int = PRIOR_CHUNK) -> list[NullTask]:
    """The calls the null prior of ``union`` is made of: texts grouped by the most null
    images any of their benchmarks uses, each group (in union order) cut into ``chunk``
    texts. A task's numbers do not depend on which job computes it."""
    need = dict.fromkeys(union, 0)
    for name, items in texts.items():
        for t in items:
            need[t] = max(need[t], n_for[name])
    row = {t: k for k, t in enumerate(union)}
    tasks = []
    for k in sorted(set(need.values()) - {0}):
        group = [row[t] for t in union if need[t] == k]
        tasks += [NullTask(k, tuple(group[s : s + chunk])) for s in range(0, len(group), chunk)]
    return tasks


def score_null_tasks(scorer: Any, states: torch.Tensor, union: Sequence[str],
                     tasks: Sequence[NullTask], batch_size: int = 32) -> list[np.ndarray]:
    """log P(t | null image j) of each task: (len(rows), images) arrays."""
    out = []
    with tqdm(total=sum(t.pairs for t in tasks), desc="log P(t | null images)", unit="pair",
              mininterval=5) as bar:
        for task in tasks:
            part = [union[r] for r in task.rows]
            _, per_image = log_prior_given_states(scorer, states[: task.images], part,
                                                  batch_size, chunk=len(part) or 1,
                                                  progress=False)
            out.append(per_image)
            bar.update(task.pairs)
    return out


def null_matrix_from_tasks(n_texts: int, n_images: int, tasks: Sequence[NullTask],
                           results: Sequence[np.ndarray]) -> np.ndarray:
    """The (n_texts, n_images) null prior matrix from its tasks' results; cells no
    benchmark needs stay NaN."""
    out = np.full((n_texts, n_images), np.nan)
    for task, values in zip(tasks, results, strict=True):
        out[list(task.rows), : task.images] = values
    return out


def null_prior_matrix(scorer: Any, states: torch.Tensor, union: Sequence[str],
                      texts: dict[str, Sequence[str]], n_for: dict[str, int],
                      batch_size: int = 32) -> np.ndarray:
    """log P(t | null image k) for every text of ``union`` (rows) and the first k images its
    benchmarks need (columns, up to len(states)); cells no benchmark needs stay NaN. A text
    of several benchmarks is scored once against the most images any of them uses."""
    tasks = null_tasks(union, texts, n_for)
    results = score_null_tasks(scorer, states, union, tasks, batch_size)
    return null_matrix_from_tasks(len(union), len(states), tasks, results)


def sample_image_ids(image_ids: Sequence[str], n: int, seed: int) -> list[str]:
    """n distinct image ids drawn with a seeded generator, in sorted order (the draw does not
    depend on the table's row order)."""
    pool = sorted(set(map(str, image_ids)))
    if not 1 <= n <= len(pool):
        raise ValueError(f"cannot draw {n} images from {len(pool)}")
    picks = stable_rng("prior-train-images", seed).choice(len(pool), size=n, replace=False)
    return [pool[k] for k in sorted(picks)]


def retrieval_null_priors(scorer: Any, texts: dict[str, Sequence[str]], null: dict[str, Any],
                          n: int, batch_size: int = 32) -> dict[str, np.ndarray]:
    """VisualGPTScore Table 6's "Null Images" prior of retrieval queries: per split of
    ``texts`` (``test``, ``val``: the gallery's queries in column order), log P(t) over the
    first ``n`` images of the seeded null draw ``null`` (``mean``, ``std``, ``seed``,
    ``space``), as ``{split}`` and per image as ``{split}_per_image``; and ``n_images``."""
    states = scorer.null_image_states(n, mean=null["mean"], std=null["std"], seed=null["seed"],
                                      space=null["space"])
    out: dict[str, np.ndarray] = {"n_images": np.int64(n)}
    for split, queries in texts.items():
        prior, per_image = log_prior_given_states(scorer, states, list(queries), batch_size,
                                                  desc=f"log P(t | null) {split}")
        out[split], out[f"{split}_per_image"] = prior, per_image
    return out


def train_sampling_priors(scorer: Any, texts: Sequence[str], pool: pd.DataFrame,
                          counts: Sequence[int], seeds: Sequence[int], batch_size: int = 32,
                          image_batch: int = 32) -> dict[str, np.ndarray]:
    """VisualGPTScore appendix Table 5's LAION half on a configuration's own training
    images: per seed, max(counts) images of ``pool`` (``image_id``, ``path``) in a seeded
    random order, encoded once and every text scored against each; the prior of count n
    averages the first n as probabilities. Returns the ``train`` `null_sampling_column`s."""
    top = max(counts)
    ids = sorted(set(map(str, pool.image_id)))
    if top > len(ids):
        raise ValueError(f"cannot draw {top} training images from {len(ids)}")
    paths = dict(zip(pool.image_id.astype(str), pool.path.astype(str), strict=True))
    out: dict[str, np.ndarray] = {}
    for seed in seeds:
        order = stable_rng("prior-train-sampling", int(seed)).permutation(len(ids))[:top]
        images = [open_rgb(paths[ids[k]]) for k in order]
        states = scorer.image_states(images, batch_size=image_batch)
        _, per_image = log_prior_given_states(
            scorer, states, list(texts), batch_size, chunk=max(1, 65536 // top),
            desc=f"log P(t | {top} training images) seed {seed}")
        for n in counts:
            out[null_sampling_column(seed, n, "train")] = log_mean_exp(per_image[:, :n],
                                                                       axis=1)
        del states
    return out


def null_sampling_priors(scorer: Any, texts: Sequence[str], null: dict[str, Any],
                         counts: Sequence[int], seeds: Sequence[int], batch_size: int = 32,
                         image_batch: int = 64) -> dict[str, np.ndarray]:
    """VisualGPTScore appendix Table 5's null half: per seed, max(counts) Gaussian null
    images (``null``'s ``mean``, ``std``, ``space``; the seed replaces its ``seed``) are
    encoded once and every text scored against each; the prior of count n averages the
    first n as probabilities. Returns `null_sampling_column` -> log P(t) per text."""
    top = max(counts)
    out: dict[str, np.ndarray] = {}
    for seed in seeds:
        states = scorer.null_image_states(top, mean=null["mean"], std=null["std"],
                                          seed=int(seed), space=null["space"],
                                          batch_size=image_batch)
        _, per_image = log_prior_given_states(scorer, states, list(texts), batch_size,
                                              chunk=max(1, 65536 // top),
                                              desc=f"log P(t | {top} null images) seed {seed}")
        for n in counts:
            out[null_sampling_column(seed, n)] = log_mean_exp(per_image[:, :n], axis=1)
        del states
    return out
