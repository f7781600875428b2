"""BISON §4.2's rank agreement (`vlcomp.metrics.rank_agreement`) and Figure 8's caption
scores of items predicted right and wrong (`vlcomp.metrics.caption_score_split`)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vlcomp.metrics.caption_score_split import positive_images, split_by_prediction
from vlcomp.metrics.rank_agreement import kendall_tau_b, rank_agreement

RNG = np.random.default_rng(11)


def test_tau_b_is_scipys_with_ties_row_by_row():
    x = RNG.integers(0, 4, size=(20, 6)).astype(float)
    y = RNG.integers(0, 4, size=(20, 6)).astype(float)
    ours = kendall_tau_b(x, y)
    for row, value in zip(zip(x, y, strict=True), ours, strict=True):
        expected = stats.kendalltau(*row).statistic
        if np.isnan(expected):
            assert np.isnan(value)
        else:
            assert value == pytest.approx(expected)
    assert np.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3])[0])  # one measure ranks all equal


def measure(values, spread=0.0, resamples=200, seed=0):
    """model -> value, model -> draws around it."""
    rng = np.random.default_rng(seed)
    return (dict(values), {m: v + rng.normal(0, spread, resamples) if spread else
                           np.full(resamples, v) for m, v in values.items()})


def test_the_same_order_is_plus_100_and_one_pair_of_ten_swapped_is_80():
    systems = {s: [s] for s in "abcde"}
    bison = measure({"a": 85.9, "b": 84.9, "c": 83.9, "d": 81.8, "e": 80.5})
    recall = measure({"a": 54.1, "b": 52.4, "c": 54.0, "d": 49.3, "e": 45.2})  # b, c swapped
    row = rank_agreement(bison, recall, systems, names=("x", "y")).iloc[0]
    assert (row.value, row.concordant, row.discordant, row.n) == (pytest.approx(80.0), 9, 1, 5)
    assert row.ci_low == row.ci_high == pytest.approx(80.0)  # draws keep the full order
    same = rank_agreement(bison, bison, systems, names=("x", "x")).iloc[0]
    assert same.value == 100.0 and same.p_bootstrap == 0.0
    reverse = measure({k: -v for k, v in bison[0].items()})
    assert rank_agreement(bison, reverse, systems, names=("x", "-x")).iloc[0].value == -100.0


def test_noisy_measures_widen_the_interval_and_seeds_are_averaged():
    systems = {"a": ["a0", "a1"], "b": ["b0"], "c": ["c0"]}
    bison = measure({"a0": 90.0, "a1": 80.0, "b0": 86.0, "c0": 70.0}, spread=4.0, seed=1)
    recall = measure({"a0": 60.0, "a1": 50.0, "b0": 56.0, "c0": 40.0}, spread=4.0, seed=2)
    row = rank_agreement(bison, recall, systems, names=("x", "y")).iloc[0]
    # a = 85 (mean of its seeds) < b = 86 on both: the same order, tau 1
    assert row.value == 100.0 and row.ci_low < 100.0 <= row.ci_high
    assert 0 < row.p_bootstrap < 0.5 and row.systems == "a; b; c"
    with pytest.raises(ValueError, match="at least 3 systems"):
        rank_agreement(bison, recall, {"a": ["a0"], "b": ["b0"]}, names=("x", "y"))
    with pytest.raises(ValueError, match="no number for d0"):
        rank_agreement(bison, recall, systems | {"d": ["d0"]}, names=("x", "y"))


def bison_items(labels):
    return pd.DataFrame({
        "item_id": [f"i{k}" for k in range(len(labels))], "subset": "bison",
        "image_ids": [[f"img{k}", f"neg{k}"] if lab == 0 else [f"neg{k}", f"img{k}"]
                      for k, lab in enumerate(labels)],
        "texts": [[f"caption {k}"] for k in range(len(labels))], "protocol": "t2i",
        "label": labels, "tie_policy": "strict"})


def test_caption_scores_of_items_predicted_right_and_wrong():
    labels = [0, 1, 0, 1, 0]
    items = bison_items(labels)
    assert positive_images(items) == [f"img{k}" for k in range(5)]
    # the captioner picks the right image on items 0, 1, 2 and the wrong one on 3, 4
    right = [True, True, True, False, False]
    scores = pd.DataFrame({"item_id": items.item_id, "scores": [
        [[1.0], [0.0]] if (lab == 0) == ok else [[0.0], [1.0]]
        for lab, ok in zip(labels, right, strict=True)]})
    per_image = {"cap": {"BLEU-4": {"img0": 30.0, "img1": 40.0, "img2": 50.0, "img3": 20.0,
                                    "img4": 40.0, "other": 99.0},
                         "CIDEr-D": {"img0": 100.0}}}
    table = split_by_prediction(items, {"cap": scores}, per_image, ["BLEU-4", "CIDEr-D", "SPICE"],
                                n_resamples=200)
    rows = table.set_index("metric")
    assert rows.loc["BLEU-4 right", "value"] == pytest.approx(40.0)
    assert rows.loc["BLEU-4 wrong", "value"] == pytest.approx(30.0)
    assert rows.loc["BLEU-4 right - wrong", "value"] == pytest.approx(10.0)
    assert rows.loc["BLEU-4 relative difference", "value"] == pytest.approx(100 * 10 / 36.0)
    assert (rows.loc["BLEU-4 right", "n"], rows.loc["BLEU-4 wrong", "n"]) == (3, 2)
    low, high = rows.loc["BLEU-4 right - wrong", ["ci_low", "ci_high"]]
    assert low < 10.0 < high
    # CIDEr-D: only item 0's positive image was captioned, and it was predicted right
    assert rows.loc["CIDEr-D right", "value"] == 100.0 and rows.loc["CIDEr-D right", "n"] == 1
    assert np.isnan(rows.loc["CIDEr-D wrong", "value"])
    assert not any(m.startswith("SPICE") for m in rows.index)  # a metric it does not have
    with pytest.raises(ValueError, match="no BISON item's positive image"):
        split_by_prediction(items, {"cap": scores}, {"cap": {"BLEU-4": {"x": 1.0}}},
                            ["BLEU-4"])
