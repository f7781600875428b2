"""Accuracy over α on choice benchmarks (VisualGPTScore Tables 3-4): α = 0 and α = 1 agree
with the ordinary metrics on raw and on PMI scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.alpha_curves import (
    alpha_curve,
    headline_aggregate,
    item_correct_over_alphas,
    kept_subsets,
)
from vlcomp.metrics.benchmarks import aro_relation_metrics
from vlcomp.metrics.choice import choice_correct, pair_scores_batch

RNG = np.random.default_rng(0)
WORDS = [f"caption {k}" for k in range(40)]
PRIOR = {t: float(v) for t, v in zip(WORDS, RNG.normal(-20, 3, size=len(WORDS)), strict=True)}


def i2t_items(n=60, options=3, tie_policy="strict"):
    rows = []
    for k in range(n):
        texts = list(RNG.choice(WORDS, size=options, replace=False))
        rows.append({"item_id": f"i{k}", "subset": ["on", "near", "under"][k % 3],
                     "image_ids": [f"img{k}"], "texts": texts, "protocol": "i2t",
                     "label": int(RNG.integers(options)), "tie_policy": tie_policy,
                     "scores": RNG.normal(-15, 2, size=(1, options)).tolist()})
    return pd.DataFrame(rows)


def pair_items(n=40, rng=RNG):
    rows = []
    for k in range(n):
        texts = list(rng.choice(WORDS, size=2, replace=False))
        rows.append({"item_id": f"p{k}", "subset": "swap", "image_ids": [f"a{k}", f"b{k}"],
                     "texts": texts, "protocol": "pair", "label": 0, "tie_policy": "strict",
                     "scores": rng.normal(-15, 2, size=(2, 2)).tolist()})
    return pd.DataFrame(rows)


def pmi(items):
    return [np.asarray(s) - np.array([PRIOR[t] for t in texts])
            for s, texts in zip(items.scores, items.texts, strict=True)]


@pytest.mark.parametrize("tie_policy", ["strict", "lenient"])
def test_i2t_alpha_0_and_1_are_raw_and_pmi(tie_policy):
    items = i2t_items(tie_policy=tie_policy)
    correct = item_correct_over_alphas(items, PRIOR, np.array([0.0, 1.0]))
    labels = items.label.to_numpy()
    np.testing.assert_array_equal(correct[:, 0], choice_correct(
        list(items.scores), "i2t", labels, tie_policy))
    np.testing.assert_array_equal(correct[:, 1], choice_correct(
        pmi(items), "i2t", labels, tie_policy))


def test_pair_items_use_the_text_score():
    items = pair_items()
    correct = item_correct_over_alphas(items, PRIOR, np.array([0.0, 1.0]))
    raw = pair_scores_batch(np.array([np.asarray(s) for s in items.scores]))
    np.testing.assert_array_equal(correct[:, 0], raw["I2T"])
    debiased = pair_scores_batch(np.array(pmi(items)))
    np.testing.assert_array_equal(correct[:, 1], debiased["I2T"])
    assert not np.array_equal(raw["I2T"], debiased["I2T"])  # α matters for text scores
    np.testing.assert_array_equal(raw["T2I"], debiased["T2I"])  # and never for image scores


def test_t2i_items_do_not_depend_on_alpha():
    rows = [{"item_id": f"t{k}", "subset": "s", "image_ids": ["a", "b"], "texts": [WORDS[k]],
             "protocol": "t2i", "label": k % 2, "tie_policy": "strict",
             "scores": RNG.normal(size=(2, 1)).tolist()} for k in range(20)]
    items = pd.DataFrame(rows)
    correct = item_correct_over_alphas(items, PRIOR, np.linspace(0, 1, 11))
    assert (correct == correct[:, :1]).all()
    np.testing.assert_array_equal(correct[:, 0], choice_correct(
        list(items.scores), "t2i", items.label.to_numpy()))


def test_missing_prior_names_item_and_text():
    items = i2t_items(n=2)
    prior = {k: v for k, v in PRIOR.items() if k != items.texts[1][0]}
    with pytest.raises(KeyError, match=rf"item 'i1': no prior .*{items.texts[1][0]}"):
        item_correct_over_alphas(items, prior, np.array([0.0]))


def test_aro_macro_headline_matches_the_metric_at_alpha_0():
    items = i2t_items(n=90)
    options = {"symmetric": ["near"], "min_count": 0}
    aggregate = headline_aggregate(items, "aro_relation", options)
    correct = item_correct_over_alphas(items, PRIOR, np.array([0.0]))
    got = aggregate(correct, np.arange(len(items)))[0]
    expected = aro_relation_metrics(items, **options)["overall"]["macro_accuracy"]
    assert 100 * got == pytest.approx(expected, abs=1e-3)
    assert kept_subsets(items.subset, symmetric=["near"]) == ["on", "under"]
    assert kept_subsets(items.subset, min_count=31) == []


def test_alpha_curve_summary():
    items = pd.concat([i2t_items(n=80), pair_items(n=20)], ignore_index=True)
    curve, summary = alpha_curve(items, PRIOR, metric="sugarcrepe", seed=0, repeats=4)
    assert len(curve) == 1001 and curve.alpha.iloc[-1] == 1.0
    assert summary["accuracy_alpha0"] == curve.accuracy.iloc[0]
    assert summary["accuracy_alpha1"] == curve.accuracy.iloc[-1]
    assert summary["oracle"]["accuracy"] == curve.accuracy.max()
    assert len(summary["validation"]["repeats"]) == 4


def test_validation_accuracies_are_percentages():
    items = i2t_items(n=50)
    _, summary = alpha_curve(items, PRIOR, metric="sugarcrepe", repeats=3)
    for rec in summary["validation"]["repeats"]:
        assert 1 < rec["test_accuracy"] <= 100 or rec["test_accuracy"] == 0
    mean = summary["validation"]["summary"]["test_accuracy_alpha0"]["mean"]
    assert 1 < mean <= 100


def test_prior_only_baseline_is_blind_and_pair_text_scores_are_zero():
    items = pd.concat([i2t_items(n=60), pair_items(n=20)], ignore_index=True)
    _, summary = alpha_curve(items, PRIOR, metric="sugarcrepe", repeats=2)
    i2t = items[items.protocol == "i2t"]
    by_prior = [int(np.argmax([PRIOR[t] for t in texts])) == label
                for texts, label in zip(i2t.texts, i2t.label, strict=True)]
    # a blind scorer picks the same text for both images of a pair: no text score
    assert summary["accuracy_prior_only"] == pytest.approx(100 * sum(by_prior) / len(items),
                                                           abs=1e-3)


def test_other_priors_get_their_own_prior_only_accuracy():
    items = i2t_items(n=40)
    flipped = {t: -v for t, v in PRIOR.items()}
    _, summary = alpha_curve(items, PRIOR, metric="sugarcrepe", repeats=2,
                             other_priors={"llm": flipped, "same": PRIOR})
    assert summary["accuracy_prior_only_same"] == summary["accuracy_prior_only"]
    assert summary["accuracy_prior_only_llm"] != summary["accuracy_prior_only"]


def test_pair_scores_at_the_oracle_alpha_add_the_group_score():
    from vlcomp.metrics.alpha_curves import pair_columns_at, pair_image_scores, pair_scores_of

    items = pair_items(n=50)
    _, summary = alpha_curve(items, PRIOR, metric="winoground", step=0.01, repeats=2)
    oracle = summary["oracle"]
    # the text score at alpha* is the oracle accuracy; the image score ignores alpha
    assert oracle["pair"]["I2T"] == oracle["accuracy"]
    raw = pair_scores_batch(np.stack([np.asarray(s) for s in items.scores]), "strict")
    np.testing.assert_array_equal(pair_image_scores(items), raw["T2I"])
    assert oracle["pair"]["T2I"] == pytest.approx(100 * raw["T2I"].mean(), abs=1e-3)
    at = pair_columns_at(items, PRIOR, oracle["alpha"])
    np.testing.assert_array_equal(at["Group"], at["I2T"] & raw["T2I"])
    assert oracle["pair"]["Group"] == pytest.approx(100 * at["Group"].mean(), abs=1e-3)
    assert oracle["pair"]["Group"] <= min(oracle["pair"]["I2T"], oracle["pair"]["T2I"])
    np.testing.assert_array_equal(pair_columns_at(items, PRIOR, 1.0)["I2T"], pair_scores_batch(
        np.stack(pmi(items)), "strict")["I2T"])
    first = np.arange(50) < 10
    assert pair_scores_of(raw["I2T"], raw["T2I"], first) == {
        k: round(100 * float(raw[k][:10].mean()), 4) for k in ("I2T", "T2I", "Group")}
    assert "pair" not in alpha_curve(i2t_items(n=20), PRIOR, metric="sugarcrepe", step=0.1,
                                     repeats=2)[1]["oracle"]


def test_subset_oracle_scores_pick_each_subsets_own_alpha():
    from vlcomp.metrics.alpha_curves import subset_oracle_scores

    items = pair_items(n=60)
    masks = {"all": np.ones(60, bool), "first": np.arange(60) < 20, "none": np.zeros(60, bool)}
    found = subset_oracle_scores(items, PRIOR, masks, step=0.01)
    assert set(found) == {"all", "first"} and found["first"]["n"] == 20
    for name, mask in (("all", masks["all"]), ("first", masks["first"])):
        _, alone = alpha_curve(items[mask].reset_index(drop=True), PRIOR, metric="winoground",
                               step=0.01, repeats=2)
        assert found[name]["alpha"] == alone["oracle"]["alpha"]
        assert found[name]["oracle"] == alone["oracle"]["pair"]
        assert found[name]["alpha0"]["I2T"] == alone["accuracy_alpha0"]


def test_held_out_accuracy_uses_the_alpha_curves_halves():
    from vlcomp.metrics.alpha_curves import held_out_accuracy

    items = pair_items(n=41)
    record = held_out_accuracy(items, metric="winoground", seed=3, repeats=4)
    _, summary = alpha_curve(items, PRIOR, metric="winoground", step=0.1, seed=3, repeats=4)
    # no alpha: the held-out text score of the raw scores on the same four halves
    assert record["validation"]["summary"]["test_accuracy"] == \
        summary["validation"]["summary"]["test_accuracy_alpha0"]
    assert record["accuracy"] == summary["accuracy_alpha0"]
    assert record["n_items"] == 41 and record["validation"]["summary"]["test_accuracy"]["std"] > 0
