"""BISON Tables 4 / 6 on configured captioners: references, caption scores and the table."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from vlcomp.metrics.captioning import caption_metrics
from vlcomp.report.bison_captioners import (
    ACCURACY,
    EMPTY_STAND_IN,
    HUMAN,
    captioner_table,
    human_captions,
    reference_captions,
    score_captions,
    table_notes,
)
from vlcomp.report.tables import to_markdown

# results/data/coco/captions.parquet as vlcomp.data.karpathy writes it: caption_id
# "{image_id}#{k}", every split in one table (an image may have more than 5 captions)
COCO = pd.DataFrame({
    "caption_id": ["COCO_val2014_000000000042#0", "COCO_val2014_000000000042#1",
                   "COCO_val2014_000000000073#0", "COCO_val2014_000000000073#1",
                   "COCO_val2014_000000000073#2", "COCO_train2014_000000000009#0"],
    "image_id": ["COCO_val2014_000000000042", "COCO_val2014_000000000042",
                 "COCO_val2014_000000000073", "COCO_val2014_000000000073",
                 "COCO_val2014_000000000073", "COCO_train2014_000000000009"],
    "text": ["A dog lying on a red mat.", "a brown dog sleeps on the mat",
             "Two people riding bikes down a street.", "people ride bicycles on a road",
             "two cyclists on a city street", "a plate of food"],
    "split": ["test", "test", "test", "test", "test", "train"],
})
IMAGES = ["COCO_val2014_000000000073", "COCO_val2014_000000000042"]


def test_references_are_the_test_captions_of_the_image_set():
    refs = reference_captions(COCO, IMAGES)
    assert list(refs) == IMAGES  # image-set order
    assert refs["COCO_val2014_000000000073"] == list(COCO.text[2:5])
    assert refs["COCO_val2014_000000000042"] == list(COCO.text[:2])
    # the world's table: caption_id "{scene}-c{k}", an extra template column
    world = pd.DataFrame({"caption_id": ["s7-c0", "s7-c1"], "image_id": ["s7", "s7"],
                          "text": ["a red circle", "a circle"], "split": ["test", "test"],
                          "template": ["list_attributes", "list_shapes"]})
    assert reference_captions(world, ["s7"]) == {"s7": ["a red circle", "a circle"]}
    with pytest.raises(ValueError, match=r"no reference caption, e\.g\. 'COCO_train2014_0+9'"):
        reference_captions(COCO, ["COCO_train2014_000000000009"])  # not a test image
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['text'\]"):
        reference_captions(COCO.drop(columns="text"), IMAGES)


def test_scores_are_caption_metrics_with_empty_captions_scored_empty():
    refs = reference_captions(COCO, IMAGES)
    generated = pd.DataFrame({"image_id": IMAGES,
                              "caption": ["two people riding bikes down a street",
                                          "a brown dog sleeps on the mat"]})
    result = score_captions(refs, generated, ["BLEU-4", "CIDEr-D"], tokenizer="simple")
    assert result["overall"]["BLEU-4"] == pytest.approx(100.0)  # copies of a reference
    assert result["overall"]["CIDEr-D"] > 0 and result["n_empty"] == 0 and result["n_items"] == 2
    generated.loc[1, "caption"] = ""
    result = score_captions(refs, generated, ["BLEU-4", "CIDEr-D"], tokenizer="simple")
    direct = caption_metrics(refs, dict(zip(IMAGES, [generated.caption[0], EMPTY_STAND_IN],
                                             strict=True)),
                             metrics=["BLEU-4", "CIDEr-D"], tokenizer="simple")
    assert result["overall"] == direct["overall"] and result["n_empty"] == 1
    assert result["overall"]["BLEU-4"] < 100.0
    with pytest.raises(ValueError, match="same ids"):
        score_captions(refs, generated.iloc[:1], ["BLEU-4"], tokenizer="simple")
    with pytest.raises(ValueError, match="two generated captions"):
        score_captions(refs, pd.concat([generated, generated]), ["BLEU-4"], tokenizer="simple")


def test_table_rows_are_labels_with_seed_spreads_and_unavailable_metrics_nan():
    metrics = ["BLEU-4", "CIDEr-D", "SPICE", "METEOR"]
    scores = {
        "base": {"BLEU-4": 39.0, "CIDEr-D": 130.0, "SPICE": None, "METEOR": 30.0},
        "cap_s0": {"BLEU-4": 10.0, "CIDEr-D": 20.0, "SPICE": None, "METEOR": 12.0},
        "cap_s1": {"BLEU-4": 14.0, "CIDEr-D": 30.0, "SPICE": None, "METEOR": 14.0},
    }
    accuracy = {"base": 85.5, "cap_s0": 60.0, "cap_s1": 70.0}
    groups = {"BLIP (base)": ["base"], "Ours": ["cap_s0", "cap_s1"]}
    table = captioner_table(scores, accuracy, metrics, groups)
    assert list(table.index) == ["BLIP (base)", "Ours"]
    assert list(table.columns) == ["BLEU-4", "BLEU-4 std", "CIDEr-D", "CIDEr-D std", "SPICE",
                                   "METEOR", "METEOR std", ACCURACY, f"{ACCURACY} std"]
    assert table.loc["Ours", "BLEU-4"] == 12.0
    assert table.loc["Ours", "BLEU-4 std"] == pytest.approx(2 * math.sqrt(2))
    assert table.loc["Ours", ACCURACY] == 65.0 and table.loc["BLIP (base)", ACCURACY] == 85.5
    assert math.isnan(table.loc["BLIP (base)", "BLEU-4 std"])
    assert table.SPICE.isna().all()
    md = to_markdown(table)
    assert "| Ours | 12.00 ± 2.83 | 25.00 ± 7.07 | - | 13.00 ± 1.41 | 65.00 ± 7.07 |" in md
    single = captioner_table(scores, accuracy, metrics, {"BLIP (base)": ["base"]})
    assert not any(c.endswith(" std") for c in single.columns)
    with pytest.raises(ValueError, match=r"row 'X': .*\['gone'\]"):
        captioner_table(scores, accuracy, metrics, {"X": ["gone"]})


def test_notes_name_the_settings_unavailable_metrics_and_empty_captions():
    results = {"base": {"unavailable": {"SPICE": "unavailable: no CoreNLP"}, "n_empty": 0},
               "ours": {"unavailable": {"SPICE": "unavailable: no CoreNLP"}, "n_empty": 3}}
    notes = table_notes(results, dataset="coco", n_images=5000, n_references=25010,
                        decoding={"beams": 3, "max_length": 20, "min_length": 5})
    assert "5000 coco test images" in notes[0] and "beam search 3" in notes[0]
    assert "25010 reference captions" in notes[0]
    assert notes[1:] == ["SPICE: unavailable: no CoreNLP", "ours: 3 empty caption(s), scored "
                         "as empty"]


def test_the_human_row_scores_one_reference_against_the_others():
    refs = reference_captions(COCO, IMAGES)
    human_refs, candidates = human_captions(refs)
    assert candidates == {"COCO_val2014_000000000073": "Two people riding bikes down a street.",
                          "COCO_val2014_000000000042": "A dog lying on a red mat."}
    assert human_refs["COCO_val2014_000000000073"] == list(COCO.text[3:5])
    assert human_refs["COCO_val2014_000000000042"] == [COCO.text[1]]
    with pytest.raises(ValueError, match="no image has two reference captions"):
        human_captions({"x": ["only one"]})
    metrics = ["BLEU-4", "CIDEr-D"]
    human = caption_metrics(human_refs, candidates, metrics=metrics, tokenizer="simple")
    table = captioner_table({"base": {"BLEU-4": 39.0, "CIDEr-D": 130.0}}, {"base": 85.5},
                            metrics, {"BLIP (base)": ["base"]}, human=human["overall"])
    assert list(table.index) == ["BLIP (base)", HUMAN]
    assert table.loc[HUMAN, "BLEU-4"] == pytest.approx(human["overall"]["BLEU-4"])
    assert math.isnan(table.loc[HUMAN, ACCURACY])  # 100 % by construction, not measured
    notes = table_notes({}, dataset="coco", n_images=2, n_references=5,
                        decoding={"beams": 3, "max_length": 20, "min_length": 5},
                        human_images=2)
    assert any(n.startswith("Human: the first reference caption of each of 2") for n in notes)
