"""BISON-style pairs: averaged word vectors, nearest images, oracle-verified captions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from vlcomp.benchmarks.bison import bison_items, similar_images
from vlcomp.data.world import read_scenes
from vlcomp.metrics.compute import compute_metrics
from vlcomp.models.world_clip import build_world_clip, world_tokenizer
from vlcomp.text.word_vectors import (
    clip_token_embedder,
    image_text_vectors,
    stable_hash,
    train_word2vec,
    words,
)
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle


@pytest.fixture(scope="module")
def world(world_dir):
    d = world_dir
    scenes = {k: s for k, s in read_scenes(d / "scenes.jsonl").items() if s.split == "test"}
    captions = pd.read_parquet(d / "captions.parquet")
    return scenes, captions


def _vectors(captions: pd.DataFrame, split: str, seed: int = 0):
    wv = train_word2vec(captions[captions.split == "train"].text, dim=16, epochs=5, seed=seed)
    test = captions[captions.split == split]
    groups = {k: list(g.text) for k, g in test.groupby("image_id", sort=True)}
    ids = sorted(groups)
    return ids, image_text_vectors(ids, [groups[i] for i in ids], wv.embed)


def test_words_and_stable_hash():
    assert words("A small Red circle, above a cross.") == [
        "a", "small", "red", "circle", "above", "a", "cross"]
    assert stable_hash("circle") == stable_hash("circle") != stable_hash("cross")
    assert 0 <= stable_hash("x") < 2**63


def test_word2vec_is_deterministic_and_separates_words(world):
    _, captions = world
    texts = captions[captions.split == "train"].text
    a = train_word2vec(texts, dim=16, epochs=5, seed=0)
    b = train_word2vec(texts, dim=16, epochs=5, seed=0)
    c = train_word2vec(texts, dim=16, epochs=5, seed=1)
    assert a.vocab == b.vocab and np.array_equal(a.vectors, b.vectors)
    assert not np.array_equal(a.vectors, c.vectors)
    assert {"circle", "red", "above"} <= set(a.vocab)
    got = a.embed(["red circle", "zzz"])
    np.testing.assert_allclose(
        got[0], (a.vectors[a.vocab["red"]] + a.vectors[a.vocab["circle"]]) / 2, rtol=1e-6)
    assert not got[1].any()


def test_clip_token_embedder_averages_bpe_rows():
    cfg = {"embed_dim": 8, "vision": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 8,
                                      "head_width": 8},
           "text": {"context_length": 16, "vocab_size": 49408, "width": 16, "heads": 2,
                    "layers": 1}}
    torch.manual_seed(0)
    model, tok = build_world_clip(cfg), world_tokenizer(cfg)
    embed = clip_token_embedder(model, tok)
    ids = tok(["red circle"])[0]
    inner = ids[1 : int((ids != 0).sum()) - 1]
    want = model.token_embedding.weight[inner].mean(0).detach().numpy()
    np.testing.assert_allclose(embed(["red circle"])[0], want, rtol=1e-6)


def test_image_vectors_average_their_captions():
    def embed(texts):
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
    got = image_text_vectors(["a", "b"], [["xx", "xxxx"], ["x"]], embed)
    np.testing.assert_allclose(got, [[3, 1], [1, 1]])
    with pytest.raises(ValueError, match="2 images but 1"):
        image_text_vectors(["a", "b"], [["x"]], embed)


def test_bison_items_pick_a_caption_false_of_the_neighbour(world, world_cfg):
    scenes, captions = world
    ids, vectors = _vectors(captions, "test")
    neighbours = similar_images(ids, vectors, k=3)
    assert all(i not in n and len(n) == 3 for i, n in neighbours.items())
    test = captions[captions.split == "test"]
    oracle = Oracle(world_cfg)
    items = bison_items(scenes, test, neighbours, oracle, seed=0)
    assert len(items) >= 0.9 * len(ids)
    by_id = test.set_index("caption_id")
    for row in items.itertuples():
        true_id = row.true_image_id
        other = next(i for i in row.image_ids if i != true_id)
        assert row.image_ids[row.label] == true_id and other in neighbours[true_id]
        assert neighbours[true_id][row.neighbour_rank] == other
        spec = CaptionSpec.from_json(by_id.loc[row.caption_id].spec)
        assert by_id.loc[row.caption_id].image_id == true_id
        assert oracle.is_true(spec, scenes[true_id]) and not oracle.is_true(spec, scenes[other])
    # candidate order is balanced, and the build is deterministic
    assert 0.35 < items.label.mean() < 0.65
    pd.testing.assert_frame_equal(items, bison_items(scenes, test, neighbours, oracle, seed=0))


def test_bison_metrics_per_template(world, world_cfg):
    scenes, captions = world
    ids, vectors = _vectors(captions, "test")
    items = bison_items(scenes, captions[captions.split == "test"],
                        similar_images(ids, vectors, k=3), Oracle(world_cfg), seed=0)
    # an oracle scorer: 1 for the true image, 0 for the other
    scores = pd.DataFrame({
        "item_id": items.item_id,
        "scores": [[[float(i == r.label)] for i in range(2)] for r in items.itertuples()],
    })
    m = compute_metrics("bison", items, scores, benchmark="bison")
    assert m["overall"]["accuracy"] == 100.0 and m["n_items"] == len(items)
    assert sum(e["n"] for e in m["subsets"].values()) == len(items)
    first = scores.assign(scores=[[[1.0], [0.0]]] * len(items))
    m0 = compute_metrics("bison", items, first)
    assert m0["overall"]["accuracy"] == pytest.approx(100 * (items.label == 0).mean(), abs=1e-3)
