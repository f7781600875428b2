"""Retrieval with log P(t|i): R@K over α, the gallery-mean prior, α* from validation."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.metrics.debias import alpha_grid
from vlcomp.metrics.generative_retrieval import (
    gallery_prior,
    generative_retrieval,
    i2t_r1_over_alphas,
    recalls,
)


def biased_gallery(n_img=30, per_image=3, seed=0):
    """Scores where each text fits its own image, plus a strong text-only bias: a few
    "likely" texts score high under every image (what PMI removes)."""
    rng = np.random.default_rng(seed)
    links = np.repeat(np.arange(n_img), per_image)
    bias = rng.normal(0, 3, size=len(links))
    scores = bias[None, :] + rng.normal(0, 0.5, size=(n_img, len(links)))
    scores[links, np.arange(len(links))] += 2.0
    return scores, links


def test_r1_over_alphas_agrees_with_the_ranking_at_every_alpha():
    scores, links = biased_gallery()
    prior = gallery_prior(scores)
    alphas = np.array([0.0, 0.37, 1.0])
    curve = i2t_r1_over_alphas(scores, prior, links, alphas, max_elements=500)  # many blocks
    for alpha, value in zip(alphas, curve, strict=True):
        assert value == pytest.approx(recalls(scores, links, prior, alpha)["i2t_r1"])


def test_text_to_image_is_the_same_at_every_alpha():
    scores, links = biased_gallery()
    prior = gallery_prior(scores)
    at = [recalls(scores, links, prior, a) for a in (0.0, 0.5, 1.0)]
    assert len({(r["t2i_r1"], r["t2i_r5"]) for r in at}) == 1
    assert at[0]["i2t_r1"] < at[2]["i2t_r1"]  # the prior misleads image→text retrieval


def test_gallery_prior_is_the_log_of_the_mean_probability():
    scores = np.log(np.array([[0.2, 0.5], [0.4, 0.1]]))
    np.testing.assert_allclose(np.exp(gallery_prior(scores)), [0.3, 0.3])


def test_alpha_is_chosen_on_validation_and_applied_to_test():
    test, test_links = biased_gallery(seed=1)
    val, val_links = biased_gallery(seed=2)
    curve, record = generative_retrieval(test, test_links, val, val_links, step=0.01)
    assert list(curve.alpha) == list(alpha_grid(0.01))
    best = curve.val_i2t_r1.max()
    assert record["alpha_val"]["alpha"] == curve.alpha[curve.val_i2t_r1 == best].min()
    assert record["alpha_val"]["i2t_r1"] == pytest.approx(
        curve.test_i2t_r1[curve.alpha == record["alpha_val"]["alpha"]].item())
    assert record["overall"]["i2t_r1"] == curve.test_i2t_r1[0]
    assert record["alpha1"]["i2t_r1"] == curve.test_i2t_r1.iloc[-1]
    assert record["oracle"]["i2t_r1"] == curve.test_i2t_r1.max()
    assert record["alpha_val"]["i2t_r1"] > record["overall"]["i2t_r1"]


def test_bad_links_are_named():
    scores, links = biased_gallery(n_img=4)
    with pytest.raises(ValueError, match="text→image links"):
        recalls(scores, links[:-1])
    with pytest.raises(ValueError, match="at least one text"):
        recalls(scores, np.zeros_like(links))


def test_a_null_image_prior_debiases_beside_the_gallery_mean():
    """VisualGPTScore Table 6's "Null Images": log P(t|null) from a few noise images stands
    in for the gallery mean; α = 1 and α*_val (picked on validation with that prior) are
    recorded, and a prior that knows the texts' bias recovers the gallery mean's gain."""
    test, test_links = biased_gallery(seed=1)
    val, val_links = biased_gallery(seed=2)
    # a noisy copy of each gallery's own text bias, as a few null images would give
    rng = np.random.default_rng(3)
    null = (gallery_prior(test) + rng.normal(0, 0.3, test.shape[1]),
            gallery_prior(val) + rng.normal(0, 0.3, val.shape[1]))
    _, record = generative_retrieval(test, test_links, val, val_links, step=0.01,
                                     null_priors=null, null_images=3)
    assert record["null"]["n_images"] == 3
    alpha = record["null"]["alpha_val"]["alpha"]
    assert record["null"]["alpha_val"]["i2t_r1"] == pytest.approx(
        recalls(test, test_links, null[0], alpha)["i2t_r1"])
    assert record["null"]["alpha1"]["i2t_r1"] == pytest.approx(
        recalls(test, test_links, null[0], 1.0)["i2t_r1"])
    assert record["null"]["alpha_val"]["i2t_r1"] > record["overall"]["i2t_r1"]
    _, plain = generative_retrieval(test, test_links, val, val_links, step=0.01)
    assert "null" not in plain
    with pytest.raises(ValueError, match="null priors of"):
        generative_retrieval(test, test_links, val, val_links, step=0.01,
                             null_priors=(null[0][:-1], null[1]))


def test_smaller_sub_galleries_rank_fewer_texts():
    """VisualGPTScore Table 9: each image ranks only its own random sub-gallery's texts, so a
    hit in the whole gallery stays a hit, and a caption prior's favourite can fall away."""
    from vlcomp.metrics.generative_retrieval import recall_hits, subgallery_i2t_hits

    rng = np.random.default_rng(3)
    n_img = 40
    links = np.repeat(np.arange(n_img), 2)
    scores = rng.normal(size=(n_img, len(links)))
    scores[np.arange(n_img), 2 * np.arange(n_img)] += 1.5  # each image's own first caption
    scores[:, 5] += 3.0  # one "common" caption every image prefers
    whole = recall_hits(scores, links)["i2t_r1"].astype(bool)
    assert np.array_equal(subgallery_i2t_hits(scores, links, 1), whole)
    quarter = subgallery_i2t_hits(scores, links, 4, seed=0)
    assert (quarter >= whole).all() and quarter.sum() > whole.sum()
    assert np.array_equal(quarter, subgallery_i2t_hits(scores, links, 4, seed=0))
