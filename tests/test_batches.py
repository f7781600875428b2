"""Batch assembly for CLIP-FT, NegCLIP and TROHN-Text steps."""

import numpy as np
import pytest
import torch

from vlcomp.train.batches import BatchComposer


def fake_tokenizer(texts):
    return torch.tensor([[len(t)] for t in texts])


COUNTS = np.array([2, 1, 1, 2])  # captions per image: rows 0-1 | 2 | 3 | 4-5
NEGATIVES = [[["n0a", "n0b"], []], [["n2"]], [[]], [["n4"], ["n5a", "n5b", "n5c"]]]
NEG_OF_ROW = {0: {0, 1}, 1: set(), 2: {2}, 3: set(), 4: {3}, 5: {4, 5, 6}}


def test_clip_batch_is_images_and_their_captions():
    comp = BatchComposer("clip", COUNTS)
    rows = comp.step(np.array([2, 0]), np.array([1, 2, 2, 3, 5]), np.random.default_rng(0))
    assert rows.images.tolist() == [2, 0] and rows.texts.tolist() == [2, 1]
    assert rows.negatives.size == 0


def test_trohn_text_adds_one_negative_per_caption_that_has_one():
    comp = BatchComposer("trohn_text", COUNTS, fake_tokenizer, NEGATIVES)
    assert len(comp.neg_tokens) == 7
    chosen = np.array([0, 2, 3, 5])
    for seed in range(20):
        rows = comp.step(np.array([0, 1, 2, 3]), chosen, np.random.default_rng(seed))
        assert rows.images.tolist() == [0, 1, 2, 3] and rows.texts.tolist() == [0, 2, 3, 5]
        # caption rows 0, 2, 5 have negatives (3 does not): one each, from their own lists
        assert len(rows.negatives) == 3
        for row, neg in zip([0, 2, 5], rows.negatives, strict=True):
            assert neg in NEG_OF_ROW[row]
    picks = {int(BatchComposer("trohn_text", COUNTS, fake_tokenizer, NEGATIVES)
                 .step(np.array([3]), chosen, np.random.default_rng(s)).negatives[0])
             for s in range(30)}
    assert picks == {4, 5, 6}  # every negative of caption 5 gets drawn


def test_negclip_adds_neighbour_anchors_and_both_negatives():
    neighbours = [[3, 1], [0], [], [0, 1, 2]]
    comp = BatchComposer("negclip", COUNTS, fake_tokenizer, NEGATIVES, neighbours)
    chosen = np.array([1, 2, 3, 4])
    seen = set()
    for seed in range(30):
        rows = comp.step(np.array([0, 2]), chosen, np.random.default_rng(seed))
        # image 2 has no neighbour: anchors are [0, 2, nn(0)]
        assert rows.images[:2].tolist() == [0, 2] and len(rows.images) == 3
        partner = int(rows.images[2])
        seen.add(partner)
        assert partner in (3, 1)
        assert rows.texts.tolist() == chosen[rows.images].tolist()
        # caption 1 (image 0) has none, caption 3 (image 2) none; partner's caption may have
        expected = len(NEG_OF_ROW[int(chosen[partner])])
        assert len(rows.negatives) == (1 if expected else 0)
    assert seen == {1, 3}
    again = comp.step(np.array([0, 2]), chosen, np.random.default_rng(5))
    first = comp.step(np.array([0, 2]), chosen, np.random.default_rng(5))
    assert again.images.tolist() == first.images.tolist()


def test_composer_rejects_missing_inputs():
    with pytest.raises(ValueError, match="unknown objective"):
        BatchComposer("negclip2", COUNTS)
    with pytest.raises(ValueError, match="needs negative captions"):
        BatchComposer("trohn_text", COUNTS, fake_tokenizer)
    with pytest.raises(ValueError, match="one entry per caption"):
        BatchComposer("trohn_text", COUNTS, fake_tokenizer, [*NEGATIVES[:3], [[]]])
    with pytest.raises(ValueError, match="neighbour list"):
        BatchComposer("negclip", COUNTS, fake_tokenizer, NEGATIVES, [[1]])
    with pytest.raises(ValueError, match="no caption has a negative"):
        BatchComposer("trohn_text", COUNTS, fake_tokenizer, [[[], []], [[]], [[]], [[], []]])


def test_mirror_caption_swaps_left_and_right_only():
    from vlcomp.train.batches import mirror_caption

    assert mirror_caption("a red circle to the left of a blue square") == (
        "a red circle to the right of a blue square")
    assert mirror_caption("there is a cross to the right of a circle and a square") == (
        "there is a cross to the left of a circle and a square")
    assert mirror_caption("a circle above a square") is None
    assert mirror_caption("a circle next to a square") is None
    assert mirror_caption("a leftover circle") is None


def test_mirror_pairs_join_images_whose_caption_has_a_mirror():
    from vlcomp.train.batches import StepRows, add_mirror_pairs

    rows = StepRows(images=np.array([3, 0, 2]), texts=np.array([5, 0, 2]),
                    negatives=np.zeros(0, dtype=np.int64))
    mirror = np.array([6, -1, 7, -1, -1, 8])  # caption rows 0, 2, 5 have a mirror
    every = add_mirror_pairs(rows, mirror, n_images=4, fraction=1.0,
                             rng=np.random.default_rng(0))
    assert every.images.tolist() == [3, 0, 2, 7, 4, 6]
    assert every.texts.tolist() == [5, 0, 2, 8, 6, 7]
    none = add_mirror_pairs(rows, mirror, 4, 0.0, np.random.default_rng(0))
    assert none.images.tolist() == [3, 0, 2] and none.texts.tolist() == [5, 0, 2]
    shares = [len(add_mirror_pairs(rows, np.array([6, 6, 6, 6, 6, 6]), 4, 0.3,
                                   np.random.default_rng(s)).images) - 3 for s in range(400)]
    assert np.mean(shares) == pytest.approx(0.9, abs=0.15)  # 3 images x 0.3
