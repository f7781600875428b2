"""results/summary.md: headline numbers with CIs, reproduced vs published."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from vlcomp.report.intervals import CellIntervals, Numbers, headline_columns, table_columns
from vlcomp.report.summary import (
    NO_HEADLINE,
    cell,
    headline_table,
    published_rows,
    write_summary,
)


def intervals() -> dict[str, pd.DataFrame]:
    rows = [("clip", "accuracy", 60.0), ("clip", "replace_obj accuracy", 70.0),
            ("ft_s0", "accuracy", 62.0), ("ft_s0", "replace_obj accuracy", 71.0),
            ("ft_s1", "accuracy", 64.0), ("ft_s1", "replace_obj accuracy", 73.0)]
    sugar = pd.DataFrame([{"model": m, "metric": k, "value": v, "ci_low": v - 3,
                           "ci_high": v + 3, "n": 100} for m, k, v in rows])
    vg = pd.DataFrame([{"model": m, "metric": "macro_accuracy", "value": v, "ci_low": v - 5,
                        "ci_high": v + 5, "n": 50}
                       for m, v in (("clip", 50.0), ("ft_s0", 55.0), ("ft_s1", 57.0))])
    return {"sugarcrepe": sugar, "vg_relation": vg}


def seeds() -> dict[str, pd.DataFrame]:
    return {
        "sugarcrepe": pd.DataFrame({"group": ["FT", "FT"],
                                    "metric": ["accuracy", "replace_obj accuracy"],
                                    "seeds": 2, "mean": [63.0, 72.0], "seed_std": [1.41, 1.41],
                                    "mean_ci_width": 6.0, "ci_low": [61.0, 70.0],
                                    "ci_high": [65.0, 74.0]}),
        "vg_relation": pd.DataFrame({"group": ["FT"], "metric": ["macro_accuracy"], "seeds": 2,
                                     "mean": [56.0], "seed_std": [1.41], "mean_ci_width": 10.0,
                                     "ci_low": [52.0], "ci_high": [60.0]}),
    }


GROUPS = {"CLIP": ["clip"], "FT": ["ft_s0", "ft_s1"]}
KINDS = {"sugarcrepe": "sugarcrepe", "vg_relation": "aro_relation"}
LABELS = {"sugarcrepe": "SugarCrepe", "vg_relation": "VG-Relation"}


def test_headline_rows_are_models_and_seed_groups_each_with_its_interval():
    numbers = Numbers(intervals(), seeds(), GROUPS)
    columns = headline_columns(KINDS, LABELS)
    assert columns == {"SugarCrepe": ("sugarcrepe", "accuracy"),
                       "VG-Relation": ("vg_relation", "macro_accuracy")}
    table = headline_table(numbers, columns, GROUPS)
    assert table.loc["CLIP", "SugarCrepe"] == "60.0 [57.0, 63.0]"
    assert table.loc["FT (2 seeds)", "VG-Relation"] == "56.0 [52.0, 60.0] sd 1.4"
    assert cell(float("nan"), 0, 0) == "–"
    # a configured model with no headline number says so in its row, not as a row of dashes
    with_mine = GROUPS | {"Mine": ["mine"]}
    unscored = headline_table(Numbers(intervals(), seeds(), with_mine), columns, with_mine)
    assert unscored.loc["Mine"].tolist() == [NO_HEADLINE, "–"]
    assert unscored.loc["CLIP"].tolist() == table.loc["CLIP"].tolist()
    from vlcomp.report.summary import markdown

    escaped = markdown(pd.DataFrame({"model": ["P(t|null)"], "x": ["1"]}), index=False)
    assert escaped.splitlines()[-1] == "| P(t\\|null) | 1 |"


def test_published_rows_carry_our_interval_and_refuse_a_mismatch():
    numbers = Numbers(intervals(), seeds(), GROUPS)
    lookup = CellIntervals(numbers, headline_columns(KINDS, LABELS))
    assert table_columns("aro/aro", numbers.metrics) == {
        "Replace obj": ("sugarcrepe", "replace_obj accuracy")}  # SugarCrepe's subsets anywhere
    compared = {"sugarcrepe/sugarcrepe": pd.DataFrame({
        "row": ["CLIP", "FT", "CLIP"], "column": ["Replace obj", "Replace obj", "Add att"],
        "published": [90.9, 85.0, 68.8], "reproduced": [70.0, 72.0, float("nan")]}),
        "aro/aro": pd.DataFrame({"row": ["FT", "CLIP"], "column": ["VG-Relation", "Flickr"],
                                 "published": [64.0, 1.0], "reproduced": [56.0, 2.0]})}
    rows, without = published_rows(compared, lookup, {})
    assert without == ["aro/aro: CLIP / Flickr"]  # no interval; NaN reproduced: not compared
    assert rows["reproduced [95 % CI]"].tolist() == ["70.0 [67.0, 73.0]",
                                                     "72.0 [70.0, 74.0] sd 1.4",
                                                     "56.0 [52.0, 60.0] sd 1.4"]
    assert rows.difference.tolist() == ["-20.9", "-13.0", "-8.0"]
    compared["aro/aro"].loc[0, "reproduced"] = 58.0
    with pytest.raises(ValueError, match=r"FT VG-Relation is 58\.0 there but 56\.0 in "
                       r"results/uncertainty/vg_relation\.csv \(macro_accuracy\)"):
        published_rows(compared, lookup, {})


def test_every_number_in_the_summary_has_an_interval(tmp_path):
    numbers = Numbers(intervals(), seeds(), GROUPS)
    columns = headline_columns(KINDS, LABELS)
    rows, without = published_rows({}, CellIntervals(numbers, columns), {})
    path = tmp_path / "summary.md"
    write_summary(path, headline_table(numbers, columns, GROUPS), rows, len(without),
                  resamples=1000, seed=0, confidence=0.95)
    text = path.read_text()
    assert "95 % confidence interval" in text and "1000 resamples" in text
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| model"):
            values = re.findall(r"\d+\.\d", line)
            intervals_ = re.findall(r"\[\d+\.\d, \d+\.\d\]", line)
            assert len(intervals_) >= 1 and len(values) >= 3 * len(intervals_), line


def test_seed_spreads_join_their_mean_chance_rows_are_exact_and_cells_come_first():
    numbers = Numbers(intervals(), seeds(), GROUPS)
    columns = headline_columns(KINDS, LABELS)
    compared = {
        "aro/aro": pd.DataFrame({
            "row": ["FT", "FT", "Chance-level", "CLIP", "CLIP"],
            "column": ["VG-Relation", "VG-Relation std", "VG-Relation", "Order", "Order std"],
            "published": [64.0, 0.5, 50.0, 46.0, 0.7],
            "reproduced": [56.0, 1.41, 50.0, 21.0, 2.9]}),
        "robustness/aro_table3": pd.DataFrame({
            "row": ["COCO-like / No Shuffling / CLIP"] * 2, "column": ["Text R@1"] * 2,
            "published": [50.3, 50.3], "reproduced": [1.25, float("nan")]}),
    }
    cells = {("robustness/aro_table3", "COCO-like / No Shuffling / CLIP", "Text R@1"):
             (1.25, 0.0, 7.19, None)}
    rows, without = published_rows(compared, CellIntervals(numbers, columns, cells), {})
    by_column = rows.set_index(["table", "column"])
    # the std row joins its mean: published mean ± sd, our interval and our seeds' sd
    ft = by_column.loc[("aro/aro", "VG-Relation")]
    assert (ft.published, ft["reproduced [95 % CI]"]) == ("64.0 ± 0.5",
                                                          "56.0 [52.0, 60.0] sd 1.4")
    assert "Chance-level" not in set(rows.model)  # an exact level: nothing to resample
    table3 = by_column.loc[("robustness/aro_table3", "Text R@1")]
    assert table3["reproduced [95 % CI]"] == "1.2 [0.0, 7.2]"
    # Order has no interval here: it and its std are both counted as without
    assert without == ["aro/aro: CLIP / Order", "aro/aro: CLIP / Order std"]
    assert len(rows) == 2


def test_procedure_tables_take_their_intervals_only_from_cells():
    numbers = Numbers(intervals(), seeds(), GROUPS)
    columns = headline_columns(KINDS, LABELS)
    held_out = {"visualgptscore/table4": pd.DataFrame({
        "row": ["CLIP"], "column": ["SugarCrepe"], "published": [60.0], "reproduced": [58.0]})}
    rows, without = published_rows(held_out, CellIntervals(numbers, columns), {})
    assert not len(rows) and without == ["visualgptscore/table4: CLIP / SugarCrepe"]
    cells = {("visualgptscore/table4", "CLIP", "SugarCrepe"): (58.0, 55.0, 61.0, 1.0)}
    rows, without = published_rows(held_out, CellIntervals(numbers, columns, cells), {})
    assert rows["reproduced [95 % CI]"].tolist() == ["58.0 [55.0, 61.0] sd 1.0"]
    assert without == []
