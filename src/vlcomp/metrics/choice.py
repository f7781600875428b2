"""Per-item correctness for the choice protocols (``i2t``, ``t2i``, ``pair``).

Scores are matrices ``S[image, text]``. Tie policies: ``strict`` counts a tie between the
correct option and the best wrong one as wrong (``>``), ``lenient`` counts it as correct
(``>=``). NaN scores never compare true, so an item with a NaN score is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

PROTOCOLS = ("i2t", "t2i", "pair")
TIE_POLICIES = ("strict", "lenient")
PAIR_BASE_COLUMNS = ("Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I")
PAIR_COLUMNS = (*PAIR_BASE_COLUMNS, "I2T", "T2I", "Group")


def as_matrix(scores: Any) -> np.ndarray:
    """One score matrix (nested lists or arrays, e.g. from parquet) as a 2-D float array."""
    rows = [np.asarray(row, dtype=float).reshape(-1) for row in scores]
    matrix = np.array(rows, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"score matrix rows have unequal lengths: {[len(r) for r in rows]}")
    return matrix


def _beats(correct: np.ndarray, other: np.ndarray, tie_policy: str) -> np.ndarray:
    """``correct > other`` (strict) or ``correct >= other`` (lenient), elementwise."""
    if tie_policy == "strict":
        return correct > other
    if tie_policy == "lenient":
        return correct >= other
    raise ValueError(f"unknown tie_policy {tie_policy!r}; expected one of {TIE_POLICIES}")


def _options_correct(options: np.ndarray, labels: np.ndarray, tie_policy: str) -> np.ndarray:
    """Correctness for an (N, K) option array: the labelled option beats every other one."""
    n, k = options.shape
    if k < 2:
        raise ValueError(f"a choice needs at least 2 options, got {k}")
    if np.any((labels < 0) | (labels >= k)):
        raise ValueError(f"labels must lie in [0, {k}); got {labels.min()}..{labels.max()}")
    rows = np.arange(n)
    correct = options[rows, labels]
    wrong = options.copy()
    wrong[rows, labels] = -np.inf
    return _beats(correct, wrong.max(axis=1), tie_policy)


def pair_scores_batch(scores: np.ndarray, tie_policy: str = "strict") -> dict[str, np.ndarray]:
    """The seven BiVLC/Winoground columns for an (N, 2, 2) array ``S[n, image, text]``.

    Image 0 / text 0 are the positives (I0, C0), image 1 / text 1 the negatives (I1, C1).
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 3 or s.shape[1:] != (2, 2):
        raise ValueError(f"pair scores must have shape (N, 2, 2), got {s.shape}")
    c0_i0, c1_i0, c0_i1, c1_i1 = s[:, 0, 0], s[:, 0, 1], s[:, 1, 0], s[:, 1, 1]
    return combine_pair_columns(
        ipos2t=_beats(c0_i0, c1_i0, tie_policy),
        ineg2t=_beats(c1_i1, c0_i1, tie_policy),
        tpos2i=_beats(c0_i0, c0_i1, tie_policy),
        tneg2i=_beats(c1_i1, c1_i0, tie_policy),
    )


def combine_pair_columns(
    ipos2t: Any, ineg2t: Any, tpos2i: Any, tneg2i: Any
) -> dict[str, np.ndarray]:
    """Add I2T, T2I and Group (the Winoground text/image/group conjunctions) to the base four."""
    base = [np.asarray(col, dtype=bool) for col in (ipos2t, ineg2t, tpos2i, tneg2i)]
    columns = dict(zip(PAIR_BASE_COLUMNS, base, strict=True))
    columns["I2T"] = columns["Ipos2T"] & columns["Ineg2T"]
    columns["T2I"] = columns["Tpos2I"] & columns["Tneg2I"]
    columns["Group"] = columns["I2T"] & columns["T2I"]
    return columns


def pair_scores(matrix: Any, tie_policy: str = "strict") -> dict[str, bool]:
    """The seven BiVLC columns for one 2×2 matrix ``S[image, text]``."""
    batch = pair_scores_batch(as_matrix(matrix)[None], tie_policy)
    return {name: bool(values[0]) for name, values in batch.items()}


def _stack_uniform(matrices: Sequence[np.ndarray]) -> np.ndarray:
    """Stack matrices that share one shape into (N, n_images, n_texts)."""
    shapes = {m.shape for m in matrices}
    if len(shapes) > 1:
        raise ValueError(f"score matrices differ in shape: {sorted(shapes)}")
    return np.stack(matrices) if matrices else np.zeros((0, 0, 0))


def _correct_uniform(
    scores: np.ndarray, protocol: str, labels: np.ndarray, tie_policy: str
) -> np.ndarray:
    """Correctness for a stacked (N, n_images, n_texts) array with one protocol."""
    if protocol == "i2t":
        if scores.shape[1] != 1:
            raise ValueError(f"i2t expects 1 image per item, got {scores.shape[1]}")
        return _options_correct(scores[:, 0, :], labels, tie_policy)
    if protocol == "t2i":
        if scores.shape[2] != 1:
            raise ValueError(f"t2i expects 1 text per item, got {scores.shape[2]}")
        return _options_correct(scores[:, :, 0], labels, tie_policy)
    if protocol == "pair":
        return pair_scores_batch(scores, tie_policy)["Group"]
    raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")


def choice_correct(
    scores: Any,
    protocol: str,
    labels: Any = None,
    tie_policy: str = "strict",
) -> np.ndarray:
    """Boolean correctness per item for one protocol and tie policy.

    ``scores`` is an (N, n_images, n_texts) array or a sequence of N matrices (items may
    differ in shape). ``labels`` index the correct text (``i2t``) or image (``t2i``);
    ``pair`` ignores them and returns the BiVLC Group score.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")
    if tie_policy not in TIE_POLICIES:
        raise ValueError(f"unknown tie_policy {tie_policy!r}; expected one of {TIE_POLICIES}")
    if isinstance(scores, np.ndarray) and scores.ndim == 3 and scores.dtype != object:
        matrices = list(scores.astype(float))
    else:
        matrices = [as_matrix(m) for m in scores]
    n = len(matrices)
    if labels is None:
        if protocol != "pair":
            raise ValueError(f"protocol {protocol!r} needs labels")
        labels = np.zeros(n, dtype=int)
    label_array = np.asarray(labels, dtype=int).reshape(-1)
    if label_array.shape[0] != n:
        raise ValueError(f"{n} score matrices but {label_array.shape[0]} labels")
    result = np.zeros(n, dtype=bool)
    by_shape: dict[tuple[int, ...], list[int]] = {}
    for index, matrix in enumerate(matrices):
        by_shape.setdefault(matrix.shape, []).append(index)
    for indices in by_shape.values():
        stacked = _stack_uniform([matrices[i] for i in indices])
        result[indices] = _correct_uniform(stacked, protocol, label_array[indices], tie_policy)
    return result
