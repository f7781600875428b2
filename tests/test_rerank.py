"""Retrieval re-ranked by a pair score (ITM + ITC), as BLIP and ARO rank galleries."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.config import rerank_k_test
from vlcomp.io import write_npz
from vlcomp.metrics.rerank import (
    FLOOR,
    Candidates,
    candidate_pairs,
    candidate_scores,
    dense_reranked,
    pair_lookup,
    reranked_hits,
    select_candidates,
    top_candidates,
)
from vlcomp.metrics.retrieval import retrieval_hits, retrieval_hits_from_scores
from vlcomp.plan.estimates import stage_job
from vlcomp.score.pairs import ImageRef
from vlcomp.score.rerank_files import join_rerank_shards, reranked_arrays, reranked_metrics
from vlcomp.score.rerank_shards import score_rerank_shard


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def gallery(seed: int = 0, n_img: int = 12, per_image: int = 3, dim: int = 6):
    """Random unit embeddings of a gallery, texts near their images, and the links."""
    rng = np.random.default_rng(seed)
    images = unit(rng.normal(size=(n_img, dim)))
    links = np.repeat(np.arange(n_img), per_image)
    texts = unit(images[links] + 0.9 * rng.normal(size=(len(links), dim)))
    return images.astype(np.float32), texts.astype(np.float32), links


def itm(images: np.ndarray, texts: np.ndarray, seed: int = 1) -> np.ndarray:
    """A stand-in cross-encoder score of every pair: cosine plus a fixed random term."""
    rng = np.random.default_rng(seed)
    return images @ texts.T + rng.normal(scale=0.5, size=(len(images), len(texts)))


def rerank_with(full: np.ndarray, candidates: Candidates):
    pairs = candidate_pairs(candidates)
    return candidate_scores(candidates, pairs, full[pairs[:, 0], pairs[:, 1]])


@pytest.mark.parametrize("k", [1, 2, 5, 36])
def test_sparse_hits_equal_the_references_dense_matrices(k):
    images, texts, links = gallery()
    full = itm(images, texts)
    candidates = select_candidates(images, texts, k)
    i2t, t2i = rerank_with(full, candidates)
    dense = retrieval_hits_from_scores(*dense_reranked(candidates, i2t, t2i), links)
    sparse = reranked_hits(candidates, i2t, t2i, links)
    assert dense.keys() == sparse.keys()
    for name in dense:
        np.testing.assert_array_equal(sparse[name], dense[name], err_msg=name)


def test_candidates_below_the_floor_and_tied_scores_follow_the_strict_policy():
    images, texts, links = gallery(seed=3)
    full = np.round(itm(images, texts, seed=4), 1) - 100.0  # many ties, some under -100
    candidates = select_candidates(images, texts, 4)
    i2t, t2i = rerank_with(full, candidates)
    dense = retrieval_hits_from_scores(*dense_reranked(candidates, i2t, t2i), links)
    sparse = reranked_hits(candidates, i2t, t2i, links)
    for name in dense:
        np.testing.assert_array_equal(sparse[name], dense[name], err_msg=name)


def test_k_test_as_large_as_the_gallery_is_the_full_itm_ranking():
    images, texts, links = gallery(seed=5)
    full = itm(images, texts)
    candidates = select_candidates(images, texts, len(texts))
    hits = reranked_hits(candidates, *rerank_with(full, candidates), links)
    whole = retrieval_hits_from_scores(full, full.T, links)
    for name in whole:
        np.testing.assert_array_equal(hits[name], whole[name], err_msg=name)
    assert any(hits[n].mean() != retrieval_hits(images, texts, links)[n].mean()
               for n in hits)  # the cross-encoder does change the ranking here


def test_k_test_one_keeps_the_embedding_ranking_at_rank_one():
    images, texts, links = gallery(seed=6)
    candidates = select_candidates(images, texts, 1)
    hits = reranked_hits(candidates, *rerank_with(itm(images, texts), candidates), links)
    itc = retrieval_hits(images, texts, links)
    np.testing.assert_array_equal(hits["i2t_r1"], itc["i2t_r1"])
    np.testing.assert_array_equal(hits["t2i_r1"], itc["t2i_r1"])


def test_candidates_are_best_first_with_ties_to_the_lower_index():
    scores = np.array([[0.5, 0.9, 0.5, 0.9, 0.1]])
    np.testing.assert_array_equal(top_candidates(scores, 3), [[1, 3, 0]])
    assert top_candidates(scores, 9).shape == (1, 5)
    with pytest.raises(ValueError, match="k_test"):
        top_candidates(scores, 0)


def test_pairs_are_distinct_and_a_missing_pair_is_named():
    candidates = Candidates(np.array([[0, 1], [1, 2]]), np.array([[0, 1], [1, 0], [1, 0]]))
    pairs = candidate_pairs(candidates)
    assert pairs.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    with pytest.raises(KeyError, match=r"image 1, text 3"):
        pair_lookup(pairs, np.zeros(len(pairs)), np.array([1]), np.array([3]), 3)


def test_dense_floor_is_the_references_minus_100():
    candidates = Candidates(np.array([[1]]), np.array([[0], [0]]))
    i2t, t2i = dense_reranked(candidates, np.array([[2.0]]), np.array([[1.0], [3.0]]))
    assert i2t.tolist() == [[FLOOR, 2.0]] and t2i.tolist() == [[1.0], [3.0]]


class ColourPairScorer:
    """Scores a pair as the image's mean red level times the text's number; records pairs."""

    name, device = "colour", "cpu"

    def __init__(self) -> None:
        self.pairs = 0

    def score_pairs(self, images, texts, batch_size=64, kind="itm_plus_itc"):
        assert kind == "itm_plus_itc"
        self.pairs += len(texts)
        return np.array([np.asarray(i, dtype=np.float64)[..., 0].mean() * float(t.split()[-1])
                         for i, t in zip(images, texts, strict=True)])


def test_one_and_three_shards_give_byte_equal_files(tmp_path):
    n_img, per_image = 9, 2
    refs = []
    for k in range(n_img):
        path = tmp_path / f"img{k}.png"
        Image.new("RGB", (4, 4), (10 * k + 5, 0, 0)).save(path)
        refs.append(ImageRef(str(path), None))
    texts = [f"caption {j}" for j in range(n_img * per_image)]
    images, text_emb, links = gallery(seed=7, n_img=n_img, per_image=per_image)
    candidates = select_candidates(images, text_emb, 3)
    ids = {"image_ids": [f"img{k}" for k in range(n_img)],
           "query_ids": [f"q{j}" for j in range(len(texts))]}
    digests = []
    for count in (1, 3):
        scorer = ColourPairScorer()
        paths = []
        for index in range(count):
            shard = score_rerank_shard(scorer, refs, texts, candidates, f"{index}-of-{count}",
                                       kind="itm_plus_itc", batch_size=4, image_batch=2)
            path = tmp_path / f"shard{count}_{index}.npz"
            write_npz(shard, path)
            paths.append(str(path))
        assert scorer.pairs == len(candidate_pairs(candidates))  # each pair scored once
        values = join_rerank_shards(paths, candidates)
        out = tmp_path / f"reranked{count}.npz"
        write_npz(reranked_arrays(candidates, values, 3, ids), out)
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    # the file reads back as the gallery's metrics, and refuses another gallery
    frame = pd.DataFrame({"image_id": ids["image_ids"]})
    queries = pd.DataFrame({"query_id": ids["query_ids"], "image_id": [
        ids["image_ids"][i] for i in links]})
    record = reranked_metrics(str(out), frame, queries, links)
    assert record["k_test"] == 3 and record["ranking"] == "ITM re-ranked (top 3 by ITC)"
    with pytest.raises(ValueError, match="another gallery"):
        reranked_metrics(str(out), frame.iloc[::-1], queries, links)
    # a shard left out, or given twice, is named
    with pytest.raises(ValueError, match="in none of 2 shards"):
        join_rerank_shards(paths[:2], candidates)
    with pytest.raises(ValueError, match="earlier shard"):
        join_rerank_shards([paths[0], *paths], candidates)


def entry(**extra):
    return {"family": "hf_blip_itm", "pair_score": "itm_plus_itc", **extra}


def test_k_test_comes_from_the_model_then_the_benchmark_then_aros_128():
    config = {"retrieval": {"k_test": {"coco_retrieval": 256}}}
    assert rerank_k_test(config, "m", entry(), "coco_retrieval") == 256
    assert rerank_k_test(config, "m", entry(), "flickr30k_retrieval") == 128
    assert rerank_k_test(config, "m", entry(k_test=128), "coco_retrieval") == 128
    assert rerank_k_test(config, "m", entry(k_test={"coco_retrieval": 64}),
                         "coco_retrieval") == 64
    # FLAVA's softmax ITM (ARO ranks its retrieval by cosine), the switch, and no embeddings
    assert rerank_k_test(config, "m", entry(pair_score="itm_prob"), "coco_retrieval") is None
    assert rerank_k_test({"retrieval": {"rerank": "none"}}, "m", entry(),
                         "coco_retrieval") is None
    assert rerank_k_test(config, "m", {"family": "hf_blip2_itm", "pair_score": "itm_plus_itc"},
                         "coco_retrieval") is None


def test_the_plan_prices_the_rerank_pairs():
    config = {"retrieval": {"k_test": {"coco_retrieval": 256}},
              "benchmarks": {"coco_retrieval": {"dataset": "coco", "queries": "all"}},
              "models": {"blip": entry(model="Salesforce/blip-itm-base-coco")}}
    job = stage_job(config, "rerank", "blip", benchmark="coco_retrieval")
    assert job.items == 256 * 5_000 + 256 * 25_010
    assert job.device == "gpu" and job.shards >= 1


def test_tables_say_which_models_were_re_ranked():
    from vlcomp.report.ranking_notes import ranking_notes

    results = {"clip": {"coco_retrieval": {"ranking": "embedding cosine"}},
               "blip": {"coco_retrieval": {"ranking": "ITM re-ranked (top 128 by ITC)"},
                        "vg_relation": {"metric": "aro_relation"}}}
    assert ranking_notes(results) == [
        "Retrieval ranked by the embedding cosine, except blip (coco_retrieval: ITM re-ranked "
        "(top 128 by ITC))."]
    assert ranking_notes({"clip": results["clip"]}) == []
