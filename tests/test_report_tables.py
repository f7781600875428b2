"""Tests for vlcomp.report.tables: paper layouts and the csv/markdown writers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.benchmarks import SUGARCREPE_SUBSETS
from vlcomp.report.tables import (
    aro_table,
    bivlc_table2,
    bivlc_table3,
    bivlc_table6,
    sugarcrepe_table,
    to_markdown,
    write_table,
)


def _bivlc(base: float) -> dict:
    """A BiVLC metrics dict whose values are ``base`` + a per-score offset."""
    names = ("Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I", "I2T", "T2I", "Group")
    entry = {n: base + k for k, n in enumerate(names)} | {"n": 10}
    types = {
        t: {n: base + 10 * i + k for k, n in enumerate(names)} | {"n": 3}
        for i, t in enumerate(("replace", "swap", "add"))
    }
    return {"metric": "bivlc", "overall": entry, "types": types, "subsets": {}}


def _sugarcrepe(acc: float) -> dict:
    subsets = {
        n: {"accuracy": acc + k, "correct": 1, "n": 2} for k, n in enumerate(SUGARCREPE_SUBSETS)
    }
    return {"metric": "sugarcrepe", "overall": {"accuracy": acc + 0.123456}, "subsets": subsets}


RESULTS = {
    "clip-vit-b-32": {
        "vg_rel": {"metric": "aro_relation", "overall": {"macro_accuracy": 59.123456}},
        "vg_att": {"metric": "aro_attribution", "overall": {"macro_accuracy": 62.5}},
        "coco": {"metric": "order", "overall": {"mean": 46.0, "std": 0.25}},
        "sugarcrepe": _sugarcrepe(80.0),
        "bivlc": _bivlc(50.0),
    },
    "negclip": {
        "vg_rel": {"metric": "aro_relation", "overall": {"macro_accuracy": 81.0}},
        "coco": {"metric": "order", "overall": {"mean": 86.0, "std": 0.0}},
        "sugarcrepe": _sugarcrepe(85.0),
    },
}
ARO_COLUMNS = {"vg_rel": "VG-Relation", "vg_att": "VG-Attribution", "coco": "COCO-Order"}


def test_aro_table_layout_and_markdown() -> None:
    table = aro_table(RESULTS, ARO_COLUMNS)
    assert list(table.index) == ["clip-vit-b-32", "negclip"]
    assert list(table.columns) == ["VG-Relation", "VG-Attribution", "COCO-Order", "COCO-Order std"]
    assert table.loc["negclip", "COCO-Order"] == 86.0
    assert np.isnan(table.loc["negclip", "VG-Attribution"])
    markdown = to_markdown(table)
    assert "| model | VG-Relation | VG-Attribution | COCO-Order |" in markdown
    assert "| clip-vit-b-32 | 59.12 | 62.50 | 46.00 ± 0.25 |" in markdown
    assert "| negclip | 81.00 | - | 86.00 ± 0.00 |" in markdown


def test_aro_table_rejects_wrong_metric_kind() -> None:
    with pytest.raises(ValueError, match="not an ARO metric"):
        aro_table(RESULTS, {"sugarcrepe": "VG-Relation"})


def test_sugarcrepe_table_paper_order() -> None:
    table = sugarcrepe_table(RESULTS)
    assert list(table.columns) == [
        "Replace obj",
        "Replace att",
        "Replace rel",
        "Swap obj",
        "Swap att",
        "Add obj",
        "Add att",
        "Avg (micro)",
    ]
    assert table.loc["clip-vit-b-32", "Replace obj"] == 82.0
    assert table.loc["clip-vit-b-32", "Add obj"] == 80.0
    assert table.loc["negclip", "Avg (micro)"] == pytest.approx(85.123456)


def test_bivlc_tables_follow_the_paper_layouts() -> None:
    table2 = bivlc_table2(RESULTS)  # Table 2: SugarCrepe, then BiVLC I2T, T2I, Group
    assert list(table2.columns) == ["SugarCrepe", "I2T", "T2I", "Group"]
    assert table2.loc["clip-vit-b-32"].tolist() == pytest.approx([80.123456, 54.0, 55.0, 56.0])
    assert table2.loc["negclip", "SugarCrepe"] == pytest.approx(85.123456)
    assert table2.loc["negclip", ["I2T", "T2I", "Group"]].isna().all()
    table3 = bivlc_table3(RESULTS)  # Table 3: + the four finer metrics
    assert list(table3.columns) == [
        "SugarCrepe", "I2T", "T2I", "Group", "Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I"
    ]
    table6 = bivlc_table6(RESULTS)  # Table 6: I2T, T2I, Group per category
    assert list(table6.columns)[:4] == ["Replace I2T", "Replace T2I", "Replace Group", "Swap I2T"]
    assert table6.loc["clip-vit-b-32", "Add Group"] == 76.0
    assert len(table6.columns) == 9


def test_bivlc_table2_leads_with_the_random_row_of_the_records_chance_levels() -> None:
    from vlcomp.metrics.benchmarks import PAIR_CHANCE

    results = {m: {b: dict(v) for b, v in bench.items()} for m, bench in RESULTS.items()}
    results["negclip"]["sugarcrepe"]["chance"] = 50.0
    results["clip-vit-b-32"]["bivlc"]["chance"] = dict(PAIR_CHANCE)
    table2 = bivlc_table2(results)
    assert table2.index[0] == "Random"
    assert table2.loc["Random"].tolist() == pytest.approx([50.0, 25.0, 25.0, 16.6667])
    assert "Random" not in bivlc_table3(results).index  # Table 3 has no Random row


def test_write_table_roundtrip_and_deterministic(tmp_path: Path) -> None:
    table = aro_table(RESULTS, ARO_COLUMNS)
    csv_path, md_path = write_table(table, tmp_path / "out" / "aro")
    assert (csv_path.name, md_path.name) == ("aro.csv", "aro.md")
    back = pd.read_csv(csv_path, index_col="model")
    pd.testing.assert_frame_equal(back, table.round(4), check_exact=False, atol=1e-9)
    first = (csv_path.read_bytes(), md_path.read_bytes())
    write_table(table, tmp_path / "out" / "aro")
    assert (csv_path.read_bytes(), md_path.read_bytes()) == first
    assert "59.1235" in csv_path.read_text()
    assert "negclip" in md_path.read_text()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["aro.csv", "aro.md"]


def test_markdown_alignment_row_and_shape() -> None:
    markdown = to_markdown(bivlc_table2(RESULTS, sugarcrepe=None)).splitlines()
    assert markdown[1] == "|:---|---:|---:|---:|"
    assert markdown[2] == "| clip-vit-b-32 | 54.00 | 55.00 | 56.00 |"
    assert markdown[3] == "| negclip | - | - | - |"
    assert len(markdown) == 4
