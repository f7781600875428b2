"""SugarCrepe's released JSONs: counts, versions, lazy image table, clear errors."""

from __future__ import annotations

import json
import shutil

import pytest

from vlcomp.data.sugarcrepe import COUNTS, SUBSETS, read_subset, sugarcrepe_items

from .conftest import SHARED_DATA

DATA = SHARED_DATA / "sugarcrepe"


def test_current_release_counts_and_images():
    items, images, version = sugarcrepe_items(DATA, "/coco/val2017")
    assert version == "7511" and len(items) == 7511
    assert items.subset.value_counts().to_dict() == COUNTS
    assert len(images) == 1560  # unique COCO val2017 images (reference note)
    assert images.path.iloc[0] == f"/coco/val2017/{images.image_id.iloc[0]}.jpg"
    assert "swap_obj-108" not in set(items.item_id)
    assert (items.protocol == "i2t").all() and (items.tie_policy == "strict").all()
    assert not any(t[0] == t[1] for t in items.texts)
    first = json.loads((DATA / "add_att.json").read_text())["0"]
    row = items.set_index("item_id").loc["add_att-0"]
    assert row.texts == [first["caption"], first["negative_caption"]]  # raw, unformatted
    assert row.image_ids == [first["filename"].removesuffix(".jpg")]


def test_older_release_with_key_108_is_recognised(tmp_path):
    for subset in SUBSETS:
        shutil.copy(DATA / f"{subset}.json", tmp_path / f"{subset}.json")
    swap = json.loads((tmp_path / "swap_obj.json").read_text())
    swap["108"] = {"filename": "000000000108.jpg",
                   "caption": "A West 32nd sign under a Korea Way road sign.",
                   "negative_caption": "A Korea Way sign under a West 32nd road sign."}
    (tmp_path / "swap_obj.json").write_text(json.dumps(swap))
    items, _, version = sugarcrepe_items(tmp_path, "/coco")
    assert version == "7512" and len(items) == 7512
    assert "swap_obj-108" in set(items.item_id)


def test_errors_name_the_file_and_item(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps({"0": {"filename": "x.jpg", "caption": "c"}}))
    with pytest.raises(ValueError, match=r"bad.json: item '0' lacks .*negative_caption"):
        read_subset(tmp_path / "bad.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match=r"broken\.json: not a readable"):
        read_subset(tmp_path / "broken.json")
    with pytest.raises(FileNotFoundError, match=r"add_obj\.json is missing: download"):
        sugarcrepe_items(tmp_path, "/coco", subsets=("add_obj",))
    with pytest.raises(ValueError, match="unknown SugarCrepe subset"):
        sugarcrepe_items(DATA, "/coco", subsets=("swap_rel",))
