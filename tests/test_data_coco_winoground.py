"""COCO 2017 caption files and Winoground's examples.jsonl in their released formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from vlcomp.data.coco_captions import read_coco_captions
from vlcomp.data.datasets import build_caption_dataset, dataset_files, image_roots
from vlcomp.data.winoground import winoground_items

COCO2017 = {"source": "coco_captions", "collection": "coco2017"}


def _captions_file(path, images, annotations):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "images": [{"id": i, "file_name": f"{i:012d}.jpg"} for i in images],
        "annotations": [{"id": a, "image_id": i, "caption": c} for a, i, c in annotations]}))


def test_coco_captions_rank_by_annotation_id_and_clean_text(tmp_path):
    path = tmp_path / "captions_train2017.json"
    _captions_file(path, [9, 3], [(50, 3, "A dog\non grass. "), (7, 3, " A dog."),
                                  (8, 9, "A cat.")])
    images, captions = read_coco_captions(path, "/coco/train2017", "train")
    assert list(images.image_id) == ["000000000003", "000000000009"]
    assert images.path[0] == "/coco/train2017/000000000003.jpg"
    rows = captions.set_index("caption_id").text.to_dict()
    assert rows == {"000000000003#0": "A dog.", "000000000003#1": "A dog on grass.",
                    "000000000009#0": "A cat."}
    _captions_file(path, [1], [(1, 2, "orphan")])
    with pytest.raises(ValueError, match="unknown image id 2"):
        read_coco_captions(path, "/coco", "train")


def test_coco2017_dataset_from_the_unpacked_zips(tmp_path):
    res = tmp_path / "resources"
    files = dataset_files("coco2017", COCO2017)
    assert files == {"splits": ["coco/annotations2017"],
                     "images": ["coco/2017_train", "coco/2017_val"]}
    folder = res / files["splits"][0]
    _captions_file(folder / "annotations/captions_train2017.json", [1], [(1, 1, "a.")])
    _captions_file(folder / "annotations/captions_val2017.json", [2], [(2, 2, "b.")])
    for split, i in (("train", 1), ("val", 2)):
        target = res / f"coco/2017_{split}/{split}2017/{i:012d}.jpg"
        target.parent.mkdir(parents=True)
        Image.new("RGB", (2, 2)).save(target)
    images, captions = build_caption_dataset(
        "coco2017", COCO2017, [folder], image_roots("coco2017", COCO2017, res))
    assert images.set_index("image_id").split.to_dict() == {"000000000001": "train",
                                                            "000000000002": "val"}
    assert list(captions.text) == ["a.", "b."]
    with pytest.raises(ValueError, match="FG captions exist for Karpathy"):
        dataset_files("x", {**COCO2017, "fg": True})


def test_every_dataset_file_is_downloaded_unpacked_or_checked():
    """The paper datasets' inputs are all produced by a download, unpack or check rule."""
    import yaml

    from vlcomp.data.sources import manual_checks, remote_files

    from .conftest import REPO

    paper = yaml.safe_load((REPO / "config/paper.yaml").read_text())
    remote = remote_files()
    producible = set(remote) | {f.unpack_to for f in remote.values() if f.unpack_to} | {
        f"{folder}/.vlcomp_checked" for folder in manual_checks()}
    for name, spec in paper["datasets"].items():
        for paths in dataset_files(name, spec).values():
            assert set(paths) <= producible, (name, set(paths) - producible)


def test_winoground_pairs_align_images_and_captions(tmp_path):
    lines = [{"id": k, "image_0": f"ex_{k}_img_0", "image_1": f"ex_{k}_img_1",
              "caption_0": f"an old person kisses a young person {k}",
              "caption_1": f"a young person kisses an old person {k}",
              "collapsed_tag": ["Object", "Relation"][k % 2]} for k in range(3)]
    path = tmp_path / "examples.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    items, images = winoground_items(path, tmp_path / "images", expected_items=3)
    assert list(items.item_id) == ["winoground-000", "winoground-001", "winoground-002"]
    assert items.image_ids[1] == ["ex_1_img_0", "ex_1_img_1"]
    assert items.texts[1][0].startswith("an old person") and (items.protocol == "pair").all()
    assert list(items.subset) == ["Object", "Relation", "Object"]
    assert images.path[0].endswith("images/ex_0_img_0.png") and len(images) == 6
    with pytest.raises(ValueError, match="3 items, expected 400"):
        winoground_items(path, tmp_path)
    path.write_text(json.dumps({"id": 0, "image_0": "a"}) + "\n")
    with pytest.raises(ValueError, match="line 1: missing field"):
        winoground_items(path, tmp_path, expected_items=None)


def _png(path):
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4)).save(path)


@pytest.mark.parametrize("layout", [
    "winoground/examples.jsonl|winoground/images/{id}.png",  # t2v_metrics' zip as we read it
    "examples.jsonl|images/{id}.png",
    "data/examples.jsonl|data/{id}.png",  # images beside the examples
    "winoground/data/examples.jsonl|images/{id}.jpg",  # images elsewhere, as JPEG
])
def test_winoground_release_layouts(tmp_path, layout):
    from vlcomp.data.winoground import find_release

    examples_at, image_at = layout.split("|")
    lines = [{"id": k, "image_0": f"ex_{k}_img_0", "image_1": f"ex_{k}_img_1",
              "caption_0": f"a {k}", "caption_1": f"b {k}", "collapsed_tag": "Object"}
             for k in range(2)]
    (tmp_path / examples_at).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / examples_at).write_text("".join(json.dumps(x) + "\n" for x in lines))
    for k in range(2):
        for j in range(2):
            _png(tmp_path / image_at.format(id=f"ex_{k}_img_{j}"))
    examples, paths = find_release(tmp_path)
    items, images = winoground_items(examples, paths, expected_items=2)
    assert len(items) == 2 and len(images) == 4
    assert all(Path(p).is_file() for p in images.path)


def test_winoground_missing_images_name_the_folders_looked_at(tmp_path):
    from vlcomp.data.winoground import find_release

    (tmp_path / "winoground").mkdir()
    (tmp_path / "winoground" / "examples.jsonl").write_text(json.dumps(
        {"id": 0, "image_0": "ex_0_img_0", "image_1": "ex_0_img_1", "caption_0": "a",
         "caption_1": "b"}) + "\n")
    _png(tmp_path / "winoground" / "pictures" / "ex_0_img_0.png")
    examples, paths = find_release(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"image 'ex_0_img_1' .* looked in \[.*pictures"):
        winoground_items(examples, paths, expected_items=None)
    _png(tmp_path / "winoground" / "other" / "ex_0_img_0.png")
    with pytest.raises(ValueError, match="image 'ex_0_img_0' is there 2 times"):
        find_release(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no examples\.jsonl"):
        find_release(tmp_path / "winoground" / "other")
