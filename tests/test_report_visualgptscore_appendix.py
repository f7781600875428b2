"""VisualGPTScore's appendix tables (Tables 10-13) from metric, α-curve and tag records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.alpha_curves import alpha_curve
from vlcomp.report.visualgptscore import chance_level
from vlcomp.report.visualgptscore_appendix import (
    blip2_table,
    pair_score_cells,
    pair_score_table,
    tag_cells,
    tag_label,
    tag_table,
)

from .test_alpha_curves import PRIOR, pair_items


def _record(kind, **overall):
    return {"metric": kind, "overall": overall}


def test_tag_labels_are_table_13s():
    assert [tag_label(t) for t in ("No Tag", "Non Minimal", "Complex Reasoning",
                                   "Ambiguously Correct")] == [
        "No-Tag", "NonCompositional", "ComplexReasoning", "AmbiguouslyCorrect"]


def test_blip2_table_keeps_table_10s_benchmarks_and_no_best_row():
    results = {
        "itc": {"vg_relation": _record("aro_relation", macro_accuracy=46.4),
                "crepe_swap": _record("crepe", accuracy=13.4),
                "winoground": _record("winoground", I2T=30.0, T2I=10.5, Group=8.0)},
        "cap": {"vg_relation": _record("aro_relation", macro_accuracy=90.7),
                "crepe_swap": _record("crepe", accuracy=79.5)},
    }
    metrics = {"vg_relation": "aro_relation", "crepe_swap": "crepe", "winoground": "winoground"}
    items = pd.DataFrame({"texts": [["a", "b"]], "image_ids": [["i"]], "protocol": "i2t"})
    chance = {b: chance_level(items, k) for b, k in metrics.items()}
    table = blip2_table(results, metrics, chance, {"Q ITC": ["itc"], "Q LM": ["cap"]},
                        {"Q ITC": "discriminative", "Q LM": "generative"})
    assert list(table.columns) == ["VG-Relation", "Crepe Swap"]  # Winoground: Table 11
    assert list(table.index) == ["Random", "Q LM", "Q ITC"]
    assert table.loc["Q ITC", "VG-Relation"] == 46.4
    assert table.loc["Random", "Crepe Swap"] == 50.0


@pytest.fixture(scope="module")
def pair_records():
    items = pair_items(n=40)
    _, summary = alpha_curve(items, PRIOR, metric="winoground", step=0.01, repeats=2)
    results = {
        "itc": {"winoground": _record("winoground", I2T=28.0, T2I=9.0, Group=6.5)},
        "cap": {"winoground": _record("winoground", I2T=summary["accuracy_alpha0"],
                                      T2I=21.5, Group=10.0),
                "eqben": _record("winoground", I2T=9.6, T2I=26.1, Group=5.0)},
    }
    return results, {"cap": {"winoground": summary}}, items


def test_pair_score_table_has_alpha_rows_for_captioners(pair_records):
    results, alpha, _ = pair_records
    table = pair_score_table(results, alpha, {"itc": "BLIP ITC", "cap": "BLIP LM"})
    assert list(table.index) == ["BLIP ITC", "BLIP LM", "BLIP LM (alpha=1)",
                                 "BLIP LM (alpha=alpha*)"]
    summary = alpha["cap"]["winoground"]
    assert table.loc["BLIP ITC", "Winoground Group Score"] == 6.5
    assert table.loc["BLIP LM (alpha=1)", "Winoground Text Score"] == summary["accuracy_alpha1"]
    assert np.isnan(table.loc["BLIP LM (alpha=1)", "Winoground Group Score"])
    oracle = table.loc["BLIP LM (alpha=alpha*)"]
    assert oracle["Winoground Text Score"] == summary["oracle"]["accuracy"]
    assert oracle["Winoground Group Score"] == summary["oracle"]["pair"]["Group"]
    assert oracle["Winoground alpha*"] == summary["oracle"]["alpha"]
    # EqBen without an alpha record: its alpha = 0 scores only
    assert table.loc["BLIP LM", "EqBen Image Score"] == 26.1
    assert np.isnan(oracle["EqBen Text Score"])
    assert "EqBen alpha*" not in table.columns


def test_tag_table_per_tag_with_each_tags_alpha():
    records = {
        "itm": {"subsets": {
            "No Tag": {"I2T": 41.9, "T2I": 21.5, "Group": 19.2, "n": 172},
            "Non Minimal": {"I2T": 50.0, "T2I": 23.3, "Group": 16.7, "n": 30},
            "Complex Reasoning": {"I2T": None, "T2I": None, "Group": None, "n": 0}}},
        "cap": {"subsets": {"No Tag": {"I2T": 34.9, "T2I": 28.5, "Group": 20.0, "n": 172}},
                "oracle": {"No Tag": {"n": 172, "alpha": 0.8,
                                      "alpha0": {"I2T": 34.9, "T2I": 28.5, "Group": 20.0},
                                      "oracle": {"I2T": 43.0, "T2I": 28.5, "Group": 23.8}}}},
    }
    table = tag_table(records, {"itm": "ITM", "cap": "LM"})
    assert list(table.index) == ["ITM", "LM", "LM (alpha=alpha*)"]
    assert table.loc["ITM", "Winoground NonCompositional Text Score"] == 50.0
    assert table.loc["ITM", "Winoground No-Tag n"] == 172
    assert table.loc["LM (alpha=alpha*)", "Winoground No-Tag Group Score"] == 23.8
    assert table.loc["LM (alpha=alpha*)", "Winoground No-Tag alpha*"] == 0.8
    assert not any("ComplexReasoning" in c for c in table.columns)  # no items: no column
    assert list(table.columns[:4]) == ["Winoground No-Tag Text Score",
                                       "Winoground No-Tag Image Score",
                                       "Winoground No-Tag Group Score", "Winoground No-Tag n"]


def test_pair_score_cells_land_on_the_alpha_rows(pair_records):
    """Table 11's companion: every alpha-row number finds its interval in the captioner's
    alpha uncertainty table (the values equal, so the companion's check passes)."""
    from vlcomp.metrics.alpha_uncertainty import alpha_intervals
    from vlcomp.report.table_ci import table_cells

    results, alpha, items = pair_records
    labels = {"itc": "BLIP ITC", "cap": "BLIP LM"}
    table = pair_score_table(results, alpha, labels)
    intervals = alpha_intervals(items, PRIOR, metric="winoground",
                                benchmark="winoground", step=0.01, repeats=2, n_resamples=50)
    cells = pair_score_cells({"cap": {"winoground": intervals}}, labels)
    values = {(c.row, c.metric): c.value for c in table_cells(table)}
    alpha_rows = {k for k in values if k[0].endswith(("(alpha=1)", "(alpha=alpha*)"))
                  and k[1].startswith("Winoground")}
    assert {(row, column) for _, row, column in cells} == alpha_rows
    for (_, row, column), (value, low, high, sd) in cells.items():
        assert value == pytest.approx(values[row, column], abs=1e-3)
        assert low <= value <= high and sd is None


def test_tag_cells_name_table_13s_cells():
    frame = pd.DataFrame({
        "subset": ["No Tag", "No Tag", "No Tag", "Non Minimal", "No Tag", "No Tag"],
        "measure": ["I2T", "T2I", "Group", "I2T", "oracle.pair.Group", "oracle.alpha"],
        "value": [34.9, 28.5, 20.0, 50.0, 23.8, 0.8], "ci_low": 0.0, "ci_high": 60.0,
        "n": 172})
    cells = tag_cells({"cap": frame}, {"cap": "LM"})
    table = "visualgptscore/table13"
    assert cells[table, "LM", "Winoground No-Tag Text Score"] == (34.9, 0.0, 60.0, None)
    assert cells[table, "LM", "Winoground NonCompositional Text Score"][0] == 50.0
    assert cells[table, "LM (alpha=alpha*)", "Winoground No-Tag Group Score"][0] == 23.8
    assert cells[table, "LM (alpha=alpha*)", "Winoground No-Tag alpha*"][0] == 0.8
    assert len(cells) == 6
