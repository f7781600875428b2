"""The demo captioner: a small BLIP trained from scratch on world captions, saved with
save_pretrained and scored back through the hf_blip_lm family."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image

from vlcomp.models.hf_blip_lm import BlipCaptionScorer
from vlcomp.train.captioner import (
    CaptionBatches,
    CaptionerConfig,
    CaptionerTraining,
    build_captioner,
    build_processor,
    caption_token_logp,
    caption_words,
    evaluate,
    save_captioner,
    train_captioner,
)
from vlcomp.train.data import load_split

SMALL = CaptionerConfig(image_size=32, patch_size=8, vision_width=32, vision_layers=1,
                        vision_heads=2, text_width=32, text_layers=1, text_heads=2)


@pytest.fixture(scope="module")
def data(world_dir, tmp_path_factory):
    images = pd.read_parquet(world_dir / "images.parquet")
    captions = pd.read_parquet(world_dir / "captions.parquet")
    train = load_split(images, captions, "train")
    val = load_split(images, captions, "val")
    words = caption_words([*captions.text, "a picture of"])
    processor = build_processor(words, tmp_path_factory.mktemp("tok"), SMALL.image_size)
    batches = [CaptionBatches(processor, split.images, split.captions, "a picture of ", 40)
               for split in (train, val)]
    return processor, *batches


def trained(data, seed=0, epochs=3):
    processor, train, val = data
    model = build_captioner(SMALL, len(processor.tokenizer), seed)
    cfg = CaptionerTraining(epochs=epochs, batch_size=32, lr=2e-3, warmup_steps=5, seed=seed)
    before = evaluate(model, val, 64)
    rows, best, state = train_captioner(model, train, val, cfg)
    model.load_state_dict(state)
    return model, rows, best, before


def test_vocabulary_is_word_level_and_covers_the_captions(data):
    processor, train, _ = data
    tokenizer = processor.tokenizer
    assert tokenizer.bos_token_id == 5 and tokenizer.convert_ids_to_tokens(5) == "[DEC]"
    ids = tokenizer(train.prompt + train.pairs[0][1]).input_ids
    assert tokenizer.unk_token_id not in ids
    assert not any(t.startswith("##") for t in tokenizer.convert_ids_to_tokens(ids))
    assert caption_words(["A red Circle, left of it."]) == [",", ".", "a", "circle", "it",
                                                            "left", "of", "red"]


def test_training_learns_and_is_deterministic(data):
    model, rows, best, before = trained(data)
    assert [r["epoch"] for r in rows] == [1, 2, 3] and 1 <= best <= 3
    assert rows[-1]["train_loss"] < rows[0]["train_loss"]
    best_val = max(r["val_token_logp"] for r in rows)
    assert best_val > before + 0.5  # each token ~1.6x likelier than at initialisation
    again, rows_again, _, _ = trained(data)
    assert [r["train_loss"] for r in rows] == [r["train_loss"] for r in rows_again]
    for (name, a), b in zip(model.state_dict().items(), again.state_dict().values(),
                            strict=True):
        assert torch.equal(a, b), name


def test_saved_captioner_scores_through_the_family(data, tmp_path):
    processor, _, val = data
    model, _, _, _ = trained(data, epochs=1)
    save_captioner(model, processor, tmp_path / "captioner")
    assert (tmp_path / "captioner" / "config.json").exists()
    assert not list(tmp_path.glob(".*"))
    scorer = BlipCaptionScorer("demo", {"model": str(tmp_path / "captioner")})
    rows = list(range(6))
    pixels, ids, mask = val.batch(rows)
    with torch.inference_mode():
        expected = caption_token_logp(model.eval(), pixels, ids, mask, val.prompt_length)
    got = scorer.log_likelihood([Image.fromarray(val.images[val.pairs[r][0]]) for r in rows],
                                [val.pairs[r][1] for r in rows])
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-4)
