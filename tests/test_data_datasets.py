"""Real caption datasets: Karpathy files + image folders -> common tables; manual downloads."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from PIL import Image

from vlcomp.data.datasets import build_caption_dataset, dataset_files, image_roots
from vlcomp.data.download import DownloadError, check_manual_download
from vlcomp.data.sources import manual_checks

COCO = {"source": "karpathy", "collection": "coco", "splits": ["train", "test"]}


def _image(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4)).save(path)


def _coco(tmp_path):
    """Karpathy COCO with a train2014 image, a restval (val2014) one and a test image."""
    res = tmp_path / "resources"
    (res / "karpathy").mkdir(parents=True)
    train = [{"caption": c, "image": img, "image_id": "x"}
             for img in ("train2014/COCO_train2014_1.jpg", "val2014/COCO_val2014_2.jpg")
             for c in ("a dog.", "a cat.")]
    test = [{"image": "val2014/COCO_val2014_3.jpg", "caption": ["one.", "two."]}]
    (res / "karpathy/coco_karpathy_train.json").write_text(json.dumps(train))
    (res / "karpathy/coco_karpathy_test.json").write_text(json.dumps(test))
    _image(res / "coco/2014_train/train2014/COCO_train2014_1.jpg")
    _image(res / "coco/2014_val/val2014/COCO_val2014_2.jpg")
    _image(res / "coco/2014_val/val2014/COCO_val2014_3.jpg")
    files = dataset_files("coco", COCO)
    return res, [res / f for f in files["splits"]]


def test_files_follow_the_splits_and_fg():
    files = dataset_files("coco", COCO)
    assert files["splits"] == ["karpathy/coco_karpathy_train.json",
                               "karpathy/coco_karpathy_test.json"]
    assert files["images"] == ["coco/2014_val", "coco/2014_train"]
    test_only = dataset_files("cocofg", {**COCO, "splits": ["test"], "fg": True})
    assert test_only["images"] == ["coco/2014_val"] and test_only["fg"] == ["fg/MSCOCO_FG_ann.json"]
    flickr = dataset_files("f", {"source": "karpathy", "collection": "flickr30k"})
    assert flickr["images"] == ["flickr30k/.vlcomp_checked"]  # a checked manual download
    assert image_roots("f", {"source": "karpathy", "collection": "flickr30k"}, "res")[0].name \
        == "flickr30k"
    with pytest.raises(ValueError, match=r"datasets\.x\.collection"):
        dataset_files("x", {"source": "karpathy", "collection": "imagenet"})


def test_images_are_found_in_either_coco_folder(tmp_path):
    res, splits = _coco(tmp_path)
    images, captions = build_caption_dataset("coco", COCO, splits, image_roots("coco", COCO, res))
    assert images.set_index("image_id").split.to_dict() == {
        "COCO_train2014_1": "train", "COCO_val2014_2": "train", "COCO_val2014_3": "test"}
    assert images.path.iloc[0].endswith("2014_train/train2014/COCO_train2014_1.jpg")
    assert images.path.iloc[1].endswith("2014_val/val2014/COCO_val2014_2.jpg")
    assert list(captions.caption_id[-2:]) == ["COCO_val2014_3#0", "COCO_val2014_3#1"]


def test_fg_captions_replace_test_captions_only(tmp_path):
    res, splits = _coco(tmp_path)
    fg = tmp_path / "fg.json"
    fg.write_text(json.dumps({"COCO_val2014_3": ["a fine one.", "a fine two."]}))
    _, captions = build_caption_dataset("c", {**COCO, "fg": True}, splits,
                                        image_roots("coco", COCO, res), fg)
    assert list(captions[captions.split == "test"].text) == ["a fine one.", "a fine two."]
    assert list(captions[captions.split == "train"].text[:2]) == ["a dog.", "a cat."]


def test_a_missing_image_is_named(tmp_path):
    res, splits = _coco(tmp_path)
    (res / "coco/2014_val/val2014/COCO_val2014_3.jpg").unlink()
    with pytest.raises(FileNotFoundError, match=r"COCO_val2014_3.*2014_val"):
        build_caption_dataset("coco", COCO, splits, image_roots("coco", COCO, res))


def test_manual_downloads_are_counted_and_explained(tmp_path):
    check, instructions = manual_checks()["flickr30k"]
    assert check.count == 31783 and "forms.illinois.edu" in instructions
    folder = tmp_path / "flickr30k"
    with pytest.raises(DownloadError, match=r"0 files match.*forms\.illinois\.edu"):
        check_manual_download(folder, check.pattern, check.count, instructions)
    for k in range(3):
        _image(folder / "flickr30k-images" / f"{k}.jpg")
    assert check_manual_download(folder, check.pattern, 3, instructions) == 3


def test_karpathy_json_gives_the_same_tables_as_blips_files(tmp_path):
    """dataset_coco.json (restval -> train, filepath + filename) = BLIP's files."""
    res, splits = _coco(tmp_path)
    blip_images, blip_captions = build_caption_dataset(
        "coco", COCO, splits, image_roots("coco", COCO, res))
    entries = [
        {"filepath": "train2014", "filename": "COCO_train2014_1.jpg", "split": "train",
         "sentences": [{"raw": "a dog."}, {"raw": "a cat."}]},
        {"filepath": "val2014", "filename": "COCO_val2014_2.jpg", "split": "restval",
         "sentences": [{"raw": "a dog."}, {"raw": "a cat."}]},
        {"filepath": "val2014", "filename": "COCO_val2014_9.jpg", "split": "val",
         "sentences": [{"raw": "left out."}]},
        {"filepath": "val2014", "filename": "COCO_val2014_3.jpg", "split": "test",
         "sentences": [{"raw": "one."}, {"raw": "two."}]}]
    spec = {**COCO, "source": "karpathy_json"}
    files = dataset_files("coco", spec)
    assert files["splits"] == ["karpathy/caption_datasets"]
    (res / files["splits"][0]).mkdir(parents=True)
    (res / files["splits"][0] / "dataset_coco.json").write_text(json.dumps({"images": entries}))
    images, captions = build_caption_dataset(
        "coco", spec, [res / files["splits"][0]], image_roots("coco", spec, res))
    pd.testing.assert_frame_equal(images, blip_images)
    pd.testing.assert_frame_equal(captions, blip_captions)
    flickr = {"source": "karpathy_json", "collection": "flickr30k"}
    assert image_roots("f", flickr, "res")[0].as_posix() == "res/flickr30k/flickr30k-images"
