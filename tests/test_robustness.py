"""Robustness conditions (clean / perturbed texts / shuffled images) and their tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.benchmarks.bison import altered_items
from vlcomp.metrics.compute import compute_metrics
from vlcomp.metrics.robustness import Embeddings, evaluate_gallery
from vlcomp.report.robustness import aro_table3, aro_table4, granularity_table, hendriksen_table
from vlcomp.report.tables import bison_fig9_table

IMAGES = ["a", "b", "c"]
QUERIES = pd.DataFrame({
    "query_id": ["a0", "a1", "b0", "c0"], "image_id": ["a", "a", "b", "c"],
    "text": ["red", "red circle", "blue", "green"],
})
VECTORS = {"red": [1, 0, 0], "red circle": [0.9, 0.1, 0], "blue": [0, 1, 0],
           "green": [0, 0, 1], "xx": [0, 1, 0]}


def _embeddings(shuffled_rows: np.ndarray) -> Embeddings:
    eye = np.eye(3, dtype=np.float32)
    texts = sorted(VECTORS)
    t = np.array([VECTORS[k] for k in texts], dtype=np.float32)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    ids = {i: k for k, i in enumerate(IMAGES)}
    return Embeddings({"clean": (eye, ids), "shuffled": (eye[shuffled_rows], ids)},
                      (t, {k: i for i, k in enumerate(texts)}))


def test_evaluate_gallery_clean_text_and_image_conditions():
    model = _embeddings(np.array([1, 0, 2]))  # the shuffle swaps a's and b's features
    perturbed = pd.DataFrame({
        "caption_id": ["a0", "a1", "b0", "c0"], "perturbation": "typo", "seed": 0,
        "perturbed": ["xx", "red circle", "blue", "green"],
        "changed": [True, False, False, False],
    })
    records = evaluate_gallery("g", IMAGES, QUERIES, model, model, perturbed=perturbed,
                               image_conditions=[("shuffle", 0, "shuffled")],
                               clean_imageset="clean")
    clean, text, image = records
    assert [r["kind"] for r in records] == ["clean", "text", "image"]
    assert clean["t2i_r1"] == 100.0 and clean["i2t_r1"] == 100.0
    # Hendriksen's i2t recall divides by min(5, len(top 5)) = 4 here (a gallery of 4 texts)
    assert clean["i2t_true_r1"] == 100.0
    assert clean["i2t_true_r5"] == pytest.approx(100 / 3, abs=1e-3)
    assert clean["t2i_unchanged"] == 100.0 and clean["t2i_dcg10"] > 1.0
    # "red" became "xx" (= blue): query a0 now finds b first
    assert text["t2i_r1"] == 75.0 and text["changed_pct"] == 25.0
    assert text["t2i_decreased"] == 25.0 and text["t2i_unchanged"] == 75.0
    # swapped image features: a's and b's queries now miss at rank 1
    assert image["t2i_r1"] == 25.0 and image["seed"] == 0
    with pytest.raises(ValueError, match="no perturbed text"):
        evaluate_gallery("g", IMAGES, QUERIES, model, model, perturbed=perturbed.iloc[:3],
                         clean_imageset="clean")


def _record(model_shift: float) -> dict:
    conditions = []
    for gallery in ("coco", "coco_fine"):
        conditions.append({"gallery": gallery, "kind": "clean", "perturbation": "none",
                           "seed": -1, "changed_pct": 0.0, **_metrics(50 + model_shift)})
    for seed in (0, 1):
        conditions.append({"gallery": "coco", "kind": "text", "perturbation": "shuffle_all_words",
                           "seed": seed, "changed_pct": 99.0, **_metrics(40 + seed)})
        conditions.append({"gallery": "coco", "kind": "image", "perturbation": "shuffle_rows",
                           "seed": seed, "changed_pct": 100.0, **_metrics(30.0)})
    return {"benchmark": "robustness", "conditions": conditions}


def _metrics(r1: float) -> dict:
    keys = ["i2t_r1", "i2t_r5", "i2t_r10", "t2i_r1", "t2i_r5", "t2i_r10", "i2t_true_r1",
            "i2t_true_r5", "i2t_true_r10", "t2i_dcg10", "t2i_decreased", "t2i_increased",
            "t2i_unchanged"]
    return dict.fromkeys(keys, r1)


def test_robustness_tables_average_seeds_and_group_models():
    results = {"m_s0": {"robustness": _record(0)}, "m_s1": {"robustness": _record(2)},
               "other": {"robustness": _record(10)}}
    groups = {"M": ["m_s0", "m_s1"]}
    t3 = aro_table3(results, groups)
    assert list(t3.index) == [("COCO-like", "No Shuffling / M"),
                              ("COCO-like", "No Shuffling / other"),
                              ("COCO-like", "Shuffle all words / M"),
                              ("COCO-like", "Shuffle all words / other")]
    assert t3.loc[("COCO-like", "No Shuffling / M"), "Text R@1"] == 51.0
    assert t3.loc[("COCO-like", "No Shuffling / M"), "Text R@1 std"] == pytest.approx(2 ** 0.5)
    # one model, two perturbation seeds: the spread over those seeds
    assert t3.loc[("COCO-like", "Shuffle all words / other"), "Text R@1"] == 40.5
    assert t3.loc[("COCO-like", "Shuffle all words / other"), "Text R@1 std"] == pytest.approx(
        0.5 ** 0.5)
    t4 = aro_table4(results, groups)
    assert ("COCO-like", "Shuffle Rows (4) / M") in t4.index
    h = hendriksen_table(results, groups)
    drop = h.loc[("COCO-like", "shuffle_all_words / other"), "R@1 drop %"]
    assert drop == pytest.approx(100 * (60 - 40.5) / 60)
    g = granularity_table(results, None)
    assert ("Unperturbed", "COCO-like fine-grained / m_s1") in g.index


def test_bison_alterations_flip_predictions():
    items = pd.DataFrame({
        "item_id": ["i0", "i1"], "subset": "bison", "image_ids": [["x", "y"], ["y", "x"]],
        "texts": [["a circle"], ["a cross"]], "protocol": "t2i", "label": [0, 1],
        "tie_policy": "strict",
    })
    altered = pd.DataFrame({"caption_id": ["i0", "i1"], "perturbation": "reverse", "seed": 0,
                            "perturbed": ["circle a", "cross a"], "changed": True})
    bench = altered_items(items, altered)
    assert list(bench.subset) == ["original", "original", "reverse", "reverse"]
    assert list(bench.base_item_id) == ["i0", "i1", "i0", "i1"]
    scores = pd.DataFrame({"item_id": bench.item_id, "scores": [
        [[0.9], [0.1]], [[0.2], [0.8]],   # originals: both right
        [[0.1], [0.9]], [[0.3], [0.7]],   # i0 flips to the wrong image, i1 keeps
    ]})
    m = compute_metrics("bison_altered", bench, scores)
    assert m["overall"]["accuracy"] == 100.0
    assert m["subsets"]["reverse"]["changed_prediction"] == 50.0
    assert m["subsets"]["reverse"]["accuracy"] == 50.0
    sorted_keys = m | {"subsets": dict(sorted(m["subsets"].items()))}  # as JSON files hold it
    table = bison_fig9_table({"clip": {"bison_altered": sorted_keys}})
    assert table.loc["clip", "Reversal changed %"] == 50.0
    assert list(table.columns)[:2] == ["Accuracy", "Reversal changed %"]
    with pytest.raises(ValueError, match="unknown BISON items"):
        altered_items(items, altered.assign(caption_id=["i0", "zz"]))


def test_fg_note_names_the_fine_galleries_and_the_kept_captions():
    from vlcomp.report.robustness import fg_notes

    galleries = {"coco": {"dataset": "coco"}, "coco_fine": {"dataset": "cocofg"}}
    datasets = {"coco": {"source": "karpathy"}, "cocofg": {"source": "karpathy", "fg": True}}
    (note,) = fg_notes("granularity", galleries, datasets)
    assert "COCO-like fine-grained" in note and "past the fifth" in note
    assert fg_notes("aro_table3", galleries, datasets) == []
    assert fg_notes("granularity", {"coco": {"dataset": "coco"}}, datasets) == []


def test_a_gallery_is_perturbed_only_as_its_tables_read():
    """ARO Tables 3-4 read its five word-order shuffles; Hendriksen's and the granularity
    tables every configured perturbation: an ARO-only gallery skips the typos, synonyms and
    distractions (and their texts), a query shared with a Hendriksen gallery keeps them."""
    from vlcomp.config import ARO_WORD_ORDER, gallery_text_perturbations
    from vlcomp.metrics.robustness import CLEAN
    from vlcomp.report.robustness import ARO_TEXT_STRATEGIES
    from vlcomp.text.perturbations import queries_by_perturbations

    assert set(ARO_WORD_ORDER) == set(ARO_TEXT_STRATEGIES) - {CLEAN}
    listed = ["char_swap", "shuffle_all_words", "synonym_noun", "shuffle_trigrams"]
    config = {"benchmarks": {"robustness": {
        "galleries": {"aro": {"images": 4, "tables": ["aro"]}, "hend": {"images": 4,
                      "tables": ["hendriksen"]}, "all": {"images": 4}, "clean": {"images": 4}},
        "perturbed_galleries": ["aro", "hend", "all"], "text_perturbations": listed}}}
    lists = {g: gallery_text_perturbations(config, g) for g in ("aro", "hend", "all", "clean")}
    assert lists == {"aro": ["shuffle_all_words", "shuffle_trigrams"], "hend": listed,
                     "all": listed, "clean": []}
    frames = [pd.DataFrame({"query_id": ["a1", "s1"], "text": ["x", "y"], "gallery": "aro"}),
              pd.DataFrame({"query_id": ["s1", "h1"], "text": ["y", "z"], "gallery": "hend"})]
    queries, groups = queries_by_perturbations(frames, lists, listed)
    assert queries.query_id.tolist() == ["a1", "s1", "h1"] and "gallery" not in queries
    assert groups == {("shuffle_all_words", "shuffle_trigrams"): ["a1"],
                      tuple(listed): ["s1", "h1"]}
    frames[1].loc[0, "text"] = "another"
    with pytest.raises(ValueError, match="query 's1' has different texts"):
        queries_by_perturbations(frames, lists, listed)
