"""Published numbers: well-formed records, side-by-side with a reproduced table."""

from __future__ import annotations

import io
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from vlcomp.report.published import (
    load_published,
    models_as_rows,
    published_tables,
    side_by_side,
)

from .conftest import SHARED_DATA

# every (paper, table) the file must hold
TABLES = {
    ("aro", "aro"), ("aro", "table2"), ("aro", "table3"), ("aro", "table4"), ("aro", "table6"),
    ("bivlc", "table1"), ("bivlc", "table2"), ("bivlc", "table3"), ("bivlc", "table4"),
    ("bivlc", "table5"), ("bivlc", "table6"),
    ("sugarcrepe", "sugarcrepe"),
    ("bison", "table1"), ("bison", "table3"), ("bison", "table4"), ("bison", "table6"),
    ("bison", "table7"), ("bison", "section6"),
    ("visualgptscore", "table1"), ("visualgptscore", "table2a"), ("visualgptscore", "table2b"),
    ("visualgptscore", "table4a"), ("visualgptscore", "table5"), ("visualgptscore", "table6"),
    ("visualgptscore", "table9a"), ("visualgptscore", "table10"),
    ("visualgptscore", "table11"), ("visualgptscore", "table12"), ("visualgptscore", "table13"),
    ("hendriksen", "abstract"),
}
# columns of counts, and CIDEr-D (which passes 100): every other value is on a 0-100 scale
COUNTS = {("bivlc", "table1"), ("bivlc", "table5"), ("bison", "table1")}
# how each new paper's sources begin (the paper they cite)
SOURCE_PREFIX = {"aro": "ARO ", "bison": "BISON ", "visualgptscore": "VisualGPTScore ",
                 "hendriksen": "arXiv 2407.15239"}


def cell(paper: str, table: str, row: str, column: str) -> float:
    """The one published value at (row, column) of a table."""
    values = [r["rows"][row] for r in load_published(paper, table)
              if r["column"] == column and row in r["rows"]]
    assert len(values) == 1, (paper, table, row, column, values)
    return values[0]


def test_records_are_well_formed_and_match_the_reference_data():
    records = load_published()
    assert {r["paper"] for r in records} == {"aro", "bivlc", "sugarcrepe", "bison",
                                             "visualgptscore", "hendriksen"}
    for r in records:
        assert set(r) == {"paper", "table", "rows", "column", "source"}
        assert all(v >= 0 for v in r["rows"].values()), r
        if (r["paper"], r["table"]) in COUNTS and r["column"] != "Percentage":
            assert all(float(v).is_integer() for v in r["rows"].values()), r
        elif not r["column"].startswith("CIDEr"):
            assert all(v <= 100 for v in r["rows"].values()), r
    # the BiVLC CLIP row equals the committed per-item CSV of ViT-B-32 (../shared/data)
    flags = pd.read_csv(SHARED_DATA / "bivlc" / "BiVLC_ViT-B-32.csv")
    columns = {"Ipos2T": "text_score_i0", "Ineg2T": "text_score_i1", "Tpos2I": "image_score_c0",
               "Tneg2I": "image_score_c1", "I2T": "text_score", "T2I": "image_score",
               "Group": "group_score"}
    for record in load_published("bivlc", "table3"):
        if "CLIP" not in record["rows"] or record["column"] not in columns:
            continue  # the SugarCrepe column and the NegCLIP/GNM rows are from the paper
        column = flags[columns[record["column"]]].astype(str) == "True"
        assert record["rows"]["CLIP"] == pytest.approx(100 * column.mean(), abs=0.005)
    assert len(load_published("sugarcrepe")) == 7


def test_every_record_is_typed_and_cites_its_table():
    for r in load_published():
        assert all(isinstance(r[k], str) and r[k] for k in ("paper", "table", "column", "source"))
        assert r["rows"] and all(isinstance(k, str) and k for k in r["rows"])
        for value in r["rows"].values():
            assert isinstance(value, int | float) and not isinstance(value, bool)
            assert math.isfinite(value)
        prefix = SOURCE_PREFIX.get(r["paper"])
        if prefix and not r["source"].startswith("ARO Table 6"):  # the original ARO records
            assert r["source"].startswith(prefix), r["source"]
        if r["column"].endswith("alpha*") or r["column"].endswith("alpha* std"):
            assert all(0 <= v <= 1 for v in r["rows"].values()), r  # alpha, not a percentage
            assert "not a percentage" in r["source"]
        if r["column"].endswith(" std"):
            assert all(v < 5 for v in r["rows"].values()), r  # spreads, not means


def test_every_table_loads_with_unique_cells():
    assert set(published_tables()) == TABLES
    for paper, table in published_tables():
        records = load_published(paper, table)
        assert records, (paper, table)
        cells = Counter((row, r["column"]) for r in records for row in r["rows"])
        assert max(cells.values()) == 1, [c for c, n in cells.items() if n > 1]
        # nothing reproduced: every published cell is there with NaN beside it
        empty = side_by_side(pd.DataFrame(index=pd.Index([], name="model")), records)
        assert len(empty) == len(cells) and empty.reproduced.isna().all()
        # a table holding exactly the published numbers: every difference is 0
        ours = pd.DataFrame([{"model": row, r["column"]: v} for r in records
                             for row, v in r["rows"].items()]).groupby("model", sort=False).first()
        same = side_by_side(ours, records)
        assert not same.index.duplicated().any()
        assert same.difference.abs().max() == 0, (paper, table)


def test_load_published_filters_several_tables():
    both = load_published("bison", ["table3", "table4"])
    assert {r["table"] for r in both} == {"table3", "table4"}
    assert len(both) == len(load_published("bison", "table3")) + len(load_published("bison",
                                                                                     "table4"))
    assert load_published("bison", ("table6",)) == load_published("bison", "table6")
    assert load_published("no-such-paper") == []


# One or more cells per new table, read off the paper text by hand (percent).
SPOT_CHECKS = [
    # BISON Table 1 (recall@1 errors judged by people), Tables 4 / 6's caption metrics
    ("bison", "table1", "Recall@1 incorrect, human correct", "Number", 211),
    ("bison", "table4", "UpDown (SCST)", "CIDEr-D", 106.30),
    ("bison", "table4", "Human", "BLEU-4", 21.7),
    ("bison", "table6", "ShowTell (XE, ResNet-IN)", "CIDEr-D", 88.80),
    # BiVLC Table 1 (retrieval examples) and Table 5 (TROHN-Text instances)
    ("bivlc", "table1", "Winoground", "SWAP REL", 1036),
    ("bivlc", "table1", "BiVLC", "Total", 11732),
    ("bivlc", "table5", "# instances", "TOTAL", 3652846),
    # VisualGPTScore appendix Tables 5, 6 (null images) and 9a (LAION subsets)
    ("visualgptscore", "table5", "VisualGPTScore (alpha=alpha*) LAION n=3", "Winoground alpha*",
     0.706),
    ("visualgptscore", "table6", "VisualGPTScore (alpha=alpha*val) null n=3",
     "Flickr30k I2T R@5", 79.0),
    ("visualgptscore", "table9a", "VisualGPTScore", "LAION-1000 I2T R@1", 37.1),
    # Hendriksen et al.: the v4 abstract's averages
    ("hendriksen", "abstract", "mean over models and datasets",
     "T2I avg improvement, FG vs standard captions (%)", 16.23),
    # ARO main results: Table 2 Accuracy row, §2.3 text, Table 5 (COCO-/Flickr30k-PRC), Table 6
    ("aro", "aro", "NegCLIP", "VG-Relation", 80),
    ("aro", "aro", "Flava", "VG-Relation", 24),
    ("aro", "aro", "X-VLM", "VG-Attribution", 87),
    ("aro", "aro", "NegCLIP", "VG-Attribution", 71),
    ("aro", "aro", "Flava", "COCO-Order", 3.9),
    ("aro", "aro", "NegCLIP", "COCO-Order", 86),
    ("aro", "aro", "CLIP", "Flickr30k-Order", 59.5),
    ("aro", "aro", "BLIP", "Flickr30k-Order std", 0.9),
    ("aro", "aro", "Chance-level", "COCO-Order", 20),
    # ARO Table 2 (per relation)
    ("aro", "table2", "BLIP", "Accuracy (spatial)", 66),
    ("aro", "table2", "CLIP", "Accuracy (verbs)", 61),
    ("aro", "table2", "NegCLIP", "wearing", 99),
    ("aro", "table2", "Flava", "in front of", 78),
    ("aro", "table2", "X-VLM", "sitting on top of", 100),
    # ARO Tables 3-4 (text- / image-shuffled retrieval)
    ("aro", "table3", "COCO-like / No Shuffling / BLIP", "Text R@1", 81.4),
    ("aro", "table3", "COCO-like / Shuffle all words / CLIP", "Text R@1", 34.1),
    ("aro", "table3", "Flickr-like / Shuffle trigrams / CLIP", "Text R@1 std", 1.7),
    ("aro", "table3", "Flickr-like / No Shuffling / X-VLM", "Text R@5", 100.0),
    ("aro", "table3", "Flickr-like / Shuffle within trigrams / Flava", "Image R@5", 83.4),
    ("aro", "table4", "COCO-like / Shuffle Patches (9) / CLIP", "Image R@1", 20.9),
    ("aro", "table4", "Flickr-like / Shuffle Rows (4) / Flava", "Image R@5", 82.3),
    ("aro", "table4", "COCO-like / Shuffle Columns (4) / X-VLM", "Text R@1 std", 0.3),
    # ARO Table 6 rows added beside the original records
    ("aro", "table6", "NegCLIP", "Flickr30k-Order", 91),
    ("aro", "table6", "CLIP", "ImageNet", 75),
    ("aro", "table6", "CLIP-FT", "Flickr30k Retrieval T2I R@1", 67),
    # BiVLC Tables 2, 3 (NegCLIP/GNM, SugarCrepe) and 6
    ("bivlc", "table2", "Human", "Group", 86.80),
    ("bivlc", "table2", "GNM", "SugarCrepe", 81.83),
    ("bivlc", "table2", "Random", "Group", 16.67),
    ("bivlc", "table3", "GNM", "Tpos2I", 80.33),
    ("bivlc", "table3", "NegCLIP", "Tneg2I", 91.34),
    ("bivlc", "table3", "CLIP_TROHN-Text", "SugarCrepe", 93.40),
    ("bivlc", "table3", "GPT-4V", "SugarCrepe", 92.19),
    ("bivlc", "table6", "CLIP_TROHN-Img", "Add I2T", 94.74),
    ("bivlc", "table6", "CLIP", "Swap Group", 13.65),
    ("bivlc", "table6", "GNM", "Add T2I", 58.74),
    # BISON Tables 3, 4, 6, 7 and §6
    ("bison", "table3", "SCAN t2i", "Accuracy", 85.89),
    ("bison", "table3", "ConvNet+BoW", "T2I R@1", 45.19),
    ("bison", "table3", "Obj+Bi-GRU", "I2T R@5", 91.40),
    ("bison", "table4", "UpDown (SCST)", "Accuracy", 84.27),
    ("bison", "table4", "ShowTell (XE)", "Accuracy", 78.59),
    ("bison", "table4", "Human", "Accuracy", 100.0),
    ("bison", "table6", "UpDown (SCST, ResNeXt-IG-3.5B)", "Accuracy", 84.87),
    ("bison", "table6", "ShowTell (XE, ResNet-IN)", "Accuracy", 74.04),
    ("bison", "table7", "SCAN i2t (ResNeXt-IG-3.5B)", "Accuracy", 86.66),
    ("bison", "table7", "SCAN i2t (ResNet-IN)", "T2I R@1", 36.89),
    ("bison", "section6", "METEOR", "Accuracy", 74.44),
    # VisualGPTScore Tables 1, 2a, 2b, 4a, 10-13
    ("visualgptscore", "table1", "VisualGPTScore", "COCO-Order", 99.4),
    ("visualgptscore", "table1", "ITMScore", "VG-Relation", 58.7),
    ("visualgptscore", "table1", "ALBEF", "Crepe Negate", 48.7),
    ("visualgptscore", "table1", "VisualGPTScore", "Crepe Atom-Foils", 73.2),
    ("visualgptscore", "table1", "CLIP ViT-L/14", "Winoground No-Tag Image Score", 8.72),
    ("visualgptscore", "table1", "VisualGPTScore", "EqBen Text Score", 9.6),
    ("visualgptscore", "table2a", "OPT", "Crepe Negate", 5.0),
    ("visualgptscore", "table2a", "VisualGPTScore P(t|null)", "VL-CheckList Relation", 75.9),
    ("visualgptscore", "table2b", "PMI", "EqBen Text Score", 19.8),
    ("visualgptscore", "table4a", "VisualGPTScore (alpha=alpha*val)", "Flickr30k I2T R@1", 63.6),
    ("visualgptscore", "table4a", "ITMScore", "COCO I2T R@5", 90.6),
    ("visualgptscore", "table4a", "ITMScore", "Winoground Text Score std", 2.4),
    ("visualgptscore", "table4a", "VisualGPTScore (alpha=alpha*val)", "Winoground alpha*", 0.855),
    ("visualgptscore", "table10", "BLIP2-FlanT5 VisualGPTScore", "VL-CheckList Relation", 56.7),
    ("visualgptscore", "table11", "BLIP2-QFormer ITMScore", "Winoground Text Score", 42.5),
    ("visualgptscore", "table11", "BLIP2-FlanT5 VisualGPTScore (alpha=alpha*)", "EqBen alpha*",
     1.0),
    ("visualgptscore", "table12", "ITMScore", "EqBen Image Score", 20.32),
    ("visualgptscore", "table13", "VisualGPTScore (alpha=alpha*)",
     "Winoground ComplexReasoning Image Score", 10.3),
]


@pytest.mark.parametrize(("paper", "table", "row", "column", "value"), SPOT_CHECKS)
def test_spot_checks_against_the_paper_text(paper, table, row, column, value):
    assert cell(paper, table, row, column) == pytest.approx(value, abs=1e-9)


def test_every_new_table_has_a_spot_check():
    checked = {(p, t) for p, t, *_ in SPOT_CHECKS}
    assert checked == TABLES - {("bivlc", "table4"), ("sugarcrepe", "sugarcrepe")}


def test_sizes_of_the_transcribed_tables():
    def values(paper, table):
        return sum(len(r["rows"]) for r in load_published(paper, table))
    # ARO Tables 3/4: 2 galleries x 4 models x (6 | 4) strategies x 4 metrics, std except clean
    assert values("aro", "table3") == 2 * 4 * 6 * 4 + 2 * 4 * 5 * 4
    assert values("aro", "table4") == 2 * 4 * 4 * 4 + 2 * 4 * 3 * 4
    assert values("aro", "table2") == 6 * 48  # 3 accuracy rows + 45 relations, 6 models
    assert values("bivlc", "table6") == 6 * 9
    assert values("bison", "table7") == 10 * 5
    assert values("visualgptscore", "table13") == 7 * 3 * 3


def test_numbers_the_papers_print_twice_agree():
    # BiVLC Tables 2 and 3 share SugarCrepe/I2T/T2I/Group of the four baselines
    for model in ("CLIP", "CLIP_COCO", "NegCLIP", "GNM"):
        for column in ("SugarCrepe", "I2T", "T2I", "Group"):
            assert cell("bivlc", "table2", model, column) == cell("bivlc", "table3", model, column)
    # ARO: the main VG-Relation column is Table 2's Accuracy row
    for model in ("CLIP", "NegCLIP", "CLIP-FT", "X-VLM", "BLIP", "Flava"):
        assert cell("aro", "aro", model, "VG-Relation") == cell("aro", "table2", model, "Accuracy")
    # ARO Tables 3 and 4 repeat the unshuffled rows; Table 6 rounds CLIP's to two decimals
    for gallery in ("COCO-like", "Flickr-like"):
        for model in ("BLIP", "CLIP", "Flava", "X-VLM"):
            row = f"{gallery} / No Shuffling / {model}"
            for column in ("Text R@1", "Text R@5", "Image R@1", "Image R@5"):
                assert cell("aro", "table3", row, column) == cell("aro", "table4", row, column)
    assert round(cell("aro", "table3", "COCO-like / No Shuffling / CLIP", "Text R@1")) == \
        cell("aro", "table6", "CLIP", "COCO Retrieval I2T R@1")
    assert round(cell("aro", "table3", "Flickr-like / No Shuffling / CLIP", "Image R@1")) == \
        cell("aro", "table6", "CLIP", "Flickr30k Retrieval T2I R@1")
    # VisualGPTScore: Table 1's score is Table 2a's P(t|i) column; BLIP rows of Tables 1/11/12
    for column in ("VG-Relation", "COCO-Order", "Crepe Atom-Foils", "Crepe Negate", "Crepe Swap",
                   "VL-CheckList Relation"):
        assert cell("visualgptscore", "table1", "VisualGPTScore", column) == \
            cell("visualgptscore", "table2a", "VisualGPTScore", column)
    assert cell("visualgptscore", "table1", "ITMScore", "Winoground Text Score") == \
        cell("visualgptscore", "table11", "BLIP ITMScore", "Winoground Text Score") == \
        cell("visualgptscore", "table12", "ITMScore", "Winoground Text Score")
    assert cell("visualgptscore", "table2b", "PMI", "Winoground Text Score") == \
        cell("visualgptscore", "table11", "BLIP VisualGPTScore (alpha=1)", "Winoground Text Score")


def test_side_by_side_aligns_rows_and_columns():
    ours = pd.DataFrame({"I2T": [70.0, 80.0], "T2I": [50.0, 60.0]},
                        index=pd.Index(["CLIP", "CLIP_TROHN-Img"], name="model"))
    table = side_by_side(ours, load_published("bivlc", "table3"))
    row = table.loc[("CLIP", "T2I")]
    assert row.reproduced == 50.0 and row.difference == pytest.approx(50.0 - 52.40)
    assert np.isnan(table.loc[("CLIP_COCO", "I2T")].reproduced)  # no such row here
    assert np.isnan(table.loc[("CLIP", "Tpos2I")].reproduced)  # no such column


def test_aro_table6_is_transposed():
    index = pd.MultiIndex.from_tuples([("Compositional Tasks", "VG-Relation")],
                                      names=["section", "task"])
    ours = pd.DataFrame({"CLIP": [52.0], "NegCLIP": [55.0]}, index=index)
    flat = models_as_rows(ours)
    assert flat.loc["NegCLIP", "VG-Relation"] == 55.0
    table = side_by_side(ours, load_published("aro", "table6"))
    assert table.loc[("NegCLIP", "VG-Relation")].difference == pytest.approx(55.0 - 81.0)


def test_aro_table2_relations_are_transposed():
    ours = pd.DataFrame({"CLIP": [60.0, 50.0], "NegCLIP": [70.0, 40.0], "# Samples": [100, 20]},
                        index=pd.Index(["Accuracy", "behind"], name="relation"))
    assert models_as_rows(ours).loc["NegCLIP", "behind"] == 40.0
    table = side_by_side(ours, load_published("aro", "table2"))
    assert table.loc[("CLIP", "Accuracy")].difference == pytest.approx(60.0 - 59)
    assert table.loc[("NegCLIP", "behind")].difference == pytest.approx(40.0 - 29)
    assert np.isnan(table.loc[("BLIP", "behind")].reproduced)


def test_robustness_rows_are_flattened_from_the_table_and_its_csv():
    index = pd.MultiIndex.from_tuples(
        [("COCO-like", "Shuffle all words / CLIP"), ("Flickr-like", "Shuffle Rows (4) / CLIP")],
        names=["", "row"])
    ours = pd.DataFrame({"Text R@1": [30.0, 60.0], "Text R@1 std": [1.0, 2.0]}, index=index)
    csv = pd.read_csv(io.StringIO(ours.to_csv()), index_col=0)  # as a script would read it
    for frame in (ours, csv):
        flat = models_as_rows(frame)
        assert flat.loc["COCO-like / Shuffle all words / CLIP", "Text R@1"] == 30.0
        text = side_by_side(frame, load_published("aro", "table3"))
        row = text.loc[("COCO-like / Shuffle all words / CLIP", "Text R@1")]
        assert row.reproduced == 30.0 and row.difference == pytest.approx(30.0 - 34.1)
        assert text.loc[("COCO-like / Shuffle all words / CLIP", "Text R@1 std")].published \
            == pytest.approx(0.1)
        image = side_by_side(frame, load_published("aro", "table4"))
        assert image.loc[("Flickr-like / Shuffle Rows (4) / CLIP", "Text R@1")].difference \
            == pytest.approx(60.0 - 68.7)


def test_world_columns_are_compared_with_the_coco_ones():
    """The world's "Order" / "Retrieval" columns stand for COCO's (WORLD_ALIASES)."""
    from vlcomp.report.published import WORLD_ALIASES

    ours = pd.DataFrame({"Order": [40.0]}, index=pd.Index(["CLIP"], name="model"))
    records = [{"paper": "aro", "table": "aro", "rows": {"CLIP": 46.0}, "column": "COCO-Order",
                "source": "ARO Table 5"}]
    assert np.isnan(side_by_side(ours, records).reproduced.iloc[0])
    table = side_by_side(ours, records, WORLD_ALIASES)
    assert table.loc[("CLIP", "COCO-Order"), "difference"] == -6.0


def test_the_count_tables_printed_beside_ours_are_the_published_records():
    """BiVLC Tables 1 and 5 as the count tables print them ("(paper)" rows) equal the
    published records their _vs_published tables set beside ours."""
    from vlcomp.benchmarks.bivlc import PAPER_TABLE1 as COUNTS_TABLE1
    from vlcomp.benchmarks.bivlc import category_columns
    from vlcomp.benchmarks.bivlc_counts import PAPER_TABLE5, TABLE5_COLUMNS
    from vlcomp.benchmarks.bivlc_table1 import PAPER_TABLE1

    for name, row in PAPER_TABLE1.items():
        for column, value in row.items():
            if column not in ("I2T", "T2I"):  # check marks are not recorded
                assert cell("bivlc", "table1", name, column) == value, (name, column)
    for name, values in COUNTS_TABLE1.items():
        for column, value in zip([*category_columns(), "Total"], values, strict=True):
            assert cell("bivlc", "table1", name.removesuffix(" (paper)"), column) == value
    for column, value in zip(TABLE5_COLUMNS, PAPER_TABLE5, strict=True):
        assert cell("bivlc", "table5", "# instances", column) == value


def test_published_only_reasons_match_a_row_of_one_table_a_table_or_a_row_anywhere():
    from vlcomp.report.published import published_only_reason

    reasons = {"visualgptscore/table5/VisualGPTScore (alpha=alpha*) LAION n=3": "LAION rows",
               "visualgptscore/table9a": "LAION subsets", "ShowTell": "never released"}
    laion = "VisualGPTScore (alpha=alpha*) LAION n=3"
    assert published_only_reason(laion, reasons, "visualgptscore", "table5") == "LAION rows"
    assert published_only_reason(laion, reasons, "visualgptscore", "table6") is None
    assert published_only_reason("ITMScore", reasons, "visualgptscore", "table9a") == \
        "LAION subsets"
    assert published_only_reason("ITMScore", reasons, "visualgptscore", "table4a") is None
    assert published_only_reason("ShowTell (XE)", reasons, "bison", "table4") == \
        "never released"
    assert published_only_reason(laion, reasons) is None  # no table given: rows only
