"""α-debiasing (VisualGPTScore Eq. 12): grid, Monte Carlo prior, choice accuracy over α,
validation-split α*."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.metrics.debias import (
    alpha_grid,
    best_alpha,
    choice_correct_over_alphas,
    debias,
    log_mean_exp,
    validation_alpha,
)


def test_grid_has_step_0_001_from_0_to_1():
    grid = alpha_grid()
    assert len(grid) == 1001 and grid[0] == 0 and grid[-1] == 1 and grid[500] == 0.5
    assert np.allclose(np.diff(grid), 0.001)
    with pytest.raises(ValueError, match="must divide 1"):
        alpha_grid(0.3)


def test_log_mean_exp_is_the_log_of_the_mean_probability():
    x = np.array([[-3.0, -1.0, -2.0], [-800.0, -801.0, -802.0]])
    np.testing.assert_allclose(log_mean_exp(x[:1]), np.log(np.exp(x[0]).mean()))
    assert np.isfinite(log_mean_exp(x)).all()  # no underflow
    assert log_mean_exp(x)[1] == pytest.approx(-800 + np.log(np.exp([0, -1, -2]).mean()))


def random_items(n=300, options=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, options)), rng.normal(size=(n, options)) - 5


def test_alpha_zero_is_the_raw_score():
    scores, prior = random_items()
    correct = choice_correct_over_alphas(scores, prior, alpha_grid())
    raw = (scores[:, :1] > scores[:, 1:]).all(axis=1)
    np.testing.assert_array_equal(correct[:, 0], raw)
    np.testing.assert_array_equal(debias(scores, prior, 0.0), scores)


def test_every_alpha_matches_scoring_then_choosing():
    scores, prior = random_items(n=50, options=3, seed=1)
    alphas = alpha_grid(0.05)
    correct = choice_correct_over_alphas(scores, prior, alphas, chunk=7)
    for k, alpha in enumerate(alphas):
        s = debias(scores, prior, alpha)
        np.testing.assert_array_equal(correct[:, k], (s[:, :1] > s[:, 1:]).all(axis=1))


def test_ties_follow_the_policy():
    scores = np.array([[1.0, 1.0], [2.0, 1.0]])
    prior = np.zeros((2, 2))
    strict = choice_correct_over_alphas(scores, prior, np.array([0.0]))
    lenient = choice_correct_over_alphas(scores, prior, np.array([0.0]), tie_policy="lenient")
    assert strict[:, 0].tolist() == [False, True] and lenient[:, 0].tolist() == [True, True]
    with pytest.raises(ValueError, match="tie policy"):
        choice_correct_over_alphas(scores, prior, np.array([0.0]), tie_policy="random")


def test_alpha_never_changes_the_image_ranking_of_a_text():
    rng = np.random.default_rng(2)
    log_p_text_given_image = rng.normal(size=(6, 4)) - 10  # images x texts
    log_p_text = rng.normal(size=4) - 12
    raw_ranks = np.argsort(-log_p_text_given_image, axis=0)
    for alpha in alpha_grid(0.1):
        ranks = np.argsort(-debias(log_p_text_given_image, log_p_text, alpha), axis=0)
        np.testing.assert_array_equal(ranks, raw_ranks)


def test_debiasing_rescues_a_fluent_negative():
    """The negative has the higher likelihood only through its prior: PMI picks the truth."""
    scores = np.array([[-10.0, -9.0]])  # log P(t|i): positive, negative
    prior = np.array([[-14.0, -10.0]])  # log P(t): the negative is far more fluent
    correct = choice_correct_over_alphas(scores, prior, alpha_grid())
    assert not correct[0, 0] and correct[0, -1]
    # positive wins iff -10 + 14α > -9 + 10α, i.e. α > 0.25
    assert best_alpha(correct.mean(axis=0), alpha_grid()) == (0.251, 1.0)


def test_best_alpha_takes_the_smallest_among_ties():
    assert best_alpha(np.array([0.2, 0.5, 0.5, 0.1]), np.array([0, 0.1, 0.2, 0.3])) == (0.1, 0.5)


def test_validation_alpha_is_seeded_and_summarised():
    scores, prior = random_items(n=200, options=2, seed=3)
    alphas = alpha_grid(0.01)
    correct = choice_correct_over_alphas(scores, prior, alphas)
    first = validation_alpha(correct, alphas, seed=0)
    assert first == validation_alpha(correct, alphas, seed=0)
    assert first != validation_alpha(correct, alphas, seed=1)
    assert len(first["repeats"]) == 10 and first["n_items"] == 200
    for rec in first["repeats"]:
        assert rec["alpha"] in alphas
        assert rec["val_accuracy"] >= 0 and 0 <= rec["test_accuracy"] <= 1
    summary = first["summary"]
    values = [rec["alpha"] for rec in first["repeats"]]
    assert summary["alpha"]["mean"] == pytest.approx(np.mean(values))
    assert summary["alpha"]["std"] == pytest.approx(np.std(values))


def test_validation_alpha_uses_the_aggregate():
    """A macro average over two groups gives another α* than the item mean can."""
    correct = np.zeros((4, 3), dtype=bool)
    correct[0] = [True, False, False]
    correct[1:] = [False, False, True]
    groups = np.array([0, 1, 1, 1])

    def macro(rows_correct, rows):
        return np.mean([rows_correct[groups[rows] == g].mean(axis=0)
                        for g in np.unique(groups[rows])], axis=0)

    result = validation_alpha(correct, np.array([0.0, 0.5, 1.0]), seed=0, repeats=3,
                              aggregate=macro)
    assert {rec["alpha"] for rec in result["repeats"]} <= {0.0, 1.0}
