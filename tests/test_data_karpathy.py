"""Karpathy splits in BLIP's and Karpathy's formats give the same common tables."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from vlcomp.data.karpathy import read_blip, read_karpathy

CAPS = {"COCO_val2014_000000391895": ["A man with a red helmet on a small moped.",
                                      "Man riding a motor bike on a dirt road."],
        "COCO_val2014_000000522418": ["A woman wearing a net on her head cutting a cake."]}


def _blip(tmp_path):
    test = [{"image": f"val2014/{k}.jpg", "caption": v} for k, v in CAPS.items()]
    (tmp_path / "coco_karpathy_test.json").write_text(json.dumps(test))
    train = [{"caption": c, "image": f"val2014/{k}.jpg", "image_id": f"coco_{k[-6:]}"}
             for k, v in CAPS.items() for c in v]
    (tmp_path / "coco_karpathy_train.json").write_text(json.dumps(train))


def test_blip_formats_per_image_and_per_caption_agree(tmp_path):
    _blip(tmp_path)
    images, caps = read_blip(tmp_path / "coco_karpathy_test.json", "/coco", "test")
    assert list(images.image_id) == list(CAPS)
    assert images.path[0] == "/coco/val2014/COCO_val2014_000000391895.jpg"
    assert list(caps.caption_id[:2]) == ["COCO_val2014_000000391895#0",
                                         "COCO_val2014_000000391895#1"]
    train_images, train_caps = read_blip(tmp_path / "coco_karpathy_train.json", "/coco", "train")
    pd.testing.assert_frame_equal(train_caps.drop(columns="split"), caps.drop(columns="split"))
    assert (train_images.split == "train").all()


def test_karpathy_json_matches_blip_and_maps_restval(tmp_path):
    _blip(tmp_path)
    data = {"dataset": "coco", "images": [
        {"filepath": "val2014", "filename": f"{k}.jpg", "split": split, "imgid": n,
         "cocoid": int(k[-6:]), "sentences": [{"raw": c, "tokens": c.split()} for c in v]}
        for n, ((k, v), split) in enumerate(zip(CAPS.items(), ["test", "restval"], strict=True))]}
    (tmp_path / "dataset_coco.json").write_text(json.dumps(data))
    images, caps = read_karpathy(tmp_path / "dataset_coco.json", "/coco")
    assert list(images.split) == ["test", "train"]
    blip_images, blip_caps = read_blip(tmp_path / "coco_karpathy_test.json", "/coco", "test")
    pd.testing.assert_frame_equal(caps[caps.split == "test"], blip_caps[:2])
    assert images.path[0] == blip_images.path[0]


def test_errors_name_file_and_entry(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps([{"image": "x.jpg"}]))
    with pytest.raises(ValueError, match="entry 0: needs 'image' and 'caption'"):
        read_blip(tmp_path / "bad.json", "/", "test")
    (tmp_path / "k.json").write_text(json.dumps({"images": [{"filename": "a.jpg",
                                                             "split": "dev", "sentences": []}]}))
    with pytest.raises(ValueError, match="image 0: unknown split 'dev'"):
        read_karpathy(tmp_path / "k.json", "/")
    with pytest.raises(FileNotFoundError, match="is missing: download the Karpathy"):
        read_karpathy(tmp_path / "none.json", "/")
    (tmp_path / "dup.json").write_text(json.dumps([{"image": "a/x.jpg", "caption": ["c"]},
                                                   {"image": "b/x.jpg", "caption": ["d"]}]))
    with pytest.raises(ValueError, match="'x' appears twice"):
        read_blip(tmp_path / "dup.json", "/", "test")
