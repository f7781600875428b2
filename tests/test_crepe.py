"""CREPE productivity: the release's CSVs -> items, R@1 aggregation, and the world analogue."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from vlcomp.data.crepe import COUNTS, crepe_items, parse_hard_negs
from vlcomp.metrics.crepe import crepe_aggregate, crepe_metrics
from vlcomp.world.geometry import holds
from vlcomp.world.grammar import CaptionSpec, Clause, NounPhrase
from vlcomp.world.oracle import Oracle, np_matches, spec_is_true
from vlcomp.world.productivity import (
    Negation,
    _satisfiable,
    decompositions,
    max_complexity,
    negation_candidates,
    negation_is_true,
    negation_text,
    productivity_items,
)
from vlcomp.world.sampler import sample_split
from vlcomp.world.scene import ABOVE, LEFT_OF, RELATIONS, Scene, WorldObject

HEADER = ("image_id,caption,n,n_objects,n_relations,n_attributes,n_connected_components,"
          "hard_negs,x,y,width,height\n")
# Rows shaped as in the release: float boxes, single-quoted list literals, a set literal
# (negate), a caption with commas (quoted), a swap row whose "negative" equals the positive.
ATOM_4 = HEADER + (
    '13,computer on floor. floor under computer.,4,2,2,0,1,"[\'computer inside floor. floor '
    "under computer.', 'computer on face. floor under computer.', 'computer on floor. floor by "
    "computer.', 'step on floor. floor under computer.', 'computer on platform. floor under "
    'computer.\']",237.0,391.0,402.0,208.0\n'
    '2360332,"woman pouring a drink, for a man",4,3,1,0,2,"[\'man pouring a drink, for a man\', '
    "'woman pouring a cup, for a man', 'woman above a drink, for a man', 'woman pouring a drink,"
    " for a dog', 'woman pouring a drink, near a man']\",2.0,2.0,437.0,367.0\n")
NEGATE_4 = HEADER + (
    '2359296,lamp next to bed. there is a end table.,4,3,1,0,2,"{\'Lamp not next to bed. There '
    "is an end table.', 'Lamp next to bed. There is an end table. There is no lamp.', 'Lamp next"
    " to bed. . There is no end table.', 'There is no lamp next to bed. There is an end table.',"
    " 'Lamp next to bed. There is an end table. There is no bed.'}\",42.0,73.0,269.0,190.0\n"
    '13,computer on floor. floor under computer.,4,2,2,0,1,"[\'Computer on floor. Floor under '
    "computer. There is no computer.', 'Computer not on floor. Floor under computer.', 'Computer"
    " on floor. Floor not under computer.', 'There is no computer on floor. Floor under "
    "computer.', 'Computer on floor. Something under computer. There is no floor.']\","
    "237.0,391.0,402.0,208.0\n")
SWAP_4 = HEADER + (
    '2359946,snow covering rock. there is a ground.,4,3,1,0,2,"[\'snow covering rock. there is a'
    " mountain.', 'mountain covering rock. there is a ground.', 'snow covering mountain. there is"
    " a ground.', 'rock covering snow. there is a ground.', 'snow covering rock. there is a "
    'ground.\']",6.0,108.0,494.0,323.0\n')
FILES = {("atom", 4): ATOM_4, ("negate", 4): NEGATE_4, ("swap", 4): SWAP_4}


def _release(root, files=FILES, sub="prod_hard_negatives"):
    """The unpacked release: {sub}/{type}/prod_vg_hard_negs_{type}_complexity_{n}.csv."""
    for (t, n), text in files.items():
        folder = root / sub / t
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"prod_vg_hard_negs_{t}_complexity_{n}.csv").write_text(text)
    return root


def _images(root, ids=(13, 2360332, 2359296, 2359946), second=(2359946,)):
    for i in ids:
        folder = root / ("VG_100K_2" if i in second else "VG_100K")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{i}.jpg").write_bytes(b"jpg")
    return root


def test_items_follow_the_release(tmp_path):
    root, vg = _release(tmp_path / "crepe"), _images(tmp_path / "vg")
    items, crops = crepe_items(root, vg, complexities=[4])
    assert list(items.item_id) == ["atom-c04-00000", "atom-c04-00001", "negate-c04-00000",
                                   "negate-c04-00001", "swap-c04-00000"]
    assert list(items.subset) == ["atom", "atom", "negate", "negate", "swap"]
    first = items.iloc[0]
    assert first.texts[0] == "computer on floor. floor under computer."
    assert first.texts[1] == "computer inside floor. floor under computer."
    assert len(first.texts) == 6 and first.label == 0 and first.protocol == "i2t"
    assert first.complexity == 4 and first.vg_image_id == 13 and first.n_relations == 2
    assert items.iloc[1].texts[0] == "woman pouring a drink, for a man"
    # a set literal keeps its written order
    assert items.iloc[2].texts[1] == "Lamp not next to bed. There is an end table."
    assert items.iloc[2].texts[5] == "Lamp next to bed. There is an end table. There is no bed."
    assert set(items.tie_policy) == {"lenient"}
    assert list(items.positive_in_negatives) == [False, False, False, False, True]
    # one crop per (image, box); the atom and negate rows of image 13 share it
    assert list(crops.image_id) == ["13_237_391_402_208", "2359296_42_73_269_190",
                                    "2359946_6_108_494_323", "2360332_2_2_437_367"]
    assert crops.bbox[0] == [237.0, 391.0, 402.0, 208.0]
    assert crops.path[2].endswith("VG_100K_2/2359946.jpg")
    assert crops.path[0].endswith("VG_100K/13.jpg")


def test_filters_and_root_layouts(tmp_path):
    root = _release(tmp_path, {("swap", 7): SWAP_4.replace(",4,3,1,0,2,", ",7,3,1,3,2,")},
                    sub="unzipped/prod_hard_negatives")
    items, _ = crepe_items(tmp_path, tmp_path, types=["swap"], complexities=[7],
                           require_images=False, tie_policy="strict")
    assert list(items.item_id) == ["swap-c07-00000"] and items.complexity[0] == 7
    assert set(items.tie_policy) == {"strict"}
    items, _ = crepe_items(root / "unzipped" / "prod_hard_negatives" / "..", tmp_path,
                           types=["swap"], complexities=[7], require_images=False)
    assert len(items) == 1
    with pytest.raises(ValueError, match="unknown CREPE negative type 'foil'"):
        crepe_items(root, tmp_path, types=["foil"])
    with pytest.raises(ValueError, match="unknown CREPE complexity 13"):
        crepe_items(root, tmp_path, complexities=[13])


def test_errors_name_file_and_row(tmp_path):
    vg = _images(tmp_path / "vg")
    with pytest.raises(FileNotFoundError, match="no CREPE productivity folder"):
        crepe_items(tmp_path / "none", vg)
    root = _release(tmp_path / "a", {("atom", 4): ATOM_4})
    with pytest.raises(FileNotFoundError, match=r"prod_vg_hard_negs_atom_complexity_5\.csv"):
        crepe_items(root, vg, types=["atom"], complexities=[4, 5])
    with pytest.raises(FileNotFoundError, match=r"complexity_4\.csv row 1: Visual Genome image "
                                                r"2360332\.jpg is in none of"):
        crepe_items(root, _images(tmp_path / "vg2", ids=(13,)), types=["atom"], complexities=[4])
    bad_n = _release(tmp_path / "b", {("atom", 5): ATOM_4})
    with pytest.raises(ValueError, match=r"complexity_5\.csv row 0: n = 4, but the file is "
                                         r"complexity 5"):
        crepe_items(bad_n, vg, types=["atom"], complexities=[5])
    no_col = _release(tmp_path / "c", {("atom", 4): ATOM_4.replace("hard_negs", "negs")})
    with pytest.raises(ValueError, match=r"missing column\(s\) \['hard_negs'\]"):
        crepe_items(no_col, vg, types=["atom"], complexities=[4])
    broken = _release(tmp_path / "d", {("atom", 4): ATOM_4.replace("\"['man pouring", "\"['man")
                                       .replace("near a man']", "near a man'")})
    with pytest.raises(ValueError, match=r"complexity_4\.csv row 1: hard_negs is not a Python"):
        crepe_items(broken, vg, types=["atom"], complexities=[4])


def test_hard_negative_literals():
    assert parse_hard_negs("{'b', 'a', 'b'}", "f row 0") == ["b", "a"]
    assert parse_hard_negs("['b', 'a', 'b']", "f row 0") == ["b", "a", "b"]
    with pytest.raises(ValueError, match="f row 3: hard_negs must be a list or set of strings"):
        parse_hard_negs("[1, 'a']", "f row 3")
    with pytest.raises(ValueError, match="f row 4: empty hard_negs"):
        parse_hard_negs("", "f row 4")
    assert sum(COUNTS["swap"].values()) == 6652 and COUNTS["atom"][4] == 1258


# -- aggregation ---------------------------------------------------------------------------

CORRECT = [1, 1, 0, 1, 1, 0, 0, 0, 1]
TYPES = ["atom"] * 4 + ["negate"] * 2 + ["swap"] * 3
LEVELS = [4, 4, 4, 5, 4, 4, 12, 12, 12]


def test_aggregate_by_hand():
    out = crepe_aggregate(CORRECT, TYPES, LEVELS)
    atom = out["types"]["atom"]
    assert atom["paper_name"] == "Atom-Foils" and atom["n"] == 4 and atom["correct"] == 3
    assert atom["micro_accuracy"] == 75.0 and atom["accuracy"] == 75.0
    assert atom["complexity_macro_accuracy"] == 83.3333  # (2/3 + 1/1) / 2
    assert atom["complexities"]["4"] == {"accuracy": 66.6667, "correct": 2, "n": 3}
    assert out["types"]["swap"]["accuracy"] == 33.3333
    assert list(out["types"]) == ["atom", "negate", "swap"]
    assert out["overall"] == {"accuracy": 55.5556, "correct": 5, "n": 9,
                              "type_macro_accuracy": 52.7778}
    assert out["complexities"] == {"4": {"accuracy": 60.0, "correct": 3, "n": 5},
                                   "5": {"accuracy": 100.0, "correct": 1, "n": 1},
                                   "12": {"accuracy": 33.3333, "correct": 1, "n": 3}}
    macro = crepe_aggregate(CORRECT, TYPES, LEVELS, average="complexity_macro")
    assert macro["types"]["atom"]["accuracy"] == 83.3333 and macro["average"] == "complexity_macro"
    with pytest.raises(ValueError, match="unknown average"):
        crepe_aggregate(CORRECT, TYPES, LEVELS, average="mean")
    with pytest.raises(ValueError, match="lengths differ"):
        crepe_aggregate(CORRECT, TYPES[:-1], LEVELS)


def test_metrics_rank_each_item_against_its_own_negatives():
    tie = [[0.5, 0.5, 0.1, 0.1, 0.1, 0.1]]
    win = [[0.6, 0.5, 0.1, 0.1, 0.1, 0.1]]
    lose = [[0.4, 0.1, 0.5, 0.1, 0.1, 0.1]]
    df = pd.DataFrame({"item_id": ["a", "b", "c"], "subset": ["swap"] * 3,
                       "complexity": [4, 4, 5], "protocol": "i2t", "label": 0,
                       "tie_policy": "lenient", "texts": [list("abcdef")] * 3,
                       "scores": [tie, win, lose]})
    lenient = crepe_metrics(df, benchmark="crepe")
    assert lenient["types"]["swap"]["correct"] == 2 and lenient["tie_policy"] == "lenient"
    strict = crepe_metrics(df.assign(tie_policy="strict"))
    assert strict["types"]["swap"]["complexities"]["4"]["accuracy"] == 50.0
    assert strict["types"]["swap"]["complexity_macro_accuracy"] == 25.0


# -- the world analogue --------------------------------------------------------------------

def _np(shape, color=None, size=None, ref=None):
    return NounPhrase(shape, color, size, ref)


CIRCLE = WorldObject("circle", "red", "small", 0.2, 0.5, 0.1)
SQUARE = WorldObject("square", "blue", "large", 0.7, 0.5, 0.16)
SCENE = Scene("test-000000", "test", (CIRCLE, SQUARE))


def test_negations_read_and_judge_like_crepe(world_cfg):
    near = world_cfg.next_to_distance
    spec = CaptionSpec((Clause(_np("circle", "red"), LEFT_OF, _np("square")),))
    cases = {
        Negation("relation", clause=0): "A red circle not to the left of a square.",
        Negation("attribute", phrase=0, attribute="color"):
            "A circle that is not red to the left of a square.",
        Negation("absent", phrase=1): "A red circle to the left of a square. There is no square.",
        Negation("something", phrase=0): "Something to the left of a square. There is no red "
                                         "circle.",
        Negation("clause", clause=0): "There is no red circle to the left of a square.",
    }
    for neg, text in cases.items():
        assert negation_text(spec, neg) == text
        assert not negation_is_true(spec, neg, SCENE, near), text
    # the same forms over false atoms are true: the judge is not constant
    wrong = CaptionSpec((Clause(_np("circle", "blue"), ABOVE, _np("square")),))
    blue = SCENE.with_objects((replace(CIRCLE, color="blue"), SQUARE))
    assert negation_is_true(wrong, Negation("relation", clause=0), blue, near)
    # "a circle that is not blue above a square": the colour holds, the relation does not
    assert not negation_is_true(wrong, Negation("attribute", phrase=0, attribute="color"),
                                SCENE, near)
    assert negation_is_true(replace(wrong, clauses=(Clause(_np("circle", "blue"), LEFT_OF,
                                                           _np("square")),)),
                            Negation("attribute", phrase=0, attribute="color"), SCENE, near)
    triangle = CaptionSpec((Clause(_np("triangle"), LEFT_OF, _np("square")),))
    assert negation_is_true(triangle, Negation("something", phrase=0), SCENE, near)
    listing = CaptionSpec((Clause(_np("circle")), Clause(_np("triangle"))))
    assert negation_text(listing, Negation("clause", clause=1)) == "A circle. There is no triangle."
    assert negation_is_true(listing, Negation("clause", clause=1), SCENE, near)


def test_satisfiable_is_the_oracle(world_cfg):
    """With the oracle's own tests plugged in, the negation judge agrees with the oracle."""
    near = world_cfg.next_to_distance
    rng = np.random.default_rng(0)
    agree = []
    for scene in list(sample_split(world_cfg, "test"))[:20]:
        for _ in range(10):
            shapes = [str(s) for s in rng.choice(world_cfg.shapes, size=3, replace=False)]
            rel = RELATIONS[int(rng.integers(len(RELATIONS)))]
            color = world_cfg.colors[int(rng.integers(len(world_cfg.colors)))]
            spec = CaptionSpec((Clause(_np(shapes[0], color), rel, _np(shapes[1])),
                                Clause(_np(shapes[2]))))
            mine = _satisfiable(spec, scene, lambda j, p, o: np_matches(p, o),
                                lambda i, c, a, b: holds(a, c.relation, b, near))
            assert mine == spec_is_true(spec, scene, near)
            agree.append(mine)
    assert 0 < sum(agree) < len(agree)


@pytest.fixture(scope="module")
def world_items(world_cfg):
    scenes = list(sample_split(world_cfg, "test"))
    return scenes, productivity_items(scenes, world_cfg, seed=0)


def test_world_items_are_truthful(world_cfg, world_items):
    scenes, items = world_items
    oracle = Oracle(world_cfg)
    by_id = {s.scene_id: s for s in scenes}
    assert set(items.subset) == {"atom", "negate", "swap"}
    assert sorted(set(items.complexity)) == list(range(4, max_complexity(world_cfg) + 1))
    assert max_complexity(world_cfg) == 10 and decompositions(2, 8) == []
    for row in items.itertuples():
        scene = by_id[row.image_ids[0]]
        assert len(row.texts) == 6 and len(set(row.texts)) == 6
        assert row.n_objects + row.n_relations + row.n_attributes == row.complexity
        assert row.n_objects <= len(scene.objects)
        assert oracle.is_true(row.texts[0], scene)
        if row.subset != "negate":
            assert not any(oracle.is_true(t, scene) for t in row.texts[1:]), row.item_id
        else:  # each negated text reads one negation of the positive, false of the scene
            spec = CaptionSpec.from_json(row.spec)
            judged = {negation_text(spec, n): negation_is_true(spec, n, scene,
                                                               world_cfg.next_to_distance)
                      for n in negation_candidates(spec)}
            assert all(judged[t] is False for t in row.texts[1:]), row.item_id
    counts = items.groupby("subset").size()
    assert counts["swap"] < counts["atom"] == counts["negate"]  # few low-complexity swaps
    negate = items[items.subset == "negate"]
    kinds = {k for ks in negate.negative_kinds for k in ks}
    assert kinds == {"relation", "attribute", "absent", "something", "clause"}


def test_world_items_are_seeded(world_cfg, world_items):
    scenes, items = world_items
    again = productivity_items(scenes, world_cfg, seed=0)
    pd.testing.assert_frame_equal(items, again)
    other = productivity_items(scenes, world_cfg, seed=1)
    assert list(other.texts) != list(items.texts)
    few = productivity_items(scenes[:5], world_cfg, seed=0, types=["atom"], complexities=[4])
    assert list(few.texts) == list(items[(items.subset == "atom") & (items.complexity == 4)]
                                   .texts[:5])
    with pytest.raises(ValueError, match="unknown negative type"):
        productivity_items(scenes, world_cfg, types=["foil"])
