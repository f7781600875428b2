"""ARO VG JSONs -> items with [false, true] captions and lazily cropped boxes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.data.aro import aro_vg_items
from vlcomp.score.embeddings import embed_image_set


def _write(tmp_path, entries, name="visual_genome_relation.json"):
    path = tmp_path / name
    path.write_text(json.dumps(entries))
    return path


ENTRY = {"image_path": "2315.jpg", "bbox_x": 2, "bbox_y": 1, "bbox_w": 4, "bbox_h": 3,
         "true_caption": "the horse is eating the grass",
         "false_caption": "the grass is eating the horse", "relation_name": "eating"}


def test_relation_items_keep_the_true_caption_second(tmp_path):
    path = _write(tmp_path, [ENTRY, {**ENTRY, "bbox_x": 0.4, "relation_name": "on"}])
    items, crops = aro_vg_items(path, tmp_path / "images", "vg_relation")
    assert items.texts[0] == [ENTRY["false_caption"], ENTRY["true_caption"]]
    assert (items.label == 1).all() and list(items.subset) == ["eating", "on"]
    assert list(crops.image_id) == ["2315_0.4_1_4_3", "2315_2_1_4_3"]
    assert list(crops.bbox[1]) == [2.0, 1.0, 4.0, 3.0]


def test_attribution_groups_by_the_two_attributes(tmp_path):
    entry = {k: v for k, v in ENTRY.items() if k != "relation_name"}
    path = _write(tmp_path, [{**entry, "attributes": ["white", "paved"]}],
                  "visual_genome_attribution.json")
    items, _ = aro_vg_items(path, tmp_path, "vg_attribution")
    assert list(items.subset) == ["white_paved"]


def test_errors_name_the_entry(tmp_path):
    with pytest.raises(ValueError, match=r"entry 0: missing field\(s\) \['bbox_h'\]"):
        aro_vg_items(_write(tmp_path, [{k: v for k, v in ENTRY.items() if k != "bbox_h"}]),
                     tmp_path, "vg_relation")
    with pytest.raises(ValueError, match="entry 0: VG-Relation entries need"):
        aro_vg_items(_write(tmp_path, [{k: v for k, v in ENTRY.items()
                                        if k != "relation_name"}]), tmp_path, "vg_relation")
    with pytest.raises(FileNotFoundError, match="is missing: download"):
        aro_vg_items(tmp_path / "nope.json", tmp_path, "vg_relation")


class _MeanColour:
    def embed_images(self, images, batch_size=256):
        return np.stack([np.asarray(i, dtype=np.float32).mean(axis=(0, 1)) for i in images])


def test_embedder_crops_boxes_as_it_reads(tmp_path):
    pixels = np.zeros((10, 10, 3), dtype=np.uint8)
    pixels[1:4, 2:6] = (255, 0, 0)  # the box x=2, y=1, w=4, h=3 is all red
    Image.fromarray(pixels).save(tmp_path / "a.png")
    table = pd.DataFrame({"image_id": ["full", "crop"], "path": [str(tmp_path / "a.png")] * 2,
                          "bbox": [None, [2, 1, 4, 3]]})
    emb = embed_image_set(_MeanColour(), table)
    assert emb[1].tolist() == [255.0, 0.0, 0.0] and emb[0][0] < 255
