"""One model's cells beside every published number (`vlcomp.report.model_vs_published`), on
the published SugarCrepe and ARO Table 3 records."""

from __future__ import annotations

import pandas as pd
import pytest

from vlcomp.report.model_vs_published import facing_rows, model_beside_published
from vlcomp.report.published import COMPARED, load_published


def test_every_published_row_of_a_column_faces_the_models_cell():
    records = load_published(*COMPARED["sugarcrepe/sugarcrepe"])
    columns = [r["column"] for r in records]
    ours = pd.DataFrame([[50.0 + i for i in range(len(columns))]], columns=columns,
                        index=pd.Index(["My CLIP"], name="model"))
    table = model_beside_published("My CLIP", {"sugarcrepe/sugarcrepe": (ours, records)})
    published = sum(len(r["rows"]) for r in records)
    assert len(table) == published  # every published cell of every row, once
    assert list(table.index.names) == ["table", "published row"]
    clip = table.loc[("sugarcrepe/sugarcrepe", "CLIP")].set_index("column")
    assert clip.loc["Replace obj", "published"] == pytest.approx(90.92)
    assert clip.loc["Replace obj", "My CLIP"] == 50.0
    assert clip.loc["Replace obj", "difference"] == pytest.approx(50.0 - 90.92)


def test_a_table_without_the_model_or_its_column_adds_nothing():
    records = load_published(*COMPARED["sugarcrepe/sugarcrepe"])
    ours = pd.DataFrame({"Replace obj": [1.0]}, index=pd.Index(["CLIP"], name="model"))
    assert model_beside_published("My CLIP", {"s": (ours, records)}).empty
    ours = pd.DataFrame({"Replace obj": [1.0]}, index=pd.Index(["My CLIP"], name="model"))
    table = model_beside_published("My CLIP", {"s": (ours, records)})
    assert set(table.column) == {"Replace obj"}


def test_a_robustness_row_faces_the_same_gallery_and_strategy():
    records = load_published(*COMPARED["robustness/aro_table3"])
    facing = facing_rows(records, "My CLIP")
    row = next(r for r in facing if r.count(" / ") == 2)
    gallery, strategy, _ = row.split(" / ")
    assert facing[row] == [f"{gallery} / {strategy} / My CLIP"]
