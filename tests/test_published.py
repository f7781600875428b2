"""Published numbers: well-formed records, side-by-side with a reproduced table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.report.published import load_published, models_as_rows, side_by_side

from .conftest import SHARED_DATA


def test_records_are_well_formed_and_match_the_reference_data():
    records = load_published()
    assert {r["paper"] for r in records} == {"aro", "bivlc", "sugarcrepe"}
    for r in records:
        assert set(r) == {"paper", "table", "rows", "column", "source"}
        assert all(0 <= v <= 100 for v in r["rows"].values())
    # the BiVLC CLIP row equals the committed per-item CSV of ViT-B-32 (../shared/data)
    flags = pd.read_csv(SHARED_DATA / "bivlc" / "BiVLC_ViT-B-32.csv")
    columns = {"Ipos2T": "text_score_i0", "Ineg2T": "text_score_i1", "Tpos2I": "image_score_c0",
               "Tneg2I": "image_score_c1", "I2T": "text_score", "T2I": "image_score",
               "Group": "group_score"}
    for record in load_published("bivlc", "table3"):
        column = flags[columns[record["column"]]].astype(str) == "True"
        assert record["rows"]["CLIP"] == pytest.approx(100 * column.mean(), abs=0.005)
    assert len(load_published("sugarcrepe")) == 7


def test_side_by_side_aligns_rows_and_columns():
    ours = pd.DataFrame({"I2T": [70.0, 80.0], "T2I": [50.0, 60.0]},
                        index=pd.Index(["CLIP", "CLIP-TROHN-Img"], name="model"))
    table = side_by_side(ours, load_published("bivlc", "table3"))
    row = table.loc[("CLIP", "T2I")]
    assert row.reproduced == 50.0 and row.difference == pytest.approx(50.0 - 52.40)
    assert np.isnan(table.loc[("CLIP-FT", "I2T")].reproduced)  # no such row here
    assert np.isnan(table.loc[("CLIP", "Tpos2I")].reproduced)  # no such column


def test_aro_table6_is_transposed():
    index = pd.MultiIndex.from_tuples([("Compositional Tasks", "VG-Relation")],
                                      names=["section", "task"])
    ours = pd.DataFrame({"CLIP": [52.0], "NegCLIP": [55.0]}, index=index)
    flat = models_as_rows(ours)
    assert flat.loc["NegCLIP", "VG-Relation"] == 55.0
    table = side_by_side(ours, load_published("aro", "table6"))
    assert table.loc[("NegCLIP", "VG-Relation")].difference == pytest.approx(55.0 - 81.0)
