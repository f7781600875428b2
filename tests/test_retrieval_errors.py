"""BISON Table 1 on the world: the oracle judges each text-to-image R@1 error."""

import numpy as np
import pytest

from vlcomp.metrics.retrieval import retrieval_hits
from vlcomp.metrics.retrieval_errors import JUDGED, judged_errors_outcome, top_wrong_images


def test_each_missed_query_is_judged_on_the_image_ranked_above_its_own():
    # 3 images, 5 queries; query 1 ties its own image with image 2: a miss (strict), and the
    # image ranked above it is the best other one, never its own
    images = np.eye(3, dtype=np.float32)
    texts = np.array([[1, 0, 0], [0, 1, 1], [0.9, 0.1, 0], [0, 0, 1], [0, 0, 1]],
                     dtype=np.float32)
    links = [0, 1, 1, 0, 2]
    hits = retrieval_hits(images, texts, links)
    missed = ~hits["t2i_r1"]
    assert missed.tolist() == [False, True, True, True, False]
    wrong = top_wrong_images(images, texts, links)
    assert wrong[1] == 2 and wrong[2] == 0 and wrong[3] == 2
    truths = {(1, 2): True, (2, 0): False, (3, 2): True}
    outcome, counts = judged_errors_outcome(missed, wrong, links, lambda t, i: truths[t, i])
    assert counts == {"errors": 3, "judged_right": 2} and outcome.metric == JUDGED
    # image 0 stands for its one missed query (judged right), image 1 for two (one right)
    assert outcome.value()[0] == pytest.approx(200 / 3)
    assert outcome.counted.tolist() == [True, True, False]
    # resampling image 1 twice and image 0 never: 2 of its 4 missed queries
    assert outcome.value(np.array([[0.0, 2.0, 1.0]]))[0] == 50.0
