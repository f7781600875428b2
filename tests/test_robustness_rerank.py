"""The robustness suite re-ranked by ITM (ARO's BLIP / X-VLM perturbed retrieval): rankings
of the sparse re-ranked matrices, shards of whole conditions, and the metrics read back."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.config import robustness_k_test
from vlcomp.io import write_npz
from vlcomp.metrics.ranking import rank_scores
from vlcomp.metrics.rerank import (
    candidate_pairs,
    candidate_scores,
    dense_reranked,
    reranked_hits,
    reranked_rankings,
    select_candidates,
)
from vlcomp.metrics.robustness import Embeddings, evaluate_gallery, gallery_links
from vlcomp.plan.estimates import robustness_rerank_conditions, stage_job
from vlcomp.score.pairs import ImageRef
from vlcomp.score.rerank_shards import score_condition_block
from vlcomp.score.robustness_rerank import (
    RerankedFile,
    RerankedGallery,
    candidate_file,
    condition_block,
    condition_sources,
    condition_weights,
    gallery_candidates,
    gather_shards,
    read_condition,
)


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("k", [1, 3, 8, 40])
def test_rankings_equal_the_dense_re_ranked_matrices(k):
    rng = np.random.default_rng(k)
    n_img, per, extra = 10, 3, 4
    links = np.repeat(np.arange(n_img), per)
    images = unit(rng.normal(size=(n_img, 5)))
    t2i_images = np.concatenate([images, unit(rng.normal(size=(extra, 5)))])
    texts = unit(images[links] + rng.normal(size=(len(links), 5)))
    found = select_candidates(images, texts, k, t2i_images)
    full_i2t = np.round(rng.normal(size=(n_img, len(links))), 1)  # ties on purpose
    full_t2i = np.round(rng.normal(size=(len(links), n_img + extra)), 1)
    i2t_s = np.take_along_axis(full_i2t, found.i2t, axis=1)
    t2i_s = np.take_along_axis(full_t2i, found.t2i, axis=1)
    i2t, t2i = reranked_rankings(found, i2t_s, t2i_s, links, n_img + extra)
    dense_i2t = np.full_like(full_i2t, -100.0)
    np.put_along_axis(dense_i2t, found.i2t, i2t_s, axis=1)
    dense_t2i = np.full_like(full_t2i, -100.0)
    np.put_along_axis(dense_t2i, found.t2i, t2i_s, axis=1)
    want_i2t = rank_scores(dense_i2t, np.arange(n_img), links)
    want_t2i = rank_scores(dense_t2i, links, np.arange(n_img + extra))
    for got, want in ((i2t, want_i2t), (t2i, want_t2i)):
        assert np.array_equal(got.items, want.items)
        assert np.array_equal(got.relevant, want.relevant)
        assert np.array_equal(got.n_relevant, want.n_relevant)
    # without extra images, the hits are the retrieval re-ranking's (`reranked_hits`)
    plain = select_candidates(images, texts, k)
    i2t_p = np.take_along_axis(full_i2t, plain.i2t, axis=1)
    t2i_p = np.take_along_axis(full_t2i[:, :n_img], plain.t2i, axis=1)
    hits = reranked_hits(plain, i2t_p, t2i_p, links)
    r_i2t, r_t2i = reranked_rankings(plain, i2t_p, t2i_p, links)
    for kk in (1, 5, 10):
        assert np.array_equal(r_i2t.relevant[:, :kk].any(1), hits[f"i2t_r{kk}"])
        assert np.array_equal(r_t2i.relevant[:, :kk].any(1), hits[f"t2i_r{kk}"])
    assert dense_reranked(plain, i2t_p, t2i_p)[0].shape == (n_img, len(links))


@pytest.mark.parametrize("count", [1, 2, 3, 5, 9, 12])
def test_condition_blocks_cover_every_condition_once_and_balance(count):
    weights = [40, 40, 8, 8, 8, 40, 8, 8, 40]
    blocks = [condition_block(weights, f"{i}-of-{count}") for i in range(count)]
    covered = [c for b in blocks for c in range(b.start, b.stop)]
    assert covered == list(range(len(weights)))  # contiguous, in order, each once
    loads = [sum(weights[b]) for b in blocks]
    assert max(loads) <= sum(weights) / min(count, len(weights)) + max(weights)
    assert condition_block([], "0-of-2") == slice(0, 0)


class HashPairScorer:
    """A pair's score: the image's mean red level times a fixed function of the text."""

    name, device = "hash", "cpu"

    def __init__(self) -> None:
        self.pairs = 0

    def score_pairs(self, images, texts, batch_size=64, kind="itm_plus_itc"):
        self.pairs += len(texts)
        return np.array([np.asarray(i, dtype=np.float64)[..., 0].mean() / 255
                         * (1 + sum(map(ord, t)) % 97 / 97)
                         for i, t in zip(images, texts, strict=True)])


def suite(tmp_path, n_img=6, per=2, seed=0):
    """A gallery with a clean and a shuffled image set, one text perturbation, the model's
    embeddings, the pictures, and a scorer's full score of every (picture, text)."""
    rng = np.random.default_rng(seed)
    ids = [f"im{k}" for k in range(n_img)]
    links = np.repeat(np.arange(n_img), per)
    queries = pd.DataFrame({"query_id": [f"q{j}" for j in range(len(links))],
                            "image_id": [ids[i] for i in links],
                            "text": [f"a thing number {j}" for j in range(len(links))]})
    perturbed = pd.DataFrame({"caption_id": queries.query_id, "perturbation": "shuffle_all_words",
                              "seed": 0, "perturbed": [f"{j} number thing a"
                                                       for j in range(len(links))],
                              "changed": True})
    paths = {}
    for imageset, shift in (("clean", 0), ("shuf", 3)):
        for k, image_id in enumerate(ids):
            path = tmp_path / f"{imageset}_{image_id}.png"
            Image.new("RGB", (4, 4), (20 * k + 10 + shift, 0, 0)).save(path)
            paths[(imageset, image_id)] = ImageRef(str(path), None)
    texts = list(queries.text) + list(perturbed.perturbed)
    t_emb = unit(rng.normal(size=(len(texts), 4)))
    model = Embeddings({s: (unit(rng.normal(size=(n_img, 4))), {i: r for r, i in enumerate(ids)})
                        for s in ("clean", "shuf")}, (t_emb, {t: r for r, t in enumerate(texts)}))
    relevance = Embeddings({s: (unit(rng.normal(size=(n_img, 4))),
                                {i: r for r, i in enumerate(ids)}) for s in ("clean", "shuf")},
                           (unit(rng.normal(size=(len(texts), 4))),
                            {t: r for r, t in enumerate(texts)}))
    return ids, queries, perturbed, paths, model, relevance


def reranked_file(tmp_path, ids, queries, perturbed, paths, model, k, shards, tag):
    """Candidates, ``shards`` shards and their gathered file; (its path, pairs scored)."""
    gallery = RerankedGallery("g", ids, queries, k, perturbed,
                              [("shuffle_rows", 0, "shuf")], "clean")
    cand = tmp_path / f"cand_{tag}.npz"
    write_npz(candidate_file([gallery_candidates(gallery, model)]), cand)
    sources = condition_sources(gallery, lambda s, image_ids: [paths[(s, i)] for i in image_ids])
    keys, weights = condition_weights(str(cand))
    assert keys == ["g.0", "g.1", "g.2"]  # clean, the text perturbation, the image shuffle
    scorer, files = HashPairScorer(), []
    for index in range(shards):
        mine = keys[condition_block(weights, f"{index}-of-{shards}")]
        arrays = score_condition_block(
            scorer, mine, lambda key: (read_condition(str(cand), key), *sources[key]),
            kind="itm_plus_itc", batch_size=3, image_batch=2, say=lambda _: None)
        files.append(str(tmp_path / f"shard_{tag}_{index}.npz"))
        write_npz(arrays, files[-1])
    out = tmp_path / f"reranked_{tag}.npz"
    write_npz(gather_shards(files, str(cand)), out)
    return str(out), scorer.pairs, str(cand), files


def test_shards_of_whole_conditions_give_byte_equal_files(tmp_path):
    ids, queries, perturbed, paths, model, _ = suite(tmp_path)
    one, pairs1, cand, _ = reranked_file(tmp_path, ids, queries, perturbed, paths, model, 3, 1,
                                         "a")
    three, pairs3, _, files = reranked_file(tmp_path, ids, queries, perturbed, paths, model, 3,
                                            3, "b")
    digest = [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in (one, three)]
    assert digest[0] == digest[1] and pairs1 == pairs3
    total = sum(len(candidate_pairs(read_condition(cand, k))) for k in ("g.0", "g.1", "g.2"))
    assert pairs1 == total
    with pytest.raises(ValueError, match="in none of 2 shards"):
        gather_shards(files[:2], cand)
    with pytest.raises(ValueError, match="scored by"):
        gather_shards([files[0], *files], cand)


def full_rankings(queries, paths, ids):
    """Each condition's rankings by the scorer's score of every pair (no candidates)."""
    scorer = HashPairScorer()
    links = gallery_links("g", ids, queries)

    def ranked(n, condition):
        pics = [np.asarray(Image.open(paths[(condition.imageset, i)].path).convert("RGB"))
                for i in ids]
        full = np.array([scorer.score_pairs([p] * len(condition.texts), condition.texts)
                         for p in pics])
        return (rank_scores(full, np.arange(len(ids)), links),
                rank_scores(full.T, links, np.arange(len(ids))))
    return ranked


def test_metrics_of_the_re_ranked_file(tmp_path):
    ids, queries, perturbed, paths, model, relevance = suite(tmp_path)
    conditions = [("shuffle_rows", 0, "shuf")]

    def evaluate(reranked=None):
        return evaluate_gallery("g", ids, queries, model, relevance, perturbed, conditions,
                                "clean", reranked=reranked)

    links = gallery_links("g", ids, queries)
    # k_test as large as the gallery: the full ranking by the pair score, every condition
    whole, *_ = reranked_file(tmp_path, ids, queries, perturbed, paths, model, 64, 1, "w")
    got = evaluate(RerankedFile(whole).rankings("g", links))
    assert got == evaluate(full_rankings(queries, paths, ids))
    itc = evaluate()
    assert [r["t2i_r1"] for r in got] != [r["t2i_r1"] for r in itc]  # the pair score ranks
    assert RerankedFile(whole).k_test("g") == 64 and RerankedFile(whole).k_test("other") is None
    # k_test 1: the embedding ranking's R@1, both directions, every condition
    top1, *_ = reranked_file(tmp_path, ids, queries, perturbed, paths, model, 1, 1, "t")
    for a, b in zip(evaluate(RerankedFile(top1).rankings("g", links)), itc, strict=True):
        assert (a["i2t_r1"], a["t2i_r1"]) == (b["i2t_r1"], b["t2i_r1"])
    # the relevance model's DCG gains stay its own: a re-ranking that changes nothing
    same = evaluate(lambda n, c: reranked_rankings(
        *_itc_as_reranked(model, ids, c, links), links))
    assert same == itc


def _itc_as_reranked(model, ids, condition, links):
    side = model.side(condition.imageset, ids, condition.texts)
    found = select_candidates(side.images, side.texts, 10 ** 6)
    sims = side.images @ side.texts.T
    pairs = candidate_pairs(found)
    values = sims[pairs[:, 0], pairs[:, 1]].astype(np.float64)
    return (found, *candidate_scores(found, pairs, values))


def test_which_galleries_are_re_ranked_and_the_plan_prices_them():
    entry = {"family": "hf_blip_itm", "pair_score": "itm_plus_itc"}
    galleries = {"coco": {"images": 5000, "dataset": "coco", "tables": ["aro"]},
                 "coco_h": {"images": 5000, "dataset": "coco", "tables": ["hendriksen"]},
                 "forced": {"images": 1000, "dataset": "flickr30k", "tables": ["hendriksen"],
                            "rerank": True}}
    config = {"benchmarks": {"robustness": {
        "galleries": galleries, "perturbed_galleries": ["coco"], "seeds": [0, 1],
        "text_perturbations": ["shuffle_all_words", "char_swap"],
        "image_perturbations": ["shuffle_rows"], "relevance_model": "clip"}},
        "models": {"blip": entry}}
    assert [robustness_k_test(config, "blip", entry, g) for g in galleries] == [128, None, 128]
    assert robustness_k_test({**config, "retrieval": {"rerank": "none"}}, "blip", entry,
                             "coco") is None
    assert robustness_k_test(config, "blip", {**entry, "k_test": 256}, "coco") == 256
    assert robustness_k_test(config, "clip", {"family": "open_clip"}, "coco") is None
    weights = robustness_rerank_conditions(config, "blip", entry)
    coco = 128 * 5000 + 128 * 25010
    # the ARO-only gallery: clean, ARO's word-order shuffle (char_swap feeds no table of it)
    # and the image shuffle, 2 seeds each
    assert weights == [coco] * (1 + 1 * 2 + 1 * 2) + [128 * 1000 + 128 * 5000]
    # a gallery's rerank list names the models it re-ranks; the others rank by embeddings
    listed = {**galleries, "coco": {**galleries["coco"], "rerank": ["blip"]}}
    config["benchmarks"]["robustness"]["galleries"] = listed
    assert robustness_k_test(config, "blip", entry, "coco") == 128
    assert robustness_k_test(config, "blip_large", entry, "coco") is None
    job = stage_job(config, "robustness_rerank", "blip", entry)
    assert job.items == sum(weights) and 1 <= job.shards <= len(weights)
    assert job.shard_hours <= job.hours
