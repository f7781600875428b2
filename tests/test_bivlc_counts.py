"""BiVLC Table 5 (TROHN-Text per category) and Table 1 (benchmark sizes) from data."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from PIL import Image

from vlcomp.benchmarks.bivlc_counts import (
    PAPER_GENERATED_PER_CATEGORY,
    PAPER_GENERATED_TOTAL,
    PAPER_TABLE5,
    RELEASE_SPLITS,
    TABLE5_COLUMNS,
    TYPE_NOT_DERIVABLE,
    read_generation_files,
    release_statistics,
    row_categories,
    trohn_text_counts,
)
from vlcomp.benchmarks.bivlc_table1 import (
    PAPER_TABLE1,
    TABLE1_COLUMNS,
    benchmark_statistics,
    benchmark_table,
)
from vlcomp.data.bivlc import bivlc_items
from vlcomp.data.sugarcrepe import sugarcrepe_items
from vlcomp.data.winoground import winoground_items
from vlcomp.io import read_parquet, write_parquet
from vlcomp.items import make_items
from vlcomp.text.llm_negatives import llm_negatives

from .conftest import SHARED_DATA

CATEGORY_COLUMNS = list(TABLE5_COLUMNS[:-1])


def test_published_numbers_are_consistent():
    assert sum(PAPER_TABLE5[:-1]) == PAPER_TABLE5[-1] == 3_652_846
    assert sum(RELEASE_SPLITS.values()) == PAPER_TABLE5[-1]  # 2,922,276 + 730,570
    assert PAPER_GENERATED_PER_CATEGORY * 7 == PAPER_GENERATED_TOTAL
    for name, row in PAPER_TABLE1.items():
        cells = [v for k, v in row.items() if k not in ("I2T", "T2I", "Total")]
        extra = {"Winoground": 104}.get(name, 0)  # examples tagged both SWAP OBJ and REL
        assert sum(cells) == row["Total"] + extra, name


def _world_negatives(tmp_path):
    """Rows as workflow/scripts/sugarcrepe_negatives_world.py writes them (string dtype)."""
    rows = [("c1", "img1", "a red cube left of a blue ball", "replace_obj", "a red cone ..."),
            ("c1", "img1", "a red cube left of a blue ball", "swap_att", "a blue cube ..."),
            ("c1", "img1", "a red cube left of a blue ball", "add_att", "a big red cube ..."),
            ("c2", "img2", "a green ball above a cube", "replace_obj", "a green cone ..."),
            ("c2", "img2", "a green ball above a cube", "replace_rel", "a green ball below ..."),
            ("c3", "img2", "a cube below a green ball", "replace_obj", "a cone below ...")]
    frame = pd.DataFrame(rows, columns=["caption_id", "image_id", "text", "subset",
                                        "negative"]).astype("string")
    path = tmp_path / "results" / "negatives" / "world" / "sugarcrepe.parquet"
    path.parent.mkdir(parents=True)
    write_parquet(frame, path)
    return read_parquet(path)


def test_counts_of_generated_negatives_per_category(tmp_path):
    table = trohn_text_counts(_world_negatives(tmp_path), captions=3)
    assert list(table.columns) == list(TABLE5_COLUMNS)
    assert table.loc["# instances"].tolist() == [3, 0, 1, 0, 1, 0, 1, 6]
    assert table.loc["# generated"].tolist() == [3] * 7 + [21]
    assert table.loc["% kept"].tolist() == [100.0, 0.0, 33.33, 0.0, 33.33, 0.0, 33.33, 28.57]
    assert table.loc["# instances (paper)"].tolist() == list(PAPER_TABLE5)
    assert table.loc["# generated (paper)", "TOTAL"] == 4_142_271
    assert "note" not in table.attrs


class _Scripted:
    """A generator answering every non-swap prompt and refusing every swap prompt."""

    batch_size = 4

    def __call__(self, prompts, seed):
        return ["No" if "swap" in p.split("GPT4 Correct User: ")[-1] else
                "Nouns: []\nNew sentence: A totally different scene here." for p in prompts]


def test_counts_of_the_llm_writer_output():
    captions = pd.DataFrame({"caption_id": ["1", "2"], "image_id": ["a", "b"],
                             "text": ["A man riding a horse.", "Two dogs on a beach."]})
    negatives = llm_negatives(captions, _Scripted(), progress=False)
    assert list(negatives.columns) == ["caption_id", "image_id", "text", "subset", "negative"]
    table = trohn_text_counts(negatives, captions=2, with_paper=False)
    assert table.loc["# instances"].tolist() == [2, 2, 2, 0, 0, 2, 2, 10]
    assert table.loc["% kept", "SWAP OBJ"] == 0.0
    assert list(table.index) == ["# instances", "# generated", "% kept"]


def _hub_split(tmp_path, split, n, offset=0):
    """One split in the hub's layout: data/{split}-00000-of-00001.parquet, three strings."""
    frame = pd.DataFrame({
        "image_id": [f"{391979 + (offset + k) // 3:012d}.jpg" for k in range(n)],
        "caption": [f"A bird is flying over the water {(offset + k) // 3}." for k in range(n)],
        "negative_caption": [f"A bird is flying over the snow {offset + k}." for k in range(n)],
    })
    path = tmp_path / "data" / f"{split}-00000-of-00001.parquet"
    path.parent.mkdir(exist_ok=True)
    frame.to_parquet(path, index=False)
    return pd.read_parquet(path)


def test_hub_release_gives_totals_only(tmp_path):
    train, val = _hub_split(tmp_path, "train", 8), _hub_split(tmp_path, "validation", 2, 8)
    assert row_categories(train) is None
    rows = pd.concat([train.assign(split="train"), val.assign(split="validation")])
    table = trohn_text_counts(rows, captions=4)
    assert list(table.index[:3]) == ["# instances (train)", "# instances (validation)",
                                     "# instances"]
    assert table.loc["# instances (train)", "TOTAL"] == 8
    assert table.loc["# instances", "TOTAL"] == 10
    assert table.loc["# instances", CATEGORY_COLUMNS].isna().all()
    assert table.loc["% kept", "TOTAL"] == round(100 * 10 / 28, 2)
    assert pd.isna(table.loc["% kept", "ADD ATT"])
    assert table.attrs["note"] == TYPE_NOT_DERIVABLE


def test_release_statistics(tmp_path):
    train = _hub_split(tmp_path, "train", 8)
    train.loc[7] = train.loc[6]  # an exact duplicate row
    train.loc[5, "negative_caption"] = train.loc[5, "caption"] + " "
    stats = release_statistics(train, split="train")
    assert stats["rows"] == 8 and stats["published_rows"] == 2_922_276
    assert stats["images"] == 3 and stats["captions"] == 3
    assert stats["negatives_per_caption"] == {2: 1, 3: 2}
    assert stats["duplicate_rows"] == 1 and stats["negative_equals_caption"] == 1
    assert stats["categories"] == TYPE_NOT_DERIVABLE
    # the rows vlcomp.data.trohn_release.release_instances keeps (negative, not ..._caption)
    ours = train.rename(columns={"negative_caption": "negative"})
    assert release_statistics(ours)["rows"] == 8
    with pytest.raises(ValueError, match="unknown TROHN-Text split 'val'"):
        release_statistics(train, split="val")


def test_bivlc_generation_files_carry_the_category(tmp_path):
    for name, n in (("TROHN-TEXT_REPLACE_OBJ.csv", 3), ("TROHN-TEXT_SWAP_ATT.csv", 1)):
        frame = pd.DataFrame({"image_id": ["000000391979.jpg"] * n,
                              "caption": ["A bird, flying."] * n,
                              "negative_caption": [f'A "bird" {k}.' for k in range(n)]})
        frame.to_csv(tmp_path / name, index=False, quotechar='"', quoting=csv.QUOTE_ALL)
    rows = read_generation_files(tmp_path)
    assert rows.subset.tolist() == ["replace_obj"] * 3 + ["swap_att"]
    table = trohn_text_counts(rows, with_paper=False)
    assert table.loc["# instances"].tolist() == [3, 0, 0, 0, 1, 0, 0, 4]
    with pytest.raises(FileNotFoundError, match=r"TROHN-TEXT_ADD_ATT\.csv"):
        read_generation_files(tmp_path / "empty")


def test_unknown_category_names_the_row():
    rows = pd.DataFrame({"subset": ["add_obj", "swap_rel"]}, index=[10, 11])
    with pytest.raises(ValueError, match="row 11 has unknown category 'swap_rel'"):
        trohn_text_counts(rows)
    typed = pd.DataFrame({"type": ["replace", "swap"], "subtype": ["rel", "obj"]})
    assert trohn_text_counts(typed).loc["# instances", "SWAP OBJ"] == 1


@pytest.mark.skipif(not (SHARED_DATA / "sugarcrepe").is_dir(), reason="no shared SugarCrepe")
def test_sugarcrepe_statistics_from_the_release(tmp_path):
    items, _, version = sugarcrepe_items(SHARED_DATA / "sugarcrepe", tmp_path)
    stats = benchmark_statistics(items)
    assert version == "7511"
    assert stats["categories"] == {
        "REPLACE OBJ": 1652, "REPLACE ATT": 788, "REPLACE REL": 1406, "SWAP OBJ": 245,
        "SWAP ATT": 666, "SWAP REL": 0, "ADD OBJ": 2062, "ADD ATT": 692}
    assert stats["retrieval_examples"] == stats["i2t_examples"] == 7511  # paper: 7512 (246)
    assert stats["t2i_examples"] == 0 and stats["instances"] == 7511
    assert stats["images"] == 1560 and stats["uncategorised"] == 0
    row = benchmark_table({"SugarCrepe": items}, with_paper=False).loc["SugarCrepe"]
    assert row["I2T"] == "✓" and row["T2I"] == "" and row["SWAP REL"] == ""


def _winoground(tmp_path, tags):
    lines = [json.dumps({"id": k, "image_0": f"ex_{k}_img_0", "image_1": f"ex_{k}_img_1",
                         "caption_0": f"a dog {k} near a cat", "caption_1": f"a cat {k} near "
                         "a dog", "tag": "Noun", "secondary_tag": "", "num_main_preds": 1,
                         "collapsed_tag": tag}) for k, tag in enumerate(tags)]
    path = tmp_path / "examples.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return winoground_items(path, tmp_path, expected_items=None)[0]


def test_winoground_tags_give_the_published_row(tmp_path):
    # collapsed_tag composition 141 Object / 233 Relation / 26 Both (400 items)
    items = _winoground(tmp_path, ["Object"] * 141 + ["Relation"] * 233 + ["Both"] * 26)
    stats = benchmark_statistics(items)
    assert stats["categories"]["SWAP OBJ"] == 668
    assert stats["categories"]["SWAP REL"] == 1036
    assert stats["retrieval_examples"] == 1600 and stats["i2t_examples"] == 800
    assert stats["images"] == 800 and stats["captions"] == 800
    row = benchmark_table({"Winoground": items}).loc["Winoground"]
    paper = benchmark_table({}).loc["Winoground (paper)"]
    assert row.tolist() == paper.tolist()


def _jpeg(colour):
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buf, format="JPEG")
    return {"bytes": buf.getvalue(), "path": None}


def test_bivlc_pairs_count_four_examples(tmp_path):
    counts = {("replace", "obj"): 1200, ("replace", "att"): 437, ("replace", "rel"): 462,
              ("swap", "obj"): 81, ("swap", "att"): 278, ("add", "obj"): 399,
              ("add", "att"): 76}
    pos, neg = _jpeg((200, 0, 0)), _jpeg((0, 0, 200))
    rows = [{"image": pos, "caption": f"A cat {k}.", "negative_caption": f"A dog {k}.",
             "negative_image": neg, "type": kind, "subtype": sub}
            for (kind, sub), n in counts.items() for k in range(n)]
    items, _ = bivlc_items(rows, tmp_path / "imgs")
    stats = benchmark_statistics(items)
    assert stats["instances"] == 2933 and stats["images"] == 2
    assert stats["i2t_examples"] == stats["t2i_examples"] == 5866
    table = benchmark_table({"BiVLC": items})
    assert table.loc["BiVLC"].tolist() == table.loc["BiVLC (paper)"].tolist()
    assert list(table.columns) == list(TABLE1_COLUMNS)
    assert list(table.index) == ["BiVLC", "Winoground (paper)", "SugarCrepe (paper)",
                                 "BiVLC (paper)"]


def test_items_without_category_are_counted_apart():
    items = make_items([{"item_id": "x", "subset": "VG-Relation", "image_ids": ["i"],
                         "texts": ["a", "b"], "protocol": "i2t", "label": 0,
                         "tie_policy": "strict"}])
    stats = benchmark_statistics(items)
    assert stats["uncategorised"] == 1 and sum(stats["categories"].values()) == 0
    with pytest.raises(ValueError, match="lack column"):
        benchmark_statistics(items.drop(columns="protocol"))


def test_table1_gets_winoground_beside_sugarcrepe_and_bivlc():
    from vlcomp.benchmarks.bivlc import category_counts
    from vlcomp.benchmarks.bivlc_table1 import with_winoground
    from vlcomp.items import make_items

    pairs = make_items([{"item_id": f"w{k}", "subset": tag, "image_ids": [f"a{k}", f"b{k}"],
                         "texts": ["x", "y"], "protocol": "pair", "label": 0,
                         "tie_policy": "strict"}
                        for k, tag in enumerate(["Object", "Relation", "Both"])])
    sugar = pd.DataFrame({"type": ["replace", "swap"], "subtype": ["obj", "att"]})
    table = with_winoground(category_counts(sugar, sugar.iloc[:1]), pairs)
    ours = table.loc["Winoground (I2T + T2I examples)"]
    assert (ours["SWAP OBJ"], ours["SWAP REL"], ours["Total"]) == (8, 8, 12)  # Both in both
    assert table.loc["Winoground (paper)", "SWAP REL"] == 1036
    assert table.loc["SugarCrepe-style (I2T examples)", "SWAP REL"] == ""
    assert list(table.columns)[5] == "SWAP REL"
