"""Text-to-image over the whole image folder (Hendriksen et al.'s galleries,
``t2i_gallery: folder``): the extra images, the folder's composition, the config keys and
the report tables each gallery feeds."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml

from vlcomp.config import ConfigError
from vlcomp.config_checks import validate_config
from vlcomp.data.datasets import folder_extra_images, folder_images
from vlcomp.metrics.robustness import Embeddings, evaluate_gallery
from vlcomp.report.robustness import (
    aro_table3,
    gallery_notes,
    granularity_table,
    hendriksen_table,
    interval_cells,
)

from .conftest import REPO

SCHEMA = REPO / "config" / "schema.yaml"
IMAGES = ["a", "b"]
QUERIES = pd.DataFrame({"query_id": ["a0", "a1", "b0"], "image_id": ["a", "a", "b"],
                        "text": ["red", "red circle", "blue"]})


def _model() -> Embeddings:
    """Gallery images a, b on the x and y axes; the folder's image z sits nearer "red" than
    a does (so only the folder outranks a's own image), w is far from every text."""
    test = np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32)
    folder = np.array([[0.6, 0, 0.8], [0.995, 0.0, 0.0998]], dtype=np.float32)
    folder /= np.linalg.norm(folder, axis=1, keepdims=True)
    texts = {"red": [1, 0, 0.12], "red circle": [1, 0, 0.12], "blue": [0, 1, 0]}
    t = np.array(list(texts.values()), dtype=np.float32)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    return Embeddings({"test": (test, {"a": 0, "b": 1}), "folder": (folder, {"w": 0, "z": 1})},
                      (t, {k: i for i, k in enumerate(texts)}))


def test_folder_image_outranks_the_own_image_only_for_text_to_image():
    model = _model()
    items: list[pd.DataFrame] = []
    (test,) = evaluate_gallery("g", IMAGES, QUERIES, model, model, clean_imageset="test")
    (folder,) = evaluate_gallery("g", IMAGES, QUERIES, model, model, clean_imageset="test",
                                 t2i_extra=[("folder", "w"), ("folder", "z")], items=items)
    assert test["t2i_r1"] == 100.0 and test["t2i_images"] == 2
    # "red" / "red circle" now find z first: 1 of 3 queries keeps R@1, all keep R@5
    assert folder["t2i_r1"] == pytest.approx(100 / 3, abs=1e-3)
    assert folder["t2i_r5"] == 100.0
    assert folder["t2i_images"] == 4 and folder["images"] == 2
    # image->text still ranks the gallery's captions only: unchanged
    for metric in ("i2t_r1", "i2t_r5", "i2t_true_r1", "i2t_true_r5"):
        assert folder[metric] == test[metric]
    # DCG@10's gains cover the folder images too (the relevance model's cosines): with two
    # gallery images the other one adds ~0, the folder's z and w add theirs
    assert test["t2i_dcg10"] == pytest.approx(1.0, abs=0.02)
    assert folder["t2i_dcg10"] > 1.5
    # the extra images are no bootstrap items: one row per gallery image and per query
    assert (items[0].unit == "image").sum() == 2 and (items[0].unit == "query").sum() == 3


def test_extra_images_may_not_repeat_gallery_images():
    model = _model()
    with pytest.raises(ValueError, match="gallery images already"):
        evaluate_gallery("g", IMAGES, QUERIES, model, model, clean_imageset="test",
                         t2i_extra=[("test", "a")])


def _images(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["image_id", "path", "split"])


def test_coco_folder_is_val2014_of_every_split_flickr_every_split():
    coco = _images([
        ("COCO_val2014_1", "resources/coco/2014_val/val2014/COCO_val2014_1.jpg", "test"),
        ("COCO_val2014_2", "resources/coco/2014_val/val2014/COCO_val2014_2.jpg", "val"),
        ("COCO_val2014_3", "resources/coco/2014_val/val2014/COCO_val2014_3.jpg", "train"),
        ("COCO_train2014_4", "resources/coco/2014_train/train2014/COCO_train2014_4.jpg",
         "train"),
    ])
    assert list(folder_images(coco).image_id) == ["COCO_val2014_1", "COCO_val2014_2",
                                                  "COCO_val2014_3"]
    extra = folder_extra_images(coco)
    assert list(extra.image_id) == ["COCO_val2014_2", "COCO_val2014_3"]  # restval included
    assert list(extra.columns) == ["image_id", "path"]
    flickr = _images([(str(i), f"resources/flickr30k/flickr30k-images/{i}.jpg", split)
                      for i, split in enumerate(["test", "val", "train", "train"])])
    assert list(folder_extra_images(flickr).image_id) == ["1", "2", "3"]
    with pytest.raises(ValueError, match="no test images"):
        folder_images(coco[coco.split != "test"])


def _paper() -> dict:
    return yaml.safe_load((REPO / "config" / "paper.yaml").read_text())


def test_paper_config_splits_aro_and_hendriksen_galleries():
    galleries = _paper()["benchmarks"]["robustness"]["galleries"]
    assert all(galleries[g].get("t2i_gallery", "test") == "test" and galleries[g]["tables"]
               == ["aro"] for g in ("coco", "flickr"))
    for g in ("coco_hendriksen", "flickr_hendriksen", "coco_fine", "flickr_fine"):
        assert galleries[g]["t2i_gallery"] == "folder" and "aro" not in galleries[g]["tables"]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r, c: r["galleries"]["coco"].update(t2i_gallery="all"),
     r"t2i_gallery: 'all' is not one of \['test', 'folder'\]"),
    (lambda r, c: r["galleries"]["coco"].update(tables=["aro", "table5"]),
     r"'table5' is not one of"),
    (lambda r, c: r["galleries"]["coco"].update(folder_dataset="coco"),
     r"galleries.coco.folder_dataset: only with t2i_gallery: folder"),
    (lambda r, c: c["datasets"]["flickr30k"].update(splits=["val", "test"]),
     r"galleries.flickr_hendriksen: t2i_gallery folder ranks every image of the folder, "
     r"but config.datasets.flickr30k.splits has no \['train'\]"),
    (lambda r, c: r["galleries"]["coco_fine"].pop("folder_dataset"),
     r"config.datasets.cocofg.splits has no \['train', 'val'\]"),
    (lambda r, c: r["galleries"]["coco_fine"].update(folder_dataset="flickr30k"),
     r"coco_fine.folder_dataset: 'flickr30k' holds other images"),
    (lambda r, c: r["galleries"]["coco_hendriksen"].pop("tables"),
     r"coco_hendriksen.tables: a folder gallery cannot feed ARO Tables 3-4"),
])
def test_folder_gallery_keys_are_checked(edit, message):
    config = copy.deepcopy(_paper())
    edit(config["benchmarks"]["robustness"], config)
    with pytest.raises(ConfigError, match=message):
        validate_config(config, SCHEMA)


def _conditions(gallery: str, tables: str, folder: bool, r1: float) -> list[dict]:
    metrics = dict.fromkeys(["i2t_r1", "i2t_r5", "i2t_r10", "t2i_r1", "t2i_r5", "t2i_r10",
                             "i2t_true_r1", "i2t_true_r5", "i2t_true_r10", "t2i_dcg10",
                             "t2i_decreased", "t2i_increased", "t2i_unchanged"], r1)
    base = {"gallery": gallery, "seed": -1, "changed_pct": 0.0, "images": 5000,
            "t2i_images": 40504 if folder else 5000,
            "t2i_gallery": "folder" if folder else "test", "tables": tables, **metrics}
    return [{**base, "kind": "clean", "perturbation": "none"},
            {**base, "kind": "text", "perturbation": "shuffle_all_words", "seed": 0,
             "t2i_r1": r1 - 10}]


def test_each_gallery_feeds_the_tables_it_names():
    record = {"conditions": _conditions("coco", "aro", False, 50)
              + _conditions("coco_hendriksen", "hendriksen granularity", True, 30)}
    results = {"clip": {"robustness": record}}
    assert {s for s, _ in aro_table3(results).index} == {"COCO-like"}
    assert {s for s, _ in hendriksen_table(results).index} == {"COCO-like (Hendriksen)"}
    assert list(granularity_table(results).index) == [
        ("Unperturbed", "COCO-like (Hendriksen) / clip")]
    (note,) = gallery_notes("robustness_hendriksen", results)
    assert "T2I over the whole image folder (40,504 images" in note
    assert "I2T over the captions of its 5,000 test images" in note
    assert gallery_notes("robustness_aro_table3", results) == []
    assert gallery_notes("bison", results) == []
    # the uncertainty table's tables column sorts its cells the same way
    intervals = pd.DataFrame([
        {"gallery": c["gallery"], "kind": c["kind"], "perturbation": c["perturbation"],
         "model": "clip", "metric": "t2i_r1", "value": c["t2i_r1"], "ci_low": 0.0,
         "ci_high": 100.0, "perturbation_seed_std": float("nan"), "tables": c["tables"]}
        for c in record["conditions"]])
    cells = interval_cells(intervals, {"clip": ["clip"]})
    assert {(t, r.split(" / ")[0]) for t, r, _ in cells} == {
        ("robustness/aro_table3", "COCO-like"),
        ("robustness/hendriksen", "COCO-like (Hendriksen)"),
        ("robustness/granularity", "Unperturbed")}
