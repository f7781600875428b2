"""A small BLIP image–text matching model trained from scratch (VisualGPTScore's ITMScore
baseline on the world): transformers ``BlipForImageTextRetrieval`` with a small config and
the captioner's word-level tokenizer, trained as BLIP pre-trains its matching heads:

* ITC: in-batch image–text contrastive loss on the projected CLS states (captions of the
  same image count as positives);
* ITM: the text encoder with cross-attention to the image, ``itm_head`` on its CLS state,
  binary cross-entropy over each positive pair, one hard negative text per image and one
  hard negative image per text, each drawn in proportion to its ITC similarity (BLIP §3.2).

Texts are tokenised as the ``hf_blip_itm`` family scores them (the processor's ids, no
prompt), and the model is saved with ``save_pretrained``, so ``{family: hf_blip_itm, run}``
reads it through the same ``from_pretrained`` path as the hub checkpoints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from vlcomp.train.captioner import CaptionerConfig, CaptionerTraining, blip_config, train_blip

TEMPERATURE = 0.07  # BLIP's initial ITC temperature, kept fixed here


def build_itm_model(cfg: CaptionerConfig, vocab_size: int, seed: int):
    """A randomly initialised ``BlipForImageTextRetrieval`` of the given size (ITC
    projections as wide as the text encoder)."""
    from transformers import BlipForImageTextRetrieval

    config = blip_config(cfg, vocab_size, image_text_hidden_size=cfg.text_width)
    torch.manual_seed(seed)
    return BlipForImageTextRetrieval(config)


class MatchBatches:
    """(pixel_values, input_ids, attention_mask, image index) of (image, caption) pairs,
    tokenised as the ``hf_blip_itm`` scorer does."""

    def __init__(self, processor, images: np.ndarray, captions: Sequence[Sequence[str]],
                 max_length: int) -> None:
        self.processor, self.max_length = processor, max_length
        self.pixels = processor(images=list(images), return_tensors="pt").pixel_values
        self.pairs = [(i, t) for i, texts in enumerate(captions) for t in texts]

    def __len__(self) -> int:
        return len(self.pairs)

    def batch(self, rows: Sequence[int]):
        images = torch.tensor([self.pairs[r][0] for r in rows])
        tokens = self.processor.tokenizer([self.pairs[r][1] for r in rows], padding=True,
                                          truncation=True, max_length=self.max_length,
                                          return_tensors="pt")
        return self.pixels[images], tokens.input_ids, tokens.attention_mask, images


def _hard_negatives(sim: torch.Tensor, same: torch.Tensor,
                    generator: torch.Generator) -> torch.Tensor:
    """For each row, a column drawn with probability ∝ softmax(sim) over the non-matching
    columns (BLIP's hard negative mining); a row with none gets a random other column."""
    weights = F.softmax(sim.detach().float(), dim=1).masked_fill(same, 0.0)
    empty = weights.sum(dim=1) <= 0
    if empty.any():  # every column matches: fall back to a uniform draw over the others
        weights[empty] = (~torch.eye(len(sim), dtype=torch.bool))[empty].float()
    return torch.multinomial(weights, 1, generator=generator).squeeze(1)


def itc_itm_loss(model, pixels: torch.Tensor, ids: torch.Tensor, mask: torch.Tensor,
                 image_index: torch.Tensor, generator: torch.Generator,
                 ) -> tuple[torch.Tensor, dict[str, float]]:
    """ITC + ITM loss of one batch, and its parts (``itc``, ``itm``, ``itm_accuracy``)."""
    image_states = model.vision_model(pixel_values=pixels).last_hidden_state
    text_states = model.text_encoder(input_ids=ids, attention_mask=mask).last_hidden_state
    image_feat = F.normalize(model.vision_proj(image_states[:, 0]), dim=-1)
    text_feat = F.normalize(model.text_proj(text_states[:, 0]), dim=-1)
    sim = image_feat @ text_feat.T / TEMPERATURE  # (images, texts) of the batch
    same = image_index[:, None] == image_index[None, :]
    targets = same.float() / same.float().sum(dim=1, keepdim=True)
    itc = (F.cross_entropy(sim, targets) + F.cross_entropy(sim.T, targets.T)) / 2
    negative_text = _hard_negatives(sim, same, generator)
    negative_image = _hard_negatives(sim.T, same.T, generator)
    n = len(ids)
    states = torch.cat([image_states, image_states, image_states[negative_image]])
    texts = torch.cat([ids, ids[negative_text], ids])
    masks = torch.cat([mask, mask[negative_text], mask])
    hidden = model.text_encoder(
        input_ids=texts, attention_mask=masks, encoder_hidden_states=states,
        encoder_attention_mask=torch.ones(states.shape[:-1], dtype=torch.long),
    ).last_hidden_state
    logits = model.itm_head(hidden[:, 0])
    labels = torch.cat([torch.ones(n, dtype=torch.long), torch.zeros(2 * n, dtype=torch.long)])
    itm = F.cross_entropy(logits, labels)
    accuracy = float((logits.argmax(dim=1) == labels).float().mean())
    return itc + itm, {"itc": float(itc.detach()), "itm": float(itm.detach()),
                       "itm_accuracy": accuracy}


def train_itm(model, train: MatchBatches, val: MatchBatches, cfg: CaptionerTraining,
              log_rows: list[dict[str, Any]] | None = None,
              ) -> tuple[list[dict[str, Any]], int, dict[str, torch.Tensor]]:
    """ITC + ITM training (`itc_itm_loss`, hard negatives drawn with a seeded generator);
    the best epoch is the one with the highest validation ITM accuracy (validation pairs in
    order, their hard negatives drawn with a fixed seed, so epochs compare alike)."""
    generator = torch.Generator().manual_seed(cfg.seed + 1)

    def batch_loss(rows: list[int]) -> tuple[torch.Tensor, dict[str, float]]:
        pixels, ids, mask, index = train.batch(rows)
        return itc_itm_loss(model, pixels, ids, mask, index, generator)

    def validate() -> float:
        fixed = torch.Generator().manual_seed(cfg.seed)
        correct = 0.0
        with torch.inference_mode():
            for s in range(0, len(val), cfg.batch_size):
                rows = list(range(s, min(s + cfg.batch_size, len(val))))
                _, parts = itc_itm_loss(model, *val.batch(rows), fixed)
                correct += parts["itm_accuracy"] * len(rows)
        return correct / max(1, len(val))

    return train_blip(model, len(train), cfg, batch_loss, validate, "val_itm_accuracy",
                      log_rows)
