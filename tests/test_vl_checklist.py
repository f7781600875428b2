"""VL-CheckList Relation: release-shaped loader, errors, aggregate, world analogue."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.data.vl_checklist import (
    REFERENCE_PER_CORPUS,
    RELATION_FILES,
    read_entries,
    relation_configs,
    sampling_note,
    vl_checklist_relation,
    vl_checklist_relation_items,
)
from vlcomp.metrics.vl_checklist import vl_checklist_aggregate, vl_checklist_metrics
from vlcomp.world.checklist import checklist_items, checklist_set
from vlcomp.world.oracle import Oracle
from vlcomp.world.sampler import sample_scene
from vlcomp.world.scene import INVERSE, NEXT_TO

# The yamls exactly as released (three lack a final newline; spatial/vg.yaml has one).
YAMLS = {
    "action/hake.yaml": 'ANNO_PATH: "data/Relation/hake_action.json"\nIMG_ROOT: "hake/"\n'
                        'TYPE: "TUPLE_JSON"',
    "action/swig.yaml": 'ANNO_PATH: "data/Relation/swig_action.json"\nIMG_ROOT: "swig/"\n'
                        'TYPE: "TUPLE_JSON"',
    "action/vg.yaml": 'ANNO_PATH: "data/Relation/vg/action.json"\nIMG_ROOT: "vg/"\n'
                      'TYPE: "TUPLE_JSON"',
    "spatial/vg.yaml": 'ANNO_PATH: "data/Relation/vg/spatial.json"\nIMG_ROOT: "vg/"\n'
                       'TYPE: "TUPLE_JSON"\n',
}
TRIM = "someone is trimming pawPART of paw with clipper in place."
TRACKS = {"POS": ["tracks next to train"], "NEG": ["tracks far from train"]}
# Entries copied from the released files (swig, vg); hake's file could not be read, its
# image paths follow DATASETS.md's hake/ layout (an assumption).
ENTRIES = {
    "data/Relation/hake_action.json": [
        ["hico_20160224_det/images/test2015/HICO_test2015_00000001.jpg",
         {"POS": ["person ride bicycle"], "NEG": ["person wash bicycle"]}],
        ["hake_images_20190730/a.jpg", {"POS": ["person read book"], "NEG": ["person carry book"]}],
    ],
    "data/Relation/swig_action.json": [
        ["dialing_8.jpg", {"POS": ["an mortal dials on an mobile phone at interior"],
                           "NEG": ["an mortal apprehending on an mobile phone at interior"]}],
        ["trimming_188.jpg", {"POS": [TRIM], "NEG": [TRIM]}],  # POS == NEG, as released
    ],
    "data/Relation/vg/action.json": [
        ["VG_100K_2/2408124.jpg", {"POS": ["steam coming from train"],
                                   "NEG": ["steam opening train"]}],
    ],
    "data/Relation/vg/spatial.json": [
        ["VG_100K/2361911.jpg", {"POS": ["control switch ON oven"],
                                 "NEG": ["control switch under oven"]}],
        ["VG_100K_2/2408124.jpg", TRACKS],
        ["VG_100K_2/2408124.jpg", TRACKS],  # an exact duplicate, as released
    ],
}


def make_release(root: Path, entries: dict | None = None) -> Path:
    """A release folder (corpus/ + data/) like the repository's."""
    for name, text in YAMLS.items():
        path = root / "corpus" / "v1" / "Relation" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, data in (entries or ENTRIES).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))  # json.dumps' separators, as released
    return root


def make_images(root: Path, entries: dict | None = None) -> Path:
    folders = {a: r for (_, _), (a, r) in RELATION_FILES.items()}
    for anno, data in (entries or ENTRIES).items():
        for image, _ in data:
            path = root / folders[anno] / image
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"jpg")
    return root


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, Path]:
    return make_release(tmp_path / "vlc"), make_images(tmp_path / "images")


def test_configs_follow_the_yamls(release):
    configs = relation_configs(release[0])
    found = {(c.subset, c.corpus): (c.anno_path, c.img_root) for c in configs}
    assert found == RELATION_FILES
    assert [(c.subset, c.corpus) for c in configs] == [
        ("action", "hake"), ("action", "swig"), ("action", "vg"), ("spatial", "vg")]


def test_items_and_images(release):
    items, images = vl_checklist_relation_items(*release)
    assert len(items) == 8  # duplicates and POS == NEG entries kept, as released
    assert items.groupby(["subset", "corpus"]).size().to_dict() == {
        ("action", "hake"): 2, ("action", "swig"): 2, ("action", "vg"): 1, ("spatial", "vg"): 3}
    assert set(items.protocol) == {"i2t"} and set(items.tie_policy) == {"strict"}
    assert set(items.label) == {0}
    row = items.set_index("item_id").loc["spatial-vg-000000"]
    assert row.texts == ["control switch ON oven", "control switch under oven"]
    assert row.image_ids == ["vg/VG_100K/2361911.jpg"] and row.entry == 0
    tie = items.set_index("item_id").loc["action-swig-000001"]
    assert tie.texts[0] == tie.texts[1]
    # vg action and spatial share the image; one row per image
    assert len(images) == 6 and images.image_id.is_unique
    paths = dict(zip(images.image_id, images.path, strict=True))
    assert paths["swig/dialing_8.jpg"] == str(release[1] / "swig" / "dialing_8.jpg")
    assert paths["vg/VG_100K_2/2408124.jpg"] == str(
        release[1] / "vg" / "VG_100K_2" / "2408124.jpg")


def test_filters_and_truncation(release):
    items, _ = vl_checklist_relation_items(*release, subsets=("spatial",))
    assert set(items.corpus) == {"vg"} and len(items) == 3
    items, _ = vl_checklist_relation_items(*release, corpora=["swig"])
    assert list(items.item_id) == ["action-swig-000000", "action-swig-000001"]
    items, _ = vl_checklist_relation_items(*release, max_per_corpus=1)
    assert list(items.entry) == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="unknown corpus"):
        vl_checklist_relation_items(*release, corpora=["coco"])
    with pytest.raises(ValueError, match="unknown VL-CheckList Relation tag"):
        vl_checklist_relation_items(*release, subsets=("color",))


def test_missing_images(release):
    """As the reference's loader, entries without their image are dropped, counted and named;
    more than ``max_missing`` of a corpus (a partial download) is an error naming where the
    images belong, and ``missing="error"`` makes any one an error."""
    root, images = release
    (images / "hake" / "hake_images_20190730" / "a.jpg").unlink()
    with pytest.raises(FileNotFoundError) as err:
        vl_checklist_relation_items(root, images)  # 1 of hake's 2 entries: over 1 %
    text = str(err.value)
    assert "more than 1.0% of the entries lack their image" in text
    assert "hake.yaml" in text and "entry 1" in text and str(images / "hake") in text
    assert "HAKE images" in text
    with pytest.raises(FileNotFoundError, match=r"hake\.yaml"):
        vl_checklist_relation_items(root, images, missing="error", max_missing=1.0)
    with pytest.warns(UserWarning, match="skipped 1 entries"):
        found = vl_checklist_relation(root, images, max_missing=0.5)
    assert "action-hake-000001" not in set(found.items.item_id) and len(found.items) == 7
    hake = next(c for c in found.counts if c.corpus == "hake")
    assert (hake.entries, hake.missing_images, hake.kept) == (2, 1, 1)
    assert hake.missing_examples == ("hake/hake_images_20190730/a.jpg",)
    note = sampling_note(found.report())
    assert note.startswith("VL-CheckList Relation: the first 1000 entries with an image")
    assert "dropped for a missing image: action/hake 1 of 2 (e.g. hake/hake_images_20190730/" \
        "a.jpg)" in note
    items, table = vl_checklist_relation_items(root, images, missing="ignore")
    assert len(items) == 8 and len(table) == 6


def test_the_reference_keeps_the_first_thousand_entries_per_corpus(tmp_path):
    many = dict(ENTRIES)
    many["data/Relation/vg/spatial.json"] = [
        [f"VG_100K/{k}.jpg", {"POS": [f"a on b {k}"], "NEG": [f"a under b {k}"]}]
        for k in range(REFERENCE_PER_CORPUS + 5)]
    root = make_release(tmp_path / "r", many)
    found = vl_checklist_relation(root, tmp_path, missing="ignore")
    spatial = found.items[found.items.subset == "spatial"]
    assert len(spatial) == REFERENCE_PER_CORPUS
    assert spatial.entry.tolist() == list(range(REFERENCE_PER_CORPUS))  # the first, in order
    every = vl_checklist_relation(root, tmp_path, missing="ignore", max_per_corpus=None)
    assert (every.items.subset == "spatial").sum() == REFERENCE_PER_CORPUS + 5
    assert sampling_note(every.report()).startswith(
        "VL-CheckList Relation: every entry with an image: ")


def test_bad_release_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no corpus yaml"):
        vl_checklist_relation_items(tmp_path, tmp_path)
    bad = dict(ENTRIES)
    bad["data/Relation/vg/action.json"] = [["VG_100K/1.jpg", {"POS": ["a on b"], "NEG": []}]]
    root = make_release(tmp_path / "r1", bad)
    with pytest.raises(ValueError, match=r"action\.json entry 0: 'NEG' must be a non-empty"):
        vl_checklist_relation_items(root, tmp_path, missing="ignore")
    bad["data/Relation/vg/action.json"] = [{"image": "VG_100K/1.jpg"}]
    root = make_release(tmp_path / "r2", bad)
    with pytest.raises(ValueError, match=r"entry 0: expected \[image path"):
        vl_checklist_relation_items(root, tmp_path, missing="ignore")
    root = make_release(tmp_path / "r3")
    (root / "data" / "Relation" / "swig_action.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"swig\.yaml: ANNO_PATH data/Relation/swig"):
        vl_checklist_relation_items(root, tmp_path, missing="ignore")
    root = make_release(tmp_path / "r4")
    (root / "corpus/v1/Relation/spatial/vg.yaml").write_text('ANNO_PATH: "x.json"\nTYPE: "CSV"')
    with pytest.raises(ValueError, match=r"vg\.yaml: missing string key\(s\) \['IMG_ROOT'\]"):
        relation_configs(root)


def test_read_entries_takes_first_texts(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps([["a.jpg", {"POS": ["p1", "p2"], "NEG": ["n1"], "extra": 1}]]))
    assert read_entries(path) == [("a.jpg", "p1", "n1")]


SUBS = ["action"] * 6 + ["spatial"] * 4
CORPORA = ["hake", "hake", "swig", "swig", "swig", "vg", "vg", "vg", "vg", "vg"]
FLAGS = [1, 0, 1, 1, 1, 0, 1, 0, 0, 0]


def test_aggregate_by_hand():
    out = vl_checklist_aggregate(FLAGS, SUBS, CORPORA)
    action, spatial = out["subsets"]["action"], out["subsets"]["spatial"]
    # action: hake 1/2, swig 3/3, vg 0/1 -> corpus mean 0.5, pooled 4/6
    assert action["corpora"]["hake"] == {"accuracy": 50.0, "correct": 1, "n": 2}
    assert action["corpus_macro_accuracy"] == 50.0 and action["accuracy"] == 50.0
    assert action["micro_accuracy"] == 66.6667 and action["n"] == 6
    assert spatial["accuracy"] == 25.0 and spatial["micro_accuracy"] == 25.0
    assert out["overall"]["relation"] == 37.5  # (0.5 + 0.25) / 2
    assert out["overall"]["relation_corpus_macro"] == 37.5
    assert out["overall"]["relation_micro"] == 45.8333  # (4/6 + 1/4) / 2
    assert out["overall"]["micro_accuracy"] == 50.0 and out["overall"]["n"] == 10
    micro = vl_checklist_aggregate(FLAGS, SUBS, CORPORA, within="micro")
    assert micro["overall"]["relation"] == 45.8333
    assert micro["subsets"]["action"]["accuracy"] == 66.6667


def test_aggregate_with_one_tag_is_that_tag_and_says_the_other_is_missing():
    out = vl_checklist_aggregate([1, 0, 1], ["spatial"] * 3, ["world"] * 3)
    assert out["overall"]["relation"] == 66.6667  # the world has no actions
    assert out["overall"]["missing_subsets"] == ["action"]
    assert out["subsets"]["spatial"]["accuracy"] == 66.6667
    with pytest.raises(ValueError, match="unknown VL-CheckList Relation tag"):
        vl_checklist_aggregate([1], ["color"], ["vg"])


def test_metrics_from_scores_ties_are_wrong(release):
    items, _ = vl_checklist_relation_items(*release)
    scores = {  # [[positive, negative]]; equal scores are a tie -> wrong (VL-CheckList's >)
        "action-hake-000000": [[0.9, 0.1]], "action-hake-000001": [[0.1, 0.9]],
        "action-swig-000000": [[0.6, 0.5]], "action-swig-000001": [[0.7, 0.7]],
        "action-vg-000000": [[0.8, 0.2]],
        "spatial-vg-000000": [[0.2, 0.3]], "spatial-vg-000001": [[0.5, 0.4]],
        "spatial-vg-000002": [[0.5, 0.4]],
    }
    merged = items.assign(scores=[scores[i] for i in items.item_id])
    out = vl_checklist_metrics(merged, benchmark="vl_checklist")
    action = out["subsets"]["action"]
    assert action["corpora"]["swig"]["accuracy"] == 50.0
    assert action["accuracy"] == 66.6667  # (1/2 + 1/2 + 1) / 3
    assert out["subsets"]["spatial"]["accuracy"] == 66.6667
    assert out["overall"]["relation"] == 66.6667
    assert out["tie_policy"] == "strict" and out["n_items"] == 8


def scenes(cfg, n=25):
    return [sample_scene(cfg, "test", k) for k in range(n)]


def test_world_negatives_are_false(world_cfg):
    oracle = Oracle(world_cfg)
    found = scenes(world_cfg)
    by_id = {s.scene_id: s for s in found}
    items = checklist_items(found, world_cfg, seed=3)
    assert set(items.subset) == {"spatial"} and set(items.corpus) == {"world"}
    assert set(items.label) == {0} and set(items.tie_policy) == {"strict"}
    for row in items.itertuples():
        scene = by_id[row.scene_id]
        assert oracle.is_true(row.texts[0], scene), row.texts
        assert not oracle.is_true(row.texts[1], scene), row.texts
        assert row.texts[1] == row.texts[0].replace(row.relation, row.negative_relation, 1)
        if row.relation != NEXT_TO:
            assert row.negative_relation == INVERSE[row.relation]
    pairs = sum(len(s.objects) * (len(s.objects) - 1) // 2 for s in found)
    assert len(items) >= pairs  # at least the direction of every pair
    rand = checklist_items(found, world_cfg, seed=3, strategy="random")
    assert all(not oracle.is_true(r.texts[1], by_id[r.scene_id]) for r in rand.itertuples())


def test_world_is_deterministic(world_cfg):
    found = scenes(world_cfg, 10)
    a = checklist_items(found, world_cfg, seed=1)
    pd.testing.assert_frame_equal(a, checklist_items(found, world_cfg, seed=1))
    others = [checklist_items(found, world_cfg, seed=s) for s in (2, 3, 4)]
    assert any(list(o.item_id) != list(a.item_id) for o in others)  # subject order is seeded
    with pytest.raises(ValueError, match="strategy"):
        checklist_items(found, world_cfg, seed=1, strategy="antonym")


def test_world_set_images(world_cfg):
    found = scenes(world_cfg, 4)
    table = pd.DataFrame({"image_id": [s.scene_id for s in found] + ["test-999999"],
                          "path": [f"/w/{s.scene_id}.png" for s in found] + ["/w/x.png"]})
    items, images = checklist_set(found, table, world_cfg, seed=0)
    assert list(images.image_id) == sorted(s.scene_id for s in found)
    assert np.all(np.isin(np.concatenate(items.image_ids.to_numpy()), images.image_id))
    with pytest.raises(ValueError, match="lacks scene"):
        checklist_set(found, table.iloc[1:], world_cfg, seed=0)
