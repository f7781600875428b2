"""BISON Fig. 9 bars from the Fig. 9 table."""

from __future__ import annotations

import pandas as pd
import pytest
from PIL import Image

from vlcomp.report.figures import bar_plot, bison_fig9_values


def test_fig9_values_and_png(tmp_path):
    table = pd.DataFrame(
        {"Accuracy": [60.0, 70.0], "Negation changed %": [2.0, 4.0],
         "Negation changed % std": [float("nan"), 1.0], "Negation acc.": [59.0, 69.0],
         "Reversal changed %": [20.0, 25.0], "Reversal changed % std": [float("nan"), 2.0],
         "Reversal acc.": [50.0, 55.0]},
        index=pd.Index(["CLIP", "NegCLIP"], name="model"),
    )
    values, errors = bison_fig9_values(table)
    assert list(values.columns) == ["Negation", "Reversal"]
    assert values.loc["NegCLIP", "Reversal"] == 25.0
    assert errors.loc["CLIP", "Negation"] == 0.0 and errors.loc["NegCLIP", "Reversal"] == 2.0
    path = bar_plot(values, tmp_path / "fig9.png", title="t", errors=errors)
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1200, 630)
    with pytest.raises(ValueError, match="at least one row"):
        bar_plot(values.iloc[:0], tmp_path / "empty.png")
