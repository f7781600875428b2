"""Embedding cache files and score matrices."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.score.embeddings import (
    embed_image_set,
    ids_path_for,
    load_embeddings,
    load_stacked_embeddings,
    save_embeddings,
    unique_texts,
)
from vlcomp.score.matrices import score_items


class ColourScorer:
    """A fake dual encoder: images embed as their mean colour, texts by colour words."""

    name, device = "fake", "cpu"
    WORDS: ClassVar[dict] = {"red": [1, 0, 0], "green": [0, 1, 0], "blue": [0, 0, 1]}

    def __init__(self):
        self.image_calls = 0

    def embed_images(self, images, batch_size=256):
        self.image_calls += len(images)
        x = np.stack([np.asarray(i, dtype=np.float32).mean(axis=(0, 1)) for i in images])
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    def embed_texts(self, texts, batch_size=256):
        x = np.array([self.WORDS[t.split()[-1]] for t in texts], dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_embed_save_load_and_score(tmp_path):
    rows = []
    for name, rgb in [("r", (255, 0, 0)), ("b", (0, 0, 255))]:
        Image.new("RGB", (4, 4), rgb).save(tmp_path / f"{name}.png")
        rows.append({"image_id": name, "path": str(tmp_path / f"{name}.png")})
    images = pd.DataFrame(rows)
    scorer = ColourScorer()
    emb = embed_image_set(scorer, images, chunk=1)
    assert scorer.image_calls == 2 and emb.dtype == np.float32
    save_embeddings(emb, list(images.image_id), tmp_path / "e.npy", tmp_path / "e.ids.json")
    emb2, rows_of = load_embeddings(tmp_path / "e.npy", ids_path_for(tmp_path / "e.npy"))
    assert np.array_equal(emb, emb2) and rows_of == {"r": 0, "b": 1}
    save_embeddings(emb[:1], ["x"], tmp_path / "f.npy", tmp_path / "f.ids.json")
    stacked, stacked_rows = load_stacked_embeddings([tmp_path / "e.npy", tmp_path / "f.npy"])
    assert stacked.shape == (3, 3) and stacked_rows == {"r": 0, "b": 1, "x": 2}

    items = pd.DataFrame({
        "item_id": ["i2t", "pair"],
        "image_ids": [["r"], ["r", "b"]],
        "texts": [["a blue", "a red"], ["a red", "a blue"]],
    })
    texts = unique_texts(items.texts)
    assert texts == ["a blue", "a red"]
    text_emb = scorer.embed_texts(texts)
    scores = score_items(items, emb, rows_of, text_emb, {t: k for k, t in enumerate(texts)})
    assert np.allclose(scores.scores[0], [[0.0, 1.0]])
    assert np.allclose(scores.scores[1], [[1.0, 0.0], [0.0, 1.0]])  # S[image, text]


def test_missing_embeddings_are_named(tmp_path):
    items = pd.DataFrame({"item_id": ["x"], "image_ids": [["ghost"]], "texts": [["t"]]})
    with pytest.raises(KeyError, match=r"item 'x'.*ghost"):
        score_items(items, np.zeros((1, 2)), {"real": 0}, np.zeros((1, 2)), {"t": 0})
    with pytest.raises(ValueError, match="2 embeddings for 1 ids"):
        save_embeddings(np.zeros((2, 2)), ["a"], tmp_path / "a.npy", tmp_path / "a.ids.json")
    with pytest.raises(OSError, match=r"no\.png"):
        embed_image_set(ColourScorer(), pd.DataFrame({"path": [str(tmp_path / "no.png")]}))


def test_score_items_matches_a_per_item_product_on_mixed_shapes():
    rng = np.random.default_rng(0)
    image_emb = rng.normal(size=(6, 8)).astype(np.float32)
    text_emb = rng.normal(size=(9, 8)).astype(np.float32)
    items = pd.DataFrame({
        "item_id": [f"i{k}" for k in range(5)],
        "image_ids": [["a"], ["b", "c"], ["d"], ["e", "f"], ["a"]],
        "texts": [["t0", "t1"], ["t2", "t3"], ["t4", "t5", "t6", "t7", "t8"], ["t0", "t8"],
                  ["t8", "t0"]],
    })
    image_row = {k: i for i, k in enumerate("abcdef")}
    text_row = {f"t{k}": k for k in range(9)}
    got = score_items(items, image_emb, image_row, text_emb, text_row)
    assert got.item_id.tolist() == items.item_id.tolist()
    for item, scores in zip(items.itertuples(), got.scores, strict=True):
        want = (image_emb[[image_row[i] for i in item.image_ids]]
                @ text_emb[[text_row[t] for t in item.texts]].T)
        assert np.asarray(scores).shape == want.shape
        assert np.allclose(scores, want, rtol=0, atol=1e-5)
    with pytest.raises(KeyError, match=r"item 'x'.*text 'nope'"):
        score_items(pd.DataFrame({"item_id": ["x"], "image_ids": [["a"]], "texts": [["nope"]]}),
                    image_emb, image_row, text_emb, text_row)
