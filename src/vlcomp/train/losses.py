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


def hard_negative_text_loss(
    image_features: torch.Tensor, text_features: torch.Tensor, logit_scale: torch.Tensor | float
) -> torch.Tensor:
    """InfoNCE where texts beyond the first ``M`` (one per image) are extra negatives.

    ``image_features`` is M×D and ``text_features`` (M+K)×D: text ``i < M`` matches image
    ``i``; the K extra texts (hard negative captions) are only further columns of the
    image→text term, and have no text→image row since no image matches them. This is the
    NegCLIP and TROHN-Text objective: ``(CE(L, arange(M)) + CE(L[:, :M].T, arange(M))) / 2``
    with ``L = scale · I Tᵀ``.
    """
    m = image_features.shape[0]
    if text_features.shape[0] < m or text_features.shape[1] != image_features.shape[1]:
        raise ValueError(
            f"need at least one text per image and equal widths, got images "
            f"{tuple(image_features.shape)} and texts {tuple(text_features.shape)}"
        )
    logits = logit_scale * image_features @ text_features.T
    targets = torch.arange(m, device=logits.device)
    return (F.cross_entropy(logits, targets) + F.cross_entropy(logits[:, :m].T, targets)) / 2


def negclip_loss(
    images: torch.Tensor,
    neighbour_images: torch.Tensor,
    texts: torch.Tensor,
    neighbour_texts: torch.Tensor,
    negatives: torch.Tensor,
    neighbour_negatives: torch.Tensor,
    logit_scale: torch.Tensor | float,
) -> torch.Tensor:
    """NegCLIP: images ``[I; I_nn]`` (2B) against texts ``[T; T_nn; N; N_nn]`` (4B).

    The nearest-neighbour image is an anchor with its own caption; negative captions are
    extra image→text columns only (vinid/neg_clip's ClipLoss).
    """
    return hard_negative_text_loss(
        torch.cat([images, neighbour_images]),
        torch.cat([texts, neighbour_texts, negatives, neighbour_negatives]),
        logit_scale,
    )


def trohn_text_loss(
    images: torch.Tensor,
    texts: torch.Tensor,
    negative_texts: torch.Tensor,
    logit_scale: torch.Tensor | float,
) -> torch.Tensor:
    """TROHN-Text (BiVLC): B images against ``[T; N]`` (2B captions), negatives as columns."""
    return hard_negative_text_loss(images, torch.cat([texts, negative_texts]), logit_scale)


def trohn_img_loss(
    images: torch.Tensor,
    negative_images: torch.Tensor,
    texts: torch.Tensor,
    negative_texts: torch.Tensor,
    logit_scale: torch.Tensor | float,
) -> torch.Tensor:
    """TROHN-Img (BiVLC): symmetric InfoNCE over ``[I; I_neg]`` × ``[T; N]`` (2B × 2B); the
    generated negative image is the positive of its negative caption."""
    return clip_loss(
        torch.cat([images, negative_images]), torch.cat([texts, negative_texts]), logit_scale
    )
