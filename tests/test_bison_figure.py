"""BISON Fig. 9 bars with their CIs from the bison_altered uncertainty rows."""

from __future__ import annotations

import pandas as pd
import pytest
from PIL import Image

from vlcomp.report.figures import bar_plot, bison_fig9_intervals


def test_fig9_values_and_png(tmp_path):
    rows = pd.DataFrame({
        "model": ["CLIP"] * 4 + ["NegCLIP"] * 4,
        "metric": ["original accuracy", "reverse changed_prediction", "negate accuracy",
                   "negate changed_prediction"] * 2,
        "value": [60.0, 20.0, 59.0, 2.0, 70.0, 25.0, 69.0, 4.0],
        "ci_low": [55.0, 15.0, 54.0, 0.5, 65.0, 20.0, 64.0, 1.0],
        "ci_high": [65.0, 25.0, 64.0, 4.0, 75.0, 30.0, 74.0, 7.0]})
    values, low, high = bison_fig9_intervals(rows)
    assert list(values.columns) == ["Negation", "Reversal"]  # the paper's order and labels
    assert values.loc["NegCLIP", "Reversal"] == 25.0
    assert (low.loc["CLIP", "Negation"], high.loc["NegCLIP", "Reversal"]) == (0.5, 30.0)
    path = bar_plot(values, tmp_path / "fig9.png", title="t", bounds=(low, high))
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1200, 630)
    with pytest.raises(ValueError, match="at least one row"):
        bar_plot(values.iloc[:0], tmp_path / "empty.png")
