"""Blind (text-only) baselines: the bigram caption model and blind score matrices."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.compute import compute_metrics
from vlcomp.score.blind import blind_item_scores
from vlcomp.text.ngram import BigramLM, words

TRAIN = ["a red cube on a blue ball", "a red cube near a green ball", "a blue ball on a mat"]


def test_bigram_probabilities_sum_to_one_and_follow_kneser_ney():
    lm = BigramLM(TRAIN)
    vocabulary = {w for s in TRAIN for w in words(s)} | {"</s>"}
    for context in ("<s>", "a", "red", "ball", "never-seen"):
        total = sum(lm.probability(context, w) for w in vocabulary)
        total += (lm.vocabulary - len(vocabulary)) * lm.probability(context, "zzz")
        assert total == pytest.approx(1.0, abs=1e-9), context
    # "a red": c=2 of c(a)=6 after "a", discounted, plus the back-off share
    kn_red = lm.preceders["red"] / lm.types
    continuation = 0.99 * kn_red + 0.01 / lm.vocabulary
    expected = (2 - 0.75) / 6 + 0.75 * lm.followers["a"] / 6 * continuation
    assert lm.probability("a", "red") == pytest.approx(expected)


def test_fluent_captions_beat_scrambled_ones():
    lm = BigramLM(TRAIN)
    good, bad = lm.score(["a red cube on a blue ball", "ball blue a on cube red a"])
    assert good > bad
    assert lm.mean_log_probability("") == pytest.approx(math.log(lm.probability("<s>", "</s>")))
    with pytest.raises(ValueError, match="no training sentences"):
        BigramLM([])


def test_blind_scores_pick_texts_only():
    items = pd.DataFrame({
        "item_id": ["s", "p"], "subset": ["add_obj", "replace_obj_x"],
        "image_ids": [["i"], ["i", "j"]], "texts": [["good", "bad"], ["good", "bad"]],
        "protocol": ["i2t", "pair"], "label": [0, 0], "tie_policy": ["strict", "strict"]})
    scores = blind_item_scores(items, {"good": -1.0, "bad": -2.0})
    assert scores.scores[1] == [[-1.0, -2.0], [-1.0, -2.0]]
    sugar = compute_metrics("sugarcrepe", items.iloc[:1], scores.iloc[:1])
    assert sugar["overall"]["accuracy"] == 100.0
    pair = compute_metrics("bivlc", items.iloc[1:], scores.iloc[1:])["overall"]
    # the same preference for both images: Ipos2T right, Ineg2T wrong, images tied
    assert (pair["Ipos2T"], pair["I2T"], pair["T2I"]) == (100.0, 0.0, 0.0)
    with pytest.raises(KeyError, match="'bad' has no blind score"):
        blind_item_scores(items, {"good": 0.0})
    assert isinstance(np.asarray(scores.scores[0]).sum(), float)
