"""Per-query ranking metrics: CLIP_benchmark hit rate, Hendriksen recall, DCG, splits."""

import math

import numpy as np
import pytest

from vlcomp.metrics.ranking import (
    HENDRIKSEN_TOTAL,
    Ranking,
    clip_benchmark_recall,
    dcg_at_k,
    hendriksen_recalls,
    hit_rate_at_k,
    mean_std_over_seeds,
    rank_features,
    rank_scores,
    relevance_dcg,
    relevance_gains,
    robustness_splits,
    split_labels,
    true_recall_at_k,
)
from vlcomp.metrics.retrieval import retrieval_metrics


def brute_force_top_k(scores, query_keys, item_keys, k):
    """Full lexsort of each row: score desc, irrelevant first, index asc."""
    out = []
    for q, row in enumerate(scores):
        rel = np.asarray(item_keys) == query_keys[q]
        idx = np.arange(len(row))
        out.append(np.lexsort((idx, rel, -row))[:k])
    return np.array(out)


# --- check 9: CLIP_benchmark toy case -------------------------------------------------------

def test_clip_benchmark_toy_case():
    scores = np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.7], [0.6, 0.4]])  # rows = texts
    out = clip_benchmark_recall(scores, [0, 0, 1, 1], ks=(1, 2))
    assert out == {
        "image_retrieval_recall@1": 0.5,
        "image_retrieval_recall@2": 1.0,
        "text_retrieval_recall@1": 0.5,
        "text_retrieval_recall@2": 1.0,
    }
    # per query: I0 -> t0 is a hit, I1 -> t1 (an I0 caption) is a miss
    i2t = rank_scores(scores.T, [0, 1], [0, 0, 1, 1], k=2)
    np.testing.assert_array_equal(hit_rate_at_k(i2t, 1), [1.0, 0.0])
    np.testing.assert_array_equal(i2t.items, [[0, 3], [1, 2]])
    # k beyond the gallery: the ranking lists every image, so R@5 is R@2
    assert clip_benchmark_recall(scores, [0, 0, 1, 1], ks=(1, 5))[
        "image_retrieval_recall@5"] == 1.0


# --- check 8: Hendriksen recall vs hit rate -------------------------------------------------

def check8_ranking(n_extra_gt: int = 2) -> Ranking:
    """Query image A; captions whose top-10 image ids are [A,B,A,A,C,D,E,F,G,H], plus
    ``n_extra_gt`` more captions of A ranked below (5 GT captions for the default)."""
    keys = ["A", "B", "A", "A", "C", "D", "E", "F", "G", "H"] + ["A"] * n_extra_gt
    scores = np.linspace(1.0, 0.0, len(keys))[None, :]
    return rank_scores(scores, ["A"], np.array(keys), k=10)


def test_hendriksen_check8():
    r = check8_ranking()
    assert r.n_relevant.tolist() == [5]
    assert r.relevant[0].tolist() == [True, False, True, True] + [False] * 6
    np.testing.assert_allclose(true_recall_at_k(r, 1, 5), [1.0])
    np.testing.assert_allclose(true_recall_at_k(r, 5, 5), [0.6])
    np.testing.assert_allclose(true_recall_at_k(r, 10, 5), [0.6])
    rec = hendriksen_recalls(r, "i2t")
    np.testing.assert_allclose([rec["r1"][0], rec["r5"][0], rec["r10"][0]], [1.0, 0.6, 0.6])
    np.testing.assert_allclose(rec["rsum"], [2.2])
    # the CLIP_benchmark hit rate of the same list is 1.0 at every k
    assert [hit_rate_at_k(r, k)[0] for k in (1, 5, 10)] == [1.0, 1.0, 1.0]
    # same numbers from the bool matrix alone
    np.testing.assert_allclose(true_recall_at_k(r.relevant, 5, 5), [0.6])


def test_hendriksen_total_conventions():
    # 6 GT captions, all in the top 10: the reference's total=5 gives 6/5 at R@10
    keys = np.array(["A"] * 6 + ["B"] * 6)
    r = rank_scores(np.linspace(1, 0, 12)[None, :], ["A"], keys, k=10)
    assert HENDRIKSEN_TOTAL == {"t2i": 1, "i2t": 5}
    assert hendriksen_recalls(r, "i2t")["r10"][0] == pytest.approx(1.2)
    assert hendriksen_recalls(r, "i2t", total="collection")["r10"][0] == pytest.approx(1.0)
    assert hendriksen_recalls(r, "i2t", total="collection")["r5"][0] == pytest.approx(1.0)
    assert hendriksen_recalls(r, "i2t", total=[6])["r10"][0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="t2i or i2t"):
        hendriksen_recalls(r, "x2y")
    with pytest.raises(ValueError, match="collection"):
        hendriksen_recalls(r, "i2t", total="all")
    with pytest.raises(ValueError, match=">= 1"):
        true_recall_at_k(r, 5, 0)


def test_hendriksen_t2i_is_a_hit_rate():
    rng = np.random.default_rng(0)
    text_image = np.repeat(np.arange(20), 5)
    scores = rng.normal(size=(100, 20))
    r = rank_scores(scores, text_image, np.arange(20), k=10)
    rec = hendriksen_recalls(r, "t2i")
    for k in (1, 5, 10):
        np.testing.assert_array_equal(rec[f"r{k}"], hit_rate_at_k(r, k))


# --- check 7: DCG ---------------------------------------------------------------------------

def test_dcg_check7():
    assert dcg_at_k([1, 0.3, 0.2]) == 1.2893
    assert dcg_at_k([1] + [0] * 9) == 1.0
    assert dcg_at_k([0] * 9 + [1]) == 0.2891
    assert dcg_at_k([0] * 10 + [1]) == 0.0  # rank 11 is outside DCG@10
    np.testing.assert_array_equal(dcg_at_k([[1, 0.3, 0.2], [0, 0, 1]]), [1.2893, 0.5])
    assert dcg_at_k([1, 0.3, 0.2], decimals=None) == pytest.approx(
        1 + 0.3 / math.log2(3) + 0.1)


def test_relevance_dcg_uses_separate_embeddings():
    # query 0 (key 0) ranks items 2, 0, 1 (item 0 is its target)
    scores = np.array([[0.5, 0.1, 0.9]])
    r = rank_scores(scores, [0], [0, 1, 2], k=3)
    assert r.items.tolist() == [[2, 0, 1]]
    q_emb = np.array([[2.0, 0.0]])  # normalised inside
    i_emb = np.array([[0.0, 1.0], [0.6, 0.8], [0.8, 0.6]])
    gains = relevance_gains(r, q_emb, i_emb)
    np.testing.assert_allclose(gains, [[0.8, 1.0, 0.6]])  # target gain is 1, not its cosine
    expected = round(0.8 + 1 / math.log2(3) + 0.6 / 2, 4)
    np.testing.assert_array_equal(relevance_dcg(r, q_emb, i_emb), [expected])
    with pytest.raises(ValueError, match="zero vector"):
        relevance_gains(r, [[0.0, 0.0]], i_emb)


# --- robustness splits ----------------------------------------------------------------------

def test_robustness_splits_hand_example():
    clean = [3.0, 2.2, 0.0, 1.0, 2.0]
    pert = [2.0, 2.2, 1.0, 0.0, 2.0]
    assert split_labels(clean, pert).tolist() == [
        "decreased", "unchanged", "increased", "decreased", "unchanged"]
    assert robustness_splits(clean, pert) == {
        "decreased": 40.0, "increased": 20.0, "unchanged": 40.0, "n_queries": 5}
    with pytest.raises(ValueError, match="shapes"):
        robustness_splits([1.0], [1.0, 2.0])


def test_robustness_splits_from_rankings():
    # one text query per image; perturbation swaps two texts' scores
    clean = np.eye(3)
    pert = clean[[1, 0, 2]]
    rs = [hendriksen_recalls(rank_scores(s, [0, 1, 2], [0, 1, 2], k=3), "t2i")["rsum"]
          for s in (clean, pert)]
    # both perturbed queries miss at k=1; their target ranks 3rd of 3, so R@5 and R@10 hit
    np.testing.assert_array_equal(rs[0], [3, 3, 3])
    np.testing.assert_array_equal(rs[1], [2, 2, 3])
    out = robustness_splits(*rs)
    assert out["decreased"] == pytest.approx(200 / 3) and out["unchanged"] == pytest.approx(
        100 / 3) and out["increased"] == 0.0


# --- ties and ranking mechanics -------------------------------------------------------------

def test_ties_rank_wrong_items_first():
    # item 0 (relevant) ties with items 1 and 3 (wrong): both wrong ones rank ahead
    scores = np.array([[0.5, 0.5, 0.2, 0.5]])
    r = rank_scores(scores, [0], [0, 1, 2, 3], k=4)
    assert r.items.tolist() == [[1, 3, 0, 2]]
    assert r.relevant.tolist() == [[False, False, True, False]]
    assert hit_rate_at_k(r, 2)[0] == 0.0 and hit_rate_at_k(r, 3)[0] == 1.0
    # a tie across the cut at k: the wrong items fill the list
    r2 = rank_scores(scores, [0], [0, 1, 2, 3], k=2)
    assert r2.items.tolist() == [[1, 3]] and not r2.relevant.any()
    # an all-equal row never counts as a hit before every wrong item
    flat = rank_scores(np.zeros((1, 5)), [4], np.arange(5), k=5)
    assert flat.items.tolist() == [[0, 1, 2, 3, 4]]


def test_matches_brute_force_and_blocks():
    rng = np.random.default_rng(1)
    # rounded scores create many ties; string keys work too
    scores = np.round(rng.normal(size=(37, 50)), 1)
    item_keys = np.array([f"img{j % 9}" for j in range(50)])
    query_keys = np.array([f"img{q % 11}" for q in range(37)])  # some keys absent
    expected = brute_force_top_k(scores, query_keys, item_keys, 10)
    for block in (1, 5, 37, 512):
        r = rank_scores(scores, query_keys, item_keys, k=10, block_size=block)
        np.testing.assert_array_equal(r.items, expected)
        np.testing.assert_array_equal(r.scores, np.take_along_axis(scores, expected, 1))
        np.testing.assert_array_equal(r.relevant, item_keys[expected] == query_keys[:, None])
    counts = [(item_keys == k).sum() for k in query_keys]
    np.testing.assert_array_equal(r.n_relevant, counts)
    # transposed view (i2t from a texts × images matrix) equals its contiguous copy
    rt = rank_scores(scores.T, np.arange(50), np.arange(37) % 50, k=7, block_size=4)
    rc = rank_scores(np.ascontiguousarray(scores.T), np.arange(50), np.arange(37), k=7)
    np.testing.assert_array_equal(rt.items, rc.items)


def test_hit_rate_agrees_with_retrieval_metrics():
    rng = np.random.default_rng(2)
    n_img = 40
    text_image = np.concatenate([np.repeat(np.arange(n_img), 5), [3, 7]])  # two 6-caption
    img = rng.normal(size=(n_img, 16)).astype(np.float32)
    txt = img[text_image] + rng.normal(scale=1.5, size=(len(text_image), 16)).astype(np.float32)
    img /= np.linalg.norm(img, axis=1, keepdims=True)
    txt /= np.linalg.norm(txt, axis=1, keepdims=True)
    ref = retrieval_metrics(img, txt, text_image)["overall"]
    i2t = rank_features(img, txt, np.arange(n_img), text_image, k=10, block_size=7)
    t2i = rank_features(txt, img, text_image, np.arange(n_img), k=10, block_size=13)
    for k in (1, 5, 10):
        assert round(hit_rate_at_k(i2t, k).mean() * 100, 4) == ref[f"i2t_r{k}"]
        assert round(hit_rate_at_k(t2i, k).mean() * 100, 4) == ref[f"t2i_r{k}"]
    assert 0 < ref["t2i_r1"] < 100  # the comparison is not trivial
    np.testing.assert_array_equal(i2t.n_relevant[[3, 7, 0]], [6, 6, 5])
    # CLIP_benchmark's keys from the same scores (rows = texts), as fractions
    cb = clip_benchmark_recall(txt @ img.T, text_image)
    assert round(cb["text_retrieval_recall@5"] * 100, 4) == ref["i2t_r5"]
    assert round(cb["image_retrieval_recall@10"] * 100, 4) == ref["t2i_r10"]


def test_input_validation():
    with pytest.raises(ValueError, match="NaN"):
        rank_scores(np.array([[np.nan, 1.0]]), [0], [0, 1])
    with pytest.raises(ValueError, match="keys"):
        rank_scores(np.zeros((2, 3)), [0], [0, 1, 2])
    with pytest.raises(ValueError, match="2-D"):
        rank_scores(np.zeros(3), [0], [0, 1, 2])
    with pytest.raises(ValueError, match="do not match"):
        rank_features(np.zeros((2, 3)), np.zeros((4, 5)), [0, 1], [0, 1, 2, 3])
    r = rank_scores(np.eye(20), np.arange(20), np.arange(20), k=5)
    assert r.k == 5 and r.n_items == 20
    with pytest.raises(ValueError, match="rank deeper"):
        hit_rate_at_k(r, 10)
    with pytest.raises(ValueError, match="rank deeper"):
        true_recall_at_k(r.relevant, 6, 1)
    with pytest.raises(ValueError, match="bool"):
        hit_rate_at_k(np.ones((2, 3)), 1)


def test_large_gallery_is_blockwise():
    # 5k × 25k shape class at reduced width: only checks it runs without the full matrix
    rng = np.random.default_rng(3)
    img = rng.normal(size=(500, 8)).astype(np.float32)
    text_image = np.repeat(np.arange(500), 5)
    txt = rng.normal(size=(2500, 8)).astype(np.float32)
    r = rank_features(img, txt, np.arange(500), text_image, k=10, block_size=64)
    assert r.items.shape == (500, 10) and r.relevant.sum(axis=1).max() <= 5


# --- seeds ----------------------------------------------------------------------------------

def test_mean_std_over_seeds():
    assert mean_std_over_seeds([1.0, 2.0, 3.0]) == (2.0, 1.0)
    mean, std = mean_std_over_seeds({0: 4.0})
    assert mean == 4.0 and math.isnan(std)
    m, s = mean_std_over_seeds([[1.0, 10.0], [3.0, 10.0]])
    np.testing.assert_allclose(m, [2.0, 10.0])
    np.testing.assert_allclose(s, [math.sqrt(2), 0.0])
    with pytest.raises(ValueError, match="one seed"):
        mean_std_over_seeds([])
