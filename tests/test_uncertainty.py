"""Bootstrap CIs over items, paired tests and seed spreads (vlcomp.metrics.uncertainty)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.items import make_items
from vlcomp.metrics.benchmarks import merge_scores
from vlcomp.metrics.compute import compute_metrics
from vlcomp.metrics.uncertainty import (
    Outcome,
    bootstrap_models,
    headline_outcomes,
    mcnemar,
    paired_bootstrap_p,
    seed_spread,
)


def choice_bench(n: int, protocol: str, subsets: list[str], seed: int = 0, skill: float = 0.7,
                 extra: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items of one protocol and random scores that pick the right option with ``skill``."""
    rng = np.random.default_rng(seed)
    shape = {"i2t": (1, 2), "t2i": (2, 1), "pair": (2, 2)}[protocol]
    rows, scores = [], []
    for k in range(n):
        rows.append({"item_id": f"i{k}", "subset": subsets[k % len(subsets)],
                     "image_ids": [f"m{j}" for j in range(shape[0])],
                     "texts": [f"t{j}" for j in range(shape[1])], "protocol": protocol,
                     "label": 0, "tie_policy": "strict",
                     **{c: v[k % len(v)] for c, v in (extra or {}).items()}})
        matrix = rng.normal(size=shape)
        if rng.random() < skill:
            matrix += 3 * np.eye(*shape)
        scores.append({"item_id": f"i{k}", "scores": matrix.tolist()})
    return make_items(rows), pd.DataFrame(scores)


CASES = {
    "sugarcrepe": ("i2t", ["add_obj", "replace_att", "swap_obj"], {}, {}),
    "aro_relation": ("i2t", ["on", "near", "left of", "rare"], {},
                     {"symmetric": ["near"], "min_count": 30,
                      "groups": {"spatial": ["on", "left of", "near", "under"]}}),
    "aro_attribution": ("i2t", ["red_blue", "big_small", "odd"], {}, {"min_count": 40}),
    "order": ("i2t", ["shuffle_nouns"], {"seed": [0, 1, 2]}, {}),
    "bison": ("t2i", ["bison"], {}, {}),
    "bison_altered": ("t2i", ["original", "negate", "permute"], {}, {}),
    "bivlc": ("pair", ["replace_obj", "swap_att", "add_obj"], {}, {}),
    "winoground": ("pair", ["Object", "Relation"], {}, {}),
}
REPORTED = {  # the numbers compute_metrics puts in "overall" for each headline metric
    "sugarcrepe": {"accuracy": "accuracy"},
    "aro_relation": {"macro_accuracy": "macro_accuracy", "micro_accuracy": "micro_accuracy"},
    "aro_attribution": {"macro_accuracy": "macro_accuracy", "micro_accuracy": "micro_accuracy"},
    "order": {"mean": "mean"},
    "bison": {"accuracy": "accuracy"},
    "bison_altered": {"original accuracy": "accuracy"},
    "bivlc": {m: m for m in ("I2T", "T2I", "Group", "Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I")},
    "winoground": {"I2T": "I2T", "T2I": "T2I", "Group": "Group"},
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_full_sample_values_are_the_reported_metrics(kind):
    protocol, subsets, extra, options = CASES[kind]
    items, scores = choice_bench(301, protocol, subsets, extra=extra)
    if kind == "bison_altered":  # each alteration of item k points at its original
        items["base_item_id"] = [f"i{k - k % 3}" for k in range(len(items))]
    if kind == "aro_relation":  # a relation below min_count
        items.loc[items.subset == "rare", "subset"] = ["rare"] * 20 + ["on"] * (
            int((items.subset == "rare").sum()) - 20)
    reported = compute_metrics(kind, items, scores, benchmark=kind, **options)["overall"]
    outcomes = {o.metric: o for o in headline_outcomes(kind, merge_scores(items, scores),
                                                       options)}
    for metric, key in REPORTED[kind].items():
        assert outcomes[metric].value()[0] == pytest.approx(reported[key], abs=0.01), metric
    full = compute_metrics(kind, items, scores, benchmark=kind, **options)
    if kind in ("sugarcrepe", "aro_relation", "bison"):  # per subset / relation / template
        for name, entry in full["subsets"].items():
            assert outcomes[f"{name} accuracy"].value()[0] == pytest.approx(entry["accuracy"],
                                                                          abs=0.01)
    if kind == "bison_altered":  # BISON Fig. 9 per alteration: accuracy and % changed
        for name, entry in full["subsets"].items():
            assert outcomes[f"{name} accuracy"].value()[0] == pytest.approx(entry["accuracy"],
                                                                          abs=0.01)
            if name != "original":
                assert outcomes[f"{name} changed_prediction"].value()[0] == pytest.approx(
                    entry["changed_prediction"], abs=0.01), name
    if kind == "aro_relation":  # ARO Table 2's section subtotals
        assert outcomes["spatial macro_accuracy"].value()[0] == pytest.approx(
            full["groups"]["spatial"]["macro_accuracy"], abs=0.01)
    if kind in ("bivlc", "winoground"):  # per negative type / subset
        groups = full["types"] if kind == "bivlc" else full["subsets"]
        for name, entry in groups.items():
            for metric in ("I2T", "T2I", "Group"):
                assert outcomes[f"{name} {metric}"].value()[0] == pytest.approx(
                    entry[metric], abs=0.01), (name, metric)


def test_intervals_hold_the_value_shrink_with_items_and_repeat_by_seed():
    widths = []
    for n in (200, 3200):
        items, scores = choice_bench(n, "i2t", ["a"], skill=0.6)
        boot = bootstrap_models("sugarcrepe", items, {"m": scores}, benchmark="b",
                                n_resamples=400, seed=0)
        row = boot.table().iloc[0]
        assert row.ci_low < row.value < row.ci_high and row.n == n
        widths.append(row.ci_high - row.ci_low)
        again = bootstrap_models("sugarcrepe", items, {"m": scores}, benchmark="b",
                                 n_resamples=400, seed=0).table()
        pd.testing.assert_frame_equal(boot.table(), again)
        other = bootstrap_models("sugarcrepe", items, {"m": scores}, benchmark="b",
                                 n_resamples=400, seed=1)
        assert not np.array_equal(other.draws["m", "accuracy"], boot.draws["m", "accuracy"])
    assert 3 < widths[0] / widths[1] < 5.5  # about sqrt(16) = 4
    # the binomial standard error: a 95 % interval of about ±1.96 sqrt(p(1-p)/n)
    p = 0.6 + 0.4 * 0.5  # right when boosted, else a coin flip
    assert widths[1] == pytest.approx(2 * 1.96 * 100 * np.sqrt(p * (1 - p) / 3200), rel=0.25)


def test_paired_comparisons_use_the_same_items():
    items, good = choice_bench(600, "i2t", ["a"], seed=1, skill=0.8)
    _, weak = choice_bench(600, "i2t", ["a"], seed=2, skill=0.3)
    boot = bootstrap_models("sugarcrepe", items, {"good": good, "copy": good, "weak": weak},
                            benchmark="b", n_resamples=500, seed=0)
    pairs = boot.comparisons().set_index(["model_a", "model_b", "metric"])
    same = pairs.loc[("good", "copy", "accuracy")]
    assert same.difference == 0 and same.p_bootstrap == 1 and same.p_mcnemar == 1
    assert same.ci_low == same.ci_high == 0
    far = pairs.loc[("good", "weak", "accuracy")]
    assert far.difference > 20 and far.p_bootstrap < 0.01 and far.p_mcnemar < 1e-6
    assert far.ci_low > 0 and far.only_a > far.only_b


def test_mcnemar_and_bootstrap_p_by_hand():
    a = Outcome("m", np.array([1, 1, 1, 0, 1, 0]), np.ones(6, bool))
    b = Outcome("m", np.array([0, 0, 1, 0, 1, 1]), np.ones(6, bool))
    result = mcnemar(a, b)
    assert (result["only_a"], result["only_b"]) == (2, 1)
    assert result["p_mcnemar"] == pytest.approx(1.0)  # binomial(2 of 3, 1/2), two-sided
    assert paired_bootstrap_p(np.array([1.0, 2.0, 3.0, -1.0])) == pytest.approx(0.5)
    assert paired_bootstrap_p(np.array([1.0, 2.0])) == 0.0


def test_macro_metrics_resample_items_not_groups():
    """A macro over groups: each resample recomputes every group's accuracy, and a group
    outside the macro (too small) never enters it."""
    values = np.array([1, 1, 0, 0, 1, 0])
    groups = np.array(["x", "x", "y", "y", "z", "z"])
    counted = groups != "z"
    o = Outcome("macro", values, counted, groups)
    assert o.value()[0] == 50.0  # x 100 %, y 0 %
    weights = np.array([[2, 0, 0, 1, 3, 0], [0, 0, 1, 1, 0, 0]], dtype=float)
    assert o.value(weights).tolist() == [50.0, 0.0]  # the second draws only y: y alone


def test_seed_spread_sets_training_seeds_beside_item_spread():
    table = pd.DataFrame({"model": ["a_s0", "a_s1", "a_s2", "b"], "metric": ["acc"] * 4,
                          "value": [60.0, 62.0, 64.0, 50.0], "ci_low": [55.0, 57, 59, 45],
                          "ci_high": [65.0, 67, 69, 55]})
    spread = seed_spread(table, {"a": ["a_s0", "a_s1", "a_s2"], "b": ["b"]})
    assert spread.to_dict("records") == [{"group": "a", "metric": "acc", "seeds": 3,
                                          "mean": 62.0, "seed_std": 2.0,
                                          "mean_ci_width": 10.0}]


def test_seed_files_keep_their_columns_when_no_seed_group_has_the_benchmark():
    """A benchmark scored only by single models (a classification set of the pretrained
    CLIP while CLIP-FT has two seeds): its seeds file still has the interval columns, and
    the lookup of the group finds no number instead of failing."""
    from vlcomp.report.intervals import Numbers

    table = pd.DataFrame({"model": ["b"], "metric": ["acc"], "value": [50.0],
                          "ci_low": [45.0], "ci_high": [55.0]})
    empty = pd.DataFrame(columns=["group", "metric", "seeds", "value", "ci_low", "ci_high"])
    spread = seed_spread(table, {"a": ["a_s0", "a_s1"], "b": ["b"]}, empty)
    assert list(spread.columns) == ["group", "metric", "seeds", "mean", "seed_std",
                                    "mean_ci_width", "ci_low", "ci_high"] and spread.empty
    numbers = Numbers({"set": table}, {"set": spread}, {"a": ["a_s0", "a_s1"], "b": ["b"]})
    assert numbers.get("b", "set", "acc") == (50.0, 45.0, 55.0, None)
    assert numbers.get("a", "set", "acc") is None


def test_unknown_kind_and_bad_confidence_are_named():
    items, scores = choice_bench(10, "i2t", ["a"])
    with pytest.raises(ValueError, match="kind 'retrieval'"):
        headline_outcomes("retrieval", merge_scores(items, scores))
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_models("sugarcrepe", items, {"m": scores}, benchmark="b", confidence=95)


def test_group_means_get_an_item_level_interval():
    items, s0 = choice_bench(400, "i2t", ["a"], seed=3)
    _, s1 = choice_bench(400, "i2t", ["a"], seed=4)
    boot = bootstrap_models("sugarcrepe", items, {"m_s0": s0, "m_s1": s1, "x": s0},
                            benchmark="b", n_resamples=300, seed=0)
    groups = boot.group_table({"M": ["m_s0", "m_s1"], "X": ["x"]})
    assert set(groups.group) == {"M"}  # one seed: no group row
    row = groups[groups.metric == "accuracy"].iloc[0]
    table = boot.table()
    members = table[(table.metric == "accuracy") & table.model.isin(["m_s0", "m_s1"])]
    assert row.value == pytest.approx(members.value.mean()) and row.seeds == 2
    assert row.ci_low < row.value < row.ci_high
    spread = seed_spread(table, {"M": ["m_s0", "m_s1"]}, groups)
    assert {"ci_low", "ci_high", "seed_std"} <= set(spread.columns)


def test_retrieval_recalls_resample_images_with_their_texts():
    from vlcomp.metrics.retrieval import retrieval_hits, retrieval_metrics
    from vlcomp.metrics.uncertainty import bootstrap_outcomes, retrieval_outcomes

    rng = np.random.default_rng(0)
    images = rng.normal(size=(40, 8))
    links = np.repeat(np.arange(40), [1 + k % 3 for k in range(40)])  # 1-3 texts per image
    texts = images[links] + rng.normal(scale=1.2, size=(len(links), 8))
    images /= np.linalg.norm(images, axis=1, keepdims=True)
    texts /= np.linalg.norm(texts, axis=1, keepdims=True)
    reported = retrieval_metrics(images, texts, links)["overall"]
    outcomes = retrieval_outcomes(retrieval_hits(images, texts, links), links)
    for o in outcomes:  # t2i: a mean over texts, not over images
        assert o.value()[0] == pytest.approx(reported[o.metric], abs=1e-3), o.metric
    boot = bootstrap_outcomes({"m": outcomes, "same": outcomes}, 40, benchmark="r",
                              n_resamples=200, seed=0)
    table = boot.table()
    assert (table.ci_low <= table.value).all() and (table.value <= table.ci_high).all()
    pairs = boot.comparisons().set_index("metric")
    assert pairs.loc["t2i_r1", "p_bootstrap"] == 1.0
    assert np.isnan(pairs.loc["t2i_r1", "p_mcnemar"])  # per-image means are not 0/1 pairs
    assert pairs.loc["i2t_r1", "p_mcnemar"] == 1.0


def test_jackknife_leaves_each_item_out():
    from vlcomp.metrics.uncertainty import jackknife

    values = np.array([1, 0, 1, 1, 0, 1.0])
    groups = np.array(["x", "x", "y", "y", "y", "z"])
    for outcome in (Outcome("micro", values, np.ones(6, bool)),
                    Outcome("macro", values, groups != "z", groups)):
        brute = []
        for i in range(6):
            weights = np.ones((1, 6))
            weights[0, i] = 0
            brute.append(outcome.value(weights)[0])
        np.testing.assert_allclose(jackknife(outcome), brute)


def test_bca_agrees_with_scipy_on_a_skewed_proportion():
    from scipy.stats import bootstrap

    values = np.zeros(120)
    values[:7] = 1  # 5.8 %: the percentile interval is biased near 0
    outcome = Outcome("acc", values, np.ones(120, bool))
    ours = bootstrap_outcomes_table(outcome, "bca")
    reference = bootstrap((values * 100,), np.mean, n_resamples=5000, method="BCa",
                          random_state=np.random.default_rng(0)).confidence_interval
    assert ours.ci_low == pytest.approx(reference.low, abs=1.0)
    assert ours.ci_high == pytest.approx(reference.high, abs=1.0)
    percentile = bootstrap_outcomes_table(outcome, "percentile")
    assert (ours.ci_low, ours.ci_high) != (percentile.ci_low, percentile.ci_high)
    with pytest.raises(ValueError, match="interval method 'normal'"):
        bootstrap_outcomes_table(outcome, "normal")


def bootstrap_outcomes_table(outcome: Outcome, method: str):
    from vlcomp.metrics.uncertainty import bootstrap_outcomes

    boot = bootstrap_outcomes({"m": [outcome]}, len(outcome.values), benchmark="b",
                              n_resamples=5000, seed=0, method=method)
    return boot.table().iloc[0]


def test_a_models_metrics_of_the_same_items_are_compared_paired():
    """BiVLC's I2T and T2I count the same items: their difference is bootstrapped on the same
    resamples (narrower than two independent intervals); metrics of other items (a category)
    are not paired with them."""
    from vlcomp.metrics.uncertainty import with_metric_pairs

    items, scores = choice_bench(400, "pair", ["replace_obj", "swap_att"], seed=3, skill=0.7)
    boot = bootstrap_models("bivlc", items, {"m": scores}, benchmark="b", n_resamples=400,
                            seed=0)
    pairs = boot.metric_comparisons()
    assert set(pairs.model_a) == {"m"} and (pairs.model_a == pairs.model_b).all()
    i2t_t2i = pairs[(pairs.metric == "I2T") & (pairs.metric_b == "T2I")].iloc[0]
    table = boot.table().set_index("metric")
    assert i2t_t2i.difference == pytest.approx(table.value["I2T"] - table.value["T2I"])
    independent = np.hypot(table.ci_high["I2T"] - table.ci_low["I2T"],
                           table.ci_high["T2I"] - table.ci_low["T2I"])
    assert i2t_t2i.ci_high - i2t_t2i.ci_low < independent
    counted = {o.metric: o.counted for o in boot.outcomes["m"]}
    for r in pairs.itertuples():
        assert np.array_equal(counted[r.metric], counted[r.metric_b])
    both = with_metric_pairs(boot.comparisons(), pairs)
    assert list(both.columns[:4]) == ["model_a", "model_b", "metric", "metric_b"]
    assert len(both) == len(pairs)  # one model: no model pairs


def test_an_alteration_is_compared_with_its_own_originals_paired():
    """BISON's negated queries against the same items' original queries (Fig. 9): each
    altered row carries its original's outcome ("negate original accuracy"), which counts the
    same rows as "negate accuracy" and so is bootstrapped pairwise with it."""
    items, scores = choice_bench(300, "t2i", ["original", "negate", "permute"], seed=5,
                                 skill=0.6)
    items["base_item_id"] = [f"i{k - k % 3}" for k in range(len(items))]
    boot = bootstrap_models("bison_altered", items, {"m": scores}, benchmark="b",
                            n_resamples=400, seed=0)
    outcomes = {o.metric: o for o in boot.outcomes["m"]}
    original = outcomes["original accuracy"]
    for s in ("negate", "permute"):
        mine = outcomes[f"{s} original accuracy"]
        assert np.array_equal(mine.counted, outcomes[f"{s} accuracy"].counted)
        # every third row is an original and the next two its alterations
        assert mine.value()[0] == pytest.approx(original.value()[0])
    pairs = boot.metric_comparisons().set_index(["metric", "metric_b"])
    row = pairs.loc[("negate accuracy", "negate original accuracy")]
    table = boot.table().set_index("metric")
    assert row.difference == pytest.approx(table.value["negate accuracy"]
                                           - table.value["negate original accuracy"])
    assert row.ci_low <= row.difference <= row.ci_high
