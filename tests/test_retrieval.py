"""Retrieval benchmark queries and recall@K."""

import numpy as np
import pandas as pd
import pytest

from vlcomp.benchmarks.retrieval import finest_caption_queries
from vlcomp.metrics.retrieval import retrieval_metrics


def test_recall_hand_computed():
    img = np.eye(3, dtype=np.float32)
    # text 0 -> image 0 (exact), text 1 -> image 1 but closer to image 2, text 2 -> image 2
    txt = np.array([[1, 0, 0], [0, 0.6, 0.8], [0, 0, 1]], dtype=np.float32)
    out = retrieval_metrics(img, txt, [0, 1, 2], ks=(1, 2))
    o = out["overall"]
    # i2t: image0 -> text0 ok; image1 -> text1 (0.6) is its best: ok; image2 -> text2 (1.0) ok
    assert o["i2t_r1"] == pytest.approx(100.0)
    # t2i: text1 ranks image2 (0.8) above image1 (0.6): miss at 1, hit at 2
    assert o["t2i_r1"] == pytest.approx(200 / 3, abs=1e-3) and o["t2i_r2"] == 100.0
    assert out["n_images"] == 3 and out["tie_policy"] == "strict"


def test_ties_count_against_and_any_matching_text_counts():
    img = np.array([[1.0, 0.0], [1.0, 0.0]], dtype=np.float32)  # identical images: tie
    txt = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    o = retrieval_metrics(img, txt, [0, 1, 1], ks=(1,))["overall"]
    assert o["t2i_r1"] == 0.0  # every text ties between the two images
    # image 0: text 0 ties with text 2 (wrong): miss; image 1: text 2 ties with text 0: miss
    assert o["i2t_r1"] == 0.0
    with pytest.raises(ValueError, match="no text"):
        retrieval_metrics(img, txt, [0, 0, 0])


def test_finest_caption_queries():
    caps = pd.DataFrame({"caption_id": ["a", "b", "c"], "image_id": ["i0", "i0", "i1"],
                         "text": ["a cross", "a red cross above a circle", "a square"]})
    q = finest_caption_queries(caps, ["i1", "i0"])
    assert q.to_dict("list") == {"query_id": ["c", "b"], "image_id": ["i1", "i0"],
                                 "text": ["a square", "a red cross above a circle"]}
    with pytest.raises(ValueError, match="no caption"):
        finest_caption_queries(caps, ["i2"])
