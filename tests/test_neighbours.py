"""Nearest-neighbour image pairing."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.image.neighbours import nearest_neighbours, neighbour_table


def brute_force(x: np.ndarray, k: int) -> np.ndarray:
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    out = []
    for i in range(len(x)):
        sims = [(-(float(x[i] @ x[j])), j) for j in range(len(x)) if j != i]
        out.append([j for _, j in sorted(sims)[:k]])
    return np.array(out)


@pytest.mark.parametrize("batch_size", [1, 7, 1000])
def test_matches_brute_force_in_any_batching(batch_size):
    x = np.random.default_rng(0).normal(size=(50, 8)).astype(np.float32)
    got = nearest_neighbours(x, 3, batch_size=batch_size)
    assert np.array_equal(got, brute_force(x, 3))


def test_never_self_and_ties_by_lower_index():
    x = np.array([[1, 0]] * 6 + [[0, 1]], dtype=np.float32)  # six identical rows
    got = nearest_neighbours(x, 2)
    assert all(i not in row for i, row in enumerate(got))
    assert got.tolist()[:6] == [[1, 2], [0, 2], [0, 1], [0, 1], [0, 1], [0, 1]]


def test_table_and_errors():
    x = np.eye(4, dtype=np.float32) + 0.1
    table = neighbour_table(["a", "b", "c", "d"], x, 3)
    assert table.neighbour_ids.map(len).eq(3).all()
    assert all(row.image_id not in row.neighbour_ids for row in table.itertuples())
    with pytest.raises(ValueError, match=r"k must be in 1\.\.3"):
        nearest_neighbours(x, 4)
    with pytest.raises(ValueError, match="row 1 has a zero embedding"):
        nearest_neighbours(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]), 1)


def test_faiss_backend_matches_exact_numpy_search():
    x = np.random.default_rng(1).normal(size=(300, 16)).astype(np.float32)
    exact = nearest_neighbours(x, 3, backend="numpy")
    assert np.array_equal(nearest_neighbours(x, 3, batch_size=64, backend="faiss"), exact)
    with pytest.raises(ValueError, match="backend"):
        nearest_neighbours(x, 3, backend="annoy")
