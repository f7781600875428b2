"""The demo ITM model: a small BlipForImageTextRetrieval trained from scratch with ITC + ITM
(hard negatives), saved with save_pretrained and scored back through the hf_blip_itm family."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image

from vlcomp.models.hf_blip import BlipItmScorer
from vlcomp.train.captioner import (
    CaptionerConfig,
    CaptionerTraining,
    build_processor,
    caption_words,
    save_captioner,
)
from vlcomp.train.data import load_split
from vlcomp.train.itm import MatchBatches, _hard_negatives, build_itm_model, train_itm

SMALL = CaptionerConfig(image_size=32, patch_size=8, vision_width=32, vision_layers=1,
                        vision_heads=2, text_width=32, text_layers=1, text_heads=2)


@pytest.fixture(scope="module")
def data(world_dir, tmp_path_factory):
    images = pd.read_parquet(world_dir / "images.parquet")
    captions = pd.read_parquet(world_dir / "captions.parquet")
    splits = [load_split(images, captions, s) for s in ("train", "val")]
    processor = build_processor(caption_words(list(captions.text)),
                                tmp_path_factory.mktemp("tok"), SMALL.image_size)
    return processor, *[MatchBatches(processor, s.images, s.captions, 40) for s in splits]


def trained(data, epochs=2):
    processor, train, val = data
    model = build_itm_model(SMALL, len(processor.tokenizer), 0)
    cfg = CaptionerTraining(epochs=epochs, batch_size=32, lr=2e-3, warmup_steps=5, seed=0)
    rows, best, state = train_itm(model, train, val, cfg)
    model.load_state_dict(state)
    return model, rows, best


def test_hard_negatives_never_pick_a_match():
    sim = torch.tensor([[5.0, 4.0, -9.0], [0.0, 1.0, 2.0], [3.0, 3.0, 3.0]])
    same = torch.tensor([[True, False, False], [False, True, True], [False, True, True]])
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        picks = _hard_negatives(sim, same, generator)
        assert not same[torch.arange(3), picks].any()
    every = torch.ones(2, 2, dtype=torch.bool)  # only matches: any other column
    assert _hard_negatives(torch.zeros(2, 2), every, generator).tolist() == [1, 0]


def test_itm_training_is_deterministic_and_learns_to_match(data):
    model, rows, best = trained(data)
    again, rows2, _ = trained(data)
    assert [r["train_loss"] for r in rows] == [r["train_loss"] for r in rows2]
    for a, b in zip(model.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert rows[-1]["train_loss"] < rows[0]["train_loss"]
    assert {"train_itc", "train_itm", "val_itm_accuracy"} <= set(rows[0])
    assert rows[best - 1]["val_itm_accuracy"] == max(r["val_itm_accuracy"] for r in rows)


def test_saved_model_scores_through_the_hf_blip_itm_family(data, tmp_path):
    processor, train, _ = data
    model, _, _ = trained(data, epochs=1)
    folder = tmp_path / "hf"
    save_captioner(model, processor, folder)
    scorer = BlipItmScorer("itm", {"model": str(folder), "max_length": 40})
    image = Image.fromarray(np.asarray(train.pixels[0].permute(1, 2, 0).mul(60).add(120)
                                       .clamp(0, 255).byte()))
    texts = [train.pairs[0][1], train.pairs[-1][1]]
    logits = scorer.score_pairs([image, image], texts)
    model.eval()
    with torch.inference_mode():
        pixels = processor(images=[image], return_tensors="pt").pixel_values
        tokens = processor(text=texts, padding=True, return_tensors="pt")
        direct = model(input_ids=tokens.input_ids, attention_mask=tokens.attention_mask,
                       pixel_values=pixels.repeat(2, 1, 1, 1)).itm_score[:, 1]
    np.testing.assert_allclose(logits, direct.numpy(), atol=1e-4)
    assert scorer.embed_texts(texts).shape == (2, SMALL.text_width)
