"""Tests for vlcomp.metrics: choice rules, BiVLC/SugarCrepe regressions, ARO aggregation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.benchmarks import (
    METRIC_FUNCTIONS,
    aro_attribution_metrics,
    aro_relation_metrics,
    bivlc_aggregate,
    bivlc_metrics,
    order_metrics,
    sugarcrepe_aggregate,
    sugarcrepe_metrics,
)
from vlcomp.metrics.choice import (
    PAIR_COLUMNS,
    choice_correct,
    combine_pair_columns,
    pair_scores,
    pair_scores_batch,
)
from vlcomp.metrics.compute import compute_metrics

from .conftest import SHARED_DATA

# Per-item results of the reference code, in ../shared/data beside the repository (CI has it).
DATA = SHARED_DATA / "bivlc"
BIVLC_CSV = DATA / "BiVLC_ViT-B-32.csv"
SUGARCREPE_CSV = DATA / "SUGARCREPE_CORRECT_ViT-B-32.csv"

# Reference E.1 in S[image, text] layout: s(C0,I0)=.30, s(C1,I0)=.25, s(C0,I1)=.28, s(C1,I1)=.27.
E1 = [[0.30, 0.25], [0.28, 0.27]]


def _bench(rows: list[dict], protocol: str, tie_policy: str) -> pd.DataFrame:
    """A minimal benchmark table in the choice schema (scores merged in)."""
    frame = pd.DataFrame(rows)
    frame["item_id"] = [f"i{k}" for k in range(len(frame))]
    frame["protocol"] = protocol
    frame["tie_policy"] = tie_policy
    frame["image_ids"] = [["img"] for _ in range(len(frame))]
    frame["texts"] = [["a", "b"] for _ in range(len(frame))]
    return frame


# --- 2×2 rules (reference E.1, E.2) -------------------------------------------------------


def test_pair_scores_e1_values() -> None:
    assert pair_scores(E1) == {
        "Ipos2T": True,
        "Ineg2T": False,
        "Tpos2I": True,
        "Tneg2I": True,
        "I2T": False,
        "T2I": True,
        "Group": False,
    }


def test_pair_scores_all_equal_is_all_false() -> None:
    assert not any(pair_scores([[0.5, 0.5], [0.5, 0.5]]).values())


def test_pair_scores_clean_diagonal_is_all_true() -> None:
    assert all(pair_scores([[0.9, 0.1], [0.1, 0.9]]).values())


def test_pair_orientation_transpose_flips_i2t_t2i() -> None:
    correct = pair_scores(E1)
    transposed = pair_scores(np.asarray(E1).T)
    assert (correct["I2T"], correct["T2I"]) == (False, True)
    assert (transposed["I2T"], transposed["T2I"]) == (True, False)


def test_pair_scores_batch_matches_single() -> None:
    rng = np.random.default_rng(0)
    batch = rng.random((50, 2, 2)).round(1)  # rounding creates ties
    columns = pair_scores_batch(batch)
    assert set(columns) == set(PAIR_COLUMNS)
    for n in range(len(batch)):
        single = pair_scores(batch[n])
        assert {k: bool(v[n]) for k, v in columns.items()} == single


def test_pair_lenient_counts_ties() -> None:
    equal = np.full((1, 2, 2), 0.5)
    assert pair_scores_batch(equal, "lenient")["Group"].tolist() == [True]
    assert choice_correct(equal, "pair", None, "strict").tolist() == [False]


# --- choice protocols (ARO §9 items 9, 10) -------------------------------------------------


def test_aro_vg_scoring_strict() -> None:
    scores = [[[0.2, 0.3]], [[0.5, 0.1]], [[0.4, 0.4]]]  # texts [false, true]
    got = choice_correct(scores, "i2t", [1, 1, 1], "strict")
    assert got.tolist() == [True, False, False]


def test_order_scoring_lenient_all_equal_is_correct() -> None:
    scores = np.array(
        [
            [[0.9, 0.1, 0.2, 0.3, 0.4]],
            [[0.1, 0.9, 0.2, 0.3, 0.4]],
            [[0.5, 0.5, 0.5, 0.5, 0.5]],
        ]
    )
    assert choice_correct(scores, "i2t", [0, 0, 0], "lenient").tolist() == [True, False, True]
    assert choice_correct(scores, "i2t", [0, 0, 0], "strict").tolist() == [True, False, False]


def test_t2i_uses_image_axis() -> None:
    scores = [[[0.1], [0.7], [0.3]]]  # 3 images × 1 text
    assert choice_correct(scores, "t2i", [1]).tolist() == [True]
    assert choice_correct(scores, "t2i", [0]).tolist() == [False]


def test_choice_correct_ragged_shapes_and_errors() -> None:
    scores = [[[0.2, 0.3]], [[0.1, 0.2, 0.9]]]
    assert choice_correct(scores, "i2t", [1, 2]).tolist() == [True, True]
    with pytest.raises(ValueError, match="protocol"):
        choice_correct(scores, "x2y", [0, 0])
    with pytest.raises(ValueError, match="tie_policy"):
        choice_correct(scores, "i2t", [0, 0], "fuzzy")
    with pytest.raises(ValueError, match="labels"):
        choice_correct(scores, "i2t", [5, 0])


# --- ARO aggregation -----------------------------------------------------------------------


def _vg_frame(spec: dict[str, tuple[int, int]]) -> pd.DataFrame:
    """VG rows: subset -> (n correct, n total); correct rows score the true text higher."""
    rows = []
    for subset, (n_correct, n_total) in spec.items():
        for k in range(n_total):
            true_score = 0.6 if k < n_correct else 0.4
            rows.append({"subset": subset, "scores": [[0.5, true_score]], "label": 1})
    return _bench(rows, "i2t", "strict")


def test_aro_attribution_drops_small_pairs_from_macro() -> None:
    frame = _vg_frame({"big_small": (30, 30), "red_blue": (0, 25), "tiny_pair": (0, 24)})
    result = aro_attribution_metrics(frame, min_count=25)
    assert result["overall"]["macro_accuracy"] == 50.0
    assert result["overall"]["n_macro_subsets"] == 2
    assert result["overall"]["micro_accuracy"] == round(100 * 30 / 79, 4)
    assert result["excluded"] == {"tiny_pair": "count < 25"}
    assert result["subsets"]["tiny_pair"] == {"accuracy": 0.0, "correct": 0, "n": 24}
    assert aro_attribution_metrics(frame, min_count=0)["overall"]["n_macro_subsets"] == 3


def test_aro_relation_excludes_symmetric() -> None:
    frame = _vg_frame({"on": (3, 4), "next to": (0, 4), "rare": (1, 1)})
    result = aro_relation_metrics(frame, symmetric=["next to"], min_count=0)
    assert result["overall"]["macro_accuracy"] == round(100 * (0.75 + 1.0) / 2, 4)
    assert result["excluded"] == {"next to": "symmetric"}
    assert result["metric"] == "aro_relation"
    assert result["tie_policy"] == "strict"
    filtered = aro_relation_metrics(frame, symmetric=["next to"], min_count=2)
    assert filtered["excluded"]["rare"] == "count < 2"
    assert filtered["overall"]["macro_accuracy"] == 75.0


def test_aro_relation_group_subtotals_are_unweighted_means_of_their_relations() -> None:
    frame = _vg_frame({"on": (3, 4), "above": (1, 10), "next to": (0, 4), "riding": (2, 2)})
    groups = {"spatial": ["on", "above", "next to", "under"], "verbs": ["riding"]}
    result = aro_relation_metrics(frame, symmetric=["next to"], groups=groups)
    spatial = result["groups"]["spatial"]
    # (0.75 + 0.10) / 2, not the pooled 4/14; "next to" is excluded, "under" is absent
    assert spatial == {"macro_accuracy": 42.5, "n_relations": 2, "n": 14, "missing": ["under"]}
    assert result["groups"]["verbs"]["macro_accuracy"] == 100.0
    assert result["groups"]["verbs"]["n_relations"] == 1
    assert "groups" not in aro_relation_metrics(frame)


def test_order_metrics_per_seed_population_std() -> None:
    rows = []
    for seed, n_correct in ((0, 1), (1, 3)):
        for k in range(4):
            row = [0.9, 0.1] if k < n_correct else [0.1, 0.9]
            rows.append({"subset": "coco_order", "seed": seed, "scores": [row], "label": 0})
    result = order_metrics(_bench(rows, "i2t", "lenient"))
    assert result["seeds"]["0"]["precision_at_1"] == 25.0
    assert result["seeds"]["1"]["precision_at_1"] == 75.0
    assert result["overall"]["mean"] == 50.0
    assert result["overall"]["std"] == 25.0  # ddof=0; sample std would be 35.3553
    assert result["options"]["std_ddof"] == 0


# --- SugarCrepe / BiVLC regressions on the committed CLIP ViT-B-32 results -------------------


def test_sugarcrepe_regression_counts() -> None:
    table = pd.read_csv(SUGARCREPE_CSV)
    assert len(table) == 7512
    subsets = (table["type"] + "_" + table["subtype"]).tolist()
    result = sugarcrepe_aggregate(table["correct"].to_numpy() == 1, subsets)
    counts = {name: entry["correct"] for name, entry in result["subsets"].items()}
    assert counts == {
        "add_obj": 1592,
        "add_att": 476,
        "replace_obj": 1502,
        "replace_att": 631,
        "replace_rel": 973,
        "swap_obj": 151,
        "swap_att": 426,
    }
    assert list(result["subsets"]) == list(counts)
    assert result["overall"]["n"] == 7512
    assert round(result["overall"]["accuracy"], 2) == 76.56


def test_bivlc_regression_table2_and_table6() -> None:
    table = pd.read_csv(BIVLC_CSV)
    assert len(table) == 2933
    assert table["type"].value_counts().to_dict() == {"replace": 2099, "add": 475, "swap": 359}
    flags = {
        "Ipos2T": table["text_score_i0"],
        "Ineg2T": table["text_score_i1"],
        "Tpos2I": table["image_score_c0"],
        "Tneg2I": table["image_score_c1"],
    }
    result = bivlc_aggregate(flags, table["type"].tolist(), table["subtype"].tolist())
    overall = {k: round(v, 2) for k, v in result["overall"].items() if k != "n"}
    assert overall == {
        "I2T": 75.83,
        "T2I": 52.40,
        "Group": 49.06,
        "Ipos2T": 84.32,
        "Ineg2T": 89.50,
        "Tpos2I": 69.21,
        "Tneg2I": 82.82,
    }
    assert result["overall"]["n"] == 2933
    assert {t: e["n"] for t, e in result["types"].items()} == {
        "replace": 2099,
        "swap": 359,
        "add": 475,
    }
    assert sum(e["n"] for e in result["subsets"].values()) == 2933
    assert result["subsets"]["swap_obj"]["n"] == 81


def test_bivlc_csv_conjunctions_match_per_row() -> None:
    table = pd.read_csv(BIVLC_CSV)
    columns = combine_pair_columns(
        table["text_score_i0"],
        table["text_score_i1"],
        table["image_score_c0"],
        table["image_score_c1"],
    )
    assert np.array_equal(columns["I2T"], table["text_score"].to_numpy(dtype=bool))
    assert np.array_equal(columns["T2I"], table["image_score"].to_numpy(dtype=bool))
    assert np.array_equal(columns["Group"], table["group_score"].to_numpy(dtype=bool))


# --- metric functions over score matrices ----------------------------------------------------


def test_bivlc_metrics_from_matrices() -> None:
    rows = [
        {"subset": "replace_obj", "type": "replace", "subtype": "obj", "scores": E1},
        {
            "subset": "swap_att",
            "type": "swap",
            "subtype": "att",
            "scores": [[0.9, 0.1], [0.1, 0.9]],
        },
    ]
    frame = _bench(rows, "pair", "strict").assign(label=0)
    result = bivlc_metrics(frame, benchmark="bivlc")
    assert result["overall"]["Group"] == 50.0
    assert result["overall"]["T2I"] == 100.0
    assert result["types"]["replace"]["I2T"] == 0.0
    assert result["subsets"]["swap_att"]["Group"] == 100.0
    assert result["benchmark"] == "bivlc" and result["n_items"] == 2


def test_sugarcrepe_metrics_tie_is_wrong() -> None:
    rows = [
        {"subset": "add_obj", "scores": [[0.2, 0.8]], "label": 1},
        {"subset": "add_obj", "scores": [[0.5, 0.5]], "label": 1},
        {"subset": "swap_att", "scores": [[0.9, 0.1]], "label": 0},
    ]
    result = sugarcrepe_metrics(_bench(rows, "i2t", "strict"))
    assert result["subsets"]["add_obj"]["accuracy"] == 50.0
    assert result["overall"]["accuracy"] == round(200 / 3, 4)
    assert list(result["subsets"]) == ["add_obj", "swap_att"]


def test_compute_metrics_merges_and_is_json_stable() -> None:
    bench = _bench(
        [{"subset": "add_obj", "label": 1}, {"subset": "add_att", "label": 0}], "i2t", "strict"
    )
    scores = pd.DataFrame(
        {"item_id": ["i1", "i0"], "scores": [[[0.9, 0.1]], [[0.1, 0.9]]]}
    )  # shuffled order
    first = compute_metrics("sugarcrepe", bench, scores, benchmark="sc")
    second = compute_metrics("sugarcrepe", bench, scores.iloc[::-1], benchmark="sc")
    assert first["overall"]["accuracy"] == 100.0
    assert json.dumps(first, sort_keys=False) == json.dumps(second, sort_keys=False)
    assert set(METRIC_FUNCTIONS) == {
        "bison",
        "bison_altered",
        "aro_relation",
        "aro_attribution",
        "order",
        "sugarcrepe",
        "bivlc",
        "winoground",
    }


def test_compute_metrics_reports_misaligned_ids() -> None:
    bench = _bench([{"subset": "a", "label": 0}, {"subset": "a", "label": 0}], "i2t", "strict")
    scores = pd.DataFrame({"item_id": ["i0", "zz"], "scores": [[[1.0, 0.0]], [[1.0, 0.0]]]})
    with pytest.raises(ValueError, match=r"missing from scores: i1.*extra item ids in scores: zz"):
        compute_metrics("sugarcrepe", bench, scores)
    with pytest.raises(ValueError, match="unknown metric kind"):
        compute_metrics("nope", bench, scores)
