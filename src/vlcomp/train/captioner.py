"""A small BLIP captioner trained from scratch on the world's captions: the demo generative
model of VisualGPTScore (log P(t | i)).

It is a transformers ``BlipForConditionalGeneration`` with a small config and a word-level
``BertTokenizer`` over the world's vocabulary, trained by teacher forcing on
``prompt + caption`` exactly as the ``hf_blip_lm`` family scores it (``[DEC]`` first, prompt
tokens unscored, final ``[SEP]`` scored). It is saved with ``save_pretrained`` and read back
through the family's own ``from_pretrained`` path, as the hub checkpoints are.
"""

from __future__ import annotations

import math
import re
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from vlcomp.determinism import deterministic_torch
from vlcomp.models.hf_blip_lm import caption_log_likelihood
from vlcomp.train.clip_trainer import cosine_lr

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[DEC]", "[ENC]"]
DEFAULT_PROMPT = "a picture of "
# OpenAI CLIP's normalisation, BLIP's default
IMAGE_MEAN = (0.48145466, 0.4578275, 0.40821073)
IMAGE_STD = (0.26862954, 0.26130258, 0.27577711)


@dataclass
class CaptionerConfig:
    """Architecture of the small captioner."""

    image_size: int = 64
    patch_size: int = 8
    vision_width: int = 128
    vision_layers: int = 2
    vision_heads: int = 4
    text_width: int = 128
    text_layers: int = 2
    text_heads: int = 4
    max_length: int = 40

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaptionerConfig:
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"captioner model: unknown keys {sorted(unknown)}")
        return cls(**d)


@dataclass
class CaptionerTraining:
    """Optimisation settings."""

    epochs: int = 10
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup_steps: int = 20
    seed: int = 0
    threads: int = 2
    prompt: str = DEFAULT_PROMPT
    deterministic: str = "strict"  # vlcomp.determinism: strict | warn | off


def caption_words(texts: Sequence[str]) -> list[str]:
    """The sorted word vocabulary of ``texts`` split as BERT's pre-tokenizer does for plain
    English (lower-cased; runs of letters and digits; each punctuation mark apart)."""
    return sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})


def build_processor(words: Sequence[str], folder: Path, image_size: int):
    """A ``BlipProcessor``: word-level BertTokenizer (``[DEC]`` as bos) and image processor."""
    from transformers import BertTokenizer, BlipImageProcessor, BlipProcessor

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join([*SPECIALS, *words]) + "\n")
    tokenizer = BertTokenizer(str(vocab), bos_token="[DEC]")
    images = BlipImageProcessor(size={"height": image_size, "width": image_size},
                                image_mean=list(IMAGE_MEAN), image_std=list(IMAGE_STD))
    return BlipProcessor(image_processor=images, tokenizer=tokenizer)


def build_captioner(cfg: CaptionerConfig, vocab_size: int, seed: int):
    """A randomly initialised ``BlipForConditionalGeneration`` of the given size."""
    from transformers import BlipConfig, BlipForConditionalGeneration

    config = BlipConfig(
        text_config={
            "vocab_size": vocab_size, "hidden_size": cfg.text_width,
            "intermediate_size": 4 * cfg.text_width, "num_hidden_layers": cfg.text_layers,
            "num_attention_heads": cfg.text_heads, "encoder_hidden_size": cfg.vision_width,
            "max_position_embeddings": cfg.max_length, "pad_token_id": 0,
            "bos_token_id": SPECIALS.index("[DEC]"), "sep_token_id": SPECIALS.index("[SEP]"),
            "label_smoothing": 0.0,
        },
        vision_config={
            "image_size": cfg.image_size, "patch_size": cfg.patch_size,
            "hidden_size": cfg.vision_width, "intermediate_size": 4 * cfg.vision_width,
            "num_hidden_layers": cfg.vision_layers, "num_attention_heads": cfg.vision_heads,
            "initializer_range": 0.02,  # BLIP's default (1e-10) starts blind to the image
        },
    )
    torch.manual_seed(seed)
    return BlipForConditionalGeneration(config)


def caption_token_logp(model, pixel_values: torch.Tensor, input_ids: torch.Tensor,
                       attention_mask: torch.Tensor, prompt_length: int) -> torch.Tensor:
    """Mean log-probability of the scored tokens of each caption (batch,), teacher forced:
    targets are ids[1:], prompt tokens and padding unscored (the hf_blip_lm convention)."""
    logits = model(pixel_values=pixel_values, input_ids=input_ids,
                   attention_mask=attention_mask).logits
    return caption_log_likelihood(logits, input_ids, attention_mask, prompt_length)


class CaptionBatches:
    """(pixel_values, input_ids, attention_mask) of (image, caption) pairs."""

    def __init__(self, processor, images: np.ndarray, captions: Sequence[Sequence[str]],
                 prompt: str, max_length: int) -> None:
        self.processor, self.prompt, self.max_length = processor, prompt, max_length
        self.images = images
        self.pixels = processor(images=list(images), return_tensors="pt").pixel_values
        self.pairs = [(i, t) for i, texts in enumerate(captions) for t in texts]
        self.bos = processor.tokenizer.bos_token_id
        self.prompt_length = len(processor.tokenizer(prompt).input_ids) - 1

    def __len__(self) -> int:
        return len(self.pairs)

    def batch(self, rows: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        images = torch.tensor([self.pairs[r][0] for r in rows])
        tokens = self.processor.tokenizer(
            [self.prompt + self.pairs[r][1] for r in rows], padding=True, truncation=True,
            max_length=self.max_length, return_tensors="pt")
        ids = tokens.input_ids.clone()
        ids[:, 0] = self.bos
        return self.pixels[images], ids, tokens.attention_mask


def evaluate(model, data: CaptionBatches, batch_size: int) -> float:
    """Mean over captions of the mean token log-probability (higher is better)."""
    model.eval()
    total = 0.0
    with torch.inference_mode():
        for s in range(0, len(data), batch_size):
            pixels, ids, mask = data.batch(range(s, min(s + batch_size, len(data))))
            total += float(caption_token_logp(model, pixels, ids, mask,
                                              data.prompt_length).sum())
    return total / max(1, len(data))


def train_captioner(model, train: CaptionBatches, val: CaptionBatches,
                    cfg: CaptionerTraining, log_rows: list[dict[str, Any]] | None = None
                    ) -> tuple[list[dict[str, Any]], int, dict[str, torch.Tensor]]:
    """Teacher-forced training (loss: mean token NLL of the captions). Returns the epoch
    rows, the best epoch by validation log-likelihood and that epoch's weights."""
    rows = [] if log_rows is None else log_rows
    steps_per_epoch = math.ceil(len(train) / cfg.batch_size)
    total_steps = steps_per_epoch * cfg.epochs
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "embeddings" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "embeddings" not in n)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=cfg.lr)
    generator = torch.Generator().manual_seed(cfg.seed)
    best_epoch, best_val, best_state, step = 0, -math.inf, {}, 0
    with deterministic_torch(cfg.threads, cfg.deterministic):
        for epoch in range(1, cfg.epochs + 1):
            model.train()
            start, losses = time.perf_counter(), []
            order = torch.randperm(len(train), generator=generator).tolist()
            bar = tqdm(range(0, len(order), cfg.batch_size), desc=f"epoch {epoch}/{cfg.epochs}",
                       file=sys.stderr, mininterval=5)
            for s in bar:
                for group in optimizer.param_groups:
                    group["lr"] = cosine_lr(step, total_steps, cfg.warmup_steps, cfg.lr)
                pixels, ids, mask = train.batch(order[s : s + cfg.batch_size])
                loss = -caption_token_logp(model, pixels, ids, mask, train.prompt_length).mean()
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                losses.append(float(loss.detach()))
                step += 1
                bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
            val_logp = evaluate(model, val, cfg.batch_size)
            seconds = time.perf_counter() - start
            rows.append({"epoch": epoch, "train_loss": float(np.mean(losses)),
                         "val_token_logp": val_logp, "lr": cosine_lr(step - 1, total_steps,
                                                                    cfg.warmup_steps, cfg.lr),
                         "pairs_per_s": len(train) / seconds, "seconds": seconds})
            if val_logp > best_val:
                best_epoch, best_val = epoch, val_logp
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return rows, best_epoch, best_state


def save_captioner(model, processor, folder: Path) -> None:
    """``save_pretrained`` of model and processor into ``folder``, through a temporary
    folder beside it renamed into place (no half-written checkpoint folder)."""
    folder = Path(folder)
    tmp = folder.with_name(f".{folder.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    processor.save_pretrained(tmp)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
