"""Hard-negative losses against hand-computed values (reference checks E.6, E.7, §9.12)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from vlcomp.train.losses import (
    clip_loss,
    hard_negative_text_loss,
    negclip_loss,
    trohn_img_loss,
    trohn_text_loss,
)


def unit(rows: list[list[float]]) -> torch.Tensor:
    return F.normalize(torch.tensor(rows, dtype=torch.float64), dim=1)


def ce(row: list[float], target: int) -> float:
    """Cross-entropy of one logit row, by hand."""
    return math.log(sum(math.exp(v) for v in row)) - row[target]


def test_trohn_text_loss_matches_hand_computation():
    # B = 2; captions [p0, p1, n0, n1]; logits_im is 2 × 4 (reference E.6)
    images = unit([[1.0, 0.2, 0.0], [0.1, 1.0, 0.3]])
    pos = unit([[0.9, 0.1, 0.1], [0.0, 0.8, 0.5]])
    neg = unit([[0.7, 0.6, 0.0], [0.2, 0.9, -0.4]])
    scale = 10.0
    logits = (scale * images @ torch.cat([pos, neg]).T).tolist()
    assert len(logits) == 2 and len(logits[0]) == 4
    i2t = (ce(logits[0], 0) + ce(logits[1], 1)) / 2
    t2i_rows = [[logits[0][j], logits[1][j]] for j in range(2)]  # logits_im.T[:2]
    t2i = (ce(t2i_rows[0], 0) + ce(t2i_rows[1], 1)) / 2
    expected = (i2t + t2i) / 2
    assert trohn_text_loss(images, pos, neg, scale).item() == pytest.approx(expected, rel=1e-12)


def test_negclip_layout_and_negatives_only_in_image_to_text():
    torch.manual_seed(0)
    b, d = 2, 5
    feats = [F.normalize(torch.randn(b, d, dtype=torch.float64), dim=1) for _ in range(6)]
    img, img_nn, txt, txt_nn, neg, neg_nn = feats
    loss = negclip_loss(img, img_nn, txt, txt_nn, neg, neg_nn, 3.0)
    images, texts = torch.cat([img, img_nn]), torch.cat([txt, txt_nn, neg, neg_nn])
    logits = 3.0 * images @ texts.T
    assert logits.shape == (4, 8)  # §9.12: logits_per_image is 2B × 4B
    targets = torch.arange(4)
    expected = (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T[:4], targets)) / 2
    assert loss.item() == pytest.approx(expected.item(), rel=1e-12)

    # Raising sim(I0, N0) changes the image->text term only: the text->image term is unchanged.
    neg_up = neg.clone()
    neg_up[0] = img[0]
    texts_up = torch.cat([txt, txt_nn, neg_up, neg_nn])
    logits_up = 3.0 * images @ texts_up.T
    assert torch.equal(logits_up[:, :4], logits[:, :4])  # text->image term untouched
    assert F.cross_entropy(logits_up[:1], targets[:1]) > F.cross_entropy(logits[:1], targets[:1])
    t2i = F.cross_entropy(logits.T[:4], targets)
    i2t_up = F.cross_entropy(logits_up, targets)
    loss_up = negclip_loss(img, img_nn, txt, txt_nn, neg_up, neg_nn, 3.0)
    assert loss_up.item() == pytest.approx(((i2t_up + t2i) / 2).item(), rel=1e-12)


def test_hard_negative_loss_without_negatives_is_clip_loss():
    torch.manual_seed(1)
    img = F.normalize(torch.randn(3, 4), dim=1)
    txt = F.normalize(torch.randn(3, 4), dim=1)
    assert hard_negative_text_loss(img, txt, 5.0).item() == pytest.approx(
        clip_loss(img, txt, 5.0).item(), rel=1e-6
    )
    with pytest.raises(ValueError, match="at least one text per image"):
        hard_negative_text_loss(img, txt[:2], 5.0)


def test_trohn_img_is_symmetric_infonce_over_2b():
    torch.manual_seed(2)
    img, img_neg, txt, txt_neg = (F.normalize(torch.randn(2, 4), dim=1) for _ in range(4))
    logits = 2.0 * torch.cat([img, img_neg]) @ torch.cat([txt, txt_neg]).T
    assert logits.shape == (4, 4)  # reference E.7
    targets = torch.arange(4)
    expected = (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)) / 2
    assert trohn_img_loss(img, img_neg, txt, txt_neg, 2.0).item() == pytest.approx(
        expected.item(), rel=1e-6
    )
