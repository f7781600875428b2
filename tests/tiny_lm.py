"""Tiny random language models with word-level tokenizers, saved like hub models: the
stand-ins for VisualGPTScore's text-only LMs offline (OPT-2.7B: a causal GPT-2; BART /
FLAN-T5: an encoder-decoder T5 whose tokenizer ends every text with ``</s>`` as T5's does)."""

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


def save_tiny_seq2seq_lm(folder: Path, words: Sequence[str]) -> Path:
    """A one-layer T5 (``is_encoder_decoder``: `vlcomp.text.seq2seq_prior.lm_prior` scores it
    as a decoder target) with a lower-casing whitespace word tokenizer, ``$A </s>``."""
    from transformers import T5Config, T5ForConditionalGeneration

    from vlcomp.bench.offline_tokenizers import t5_tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer, vocab = t5_tokenizer(words, image_token=False)
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = T5Config(vocab_size=len(vocab), d_model=16, d_kv=8, d_ff=32, num_layers=1,
                      num_decoder_layers=1, num_heads=2, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0)
    T5ForConditionalGeneration(config).eval().save_pretrained(folder)
    return folder
