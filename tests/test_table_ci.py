"""Every paper table's `_ci` companion: cells oriented as the published comparisons read
them, intervals found per cell, exact numbers noted, mismatches refused."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from vlcomp.benchmarks.bivlc import REMOVED_ROW, category_counts
from vlcomp.report.generation import removal_cells
from vlcomp.report.intervals import CellIntervals, Numbers, headline_columns, table_columns
from vlcomp.report.published import models_as_rows
from vlcomp.report.table_ci import (
    NO_INTERVAL,
    interval_markdown,
    interval_table,
    table_cells,
)

ARO6 = """section,task,CLIP,CLIP std,FT,FT std
Compositional Tasks,VG-Relation,48.3858,,51.6484,4.8964
Compositional Tasks,Order,21.1250,3.1250,18.0000,1.5910
Downstream Tasks,Retrieval I2T R@1,1.2500,,1.2500,0.0000
"""
ARO2 = """relation,CLIP,CLIP std,FT,FT std,# Samples
Accuracy,48.3858,,51.6484,4.8964,156
above,44.4444,,42.2222,0.0000,45
"""
ROBUSTNESS = """,row,Text R@1,Text R@1 std,Image R@1,Image R@1 std
COCO-like,No Shuffling / CLIP,1.2500,,2.2500,
COCO-like,Shuffle rows / CLIP,0.5000,0.2000,1.0000,0.1000
Flickr-like,No Shuffling / CLIP,3.3333,,6.0000,
"""
VGS1 = """method,VG-Relation,Order
Random,50.0000,20.0000
VisualGPTScore,53.1541,82.1250
CLIP,48.3858,21.1250
FT,51.6484,18.0000
Best discriminative,51.6484,21.1250
"""


def read(text: str, index=0) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), index_col=index)


def uncertainty() -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    def rows(benchmark, metric, values):
        return [{"model": m, "metric": metric, "value": v, "ci_low": v - 2, "ci_high": v + 2,
                 "n": 100} for m, v in values.items()]

    intervals = {
        "vg_relation": pd.DataFrame(
            rows("vg_relation", "macro_accuracy", {"clip": 48.3858, "vgs": 53.1541})
            + rows("vg_relation", "above accuracy", {"clip": 44.4444})),
        "order": pd.DataFrame(rows("order", "mean", {"clip": 21.125, "vgs": 82.125})),
        "world_retrieval": pd.DataFrame(rows("world_retrieval", "i2t_r1", {"clip": 1.25})),
    }
    seeds = {b: pd.DataFrame(columns=["group", "metric", "seeds", "mean", "seed_std",
                                      "mean_ci_width", "ci_low", "ci_high"])
             for b in intervals}
    seeds["vg_relation"] = pd.DataFrame({
        "group": ["FT", "FT"], "metric": ["macro_accuracy", "above accuracy"], "seeds": 2,
        "mean": [51.6484, 42.2222], "seed_std": [4.8964, 0.0], "mean_ci_width": 8.0,
        "ci_low": [47.0, 38.0], "ci_high": [55.0, 46.0]})
    seeds["order"] = pd.DataFrame({"group": ["FT"], "metric": ["mean"], "seeds": 2,
                                   "mean": [18.0], "seed_std": [1.591], "mean_ci_width": 4.0,
                                   "ci_low": [16.0], "ci_high": [20.0]})
    seeds["world_retrieval"] = pd.DataFrame({
        "group": ["FT"], "metric": ["i2t_r1"], "seeds": 2, "mean": [1.25], "seed_std": [0.0],
        "mean_ci_width": 3.0, "ci_low": [0.0], "ci_high": [4.4]})
    return intervals, seeds


GROUPS = {"CLIP": ["clip"], "FT": ["ft_s0", "ft_s1"], "VisualGPTScore": ["vgs"]}
KINDS = {"vg_relation": "aro_relation", "order": "order", "world_retrieval": "retrieval"}
LABELS = {"vg_relation": "VG-Relation", "order": "Order", "world_retrieval": "Retrieval"}


def lookup(cells=None) -> CellIntervals:
    return CellIntervals(Numbers(*uncertainty(), GROUPS), headline_columns(KINDS, LABELS), cells)


@pytest.mark.parametrize("text,index", [(ARO6, [0, 1]), (ARO2, 0), (ROBUSTNESS, 0), (VGS1, 0)])
def test_cells_are_oriented_as_the_published_comparisons_read_tables(text, index):
    table = read(text, index)
    rows = models_as_rows(table)
    cells = table_cells(table)
    assert cells and all(c.value == rows.loc[c.row, c.metric] for c in cells)
    assert not any(c.metric.endswith(" std") or c.metric == "row" for c in cells)


def test_transposed_and_sectioned_tables_keep_their_layout_with_intervals():
    table = read(ARO6, [0, 1])
    intervals = interval_table("aro/table6", table, lookup())
    assert (intervals.note == "").all() and intervals.ci_low.notna().all()
    ft_order = intervals[(intervals.row == "FT") & (intervals.column == "Order")].iloc[0]
    assert (ft_order.ci_low, ft_order.ci_high, ft_order.seed_sd) == (16.0, 20.0, 1.591)
    # a single model's Order shows its perturbation seeds' sd, as the table's ± does
    clip_order = intervals[(intervals.row == "CLIP") & (intervals.column == "Order")].iloc[0]
    assert clip_order.seed_sd == 3.125
    md = interval_markdown(table, intervals).splitlines()
    assert md[2] == "| task | CLIP | FT |"
    assert "| **Downstream Tasks** |  |  |" in md
    assert "| Order | 21.12 [19.12, 23.12] sd 3.12 | 18.00 [16.00, 20.00] sd 1.59 |" in md


def test_counts_and_chance_levels_are_exact_and_the_best_row_takes_its_models_interval():
    relations = interval_table("aro/table2", read(ARO2), lookup())
    samples = relations[relations.row == "# Samples"]
    assert set(samples.note) == {"count"} and samples.ci_low.isna().all()
    above = relations[(relations.row == "FT") & (relations.column == "above")].iloc[0]
    assert (above.ci_low, above.ci_high, above.seed_sd) == (38.0, 46.0, 0.0)
    assert "| Accuracy | 48.39 [46.39, 50.39] | 51.65 [47.00, 55.00] sd 4.90 | 156 |" in \
        interval_markdown(read(ARO2), relations)

    methods = interval_table("visualgptscore/table1", read(VGS1), lookup(),
                             best_of=["CLIP", "FT"])
    best = methods[methods.row == "Best discriminative"].set_index("column")
    assert best.loc["VG-Relation", "note"] == "CI of FT"
    assert best.loc["Order", "note"] == "CI of CLIP"
    assert best.loc["Order", "ci_low"] == pytest.approx(19.125)
    assert set(methods[methods.row == "Random"].note) == {"exact: chance level"}
    md = interval_markdown(read(VGS1), methods)
    assert "| Random | 50.00 | 20.00 |" in md
    assert md.rstrip().endswith("each column's interval is its best model's (CLIP, FT).")


def test_a_number_without_an_interval_is_marked_and_a_mismatch_is_refused():
    table = read(ROBUSTNESS)
    cells = {("robustness/aro_table3", "COCO-like / No Shuffling / CLIP", "Text R@1"):
             (1.25, 0.0, 7.2, None),
             ("robustness/aro_table3", "COCO-like / Shuffle rows / CLIP", "Text R@1"):
             (0.5, 0.0, 2.0, 0.2)}
    intervals = interval_table("robustness/aro_table3", table, lookup(cells))
    missing = intervals[intervals.note == NO_INTERVAL]
    assert len(missing) == 4 and missing.ci_low.isna().all()
    md = interval_markdown(table, intervals).splitlines()
    assert "| **COCO-like** |  |  |" in md and "| **Flickr-like** |  |  |" in md
    assert "| Shuffle rows / CLIP | 0.50 [0.00, 2.00] sd 0.20 | 1.00 (no CI) |" in md
    cells["robustness/aro_table3", "COCO-like / No Shuffling / CLIP", "Text R@1"] = (
        9.0, 8.0, 10.0, None)
    with pytest.raises(ValueError, match=r"robustness/aro_table3: COCO-like / No Shuffling / "
                                         r"CLIP / Text R@1 is 1\.25 in the table but 9\.0"):
        interval_table("robustness/aro_table3", table, lookup(cells))


def test_columns_of_particular_tables_name_their_metrics():
    metrics = {"winoground": ["I2T", "T2I", "Group", "swap_obj I2T", "NonCompositional T2I"],
               "bison_altered": ["original accuracy", "negate accuracy",
                                 "negate changed_prediction"],
               "sugarcrepe": ["accuracy", "replace_obj accuracy"]}
    wino = table_columns("winoground/winoground", metrics)
    assert wino["Text"] == ("winoground", "I2T")
    assert wino["Swap obj Text"] == ("winoground", "swap_obj I2T")
    assert wino["NonCompositional Image"] == ("winoground", "NonCompositional T2I")
    fig9 = table_columns("bison/fig9", metrics)
    assert fig9["Accuracy"] == ("bison_altered", "original accuracy")
    assert fig9["Negation changed %"] == ("bison_altered", "negate changed_prediction")
    assert fig9["Negation acc."] == ("bison_altered", "negate accuracy")
    sugar = table_columns("sugarcrepe/sugarcrepe", metrics)
    assert sugar["Avg (micro)"] == ("sugarcrepe", "accuracy")
    assert sugar["Replace obj"] == ("sugarcrepe", "replace_obj accuracy")


def test_bivlc_removal_rates_are_resampled_over_sugarcrepe_items():
    rng = np.random.default_rng(0)
    kinds = [("replace", "obj"), ("swap", "att"), ("add", "att")]
    sugarcrepe = pd.DataFrame([
        {"item_id": f"{t}_{s}-{i}", "type": t, "subtype": s}
        for t, s in kinds for i in range(40)])
    bivlc = sugarcrepe[rng.random(len(sugarcrepe)) < 0.6]
    cells = removal_cells(sugarcrepe, bivlc, n_resamples=200, seed=0)
    table = category_counts(sugarcrepe, bivlc)
    removed = table.loc[REMOVED_ROW]
    for column in ("REPLACE OBJ", "SWAP ATT", "ADD ATT", "Total"):
        value, low, high, sd = cells["bivlc/table1", REMOVED_ROW, column]
        assert value == pytest.approx(removed[column], abs=0.01)
        assert low < value < high and sd is None
    assert ("bivlc/table1", REMOVED_ROW, "REPLACE ATT") not in cells  # no such items
    intervals = interval_table("bivlc/table1", table, lookup(cells))
    assert set(intervals.note) == {"", "count"}  # every other row is a count
    # released data: BiVLC's items are not SugarCrepe's, so no rate is resampled: the
    # rates compare two fixed sets
    assert removal_cells(sugarcrepe, bivlc.assign(item_id="hub-" + bivlc.item_id),
                         n_resamples=10, seed=0) == {}
    released = interval_table("bivlc/table1", table, lookup(), released=True)
    notes = set(released[released.row == REMOVED_ROW].note)
    assert notes == {"exact: counts of released sets"}
    line = (f"| {REMOVED_ROW} | {removed['REPLACE OBJ']:.2f} | - | - | - | "
            f"{removed['SWAP ATT']:.2f} |")
    assert line in interval_markdown(table, released)


SECTION6 = """metric,Accuracy,ties
BLEU-4,16.6667,0
CIDEr-D,66.6667,0
SPICE,,
"""


def test_bison_section6_takes_its_own_intervals_and_its_ties_are_counts(tmp_path):
    """BISON section 6's accuracies find their CIs in the job's own uncertainty file; ties
    are counts; SPICE (unavailable) is no number."""
    from vlcomp.report.intervals import table_cell_intervals

    path = tmp_path / "bison_section6.csv"
    path.write_text("metric,value,ci_low,ci_high,n\nBLEU-4,16.6667,0.0,50.0,6\n"
                    "CIDEr-D,66.6667,33.3333,100.0,6\n")
    cells = table_cell_intervals("bison/section6", [path], {})
    intervals = interval_table("bison/section6", read(SECTION6), lookup(cells))
    got = intervals.set_index(["row", "column"])
    assert got.loc[("CIDEr-D", "Accuracy"), "ci_low"] == pytest.approx(33.3333)
    assert set(got.xs("ties", level="column").note) == {"count"}
    assert not (intervals.note == NO_INTERVAL).any() and len(intervals) == 4
    with pytest.raises(ValueError, match="bison/table4: no cell intervals of its own"):
        table_cell_intervals("bison/table4", [path], {})
