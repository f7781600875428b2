"""A tiny random BLIP (retrieval or captioning head) saved with its processor, offline."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[DEC]", "[ENC]"]


def save_tiny_blip(folder: Path, model_class, words: list[str]):
    """Build ``model_class`` (e.g. BlipForImageTextRetrieval) from a tiny config, save it and
    a BlipProcessor under ``folder/model``; returns (path, model, tokenizer)."""
    from transformers import BertTokenizer, BlipConfig, BlipImageProcessor, BlipProcessor

    vocab = [*SPECIALS, *words]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), bos_token="[DEC]")
    config = BlipConfig(
        text_config=dict(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2,
                         max_position_embeddings=40, encoder_hidden_size=16,
                         pad_token_id=0, bos_token_id=5, sep_token_id=3),
        vision_config=dict(image_size=32, patch_size=8, hidden_size=16, intermediate_size=32,
                           num_hidden_layers=1, num_attention_heads=2,
                           initializer_range=0.5),  # BLIP default 1e-10: blind to images
        image_text_hidden_size=8)
    torch.manual_seed(0)
    model = model_class(config).eval()
    model.save_pretrained(folder / "model")
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": 32, "width": 32}),
                  tokenizer=tokenizer).save_pretrained(folder / "model")
    return folder / "model", model, tokenizer


@contextmanager
def images_through_vision(scorer) -> Iterator[list[int]]:
    """The batch sizes that go through the scorer's vision tower while the block runs."""
    scorer._load()
    seen: list[int] = []
    hook = scorer._model.vision_model.register_forward_hook(
        lambda module, args, out: seen.append(out.last_hidden_state.shape[0]))
    try:
        yield seen
    finally:
        hook.remove()
