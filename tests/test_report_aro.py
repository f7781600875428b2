"""Tests for seed groups in the report tables, ARO Tables 2 and 6, and the Fig. 3 radar plot."""

from __future__ import annotations

import io
import math
import statistics
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.report.figures import aro_radar_values, radar_plot
from vlcomp.report.paper_tables import build_table
from vlcomp.report.tables import (
    TABLE_BUILDERS,
    aro_table,
    aro_table2,
    aro_table6,
    group_members,
    sugarcrepe_table,
    to_csv_text,
    to_markdown,
    write_table,
)

RELATIONS = {"above": 40, "below": 30, "next to": 20}  # relation -> n; "next to" excluded


def _relation(macro: float, above: float) -> dict:
    subsets = {
        name: {"accuracy": above + 10 * k, "correct": 1, "n": n}
        for k, (name, n) in enumerate(RELATIONS.items())
    }
    return {
        "metric": "aro_relation",
        "overall": {"macro_accuracy": macro},
        "subsets": subsets,
        "excluded": {"next to": "symmetric"},
    }


def _model(base: float, seed: int) -> dict:
    """All benchmarks of one model; values ``base`` + a per-seed step (seed 0, 1, 2)."""
    step = 2.0 * seed
    return {
        "vg_relation": _relation(base + step, base + 1 + step),
        "vg_attribution": {"metric": "aro_attribution", "overall": {"macro_accuracy": 70 + step}},
        "order": {"metric": "order", "overall": {"mean": base - 10 + 4 * seed, "std": 0.5}},
        "world_retrieval": {
            "benchmark": "world_retrieval",
            "metric": "retrieval",
            "n_images": 1000,
            "n_texts": 1000,
            "overall": {
                "i2t_r1": 60 + seed,
                "i2t_r5": 80.0,
                "i2t_r10": 90.0,
                "t2i_r1": 50 - seed,
                "t2i_r5": 75.0,
                "t2i_r10": 85.0,
            },
        },
        "sugarcrepe": {
            "metric": "sugarcrepe",
            "overall": {"accuracy": base + seed},
            "subsets": {"replace_obj": {"accuracy": base + 3 * seed, "correct": 1, "n": 2}},
        },
    }


RESULTS = {
    **{f"negclip_s{s}": _model(80.0, s) for s in range(3)},
    "clip": _model(50.0, 0),
    **{f"clipft_s{s}": _model(60.0, s) for s in range(3)},
}
GROUPS = {
    "NegCLIP": ["negclip_s0", "negclip_s1", "negclip_s2"],
    "CLIP-FT": ["clipft_s0", "clipft_s1", "clipft_s2"],
}
LABELS = ["NegCLIP", "CLIP-FT", "clip"]
SEED_STD = statistics.stdev([0.0, 2.0, 4.0])  # std of the per-seed steps of VG (2 per seed)


GROUPED_COLUMNS = ["NegCLIP", "NegCLIP std", "CLIP-FT", "CLIP-FT std", "clip", "clip std"]

def test_group_members_order_and_errors() -> None:
    models = list(RESULTS)
    assert list(group_members(models, GROUPS)) == LABELS
    assert group_members(models, None) == {m: [m] for m in models}
    with pytest.raises(ValueError, match="has no results"):
        group_members(models, {"X": ["nope"]})
    with pytest.raises(ValueError, match="is in groups"):
        group_members(models, {"A": ["clip"], "B": ["clip"]})
    with pytest.raises(ValueError, match="no members"):
        group_members(models, {"A": []})
    with pytest.raises(ValueError, match="also an ungrouped"):
        group_members(models, {"clip": ["negclip_s0"]})
    with pytest.raises(TypeError, match="not a str"):
        group_members(models, {"A": "clip"})


def test_aro_table6_grouped_means_stds_and_layout() -> None:
    table = aro_table6(RESULTS, groups=GROUPS)
    assert table.index.names == ["section", "task"]
    assert list(table.index) == [
        ("Compositional Tasks", "VG-Relation"),
        ("Compositional Tasks", "VG-Attribution"),
        ("Compositional Tasks", "Order"),
        ("Downstream Tasks", "Retrieval I2T R@1"),
        ("Downstream Tasks", "Retrieval T2I R@1"),
    ]
    assert list(table.columns) == GROUPED_COLUMNS
    col = table.xs("Compositional Tasks")
    assert col.loc["VG-Relation", "NegCLIP"] == pytest.approx(82.0)
    assert col.loc["VG-Relation", "NegCLIP std"] == pytest.approx(SEED_STD)
    assert col.loc["VG-Attribution", "CLIP-FT"] == pytest.approx(72.0)
    # Order over seeds: mean of the models' means (70, 74, 78), std over models, not the
    # records' own std over perturbation seeds (0.5)
    assert col.loc["Order", "NegCLIP"] == pytest.approx(74.0)
    assert col.loc["Order", "NegCLIP std"] == pytest.approx(4.0)
    assert col.loc["Order", "clip"] == 40.0
    assert col.loc["Order", "clip std"] == 0.5  # one member keeps its own (perturbation) std
    down = table.xs("Downstream Tasks")
    assert down.loc["Retrieval I2T R@1", "NegCLIP"] == pytest.approx(61.0)
    assert down.loc["Retrieval T2I R@1", "CLIP-FT"] == pytest.approx(49.0)
    assert down.loc["Retrieval T2I R@1", "CLIP-FT std"] == pytest.approx(1.0)


def test_aro_table6_per_model_keeps_order_std_and_missing_is_nan() -> None:
    results = {"clip": RESULTS["clip"], "bare": {"order": RESULTS["clip"]["order"]}}
    table = aro_table6(results)
    assert list(table.columns) == ["clip", "clip std", "bare", "bare std"]
    assert table.loc[("Compositional Tasks", "Order"), "clip std"] == 0.5
    assert np.isnan(table.loc[("Compositional Tasks", "VG-Relation"), "clip std"])
    assert np.isnan(table.loc[("Downstream Tasks", "Retrieval I2T R@1"), "bare"])
    custom = aro_table6(
        results,
        compositional={"vg_relation": "VG-R"},
        downstream={"world_retrieval": {"i2t_r5": "I2T R@5"}},
    )
    assert list(custom.index.get_level_values("task")) == ["VG-R", "I2T R@5"]
    assert custom.loc[("Downstream Tasks", "I2T R@5"), "clip"] == 80.0
    assert list(custom.columns) == ["clip", "bare"]  # no order row -> no std columns


def test_group_with_a_missing_member_value_is_nan() -> None:
    results = {m: dict(b) for m, b in RESULTS.items()}
    del results["negclip_s1"]["world_retrieval"]
    table = aro_table6(results, groups=GROUPS)
    row = table.loc[("Downstream Tasks", "Retrieval I2T R@1")]
    assert np.isnan(row["NegCLIP"]) and np.isnan(row["NegCLIP std"])
    assert row["CLIP-FT"] == pytest.approx(61.0)


def test_aro_table6_markdown_sections_and_plus_minus() -> None:
    lines = to_markdown(aro_table6(RESULTS, groups=GROUPS)).splitlines()
    assert lines[0] == "| task | NegCLIP | CLIP-FT | clip |"
    assert lines[1] == "|:---|---:|---:|---:|"
    assert lines[2] == "| **Compositional Tasks** |  |  |  |"
    assert lines[3] == "| VG-Relation | 82.00 ± 2.00 | 62.00 ± 2.00 | 50.00 |"
    assert lines[5] == "| Order | 74.00 ± 4.00 | 54.00 ± 4.00 | 40.00 ± 0.50 |"
    assert lines[6] == "| **Downstream Tasks** |  |  |  |"
    assert lines[7] == "| Retrieval I2T R@1 | 61.00 ± 1.00 | 61.00 ± 1.00 | 60.00 |"
    assert len(lines) == 9


def test_aro_table6_csv_round_trip(tmp_path: Path) -> None:
    table = aro_table6(RESULTS, groups=GROUPS)
    csv_path, md_path = write_table(table, tmp_path / "aro_table6")
    assert csv_path.read_text().splitlines()[0] == (
        "section,task,NegCLIP,NegCLIP std,CLIP-FT,CLIP-FT std,clip,clip std"
    )
    back = pd.read_csv(csv_path, index_col=[0, 1])
    pd.testing.assert_frame_equal(back, table.round(4), check_exact=False, atol=1e-9)
    assert md_path.read_text() == to_markdown(table)


def test_aro_table2_rows_samples_and_markdown() -> None:
    table = aro_table2(RESULTS, groups=GROUPS)
    assert table.index.name == "relation"
    assert list(table.index) == ["Accuracy", "above", "below", "next to (excluded)"]
    assert list(table.columns) == [*GROUPED_COLUMNS, "# Samples"]
    assert table["# Samples"].tolist() == [70, 40, 30, 20]  # Accuracy: non-excluded items
    assert table["# Samples"].dtype == np.int64
    assert table.loc["Accuracy", "NegCLIP"] == pytest.approx(82.0)
    assert table.loc["below", "CLIP-FT"] == pytest.approx(73.0)
    assert table.loc["next to (excluded)", "clip"] == 71.0
    assert table.loc["above", "NegCLIP std"] == pytest.approx(SEED_STD)
    lines = to_markdown(table).splitlines()
    assert lines[0] == "| relation | NegCLIP | CLIP-FT | clip | # Samples |"
    assert lines[3] == "| above | 83.00 ± 2.00 | 63.00 ± 2.00 | 51.00 | 40 |"
    back = pd.read_csv(io.StringIO(to_csv_text(table)), index_col="relation")
    pd.testing.assert_frame_equal(back, table.round(4), check_exact=False, atol=1e-9)


def test_aro_table2_section_subtotals_follow_accuracy() -> None:
    results = {m: {b: dict(v) for b, v in bench.items()} for m, bench in RESULTS.items()}
    for bench in results.values():
        macro = bench["vg_relation"]["overall"]["macro_accuracy"]
        bench["vg_relation"]["groups"] = {
            "spatial": {"macro_accuracy": macro - 5, "n_relations": 2, "n": 70, "missing": []}}
    table = aro_table2(results)
    assert list(table.index)[:2] == ["Accuracy", "Accuracy (spatial)"]
    assert table.loc["Accuracy (spatial)", "clip"] == 45.0
    assert table.loc["Accuracy (spatial)", "# Samples"] == 70
    del results["clip"]["vg_relation"]["groups"]
    with pytest.raises(ValueError, match="relation groups differ"):
        aro_table2(results)


def test_aro_table_leads_with_the_chance_level_of_each_benchmark() -> None:
    results = {m: {b: dict(v) for b, v in bench.items()} for m, bench in RESULTS.items()}
    results["clip"]["vg_relation"]["chance"] = 50.0
    results["clip"]["order"]["chance"] = 20.0
    table = aro_table(results, {"vg_relation": "VG-Relation", "order": "Order"}, GROUPS)
    assert table.index[0] == "Chance-level"
    assert table.loc["Chance-level", ["VG-Relation", "Order"]].tolist() == [50.0, 20.0]
    assert np.isnan(table.loc["Chance-level", "Order std"])
    assert list(table.index[1:]) == LABELS
    results["Chance-level"] = {}
    with pytest.raises(ValueError, match="name of the chance row"):
        aro_table(results, {"vg_relation": "VG-Relation"})


def test_aro_table2_rejects_sample_mismatch_and_no_data() -> None:
    results = {m: dict(b) for m, b in RESULTS.items()}
    bad = _relation(60.0, 61.0)
    bad["subsets"]["below"]["n"] = 31
    results["clipft_s2"]["vg_relation"] = bad
    with pytest.raises(ValueError, match=r"# Samples differ .*'below'"):
        aro_table2(results, groups=GROUPS)
    with pytest.raises(ValueError, match="no model has results"):
        aro_table2({"clip": {}})


def test_aro_table2_per_model_and_missing_model() -> None:
    results = {"clip": RESULTS["clip"], "bare": {}}
    table = aro_table2(results)
    assert list(table.columns) == ["clip", "bare", "# Samples"]
    assert table["bare"].isna().all()
    assert "| Accuracy | 50.00 | - | 70 |" in to_markdown(table)


def test_existing_tables_accept_groups() -> None:
    aro = aro_table(RESULTS, {"vg_relation": "VG-Relation", "order": "Order"}, groups=GROUPS)
    assert list(aro.index) == LABELS
    assert list(aro.columns) == ["VG-Relation", "VG-Relation std", "Order", "Order std"]
    assert aro.loc["NegCLIP", "Order std"] == pytest.approx(4.0)
    assert "| NegCLIP | 82.00 ± 2.00 | 74.00 ± 4.00 |" in to_markdown(aro)
    sugar = sugarcrepe_table(RESULTS, columns={"replace_obj": "Replace obj"}, groups=GROUPS)
    assert list(sugar.columns) == [
        "Replace obj",
        "Replace obj std",
        "Avg (micro)",
        "Avg (micro) std",
    ]
    assert sugar.loc["CLIP-FT", "Replace obj"] == pytest.approx(63.0)
    assert sugar.loc["CLIP-FT", "Replace obj std"] == pytest.approx(3.0)
    assert math.isnan(sugar.loc["clip", "Avg (micro) std"])  # one member, no spread
    bivlc = build_table("bivlc_table2", RESULTS, groups=GROUPS)  # no bivlc records: NaN
    assert list(bivlc.index) == LABELS
    assert bivlc.loc["NegCLIP", "SugarCrepe"] == pytest.approx(81.0)
    assert np.isnan(bivlc.loc["NegCLIP", "I2T"])
    # without groups the old per-model layout is unchanged
    assert list(aro_table(RESULTS, {"order": "Order"}).index) == list(RESULTS)


def test_build_table_registers_aro_tables_with_groups() -> None:
    assert {"aro_table2", "aro_table6"} <= set(TABLE_BUILDERS)
    pd.testing.assert_frame_equal(
        build_table("aro_table6", RESULTS, groups=GROUPS), aro_table6(RESULTS, groups=GROUPS)
    )
    pd.testing.assert_frame_equal(
        build_table("aro_table2", RESULTS, groups=GROUPS), aro_table2(RESULTS, groups=GROUPS)
    )


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (after checking the signature)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_aro_radar_values_axes() -> None:
    values = aro_radar_values(RESULTS, GROUPS)
    assert list(values.index) == LABELS
    assert list(values.columns) == [
        "VG-Relation",
        "VG-Attribution",
        "Order",
        "Retrieval I2T R@1",
        "Retrieval T2I R@1",
    ]
    assert values.loc["NegCLIP", "Order"] == pytest.approx(74.0)
    no_retrieval = {
        m: {k: v for k, v in b.items() if k != "world_retrieval"} for m, b in RESULTS.items()
    }
    assert list(aro_radar_values(no_retrieval).columns) == [
        "VG-Relation",
        "VG-Attribution",
        "Order",
    ]


def test_radar_plot_png_size_and_deterministic_bytes(tmp_path: Path) -> None:
    values = aro_radar_values(RESULTS, GROUPS)
    values.loc["clip", "Order"] = math.nan  # a gap in one outline must not break drawing
    path = radar_plot(values, tmp_path / "fig" / "radar.png", title="ARO")
    first = path.read_bytes()
    assert _png_size(first) == (1200, 825)
    assert b"Software" not in first
    radar_plot(values, path, title="ARO")
    assert path.read_bytes() == first
    assert [p.name for p in path.parent.iterdir()] == ["radar.png"]
    with pytest.raises(ValueError, match="at least 3 axes"):
        radar_plot(values.iloc[:, :2], tmp_path / "bad.png")
