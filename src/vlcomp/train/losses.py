"""Contrastive losses."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def clip_loss(
    image_features: torch.Tensor, text_features: torch.Tensor, logit_scale: torch.Tensor | float
) -> torch.Tensor:
    """Symmetric InfoNCE over a batch of matched pairs (features already L2-normalised).

    Mean of the image->text and text->image cross-entropies with targets `arange(B)`;
    `logit_scale` is the multiplier itself (i.e. already exponentiated).
    """
    if image_features.shape != text_features.shape:
        raise ValueError(
            f"feature shapes differ: {tuple(image_features.shape)} vs {tuple(text_features.shape)}"
        )
    logits = logit_scale * image_features @ text_features.T
    targets = torch.arange(logits.shape[0], device=logits.device)
    return (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)) / 2
