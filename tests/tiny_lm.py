"""A tiny random causal LM (GPT-2) with a word-level tokenizer, saved like a hub model: the
stand-in for VisualGPTScore's text-only LM (OPT-2.7B) offline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch


def save_tiny_causal_lm(folder: Path, words: Sequence[str]) -> Path:
    from transformers import BertTokenizer, GPT2Config, GPT2LMHeadModel

    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_embd=16, n_layer=1, n_head=2,
                               n_positions=64)).eval().save_pretrained(folder)
    return folder
