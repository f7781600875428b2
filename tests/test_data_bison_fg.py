"""BISON annotations joined with COCO captions; FG captions substituted by position."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from vlcomp.data.bison import bison_items
from vlcomp.data.fg_captions import substitute_fg


def _files(tmp_path, data):
    (tmp_path / "bison.json").write_text(json.dumps({"info": {"source": "coco",
                                                               "split": "val2014"},
                                                      "data": data}))
    (tmp_path / "captions.json").write_text(json.dumps({"annotations": [
        {"id": 48, "image_id": 318556, "caption": "A very clean bathroom."},
        {"id": 67, "image_id": 116100, "caption": "A panoramic view of a kitchen."}]}))
    return tmp_path / "bison.json", tmp_path / "captions.json"


def _cand(i):
    return {"image_id": i, "image_filename": f"COCO_val2014_{i:012d}.jpg"}


def test_bison_items_label_the_true_candidate(tmp_path):
    ann, caps = _files(tmp_path, [
        {"bison_id": 0, "caption_id": 48, "true_image_id": 318556,
         "image_candidates": [_cand(318556), _cand(1000)]},
        {"bison_id": 1, "caption_id": 67, "true_image_id": 116100,
         "image_candidates": [_cand(2000), _cand(116100)]}])
    items, images = bison_items(ann, caps, "/coco/val2014", expected_items=2)
    assert list(items.label) == [0, 1] and (items.protocol == "t2i").all()
    assert items.texts[1] == ["A panoramic view of a kitchen."]
    assert items.image_ids[0] == ["COCO_val2014_000000318556", "COCO_val2014_000000001000"]
    assert len(images) == 4 and images.path[0].startswith("/coco/val2014/COCO_val2014_")
    with pytest.raises(ValueError, match="2 items, expected 54253"):
        bison_items(ann, caps, "/coco")


def test_bison_errors_name_the_item(tmp_path):
    ann, caps = _files(tmp_path, [{"bison_id": 0, "caption_id": 48, "true_image_id": 5,
                                   "image_candidates": [_cand(318556), _cand(1000)]}])
    with pytest.raises(ValueError, match="item 0: needs two candidates including the true"):
        bison_items(ann, caps, "/coco", expected_items=None)
    ann, caps = _files(tmp_path, [{"bison_id": 0, "caption_id": 99, "true_image_id": 1000,
                                   "image_candidates": [_cand(318556), _cand(1000)]}])
    with pytest.raises(ValueError, match="item 0: caption_id 99 is not in"):
        bison_items(ann, caps, "/coco", expected_items=None)


def test_fg_captions_replace_by_position(tmp_path):
    fg = tmp_path / "fg.json"
    fg.write_text(json.dumps({"1007129816": [f"fine {k}" for k in range(5)]}))
    captions = pd.DataFrame({"caption_id": ["1007129816#0", "1007129816#3"],
                             "image_id": ["1007129816"] * 2, "text": ["a", "b"],
                             "split": ["test"] * 2})
    out = substitute_fg(captions, fg)
    assert list(out.text) == ["fine 0", "fine 3"] and list(captions.text) == ["a", "b"]
    assert out.fg.all()
    with pytest.raises(ValueError, match="no FG captions for image 'x'"):
        substitute_fg(captions.assign(image_id="x"), fg)


def test_fg_keeps_captions_past_the_fifth(tmp_path):
    """COCO Karpathy test images with 6 or 7 captions: Hendriksen et al.'s ``zip`` replaces
    the first five, the sixth and seventh keep their text."""
    fg = tmp_path / "MSCOCO_FG_ann.json"
    fg.write_text(json.dumps({"391895": [f"fine {k}" for k in range(5)]}))
    captions = pd.DataFrame({"caption_id": [f"391895#{k}" for k in range(7)],
                             "image_id": ["391895"] * 7,
                             "text": [f"coarse {k}" for k in range(7)], "split": ["test"] * 7})
    out = substitute_fg(captions, fg)
    assert list(out.text) == [*(f"fine {k}" for k in range(5)), "coarse 5", "coarse 6"]
    assert list(out.fg) == [True] * 5 + [False] * 2
