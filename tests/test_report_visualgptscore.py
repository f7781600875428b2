"""VisualGPTScore tables and α-curve figure from α-curve records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.metrics.alpha_curves import alpha_curve
from vlcomp.report.visualgptscore import alpha_curves_figure, alpha_table, prior_table

from .test_alpha_curves import PRIOR, i2t_items, pair_items


@pytest.fixture(scope="module")
def records():
    out, curves = {}, {}
    for benchmark, items in (("sugarcrepe", i2t_items(n=40)), ("bivlc", pair_items(n=30))):
        curve, summary = alpha_curve(items, PRIOR, metric=benchmark, step=0.01, repeats=3)
        out.setdefault("cap", {})[benchmark] = summary
        curves[("cap", benchmark)] = curve
    return out, curves


def test_prior_table_rows_and_columns(records):
    recs, _ = records
    table = prior_table(recs, {"cap": "VisualGPTScore"})
    assert list(table.index) == ["SugarCrepe", "BiVLC (text score)"]
    assert list(table.columns) == ["VisualGPTScore P(t|null)", "VisualGPTScore P(t|i)",
                                   "VisualGPTScore PMI"]
    assert table.loc["SugarCrepe", "VisualGPTScore P(t|i)"] == \
        recs["cap"]["sugarcrepe"]["accuracy_alpha0"]
    assert table.loc["BiVLC (text score)", "VisualGPTScore P(t|null)"] == 0


def test_alpha_table_reports_validation_and_oracle(records):
    recs, _ = records
    table = alpha_table(recs, {"cap": "G"})
    summary = recs["cap"]["sugarcrepe"]["validation"]["summary"]
    assert table.loc["SugarCrepe", "G alpha*val"] == summary["test_accuracy"]["mean"]
    assert table.loc["SugarCrepe", "G alpha* std"] == summary["alpha"]["std"]
    assert table.loc["SugarCrepe", "G oracle"] == recs["cap"]["sugarcrepe"]["oracle"]["accuracy"]
    assert table.notna().all().all()


def test_alpha_curves_figure_is_a_png(records, tmp_path):
    recs, curves = records
    path = alpha_curves_figure(curves, recs, {"cap": "G"}, tmp_path / "curves.png", title="t")
    with Image.open(path) as img:
        assert img.size[0] > 800 and np.asarray(img.convert("L")).std() > 5
    again = alpha_curves_figure(curves, recs, {"cap": "G"}, tmp_path / "again.png", title="t")
    assert path.read_bytes() == again.read_bytes()  # deterministic bytes
    assert isinstance(curves[("cap", "bivlc")], pd.DataFrame)
