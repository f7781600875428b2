"""Generated negative images: world text-to-image, candidates, automatic filters, BiVLC
construction (formatting checked against the released data) and Table 1 counts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.benchmarks.bivlc import (
    bivlc_items,
    category_counts,
    format_caption,
    rendered_selection,
)
from vlcomp.benchmarks.sugarcrepe import sugarcrepe_items
from vlcomp.data.world import read_scenes
from vlcomp.generate.base import bivlc_prompt, prompt_seed
from vlcomp.generate.candidates import generate_candidates, generation_items
from vlcomp.generate.filters import (
    ModelFilter,
    OracleInputs,
    agreement,
    filter_candidates,
    filter_ratios,
    kept_instances,
    model_decisions,
    preferred_is_first,
)
from vlcomp.generate.world_backend import (
    FailureModel,
    StyleShift,
    WorldTextToImage,
    scene_from_meta,
)
from vlcomp.generate.world_renderer import generate_negative_images
from vlcomp.world.compose import compose_scene, object_slots
from vlcomp.world.grammar import CaptionParseError, CaptionParser
from vlcomp.world.oracle import Oracle
from vlcomp.world.render import render_scene
from vlcomp.world.scene import Scene, WorldObject

from .conftest import SHARED_DATA


@pytest.fixture(scope="module")
def world(world_dir, world_cfg):
    scenes = read_scenes(world_dir / "scenes.jsonl")
    test = {k: s for k, s in scenes.items() if s.split == "test"}
    captions = pd.read_parquet(world_dir / "captions.parquet")
    items, edited = sugarcrepe_items(test, captions[captions.split == "test"], world_cfg, 0)
    return scenes, items, edited, pd.read_parquet(world_dir / "images.parquet")


@pytest.fixture(scope="module")
def parser(world_cfg):
    return CaptionParser(world_cfg.shapes, world_cfg.colors, world_cfg.sizes)


# -- world text-to-image ---------------------------------------------------------------------

def test_composed_scenes_make_every_caption_true(world, world_cfg, parser):
    _, items, _, _ = world
    oracle = Oracle(world_cfg)
    rng = np.random.default_rng(0)
    for negative in [t[1] for t in items.texts]:
        scene = compose_scene(parser.parse(negative), world_cfg, rng, "x")
        assert scene is not None and oracle.is_true(negative, scene), negative


def test_coreferent_phrases_are_one_object(parser):
    spec = parser.parse("A red circle to the left of a square and the circle above a cross.")
    slots, index = object_slots(spec)
    assert [s.shape for s in slots] == ["circle", "square", "cross"]
    assert index == [0, 1, 0, 2] and slots[0].color == "red"


def test_world_backend_is_seeded_per_prompt_and_candidate(world_cfg):
    backend = WorldTextToImage(world_cfg, 3, FailureModel(extra_object=0.5),
                               StyleShift(10, 1.2, 0.4, 2.0))
    caption = "A small red circle to the left of a blue square."
    a = backend.generate([caption], [7])[0]
    b = backend.generate(["A cross.", caption], [1, 7])[1]
    assert [np.array_equal(np.asarray(x.image), np.asarray(y.image))
            for x, y in zip(a, b, strict=True)] == [True] * 3
    assert not np.array_equal(np.asarray(a[0].image), np.asarray(a[1].image))
    assert a[0].image.size == (world_cfg.image_size, world_cfg.image_size)
    with pytest.raises(CaptionParseError):
        backend.generate(["A dog on a mat."], [0])


def test_without_failures_every_candidate_is_true_and_styled(world, world_cfg):
    _, items, _, _ = world
    backend = WorldTextToImage(world_cfg, 2, style=StyleShift(background_jitter=20))
    oracle = Oracle(world_cfg)
    for texts, seed in zip(items.texts[:40], range(40), strict=False):
        for k, gen in enumerate(backend.generate([texts[1]], [seed])[0]):
            scene = scene_from_meta(gen.meta["scene"], f"{seed}-{k}")
            assert oracle.is_true(texts[1], scene) and gen.meta["failures"] == []
    plain = render_scene(scene, world_cfg)
    assert np.asarray(plain)[0, 0].tolist() == list(world_cfg.background)


def test_failures_break_the_caption(world_cfg):
    oracle = Oracle(world_cfg)
    caption = "A red circle to the left of a blue square."
    swapped = WorldTextToImage(world_cfg, 4, FailureModel(swap_attributes=1.0))
    for gen in swapped.generate([caption], [3])[0]:
        scene = scene_from_meta(gen.meta["scene"], "s")
        assert gen.meta["failures"] == ["swap_attributes"]
        assert {(o.shape, o.color) for o in scene.objects} == {("circle", "blue"),
                                                               ("square", "red")}
        assert not oracle.is_true(caption, scene)
    dropped = WorldTextToImage(world_cfg, 1, FailureModel(drop_object=1.0))
    gen = dropped.generate([caption], [3])[0][0]
    assert len(gen.meta["scene"]["objects"]) == 1


@pytest.mark.parametrize(("block", "message"), [
    ({"swap_attributes": 1.5}, "failures.swap_attributes"),
    ({"melt": 0.1}, r"unknown key\(s\) \['melt'\]"),
])
def test_failure_model_errors_name_the_key(block, message):
    with pytest.raises(ValueError, match=message):
        FailureModel.from_dict(block)


def test_prompt_and_seed_helpers():
    assert bivlc_prompt("A dog. On a mat.") == (
        "A dog On a mat, high resolution, professional, 4k, highly detailed")
    assert prompt_seed(0, "item-1") == prompt_seed(0, "item-1") != prompt_seed(1, "item-1")
    assert 0 <= prompt_seed(5, "x") < 2**63


def test_candidates_do_not_depend_on_the_other_prompts(world_cfg, tmp_path):
    backend = WorldTextToImage(world_cfg, 2, FailureModel(0.2, 0.2, 0.2, 0.2, 0.2),
                               StyleShift(10, 1.1, 0.4, 2.0))
    caps = ["A red circle.", "A blue square above a green cross.", "A large triangle."]
    full = generate_candidates(["a", "b", "c"], caps, backend, tmp_path / "full", 0, chunk=2)
    generate_candidates(["b"], caps[1:2], backend, tmp_path / "alone", 0)
    assert list(full.image_id) == ["a-g0", "a-g1", "b-g0", "b-g1", "c-g0", "c-g1"]
    for name in ("b-g0.png", "b-g1.png"):
        assert (tmp_path / "full" / name).read_bytes() == (tmp_path / "alone" / name).read_bytes()
    assert json.loads(full.meta[0])["scene"]["objects"]
    with pytest.raises(ValueError, match="unique"):
        generate_candidates(["a", "a"], caps[:2], backend, tmp_path / "dup", 0)


# -- filters -----------------------------------------------------------------------------------

def _obj(shape, color, x, y, size="small"):
    return WorldObject(shape, color, size, x, y, 0.1)


def test_oracle_preference_is_the_tighter_fit(world_cfg, parser):
    spec = parser.parse("A red circle.")
    natural = Scene("n", "test", (_obj("circle", "red", 0.2, 0.2),))
    richer = Scene("g", "gen", (_obj("circle", "red", 0.2, 0.2), _obj("cross", "blue", 0.8, 0.2)))
    wrong = Scene("w", "gen", (_obj("circle", "blue", 0.2, 0.2),))
    assert preferred_is_first(spec, natural, richer, world_cfg.next_to_distance)
    assert not preferred_is_first(spec, richer, natural, world_cfg.next_to_distance)
    assert preferred_is_first(spec, natural, wrong, world_cfg.next_to_distance)
    assert not preferred_is_first(spec, natural, natural, world_cfg.next_to_distance)  # tie


def test_filters_on_a_hand_made_item(world_cfg, parser):
    """Item: natural = red circle; negative "A blue circle." Candidates: g0 red circle
    (invalid), g1 blue circle (valid, the tightest fit), g2 blue circle + red square (valid,
    looser fit). The positive is false of both valid ones, so neither is ambiguous."""
    items = pd.DataFrame({"item_id": ["i"], "image_ids": [["n"]],
                          "texts": [["A red circle.", "A blue circle."]], "type": ["replace"],
                          "subtype": ["att"]})
    natural = {"n": Scene("n", "test", (_obj("circle", "red", 0.2, 0.2),))}
    generated = {
        "i-g0": Scene("i-g0", "gen", (_obj("circle", "red", 0.5, 0.5),)),
        "i-g1": Scene("i-g1", "gen", (_obj("circle", "blue", 0.5, 0.5),)),
        "i-g2": Scene("i-g2", "gen", (_obj("circle", "blue", 0.2, 0.2),
                                       _obj("square", "red", 0.8, 0.2))),
    }
    cands = pd.DataFrame({"item_id": ["i"] * 3, "candidate": [0, 1, 2],
                          "image_id": ["i-g0", "i-g1", "i-g2"], "path": ["p0", "p1", "p2"]})
    oracle = OracleInputs(natural, generated, parser, world_cfg.next_to_distance)
    # model: g0 scores the negative highest but the positive higher still (not acceptable)
    e = np.eye(4, dtype=np.float32)
    image_emb = {"n": e[0], "i-g0": 0.9 * e[0] + 0.5 * e[1], "i-g1": 0.8 * e[1],
                 "i-g2": 0.6 * e[1] + 0.1 * e[0]}
    text_emb = {"A red circle.": e[0], "A blue circle.": e[1]}
    cands_out, decisions, report = filter_candidates(
        items, cands, "oracle", oracle, (image_emb, text_emb), ModelFilter())
    row = decisions.iloc[0]
    assert row.oracle_picked == "i-g1" and row.oracle_keep and not row.oracle_ambiguous
    assert row.model_picked == "i-g1" and row.model_keep
    assert cands_out.oracle_valid.tolist() == [False, True, True]
    assert cands_out.model_acceptable.tolist() == [False, True, True]
    assert report["model_vs_oracle"]["keep_precision"] == 100.0
    assert (row.picked, row.keep) == ("i-g1", True)
    # per item: what every rate of the report sums over
    assert (row.n_candidates, row.n_valid, row.type) == (3, 2, "replace")
    assert row.model_pick_ok and row.model_keep_ok
    for key, (num, den) in filter_ratios(decisions).items():
        path = key.split(".")
        expected = report[path[0]] if len(path) == 1 else report[path[0]][path[1]]
        assert 100 * num.sum() / den.sum() == pytest.approx(expected, abs=0.01), key
    inst = kept_instances(items, decisions, cands_out)
    assert inst.iloc[0].to_dict() == {
        "item_id": "i", "image_id": "n", "caption": "A red circle.",
        "negative": "A blue circle.", "negative_image_id": "i-g1", "negative_path": "p1",
        "type": "replace", "subtype": "att"}
    _, none, _ = filter_candidates(items, cands, "none")
    assert none.picked.tolist() == ["i-g0"] and none.keep.all()
    with pytest.raises(ValueError, match="needs scene graphs"):
        filter_candidates(items, cands, "oracle")


def test_model_ambiguity_margin_and_agreement_counts():
    items = pd.DataFrame({"item_id": ["a", "b"], "image_ids": [["na"], ["nb"]],
                          "texts": [["P", "N"], ["P", "N"]], "type": ["add", "add"]})
    cands = pd.DataFrame({"item_id": ["a", "b"], "candidate": [0, 0],
                          "image_id": ["a-g0", "b-g0"]})
    e = np.eye(2, dtype=np.float32)
    images = {"na": e[0], "nb": 0.5 * e[0], "a-g0": 0.4 * e[0] + e[1],
              "b-g0": 0.6 * e[0] + e[1]}
    texts = {"P": e[0], "N": e[1]}
    decisions, _ = model_decisions(items, cands, images, texts, ModelFilter())
    # a: s(P, natural)=1 > s(P, a-g0)=0.4 -> kept; b: 0.5 < 0.6 -> ambiguous
    assert decisions.model_keep.tolist() == [True, False]
    strict, _ = model_decisions(items, cands, images, texts, ModelFilter(ambiguity_margin=0.7))
    assert strict.model_keep.tolist() == [False, False]
    decisions["oracle_picked"] = ["a-g0", None]
    decisions["oracle_keep"] = [True, False]
    result = agreement(decisions, {"a-g0": True, "b-g0": False}, {"a-g0": False})
    assert result["keep_precision"] == 100.0 and result["keep_recall"] == 100.0
    assert result["pick_precision"] == 50.0 and result["pick_recall"] == 100.0



def test_filter_rates_get_bootstrap_intervals_over_items():
    from vlcomp.metrics.uncertainty import bootstrap_rng, ratio_intervals, resample_weights
    from vlcomp.report.generation import filter_table

    rng = np.random.default_rng(0)
    n = 200
    decisions = pd.DataFrame({
        "item_id": [f"i{k}" for k in range(n)], "keep": rng.random(n) < 0.7,
        "type": rng.choice(["add", "swap"], n), "n_candidates": 4,
        "n_valid": rng.integers(0, 5, n)})
    ratios = filter_ratios(decisions)
    assert set(ratios) == {"candidate_valid_rate", "kept_rate", "kept_rate_by_type.add",
                           "kept_rate_by_type.swap"}
    table = ratio_intervals(ratios, n, benchmark="f", n_resamples=300, seed=2)
    rows = table.set_index("metric")
    assert rows.loc["kept_rate", "value"] == pytest.approx(100 * decisions.keep.mean())
    assert rows.loc["kept_rate_by_type.add", "n"] == (decisions.type == "add").sum()
    # the valid rate is a ratio of sums: items are resampled with all their candidates
    w = np.concatenate(resample_weights(n, 300, bootstrap_rng("f", 2)))
    draws = 100 * (w @ decisions.n_valid) / (w @ decisions.n_candidates)
    assert rows.loc["candidate_valid_rate", "ci_low"] == pytest.approx(np.percentile(draws, 2.5))
    assert (table.ci_low < table.value).all() and (table.value < table.ci_high).all()
    bca = ratio_intervals(ratios, n, benchmark="f", n_resamples=300, seed=2, method="bca")
    assert np.isfinite(bca.ci_low).all()
    report = {"decider": "oracle", "items": n, "candidates": 4 * n,
              "candidate_valid_rate": rows.loc["candidate_valid_rate", "value"],
              "kept": int(decisions.keep.sum()), "kept_rate": rows.loc["kept_rate", "value"]}
    shown = filter_table(report, table)
    assert shown.loc["kept (%)", "ci_low"] == rows.loc["kept_rate", "ci_low"]
    assert np.isnan(shown.loc["items", "ci_low"])  # a count: nothing to resample
    with pytest.raises(ValueError, match="kept_rate"):
        ratio_intervals({"kept_rate": ratios["kept_rate"]}, n + 1, benchmark="f")


# -- BiVLC construction ----------------------------------------------------------------------

def test_format_caption_reproduces_every_released_bivlc_caption():
    """All 2,933 BiVLC caption pairs are their SugarCrepe pairs formatted (../shared data)."""
    formatted = set()
    for path in sorted((SHARED_DATA / "sugarcrepe").glob("*.json")):
        for entry in json.loads(path.read_text()).values():
            formatted.add((format_caption(entry["caption"]),
                           format_caption(entry["negative_caption"])))
    with open(SHARED_DATA / "bivlc" / "BiVLC_ViT-B-32.csv", newline="") as fh:
        rows = [(r["caption"], r["negative_caption"]) for r in csv.DictReader(fh)]
    assert len(rows) == 2933
    assert [r for r in rows if r not in formatted] == []
    assert format_caption(" a man skiing along a rail on the snowy hill ") == (
        "A man skiing along a rail on the snowy hill.")
    assert format_caption("A DJ and a TV") == "A dj and a tv."
    assert format_caption("Stop..") == "Stop.."
    with pytest.raises(ValueError, match="empty"):
        format_caption("  ")


def test_bivlc_items_and_table1_counts(world, world_cfg, tmp_path):
    _, items, edited, _ = world
    manifest = generate_negative_images(items, {s.scene_id: s for s in edited}, world_cfg,
                                        tmp_path / "neg")
    selection = rendered_selection(items, manifest)
    pairs = bivlc_items(items, selection)
    assert (pairs.protocol == "pair").all() and len(pairs) == selection.keep.sum()
    dropped = items[(items.type != "add") & ~items.positive_false_on_negative.astype(bool)]
    assert not set(dropped.item_id) & set(pairs.item_id)
    table = category_counts(items, pairs)
    assert list(table.columns) == ["REPLACE OBJ", "REPLACE ATT", "REPLACE REL", "SWAP OBJ",
                                   "SWAP ATT", "ADD OBJ", "ADD ATT", "Total"]
    assert table.loc["BiVLC-style (I2T + T2I examples)", "Total"] == 4 * len(pairs)
    assert table.loc["SugarCrepe-style (I2T examples)", "Total"] == len(items)
    assert table.loc["BiVLC (paper)", "Total"] == 11732 == 4 * 2933
    with pytest.raises(ValueError, match="lacks column"):
        bivlc_items(items, selection.drop(columns="keep"))


def test_generation_items_from_both_sources(world):
    _, items, _, _ = world
    out = generation_items(items)
    assert list(out.columns[:5]) == ["item_id", "image_ids", "type", "subtype", "texts"]
    pairs = pd.DataFrame({"key": ["c0-add_obj"], "caption_id": ["c0"], "image_id": ["i0"],
                          "text": ["a red circle"], "negative": ["A red circle and a cross."],
                          "type": ["add"], "subtype": ["obj"]})
    out = generation_items(pairs)
    assert out.texts[0] == ["A red circle.", "A red circle and a cross."]
    assert out.image_ids[0] == ["i0"] and out.caption_id[0] == "c0"
    with pytest.raises(ValueError, match="lacks column"):
        generation_items(pairs.drop(columns="negative"))


def test_world_pipeline_keeps_most_items_at_the_default_failure_rate(world, world_cfg,
                                                                    parser, tmp_path):
    scenes, items, _, _ = world
    gen_items = generation_items(items)
    backend = WorldTextToImage(world_cfg, 4, FailureModel(0.3, 0.15, 0.15, 0.1, 0.15))
    cands = generate_candidates(gen_items.item_id.tolist(), [t[1] for t in gen_items.texts],
                                backend, tmp_path, 0).rename(columns={"key": "item_id"})
    generated = {i: scene_from_meta(json.loads(m)["scene"], i)
                 for i, m in zip(cands.image_id, cands.meta, strict=True)}
    oracle = OracleInputs(scenes, generated, parser, world_cfg.next_to_distance)
    cands, decisions, report = filter_candidates(gen_items, cands, "oracle", oracle)
    assert 30 < report["candidate_valid_rate"] < 90
    assert report["kept"] == decisions.keep.sum() > 0.5 * len(items)
    assert cands.picked.sum() == report["kept"]
    check = Oracle(world_cfg)
    for row in decisions[decisions.keep].itertuples():
        item = gen_items.set_index("item_id").loc[row.item_id]
        assert check.is_true(item.texts[1], generated[row.picked])
    assert Path(cands.path[0]).is_file()


def test_filter_and_detector_tables():
    from vlcomp.report.generation import RANDOM_ROW, detector_table, filter_table

    report = {"decider": "oracle", "items": 10, "candidates": 40, "candidate_valid_rate": 60.0,
              "kept": 7, "kept_rate": 70.0, "kept_rate_by_type": {"add": 40.0, "swap": 90.0},
              "model_vs_oracle": {"oracle_keep": 7, "model_keep": 6, "pick_precision": 80.0,
                                  "pick_recall": 75.0, "keep_precision": 66.67,
                                  "keep_recall": 57.14}}
    table = filter_table(report)
    assert table.loc["kept ADD (%)", "value"] == 40.0
    assert table.loc["model kept-instance recall (%)", "value"] == 57.14
    assert "oracle keeps" not in filter_table({**report, "model_vs_oracle": None}).index
    record = {"encoder": "m_s0", "text_detection": 55.0, "image_detection": 99.0, "I2T": 60.0,
              "T2I": 20.0, "Group": 19.0, "SugarCrepe": 70.0}
    t4 = detector_table([record], {"m_s0": "CLIP-TROHN-Img"})
    assert list(t4.index) == ["Random", "CLIP-TROHN-Img/Det"]
    assert t4.loc["Random"].to_dict() == RANDOM_ROW
    assert t4.loc["CLIP-TROHN-Img/Det", "Img detection acc"] == 99.0
