"""EqBen (the 10 % labelled subset / t2v_metrics' mini set), Diwan et al.'s Winoground tags
and No-Tag subset, their metrics, and the world's EqBen-style pairs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.data.eqben import eqben_items, find_release, frames_as_png, read_annotation
from vlcomp.data.winoground import winoground_items
from vlcomp.data.winoground_tags import (
    DIWAN_SCRIPT_EXCLUDED,
    TAGS,
    add_diwan_tags,
    no_tag_ids,
    read_tag_assignments,
    tag_counts,
)
from vlcomp.metrics.benchmarks import merge_scores, winoground_metrics
from vlcomp.metrics.eqben import (
    eqben_metrics,
    winoground_no_tag_metrics,
    winoground_tag_metrics,
)

# Reference check 1 (sugarcrepe-bivlc-visualgptscore.md, E): S[image, text]
MIXED = [[0.30, 0.25], [0.28, 0.27]]  # text score 0, image score 1, group 0
TIED = [[0.5, 0.5], [0.5, 0.5]]       # all 0 under strict ties
CLEAN = [[0.9, 0.1], [0.1, 0.9]]      # all 1

# Entries as the released JSON lists them (relative paths, sub-benchmark folder first).
ENTRIES = [
    {"image0": "eqbenag/0A8CF.mp4/000123.png", "caption0": ["The person is holding the dish."],
     "image1": "eqbenag/0A8CF.mp4/000187.png", "caption1": ["The person is touching the dish."]},
    {"image0": "eqbenkubric_loc/000012/rgba_00003.png",
     "caption0": "The red cube is to the left of the ball.",
     "image1": "eqbenkubric_loc/000012/rgba_00007.png",
     "caption1": "The red cube is to the right of the ball."},
    {"image0": "eqbenyoucook2/GLd3aX16zBg/0001.npy", "caption0": "add salt to the pan",
     "image1": "eqbenyoucook2/GLd3aX16zBg/0002.npy", "caption1": "stir the pan"},
    {"image0": "eqbensd/00012/0.png", "caption0": "a cat on a sofa",
     "image1": "eqbensd/00012/1.png", "caption1": "a dog on a sofa"},
]


def _write_image(path: Path, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pixels = np.full((8, 8, 3), seed * 20 % 256, dtype=np.uint8)
    if path.suffix == ".npy":
        np.save(path, pixels)
    else:
        Image.fromarray(pixels).save(path)


def _release(root: Path, entries: list[dict], annotation: str, images: str,
             light: bool = False) -> Path:
    """An unpacked release: the annotation and every listed image (``light``: as .jpg)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / annotation).parent.mkdir(parents=True, exist_ok=True)
    (root / annotation).write_text(json.dumps(entries))
    for seed, entry in enumerate(entries):
        for key in ("image0", "image1"):
            rel = Path(entry[key])
            if light and rel.suffix == ".png":
                rel = rel.with_suffix(".jpg")
            _write_image(root / images / rel, seed)
    return root


def test_ten_percent_release_loads_as_pair_items(tmp_path):
    root = _release(tmp_path / "eqben", ENTRIES, "eqben_subset_10percent_final.json",
                    "image_subset")
    annotation, image_root = find_release(root)
    assert annotation.name == "eqben_subset_10percent_final.json"
    assert image_root == root / "image_subset"
    items, images = eqben_items(annotation, image_root, expected_items=4)
    assert list(items.item_id) == ["eqben-00000", "eqben-00001", "eqben-00002", "eqben-00003"]
    assert list(items.subset) == ["eqbenag", "eqbenk", "eqbeny", "eqbensd"]
    assert list(items.folder) == ["eqbenag", "eqbenkubric_loc", "eqbenyoucook2", "eqbensd"]
    first = items.iloc[0]
    assert first.image_ids == ["eqbenag/0A8CF.mp4/000123", "eqbenag/0A8CF.mp4/000187"]
    assert first.texts == ["The person is holding the dish.", "The person is touching the dish."]
    assert (first.protocol, first.label, first.tie_policy) == ("pair", 0, "strict")
    assert len(images) == 8 and all(Path(p).is_file() for p in images.path)
    assert images.path[images.image_id == "eqbenyoucook2/GLd3aX16zBg/0001"].item().endswith(
        "0001.npy")


def test_mini_release_layout_and_light_jpgs(tmp_path):
    root = _release(tmp_path / "x", ENTRIES[:2], "eqben_vllm/all_select.json",
                    "eqben_vllm/images", light=True)
    annotation, image_root = find_release(root)
    assert annotation == root / "eqben_vllm" / "all_select.json"
    assert image_root == root / "eqben_vllm" / "images"
    _, images = eqben_items(annotation, image_root)
    assert all(p.endswith(".jpg") for p in images.path)  # the .png listed, the .jpg found


def test_loader_errors_name_the_file_entry_and_folder(tmp_path):
    root = _release(tmp_path / "r", ENTRIES, "all_select.json", "images")
    ann, images = root / "all_select.json", root / "images"
    (images / ENTRIES[3]["image1"]).unlink()
    with pytest.raises(FileNotFoundError, match=r"entry 3: image 'eqbensd/00012/1.png' not "
                       r"found; expected it in .*images/eqbensd/00012"):
        eqben_items(ann, images)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([ENTRIES[0], {"image0": "eqbensd/1.png", "caption0": "a"}]))
    with pytest.raises(ValueError, match=r"bad.json entry 1: missing field\(s\) \['image1', "
                                         r"'caption1'\]"):
        read_annotation(bad)
    bad.write_text(json.dumps({"0": ENTRIES[0]}))
    with pytest.raises(ValueError, match="expected a non-empty JSON list"):
        read_annotation(bad)
    odd = [dict(ENTRIES[3], image0="subset/00012/0.png", image1="subset/00012/1.png")]
    bad.write_text(json.dumps(odd))
    with pytest.raises(ValueError, match=r"bad.json entry 0 image0: .* names no EqBen"):
        eqben_items(bad, images, check_images=False)
    loose, _ = eqben_items(bad, images, check_images=False, strict_subsets=False)
    assert loose.subset.tolist() == ["eqben"]
    mixed = [dict(ENTRIES[3], image1="eqbenag/0A8CF.mp4/000187.png")]
    bad.write_text(json.dumps(mixed))
    with pytest.raises(ValueError, match="different sub-benchmark folders"):
        eqben_items(bad, images)
    with pytest.raises(ValueError, match="4 items, expected 5"):
        eqben_items(ann, images, expected_items=5, check_images=False)
    with pytest.raises(FileNotFoundError, match="no EqBen annotation"):
        find_release(tmp_path / "r" / "images")


def test_youcook2_frames_become_rgb_pngs(tmp_path):
    frame = np.zeros((4, 5, 3), dtype=np.uint8)
    frame[..., 0] = 200  # blue in BGR
    np.save(tmp_path / "f.npy", frame)
    Image.new("RGB", (2, 2)).save(tmp_path / "g.png")
    table = pd.DataFrame({"image_id": ["eqbenyoucook2/v/f", "eqbensd/g"],
                          "path": [str(tmp_path / "f.npy"), str(tmp_path / "g.png")]})
    out = frames_as_png(table, tmp_path / "png")
    assert out.path[0] == str(tmp_path / "png" / "eqbenyoucook2/v/f.png")
    assert out.path[1] == table.path[1]
    with Image.open(out.path[0]) as img:
        assert np.asarray(img)[0, 0].tolist() == [0, 0, 200]
    np.save(tmp_path / "f.npy", frame[..., :2])
    with pytest.raises(ValueError, match=r"f.npy: expected a uint8 H x W x 3"):
        frames_as_png(table, tmp_path / "png")


def _scored(items: pd.DataFrame, matrices: list) -> pd.DataFrame:
    scores = pd.DataFrame({"item_id": items.item_id, "scores": matrices})
    return merge_scores(items, scores)


def test_eqben_metrics_by_hand(tmp_path):
    entries = [*ENTRIES, dict(ENTRIES[3], image0="eqbensd/7/0.png", image1="eqbensd/7/1.png")]
    ann = tmp_path / "all_select.json"
    ann.write_text(json.dumps(entries))
    items, _ = eqben_items(ann, tmp_path, check_images=False)
    df = _scored(items, [MIXED, CLEAN, TIED, CLEAN, MIXED])
    m = eqben_metrics(df, benchmark="eqben_val")
    assert (m["metric"], m["tie_policy"], m["n_items"]) == ("eqben", "strict", 5)
    # text score: CLEAN x2 -> 2/5; image score: MIXED x2 + CLEAN x2 -> 4/5; group: 2/5
    assert (m["overall"]["I2T"], m["overall"]["T2I"], m["overall"]["Group"]) == (40.0, 80.0,
                                                                                   40.0)
    assert list(m["subsets"]) == ["eqbenag", "eqbeny", "eqbenk", "eqbensd"]
    assert m["subsets"]["eqbensd"] == {"Ipos2T": 100.0, "Ineg2T": 50.0, "Tpos2I": 100.0,
                                       "Tneg2I": 100.0, "I2T": 50.0, "T2I": 100.0,
                                       "Group": 50.0, "n": 2}
    assert m["subsets"]["eqbeny"]["T2I"] == 0.0  # ties lose
    assert m["folders"]["eqbenkubric_loc"]["Group"] == 100.0
    # the generic Winoground metric scores the same items identically
    w = winoground_metrics(df)
    assert w["overall"] == m["overall"]
    assert w["subsets"]["eqbensd"] == m["subsets"]["eqbensd"]


def _tag_file(path: Path, tags: dict[int, list[str]]) -> Path:
    """Shaped like new_tag_assignments.json: string keys in id order, tag lists."""
    path.write_text(json.dumps({str(k): v for k, v in sorted(tags.items())}))
    return path


TAGGED = {0: [], 1: [], 2: ["Ambiguously Correct"], 3: ["Unusual Image", "Visually Difficult"],
          4: [], 5: ["Non Minimal"]}


def test_tag_file_and_no_tag_selection(tmp_path):
    got = read_tag_assignments(_tag_file(tmp_path / "new_tag_assignments.json", TAGGED))
    assert got == TAGGED and list(got) == [0, 1, 2, 3, 4, 5]
    assert no_tag_ids(got, n_items=6) == [0, 1, 4]
    assert no_tag_ids(got, n_items=6, exclude=(4,)) == [0, 1]
    counts = tag_counts(got)
    assert counts["No Tag"] == 3 and counts["Visually Difficult"] == 1
    assert counts["Complex Reasoning"] == 0
    with pytest.raises(ValueError, match=r"do not cover ids 0..399: missing \[6, 7"):
        no_tag_ids(got)


@pytest.mark.parametrize(("text", "message"), [
    ('{"0": [], "x": []}', "key 'x' is not a Winoground id"),
    ('{"0": [], "0": ["Unusual Text"]}', "item '0' is listed twice"),
    ('{"0": "Unusual Text"}', "item '0': expected a list of tag names"),
    ('{"0": ["Unusual Text", "Unusual Text"]}', "item '0' repeats a tag"),
    ('{"0": ["Hard"]}', r"item '0': unknown tag\(s\) \['Hard'\]"),
    ('[[], []]', "expected a non-empty JSON object"),
])
def test_tag_file_errors(tmp_path, text, message):
    path = tmp_path / "tags.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_tag_assignments(path)


def _six_winoground_items(tmp_path) -> pd.DataFrame:
    """Six Winoground items as the release's examples.jsonl lists them (ids 0-5)."""
    lines = [json.dumps({"id": i, "image_0": f"ex_{i}_img_0", "image_1": f"ex_{i}_img_1",
                         "caption_0": f"a {i}", "caption_1": f"b {i}",
                         "collapsed_tag": "Object", "tag": "x", "secondary_tag": "",
                         "num_main_preds": 1}) for i in range(6)]
    (tmp_path / "examples.jsonl").write_text("\n".join(lines) + "\n")
    items, _ = winoground_items(tmp_path / "examples.jsonl", tmp_path / "images",
                                expected_items=6)
    return items


def test_no_tag_metrics_on_winoground_items(tmp_path):
    items = _six_winoground_items(tmp_path)
    tagged = add_diwan_tags(items, TAGGED)
    assert tagged.no_tag.tolist() == [True, True, False, False, True, False]
    assert tagged.diwan_tags[3] == ["Unusual Image", "Visually Difficult"]
    assert add_diwan_tags(items, TAGGED, exclude=(4,)).no_tag.sum() == 2
    df = _scored(tagged, [CLEAN, MIXED, CLEAN, CLEAN, TIED, MIXED])
    m = winoground_no_tag_metrics(df)
    # No-Tag = items 0, 1, 4: text 1/3, image 2/3, group 1/3
    assert (m["overall"]["I2T"], m["overall"]["T2I"], m["overall"]["Group"]) == (
        33.3333, 66.6667, 33.3333)
    assert m["overall"]["n"] == 3 and m["all"]["n"] == 6 and m["all"]["I2T"] == 50.0
    assert list(m["subsets"]) == ["No Tag", *TAGS]
    minimal = m["subsets"]["Non Minimal"]
    assert (minimal["I2T"], minimal["T2I"], minimal["Group"], minimal["n"]) == (0.0, 100.0,
                                                                              0.0, 1)
    assert m["subsets"]["Complex Reasoning"]["n"] == 0
    assert m["subsets"]["Complex Reasoning"]["I2T"] is None
    with pytest.raises(ValueError, match="need the 'no_tag' column"):
        winoground_no_tag_metrics(_scored(items, [CLEAN] * 6))
    with pytest.raises(ValueError, match="not a Winoground item id"):
        add_diwan_tags(items.assign(item_id=[f"w-{i}" for i in range(6)]), TAGGED)
    with pytest.raises(ValueError, match=r"without a tag assignment: \[5\]"):
        add_diwan_tags(items, {k: v for k, v in TAGGED.items() if k < 5})


def test_tag_metrics_give_a_captioner_each_tags_own_oracle_alpha(tmp_path):
    items = _six_winoground_items(tmp_path)
    df = _scored(add_diwan_tags(items, TAGGED), [CLEAN, MIXED, CLEAN, CLEAN, TIED, MIXED])
    blind = winoground_tag_metrics(df)
    assert "oracle" not in blind and blind["metric"] == "winoground_tags"
    assert blind["subsets"] == winoground_no_tag_metrics(df)["subsets"]
    # item 1's (MIXED) first caption is likelier a priori: from alpha > 0.5 on, both of its
    # images prefer their own caption; the tied item 4 never does
    prior = {t: 0.0 for texts in df.texts for t in texts} | {"a 1": 0.02}
    m = winoground_tag_metrics(df, prior, step=0.1)
    no_tag = m["oracle"]["No Tag"]
    assert no_tag["n"] == 3 and no_tag["alpha"] == pytest.approx(0.6)
    assert no_tag["alpha0"] == {"I2T": 33.3333, "T2I": 66.6667, "Group": 33.3333}
    assert no_tag["oracle"] == {"I2T": 66.6667, "T2I": 66.6667, "Group": 66.6667}
    # Non Minimal (item 5, MIXED without a prior shift): its own alpha* is 0
    assert m["oracle"]["Non Minimal"]["alpha"] == 0.0
    assert m["oracle"]["Non Minimal"]["oracle"]["I2T"] == 0.0
    assert "Complex Reasoning" not in m["oracle"]  # no items


def test_tag_intervals_resample_winoground_and_repick_each_tags_alpha(tmp_path):
    """Table 13's CIs: each tag's scores (and a captioner's own oracle alpha*) with their
    values equal to the tag record's, over Winoground's own resamples."""
    from vlcomp.metrics.tag_uncertainty import tag_intervals

    items = _six_winoground_items(tmp_path)
    df = _scored(add_diwan_tags(items, TAGGED), [CLEAN, MIXED, CLEAN, CLEAN, TIED, MIXED])
    prior = {t: 0.0 for texts in df.texts for t in texts} | {"a 1": 0.02}
    record = winoground_tag_metrics(df, prior, step=0.1)
    table = tag_intervals(df, prior, step=0.1, n_resamples=300, bootstrap_seed=0)
    got = {(r.subset, r.measure): r for r in table.itertuples()}
    for tag, entry in record["subsets"].items():
        if not entry["n"]:
            assert (tag, "I2T") not in got  # Complex Reasoning has no item
            continue
        for key in ("I2T", "T2I", "Group"):
            r = got[tag, key]
            assert r.value == pytest.approx(entry[key], abs=1e-3) and r.n == entry["n"]
            assert r.ci_low <= r.value <= r.ci_high
            oracle = record["oracle"][tag]
            assert got[tag, f"oracle.pair.{key}"].value == pytest.approx(oracle["oracle"][key],
                                                                         abs=1e-3)
        assert got[tag, "oracle.alpha"].value == pytest.approx(record["oracle"][tag]["alpha"])
    # No Tag (items 0, 1, 4): text 1/3 at alpha 0; the resamples spread it over [0, 100]
    no_tag = got["No Tag", "I2T"]
    assert no_tag.ci_low == 0.0 and no_tag.ci_high == 100.0
    # alpha* is picked again on each resample: its interval is not the point
    assert got["No Tag", "oracle.alpha"].ci_low < got["No Tag", "oracle.alpha"].ci_high
    # an ITM model (no prior): the alpha-0 scores only, on the same resamples
    blind = tag_intervals(df, n_resamples=300, bootstrap_seed=0)
    assert set(blind.measure) == {"I2T", "T2I", "Group"}
    both = blind.merge(table, on=["subset", "measure"])
    assert (both.ci_low_x == both.ci_low_y).all() and (both.ci_high_x == both.ci_high_y).all()


REAL_TAGS = os.environ.get("VLCOMP_DIWAN_TAGS")


@pytest.mark.skipif(not REAL_TAGS, reason="set VLCOMP_DIWAN_TAGS to the released "
                                          "new_tag_assignments.json to check it")
def test_the_released_tag_file():
    tags = read_tag_assignments(REAL_TAGS)
    assert len(tags) == 400
    assert len(no_tag_ids(tags)) == 172
    assert len(no_tag_ids(tags, exclude=DIWAN_SCRIPT_EXCLUDED)) == 171
    assert tags[313] == []
    assert tag_counts(tags) == {"Ambiguously Correct": 46, "Visually Difficult": 38,
                                "Unusual Image": 56, "Unusual Text": 50,
                                "Complex Reasoning": 78, "Non Minimal": 30, "No Tag": 172}


# -- the world's EqBen-style pairs ------------------------------------------------------


@pytest.fixture(scope="module")
def world_pairs(world_dir, world_cfg):
    from vlcomp.data.world import read_scenes
    from vlcomp.world.equivariance import equivariance_items

    scenes = {k: s for k, s in read_scenes(world_dir / "scenes.jsonl").items()
              if s.split == "test"}
    captions = pd.read_parquet(world_dir / "captions.parquet")
    captions = captions[captions.split == "test"]
    items, edited = equivariance_items(scenes, captions, world_cfg, 0)
    return scenes, captions, items, {s.scene_id: s for s in edited}


def test_world_pairs_change_one_object_and_each_caption_fits_its_image(world_pairs, world_cfg):
    from vlcomp.world.equivariance import SUBSETS, changed_objects
    from vlcomp.world.oracle import Oracle

    scenes, _, items, edited = world_pairs
    oracle = Oracle(world_cfg)
    assert set(items.subset) == set(SUBSETS)
    for row in items.itertuples():
        first, second = scenes[row.image_ids[0]], edited[row.image_ids[1]]
        assert row.image_ids[1] == f"{row.item_id}-1"
        [k] = changed_objects(first, second)
        a, b = first.objects[k], second.objects[k]
        moved = (a.x, a.y) != (b.x, b.y)
        looks = (a.shape, a.color, a.size) != (b.shape, b.color, b.size)
        assert moved != looks and moved == (row.subset == "loc")
        c0, c1 = row.texts
        assert c0 != c1
        assert oracle.is_true(c0, first) and not oracle.is_true(c1, first)
        assert oracle.is_true(c1, second) and not oracle.is_true(c0, second)
        assert (row.protocol, row.label, row.tie_policy) == ("pair", 0, "strict")


def test_world_pairs_are_seeded_and_subset_checked(world_pairs, world_cfg):
    from vlcomp.world.equivariance import equivariance_items

    scenes, captions, items, _ = world_pairs
    again, _ = equivariance_items(scenes, captions, world_cfg, 0)
    pd.testing.assert_frame_equal(items, again)
    other, _ = equivariance_items(scenes, captions, world_cfg, 1)
    assert other.texts.tolist() != items.texts.tolist()
    only, _ = equivariance_items(scenes, captions, world_cfg, 0, ("attr",))
    assert set(only.subset) == {"attr"}
    with pytest.raises(ValueError, match="unknown EqBen-style subset"):
        equivariance_items(scenes, captions, world_cfg, 0, ("cnt",))
