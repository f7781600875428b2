"""Pair-scoring throughput of the BLIP families (hf_blip_lm: log P(t|i); hf_blip_itm: ITM)
with 1 and with k captions per image, on a BLIP-base-sized model with random weights (the
architecture, not the weights, sets the cost; no download). The vision tower runs once per
image, so k captions should cost far less than k times one caption.

    .venv/bin/python scripts/bench_pair_scoring.py [--images 8] [--captions 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch
from PIL import Image

from vlcomp.models.hf_blip import BlipItmScorer
from vlcomp.models.hf_blip_lm import BlipCaptionScorer

WORDS = ["a", "an", "the", "of", "on", "in", "to", "left", "right", "above", "below", "red",
         "green", "blue", "small", "large", "circle", "square"]


def save_base_blip(folder: Path, model_class) -> Path:
    """A BLIP-base-sized model (ViT-B/16 at 384 px, 12-layer BERT text) with random weights
    and a word-level tokenizer, saved where `from_pretrained` finds it."""
    from transformers import BertTokenizer, BlipConfig, BlipImageProcessor, BlipProcessor

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[DEC]", "[ENC]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), bos_token="[DEC]")
    config = BlipConfig(text_config={"vocab_size": 30524, "bos_token_id": 5, "sep_token_id": 3,
                                     "pad_token_id": 0},
                        vision_config={"image_size": 384, "patch_size": 16})
    torch.manual_seed(0)
    model_class(config).eval().save_pretrained(folder / "model")
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": 384, "width": 384}),
                  tokenizer=tokenizer).save_pretrained(folder / "model")
    return folder / "model"


def pairs_per_second(score, images, k: int, batch_size: int) -> float:
    pair_images = [im for im in images for _ in range(k)]
    texts = [" ".join(WORDS[(i + j) % len(WORDS)] for j in range(10))
             for i in range(len(pair_images))]
    start = time.perf_counter()
    score(pair_images, texts, batch_size=batch_size)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--images", type=int, default=8)
    parser.add_argument("--captions", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from transformers import BlipForConditionalGeneration, BlipForImageTextRetrieval

    images = [Image.effect_noise((480, 360), 40 + i).convert("RGB") for i in range(args.images)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, cls, scorer_cls, method in (
            ("hf_blip_lm  log P(t|i)", BlipForConditionalGeneration, BlipCaptionScorer,
             "log_likelihood"),
            ("hf_blip_itm ITM       ", BlipForImageTextRetrieval, BlipItmScorer, "score_pairs"),
        ):
            folder = Path(tmp) / cls.__name__
            folder.mkdir()
            scorer = scorer_cls("bench", {"model": str(save_base_blip(folder, cls))})
            score = getattr(scorer, method)
            score(images[:1], ["warm up"], batch_size=1)
            one = pairs_per_second(score, images, 1, args.batch_size)
            many = pairs_per_second(score, images, args.captions, args.batch_size)
            cost = (args.captions / many) / (1 / one)  # seconds per image, k vs 1 caption
            print(f"{label}: {one:6.2f} pairs/s with 1 caption per image, {many:6.2f} pairs/s "
                  f"with {args.captions}; {args.captions} captions per image cost "
                  f"{cost:.2f}x one caption", flush=True)


if __name__ == "__main__":
    main()
