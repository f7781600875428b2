"""Cross-benchmark rank correlation of models (BiVLC Finding 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.report.correlation import (
    correlation_square,
    headline_matrix,
    plot_heatmap,
    rank_correlations,
)


def interval_table(values: dict[str, float], metric: str) -> pd.DataFrame:
    return pd.DataFrame({"model": list(values), "metric": metric, "value": list(values.values()),
                         "ci_low": 0.0, "ci_high": 100.0, "n": 10})


def test_headline_columns_and_correlations():
    intervals = {
        "sugarcrepe": interval_table({"a": 60, "b": 70, "c": 80, "d": 90}, "accuracy"),
        "vg_relation": interval_table({"a": 50, "b": 55, "c": 52, "d": 70}, "macro_accuracy"),
        "bivlc": pd.concat([interval_table({"a": 1, "b": 2, "c": 3}, m)
                            for m in ("I2T", "T2I", "Group", "Ipos2T")]),
    }
    kinds = {"sugarcrepe": "sugarcrepe", "vg_relation": "aro_relation", "bivlc": "bivlc"}
    matrix = headline_matrix(intervals, kinds, {"sugarcrepe": "SugarCrepe",
                                                "vg_relation": "VG-Relation"})
    assert list(matrix.columns) == ["SugarCrepe", "VG-Relation", "bivlc I2T", "bivlc T2I",
                                    "bivlc Group", "bivlc Ipos2T"]
    assert np.isnan(matrix.loc["d", "bivlc I2T"])
    pairs = rank_correlations(matrix).set_index(["benchmark_a", "benchmark_b"])
    row = pairs.loc["SugarCrepe", "VG-Relation"]
    # ranks 1 2 3 4 against 1 3 2 4: one discordant pair of six
    assert row.models == 4 and row.kendall_tau == pytest.approx(4 / 6)
    assert row.spearman_rho == pytest.approx(0.8)
    assert pairs.loc["SugarCrepe", "bivlc I2T"].models == 3  # d has no BiVLC number
    assert pairs.loc["SugarCrepe", "bivlc I2T"].kendall_tau == pytest.approx(1.0)
    few = rank_correlations(matrix, min_models=4).set_index(["benchmark_a", "benchmark_b"])
    assert np.isnan(few.loc["SugarCrepe", "bivlc I2T"].kendall_tau)
    square = correlation_square(rank_correlations(matrix), list(matrix.columns))
    assert square.loc["VG-Relation", "SugarCrepe"] == square.loc["SugarCrepe", "VG-Relation"]
    assert (np.diag(square) == 1).all()


def test_heatmap_writes_png_and_pdf_reproducibly(tmp_path):
    names = ["A", "B", "C"]
    tau = pd.DataFrame([[1, 0.5, -0.2], [0.5, 1, 0.1], [-0.2, 0.1, 1]], index=names,
                       columns=names)
    paths = [tmp_path / "h.png", tmp_path / "h.pdf"]
    plot_heatmap(tau, tau, paths, "t", models=5)
    first = [p.read_bytes() for p in paths]
    assert first[0][:4] == b"\x89PNG" and first[1][:4] == b"%PDF"
    plot_heatmap(tau, tau, paths, "t", models=5)
    assert [p.read_bytes() for p in paths] == first
    with pytest.raises(ValueError, match=r"\.png or \.pdf"):
        plot_heatmap(tau, tau, [tmp_path / "h.svg"], "t", models=5)


def test_paper_figures_from_tables(tmp_path):
    """Per-relation bars and robustness drops with their CIs, and the I2T/T2I scatter of
    seed groups, each as PNG and PDF."""
    from vlcomp.report.figures import (
        bar_plot,
        drop_intervals,
        i2t_t2i_scatter,
        panel_bar_plot,
        relation_intervals,
    )
    from vlcomp.report.intervals import group_intervals

    rows = pd.DataFrame({"model": ["CLIP"] * 3 + ["FT"] * 3,
                         "metric": ["macro_accuracy", "above accuracy", "on accuracy"] * 2,
                         "value": [50.0, 40, 60, 55, 45, 65],
                         "ci_low": [45.0, 30, 50, 50, 35, 55],
                         "ci_high": [55.0, 50, 70, 60, 55, 75]})
    values, low, high = relation_intervals(rows)
    assert list(values.columns) == ["above", "on"] and list(values.index) == ["CLIP", "FT"]
    assert (low.loc["FT", "on"], high.loc["FT", "on"]) == (55.0, 75.0)
    bar_plot(values, tmp_path / "r.png", bounds=(low, high), pdf=tmp_path / "r.pdf", rotate=60)
    assert (tmp_path / "r.pdf").read_bytes()[:4] == b"%PDF"
    cells = {("robustness/hendriksen", f"G / {p} / {m}", "R@1 drop %"): (v, v - 2, v + 3, None)
             for p, m, v in (("none", "A", 0.0), ("none", "B", 0.0), ("typo", "A", 10.0),
                             ("typo", "B", 20.0))}
    cells["robustness/hendriksen", "G / typo / A", "T2I R@1"] = (1.0, 0.0, 2.0, None)
    drops = drop_intervals(cells)
    assert list(drops) == ["G"]
    assert drops["G"][0].loc[["A", "B"], "typo"].tolist() == [10.0, 20.0]
    assert drops["G"][2].loc["B", "typo"] == 23.0 and list(drops["G"][0].columns) == ["typo"]
    panels = {"G": drops["G"], "H": drops["G"]}  # one panel per gallery
    panel_bar_plot(panels, tmp_path / "d.png", title="t", pdf=tmp_path / "d.pdf")
    assert (tmp_path / "d.pdf").read_bytes()[:4] == b"%PDF"
    from PIL import Image

    width, height = Image.open(tmp_path / "d.png").size
    assert height > width / 2  # stacked panels, not one strip
    with pytest.raises(ValueError, match="every panel"):
        panel_bar_plot({"G": tuple(f.iloc[:0] for f in drops["G"])}, tmp_path / "e.png")
    intervals = pd.DataFrame({"model": ["m", "m", "s0", "s0", "s1", "s1"],
                              "metric": ["I2T", "T2I"] * 3, "value": [60.0, 40, 70, 50, 72, 52],
                              "ci_low": [55.0, 35, 65, 45, 67, 47],
                              "ci_high": [65.0, 45, 75, 55, 77, 57]})
    seeds = pd.DataFrame({"group": ["S", "S"], "metric": ["I2T", "T2I"], "mean": [71.0, 51.0],
                          "ci_low": [68.0, 48.0], "ci_high": [74.0, 54.0]})
    rows = group_intervals(intervals, seeds, {"M": ["m"], "S": ["s0", "s1"]})
    assert sorted(set(rows.model)) == ["M", "S"] and len(rows) == 4
    i2t_t2i_scatter(rows, {}, tmp_path / "s.png", pdf=tmp_path / "s.pdf")
    assert (tmp_path / "s.png").stat().st_size > 1000
