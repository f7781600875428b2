"""COCO-1K 5-fold retrieval (vlcomp.metrics.fold_retrieval)."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.metrics.fold_retrieval import first_captions, fold_retrieval_metrics
from vlcomp.metrics.ranking import clip_benchmark_recall


def _hand_case() -> tuple[np.ndarray, np.ndarray]:
    """2 folds × 2 images × 2 captions; fold 0 has known misses, fold 1 is perfect."""
    s = np.zeros((4, 8))
    s[0, :4] = [0.9, 0.1, 0.5, 0.2]  # i2t: own text 0 first → hit
    s[1, :4] = [0.8, 0.3, 0.4, 0.1]  # i2t: text 0 (image 0) first → R@1 miss, R@2 hit
    s[2, 4:] = [0.9, 0.8, 0.1, 0.1]
    s[3, 4:] = [0.1, 0.1, 0.9, 0.8]
    return s, np.array([0, 0, 1, 1, 2, 2, 3, 3])


def test_hand_checked_values_per_fold_and_mean():
    s, links = _hand_case()
    out = fold_retrieval_metrics(s, links, folds=2, ks=(1, 2), captions_per_image=2)
    # fold 0 t2i: text0 hit (0.9 > 0.8), text1 miss (0.1 < 0.3), text2 miss (0.5 > 0.4 for the
    # wrong image), text3 miss (0.2 > 0.1 for the wrong image) → 1/4
    assert out["per_fold"][0] == {"i2t_r1": 50.0, "i2t_r2": 100.0, "t2i_r1": 25.0,
                                  "t2i_r2": 100.0}
    assert out["per_fold"][1] == {"i2t_r1": 100.0, "i2t_r2": 100.0, "t2i_r1": 100.0,
                                  "t2i_r2": 100.0}
    assert out["overall"] == {"i2t_r1": 75.0, "i2t_r2": 100.0, "t2i_r1": 62.5, "t2i_r2": 100.0}
    assert (out["folds"], out["images_per_fold"], out["texts_per_fold"]) == (2, 2, 4)
    assert out["tie_policy"] == "strict"


def test_scores_across_folds_are_ignored():
    s, links = _hand_case()
    base = fold_retrieval_metrics(s, links, folds=2, ks=(1, 2), captions_per_image=2)
    s[2, :4] = 5.0  # image 2 (fold 1) scores highest with every fold-0 text
    s[:2, 4:] = 5.0
    assert fold_retrieval_metrics(s, links, folds=2, ks=(1, 2),
                                  captions_per_image=2) == base
    # the one-gallery evaluation sees them (contrast): every text now ranks a wrong image first
    whole = clip_benchmark_recall(s.T, links, ks=(1,))
    assert whole["image_retrieval_recall@1"] == 0.0


def _scan_reference(sims: np.ndarray, folds: int) -> dict[str, float]:
    """SCAN/VSE++ ``evalrank(fold5=True)``: argsort ranks, 5 captions per image, mean of folds."""
    n_img = sims.shape[0] // folds
    res = []
    for f in range(folds):
        block = sims[f * n_img:(f + 1) * n_img, f * 5 * n_img:(f + 1) * 5 * n_img]
        i2t = [min(int(np.where(np.argsort(block[i])[::-1] == j)[0][0])
                   for j in range(5 * i, 5 * i + 5)) for i in range(n_img)]
        t2i = [int(np.where(np.argsort(block.T[t])[::-1] == t // 5)[0][0])
               for t in range(5 * n_img)]
        res.append([100 * np.mean(np.array(r) < k) for r in (i2t, t2i) for k in (1, 5, 10)])
    mean = np.mean(res, axis=0)
    names = [f"{d}_r{k}" for d in ("i2t", "t2i") for k in (1, 5, 10)]
    return {n: round(float(v), 4) for n, v in zip(names, mean, strict=True)}


def test_matches_scan_protocol_on_random_scores():
    rng = np.random.default_rng(0)
    n_img = 5 * 30
    links = np.repeat(np.arange(n_img), 5)
    sims = rng.normal(size=(n_img, 5 * n_img))
    sims[links, np.arange(5 * n_img)] += 1.5  # make recall non-trivial
    out = fold_retrieval_metrics(sims, links)
    assert out["overall"] == _scan_reference(sims, 5)
    assert 0 < out["overall"]["t2i_r1"] < 100
    assert (out["images_per_fold"], out["texts_per_fold"]) == (30, 150)


def test_ties_count_against_the_model():
    links = np.repeat(np.arange(2), 5)
    out = fold_retrieval_metrics(np.zeros((2, 10)), links, folds=1, ks=(1,))
    # each image ties with the other image's captions: text 0..4 are image 0's, but with
    # equal scores the wrong item ranks first, so both ways miss at R@1
    assert out["overall"] == {"i2t_r1": 0.0, "t2i_r1": 0.0}


def test_first_captions_keeps_first_five_in_given_order():
    # image 1 has 7 captions (as a few COCO test images do), image 0 has 6, given interleaved
    links = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0])
    keep = first_captions(links)
    assert keep.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert np.bincount(links[keep]).tolist() == [5, 5]
    with pytest.raises(ValueError, match=r"fewer than 5 texts, e\.g\. image 2 has 3"):
        first_captions(np.array([0] * 5 + [2] * 3))


def test_sixth_caption_is_refused_with_a_pointer_to_first_captions():
    links = np.array([0] * 6 + [1] * 5)
    with pytest.raises(ValueError, match=r"image 0 has 6.*first_captions"):
        fold_retrieval_metrics(np.zeros((2, 11)), links, folds=2)
    keep = first_captions(links)
    out = fold_retrieval_metrics(np.zeros((2, 11))[:, keep], links[keep], folds=2, ks=(1,))
    assert out["n_texts"] == 10


def test_folds_must_divide_the_images():
    links = np.repeat(np.arange(6), 5)
    with pytest.raises(ValueError, match="6 images do not split into 5 equal folds"):
        fold_retrieval_metrics(np.zeros((6, 30)), links)


def test_text_outside_its_fold_is_refused():
    links = np.repeat(np.arange(4), 2)
    links[[3, 4]] = links[[4, 3]]  # a text of image 2 sits in fold 0's text block
    with pytest.raises(ValueError, match=r"fold 0 .*text 3 links to image 2, outside its "
                                         r"images 0\.\.1"):
        fold_retrieval_metrics(np.zeros((4, 8)), links, folds=2, captions_per_image=2)


def test_bad_shapes_and_links():
    with pytest.raises(ValueError, match="links for 10 texts"):
        fold_retrieval_metrics(np.zeros((2, 10)), np.zeros(9, dtype=int), folds=1)
    with pytest.raises(ValueError, match="text 9 links to image 7"):
        fold_retrieval_metrics(np.zeros((2, 10)), [0] * 5 + [1] * 4 + [7], folds=1)
    with pytest.raises(ValueError, match="integer"):
        fold_retrieval_metrics(np.zeros((2, 10)), np.zeros(10), folds=1)


def test_fold_hits_resampled_by_image_give_the_fold_mean():
    """The bootstrap of BISON's COCO-1K columns reads the fold hits as retrieval outcomes
    over the gallery's images; on the full sample they are the fold-averaged R@K."""
    from vlcomp.metrics.fold_retrieval import fold_retrieval_hits, fold_texts
    from vlcomp.metrics.uncertainty import retrieval_outcomes

    rng = np.random.default_rng(3)
    n_images, per_image = 12, 5
    links = np.repeat(np.arange(n_images), per_image + 1)  # a sixth text each: dropped
    rng.shuffle(links)
    scores = rng.normal(size=(n_images, len(links)))
    kept = fold_texts(links)
    assert np.all(np.diff(links[kept]) >= 0) and len(kept) == n_images * per_image
    expected = fold_retrieval_metrics(scores[:, kept], links[kept], folds=3)["overall"]
    hits = fold_retrieval_hits(scores[:, kept], links[kept], folds=3)
    for outcome in retrieval_outcomes(hits, links[kept]):
        assert outcome.value()[0] == pytest.approx(expected[outcome.metric], abs=1e-3)
