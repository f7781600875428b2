"""Score matrices from a pair scorer (cross-encoders, generative scorers)."""

from __future__ import annotations

import logging
import runpy
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import vlcomp.score.pair_plan as plan_module
from vlcomp.items import make_items
from vlcomp.metrics.compute import compute_metrics
from vlcomp.score.embeddings import embed_image_set, embed_texts, unique_texts
from vlcomp.score.matrices import score_items
from vlcomp.score.pair_plan import PairPlan, picture_chunks, score_items_pairwise, score_plan
from vlcomp.score.pairs import (
    ImageRef,
    PairScorer,
    image_index,
    pair_method,
)

SCRIPTS = Path(__file__).resolve().parents[1] / "workflow/scripts"
WORDS = {"red": [1, 0, 0], "green": [0, 2, 0], "blue": [0, 0, 3], "grey": [1, 1, 1]}


def image_vector(image: Image.Image) -> np.ndarray:
    """Mean colour / 51: integers for the colours used here, so dot products are exact."""
    return np.asarray(image, dtype=np.float64).mean(axis=(0, 1)) / 51


def text_vector(text: str) -> np.ndarray:
    return np.array(WORDS[text.split()[-1]], dtype=np.float64)


class FakeDualEncoder:
    name, device = "dual", "cpu"

    def embed_images(self, images, batch_size=256):
        return np.stack([image_vector(i) for i in images]).astype(np.float32)

    def embed_texts(self, texts, batch_size=256):
        return np.stack([text_vector(t) for t in texts]).astype(np.float32)


class FakePairScorer:
    """Scores a pair as the dot product of FakeDualEncoder's embeddings; records each call."""

    name, device = "pairs", "cpu"

    def __init__(self):
        self.calls: list[list[tuple]] = []  # (image size, image vector, text) per pair
        self.batch_sizes: list[int] = []

    def score_pairs(self, images, texts, batch_size=64):
        assert len(images) == len(texts)
        self.calls.append([(i.size, tuple(image_vector(i)), t)
                           for i, t in zip(images, texts, strict=True)])
        self.batch_sizes.append(batch_size)
        return np.array([image_vector(i) @ text_vector(t) for i, t in zip(images, texts,
                                                                          strict=True)])


class LogLikelihoodScorer:
    """A generative scorer's method name (BlipCaptionScorer.log_likelihood)."""

    def log_likelihood(self, images, texts, batch_size=32, scale=1.0):
        return scale * np.array([image_vector(i) @ text_vector(t) for i, t in zip(
            images, texts, strict=True)])


@pytest.fixture
def imagesets(tmp_path) -> list[pd.DataFrame]:
    """Two image sets read back from Parquet: plain colours; a red|blue image and its crops."""
    rows = []
    for name, rgb in {"r": (255, 0, 0), "g": (0, 255, 0), "b": (0, 0, 255)}.items():
        Image.new("RGB", (4, 4), rgb).save(tmp_path / f"{name}.png")
        rows.append({"image_id": name, "path": str(tmp_path / f"{name}.png"), "bbox": None})
    split = Image.new("RGB", (8, 4), (255, 0, 0))
    split.paste((0, 0, 255), (4, 0, 8, 4))  # left half red, right half blue
    split.save(tmp_path / "split.png")
    crops = pd.DataFrame({
        "image_id": ["split", "split_left", "split_right"],
        "path": [str(tmp_path / "split.png")] * 3,
        "bbox": [None, [0.0, 0.0, 3.0, 4.0], [5.0, 0.0, 3.0, 4.0]],  # 3×4 crops
    })
    pd.DataFrame(rows).to_parquet(tmp_path / "plain.parquet", index=False)
    crops.to_parquet(tmp_path / "crops.parquet", index=False)
    return [pd.read_parquet(tmp_path / f"{name}.parquet") for name in ("plain", "crops")]


def mixed_items() -> pd.DataFrame:
    """i2t, t2i and pair items that share (image, text) cells."""
    return pd.DataFrame({
        "item_id": ["a", "b", "c", "d", "e"],
        "image_ids": [["r"], ["r"], ["r", "b"], ["split_left", "split_right", "g"], ["split"]],
        "texts": [["a red", "a blue"], ["a blue", "a red", "a grey"], ["a red", "a blue"],
                  ["a red"], ["a red", "a blue", "a green"]],
    })


def dual_encoder_scores(items, tables) -> pd.DataFrame:
    dual = FakeDualEncoder()
    images = pd.concat(tables, ignore_index=True)
    image_emb = embed_image_set(dual, images)
    texts = unique_texts(items.texts)
    return score_items(items, image_emb, {k: i for i, k in enumerate(images.image_id)},
                       embed_texts(dual, texts), {t: k for k, t in enumerate(texts)})


def test_same_frame_as_score_items(imagesets):
    items = mixed_items()
    expected = dual_encoder_scores(items, imagesets)
    got = score_items_pairwise(items, image_index(imagesets), FakePairScorer(), chunk=3)
    pd.testing.assert_frame_equal(got, expected)
    assert isinstance(got.scores[0][0][0], float)
    assert np.array_equal(got.scores[2], [[5.0, 0.0], [0.0, 15.0]])  # S[image, text]
    assert isinstance(FakePairScorer(), PairScorer)


def test_each_distinct_pair_scored_once_and_images_opened_per_chunk(imagesets, monkeypatch):
    opened = Counter()
    real_open = plan_module.open_image

    def counting_open(path, box=None):
        opened[path, box] += 1
        return real_open(path, box)

    monkeypatch.setattr(plan_module, "open_image", counting_open)
    items, index = mixed_items(), image_index(imagesets)
    scorer = FakePairScorer()
    score_items_pairwise(items, index, scorer, batch_size=7, chunk=100)
    scored = [p for call in scorer.calls for p in call]
    n_cells = sum(len(i) * len(t) for i, t in zip(items.image_ids, items.texts, strict=True))
    plan = PairPlan()
    plan.add_items(items, index)
    assert len(scored) == plan.n_pairs == 11 < n_cells == 15
    assert len(set(scored)) == len(scored) and len(scorer.calls) == 1
    assert scorer.batch_sizes == [7]
    assert sum(opened.values()) == len(opened) == 6  # each (file, crop) opened once

    opened.clear()
    scorer = FakePairScorer()
    score_items_pairwise(items, index, scorer, chunk=2)
    assert sum(len(c) for c in scorer.calls) == plan.n_pairs
    assert 1 < len(scorer.calls) <= 6
    # chunks end at picture boundaries: each picture is opened (and encoded) in one call only
    assert sum(opened.values()) == len(opened) == 6


def test_picture_chunks_never_split_a_picture():
    counts = np.array([3, 1, 2, 0])
    assert picture_chunks([0, 1, 2], counts, 2, 32) == [[0], [1, 2]]
    assert picture_chunks([0, 1, 2], counts, 100, 32) == [[0, 1, 2]]
    assert picture_chunks([0, 1, 2, 3], counts, 100, 2) == [[0, 1], [2, 3]]
    assert picture_chunks([], counts, 4, 4) == []


def test_plan_joins_benchmarks_by_content(imagesets, tmp_path):
    """Two benchmarks naming the same picture (one through a byte-equal copy) share it: one
    picture, the union of their texts, each pair scored once."""
    index = image_index(imagesets)
    copy = tmp_path / "copy_of_r.png"
    copy.write_bytes(Path(index["r"].path).read_bytes())
    index = {**index, "r_copy": ImageRef(str(copy), None)}
    first = pd.DataFrame({"item_id": ["a"], "image_ids": [["r"]], "texts": [["a red", "a blue"]]})
    second = pd.DataFrame({"item_id": ["b"], "image_ids": [["r_copy"]],
                           "texts": [["a blue", "a grey"]]})
    plan = PairPlan()
    plan.add_items(first, index)
    plan.add_items(second, index)
    assert len(plan.refs) == 1 and plan.n_pairs == 3
    scorer = FakePairScorer()
    scored = score_plan(scorer, plan)
    assert len(scorer.calls) == 1 and len(scorer.calls[0]) == 3
    assert scored.item_scores(second, index).scores[0] == [[0.0, 5.0]]
    assert scored.matrix([index["r"]], ["a red", "a grey"]).tolist() == [[5.0, 5.0]]
    with pytest.raises(KeyError, match="'a green' was not scored"):
        scored.scores(0, ["a green"])


def test_bbox_crops_are_applied(imagesets):
    index = image_index(imagesets)
    assert index["split_left"] == ImageRef(index["split"].path, (0.0, 0.0, 3.0, 4.0))
    items = pd.DataFrame({"item_id": ["x"], "image_ids": [["split", "split_left", "split_right"]],
                          "texts": [["a red", "a blue"]]})
    got = score_items_pairwise(items, index, FakePairScorer())
    # whole image: mean (2.5, 0, 2.5); left crop pure red (5, 0, 0); right pure blue (0, 0, 5)
    assert got.scores[0] == [[2.5, 7.5], [5.0, 0.0], [0.0, 15.0]]


def test_errors_name_the_culprit(imagesets):
    index = image_index(imagesets)
    items = pd.DataFrame({"item_id": ["ok", "x"], "image_ids": [["r"], ["r", "ghost"]],
                          "texts": [["a red"], ["a red"]]})
    with pytest.raises(KeyError, match=r"item 'x'.*'ghost'"):
        score_items_pairwise(items, index, FakePairScorer())
    clash = imagesets[0].assign(path=imagesets[0].path.str.replace("r.png", "g.png"))
    with pytest.raises(ValueError, match="'r' is listed twice"):
        image_index([imagesets[0], clash])
    assert len(image_index([imagesets[0], imagesets[0]])) == 3  # same rows twice are fine
    with pytest.raises(TypeError, match="scores no pairs"):
        pair_method(FakeDualEncoder())

    class Short(FakePairScorer):
        def score_pairs(self, images, texts, batch_size=64):
            return np.zeros(len(texts) - 1)

    with pytest.raises(ValueError, match="shape"):
        score_items_pairwise(items.iloc[:1], index, Short())


def test_log_likelihood_method_and_options(imagesets):
    items = mixed_items()
    expected = dual_encoder_scores(items, imagesets)
    got = score_items_pairwise(items, image_index(imagesets), LogLikelihoodScorer(),
                               options={"scale": 2.0})
    assert all(np.array_equal(np.asarray(g), 2 * np.asarray(e))
               for g, e in zip(got.scores, expected.scores, strict=True))


def choice_items() -> pd.DataFrame:
    return make_items([
        {"item_id": f"s{k}", "subset": subset, "image_ids": [image], "texts": texts,
         "protocol": "i2t", "label": 1, "tie_policy": "strict"}
        for k, (subset, image, texts) in enumerate([
            ("add_obj", "r", ["a blue", "a red"]),
            ("add_obj", "split_left", ["a green", "a red"]),
            ("replace_att", "b", ["a blue", "a grey"]),  # wrong: blue 15 > grey 5
            ("replace_att", "split", ["a red", "a grey"]),  # right: grey 5 > red 2.5
        ])
    ])


def test_metrics_match(imagesets):
    items = choice_items()
    pairwise = score_items_pairwise(items, image_index(imagesets), FakePairScorer())
    expected = compute_metrics("sugarcrepe", items, dual_encoder_scores(items, imagesets),
                               benchmark="sc")
    result = compute_metrics("sugarcrepe", items, pairwise, benchmark="sc")
    assert result == expected
    assert result["subsets"]["add_obj"]["accuracy"] == 100.0
    assert result["subsets"]["replace_att"]["accuracy"] == 50.0


def run_script(name: str, snakemake: SimpleNamespace) -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        runpy.run_path(str(SCRIPTS / name), init_globals={"snakemake": snakemake})
    finally:
        for h in root.handlers:
            if h not in handlers:
                h.close()
        root.handlers[:], root.level = handlers, level


def test_scripts(imagesets, tmp_path, monkeypatch):
    """The pair model's job and the metrics job end to end, with the fake scorer registered
    as a family: two benchmarks sharing pictures, each pair scored once over both."""
    import torch

    from vlcomp.models import registry

    scorer = FakePairScorer()
    monkeypatch.setitem(registry.FAMILIES, "fake_pairs", lambda name, entry, device: scorer)
    items = choice_items()
    items.to_parquet(tmp_path / "bench.parquet", index=False)
    items.iloc[:2].to_parquet(tmp_path / "other.parquet", index=False)
    out = tmp_path / "out"
    run_script("score_pair_model.py", SimpleNamespace(
        input=SimpleNamespace(benchmarks=[str(tmp_path / "bench.parquet"),
                                          str(tmp_path / "other.parquet")],
                              imagesets=[str(tmp_path / "plain.parquet"),
                                         str(tmp_path / "crops.parquet")], model=[]),
        params=SimpleNamespace(entry={"family": "fake_pairs"}, choice=["sc", "other"],
                               batch_size=4, image_batch=8, device="cpu", autocast="none",
                               threads=torch.get_num_threads()),
        output=SimpleNamespace(scores=[str(out / "s.parquet"), str(out / "o.parquet")]),
        log=[str(out / "pairs.log")],
        wildcards=SimpleNamespace(model="fake"),
    ))
    assert sum(len(c) for c in scorer.calls) == 8  # the second benchmark adds no pair
    assert "8 distinct pairs" in (out / "pairs.log").read_text()
    scores = pd.read_parquet(out / "s.parquet")
    assert [np.stack(s).tolist() for s in scores.scores] == [
        [[0.0, 5.0]], [[0.0, 5.0]], [[15.0, 5.0]], [[2.5, 5.0]]]
    assert pd.read_parquet(out / "o.parquet").item_id.tolist() == ["s0", "s1"]
    def metrics_job(benchmarks: list[str], scores: list[str], name: str) -> SimpleNamespace:
        return SimpleNamespace(
            input=SimpleNamespace(benchmarks=[str(tmp_path / f"{b}.parquet") for b in benchmarks],
                                  scores=[str(out / s) for s in scores]),
            params=SimpleNamespace(benchmarks=benchmarks, kinds=["sugarcrepe"] * len(benchmarks),
                                   options=[{}] * len(benchmarks)),
            output=SimpleNamespace(json=[str(out / f"{name}_{b}.json") for b in benchmarks],
                                   csv=[str(out / f"{name}_{b}.csv") for b in benchmarks]),
            log=[str(out / f"{name}.log")],
            wildcards=SimpleNamespace(model="fake"),
        )

    # one job writes every benchmark's metrics of the model
    run_script("pair_metrics.py", metrics_job(["bench", "other"], ["s.parquet", "o.parquet"], "m"))
    assert '"model": "fake"' in (out / "m_bench.json").read_text()
    assert "replace_att" in (out / "m_bench.csv").read_text()
    assert '"benchmark": "other"' in (out / "m_other.json").read_text()
    assert "other: 2 items" in (out / "m.log").read_text()
    with pytest.raises(ValueError, match=r"o\.parquet: items differ"):  # another's scores
        run_script("pair_metrics.py", metrics_job(["bench", "bench"], ["s.parquet", "o.parquet"],
                                                  "m2"))
