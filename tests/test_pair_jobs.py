"""Parts of a pair model's single job: retrieval galleries and per-benchmark prior tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.score.pair_jobs import (
    benchmark_texts,
    gallery,
    llm_prior_scores,
    prior_table,
    retrieval_galleries,
)


def test_prior_table_picks_each_benchmarks_texts_from_the_union():
    union = ["a", "b", "c"]
    null = np.log([[0.1, 0.3], [0.2, 0.2], [0.5, 0.1]])
    train = np.log([[0.4], [0.6], [0.8]])
    table = prior_table(["c", "a"], union, null, train,
                        llm={"opt_2_7b": np.array([-1.0, -2.0, -3.0]),
                             "bart_base": np.array([-4.0, -5.0, -6.0])})
    assert table.text.tolist() == ["c", "a"]
    np.testing.assert_allclose(np.exp(table.log_prior_null), [0.3, 0.2])  # mean probability
    assert np.allclose(np.stack(table.log_p_text_given_null), null[[2, 0]])
    np.testing.assert_allclose(np.exp(table.log_prior_train), [0.8, 0.4])
    assert table.log_prior_llm_opt_2_7b.tolist() == [-3.0, -1.0]
    assert table.log_prior_llm_bart_base.tolist() == [-6.0, -4.0]
    assert "log_prior_train" not in prior_table(["a"], union, null)
    with pytest.raises(KeyError, match="'z' has no prior"):
        prior_table(["z"], union, null)


def test_llm_prior_scores_follow_the_union_and_name_a_missing_text():
    tables = {"opt": pd.DataFrame({"text": ["b", "a"], "log_prior": [-2.0, -1.0]})}
    scores = llm_prior_scores(tables, ["a", "b"])
    assert scores["opt"].tolist() == [-1.0, -2.0]
    with pytest.raises(KeyError, match=r"results/text_priors/opt\.parquet: .*'c'"):
        llm_prior_scores(tables, ["a", "c"], {"opt": "results/text_priors/opt.parquet"})


def test_benchmark_texts_are_the_sorted_distinct_options():
    items = pd.DataFrame({"texts": [["b", "a"], ["a", "c"]]})
    assert benchmark_texts(items) == ["a", "b", "c"]


def images(ids):
    return pd.DataFrame({"image_id": ids, "path": [f"/x/{i}.png" for i in ids],
                         "bbox": [None] * len(ids)})


def test_gallery_caps_images_and_links_each_query_to_its_row():
    queries = pd.DataFrame({"image_id": ["2", "1", "3", "1"], "text": ["t2", "t1", "t3", "u1"]})
    g = gallery(["1", "2", "3"], queries, images(["1", "2", "3"]), cap=2)
    assert g.image_ids == ["1", "2"] and [r.path for r in g.refs] == ["/x/1.png", "/x/2.png"]
    assert g.texts == ["t2", "t1", "u1"] and g.links.tolist() == [1, 0, 0]
    with pytest.raises(ValueError, match=r"without a path.*'3'"):
        gallery(["1", "3"], queries, images(["1"]), cap=None)


def test_validation_gallery_is_built_like_the_test_gallery():
    captions = pd.DataFrame({"image_id": ["v1", "v1", "v2", "t1"], "split": ["val"] * 3 + ["test"],
                             "caption_id": ["c1", "c2", "c3", "c4"],
                             "text": ["a dog", "a brown dog on grass", "a cat", "x"]})
    queries = pd.DataFrame({"image_id": ["t1"], "text": ["x"]})
    both = retrieval_galleries(["t1"], queries, images(["t1"]), images(["v2", "v1"]), captions,
                               "finest", cap=None)
    assert both["test"].texts == ["x"]
    assert both["val"].image_ids == ["v1", "v2"]
    assert both["val"].texts == ["a brown dog on grass", "a cat"]
    every = retrieval_galleries(["t1"], queries, images(["t1"]), images(["v1", "v2"]), captions,
                                "all", cap=1)
    assert every["val"].image_ids == ["v1"] and len(every["val"].texts) == 2
