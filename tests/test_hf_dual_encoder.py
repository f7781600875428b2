"""The hf_dual family on a tiny random CLIP saved locally with its processor."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.generate.tiny_pipeline import write_char_tokenizer
from vlcomp.models.hf_dual_encoder import HFDualEncoderScorer, _features
from vlcomp.models.registry import build_scorer


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    from transformers import (
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        CLIPTokenizer,
    )

    folder = tmp_path_factory.mktemp("tiny_hf_clip")
    vocab = write_char_tokenizer(folder / "tok")
    tokenizer = CLIPTokenizer(vocab=str(folder / "tok" / "vocab.json"),
                              merges=str(folder / "tok" / "merges.txt"))
    images = CLIPImageProcessor(size={"shortest_edge": 32},
                                crop_size={"height": 32, "width": 32})
    eos = vocab["<|endoftext|>"]
    config = CLIPConfig(
        text_config=dict(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2,
                         max_position_embeddings=77, bos_token_id=vocab["<|startoftext|>"],
                         eos_token_id=eos, pad_token_id=eos),
        vision_config=dict(image_size=32, patch_size=8, hidden_size=16, intermediate_size=32,
                           num_hidden_layers=1, num_attention_heads=2),
        projection_dim=8)
    torch.manual_seed(0)
    model = CLIPModel(config).eval()
    model.save_pretrained(folder / "model")
    CLIPProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder / "model")
    return folder / "model", model


def test_embeddings_equal_the_forward_passes_embeds(tiny_clip):
    from transformers import AutoProcessor

    path, model = tiny_clip
    scorer = build_scorer("tiny", {"family": "hf_dual", "model": str(path)})
    images = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
    texts = ["a red square", "a blue one", "a red square"]
    img, txt = scorer.embed_images(images), scorer.embed_texts(texts, batch_size=2)
    assert img.shape == (2, 8) and txt.shape == (3, 8)
    np.testing.assert_allclose(np.linalg.norm(img, axis=1), 1, atol=1e-6)
    processor = AutoProcessor.from_pretrained(path)
    with torch.no_grad():
        full = model(**processor(text=texts, images=images, padding=True, return_tensors="pt"))
    np.testing.assert_allclose(img, full.image_embeds.numpy(), atol=1e-5)
    np.testing.assert_allclose(txt, full.text_embeds.numpy(), atol=1e-5)
    assert np.allclose(txt[0], txt[2], atol=1e-6)


def test_max_chars_truncates_and_errors_are_named(tiny_clip):
    path, _ = tiny_clip
    short = HFDualEncoderScorer("t", {"model": str(path), "max_chars": 5})
    full = HFDualEncoderScorer("t", {"model": str(path)})
    assert np.allclose(short.embed_texts(["a red square"]), full.embed_texts(["a red "]),
                       atol=1e-6)
    with pytest.raises(ValueError, match="model 'x': family hf_dual needs 'model'"):
        HFDualEncoderScorer("x", {})
    assert HFDualEncoderScorer("a", {"model": "align"}).model_id == "kakaobrain/align-base"


def test_per_token_features_use_the_first_token():
    tokens = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    assert torch.equal(_features(tokens), tokens[:, 0, :])


def test_vision_passes_are_counted(tiny_clip):
    from vlcomp.models.vision_count import LOG_PATTERN, count_vision_passes

    scorer = build_scorer("tiny", {"family": "hf_dual", "model": str(tiny_clip[0])})
    passes = count_vision_passes(scorer)
    scorer.embed_images([Image.new("RGB", (40, 30), (9 * k, 0, 0)) for k in range(5)],
                        batch_size=2)
    scorer.embed_texts(["a red square"])
    assert (passes.images, passes.calls) == (5, 3)
    assert LOG_PATTERN.search(passes.summary()).groups() == ("5", "tiny")


def test_image_sets_read_through_loader_workers(tiny_clip, tmp_path):
    """Pictures preprocessed in DataLoader workers, one at a time, embed as the processor's
    whole batch does (ARO's shuffled views included)."""
    from transformers import CLIPProcessor

    from .pixel_checks import assert_loader_matches, batch_processor_reference

    path, model = tiny_clip
    scorer = build_scorer("clip", {"family": "hf_dual", "model": str(path)})
    processor = CLIPProcessor.from_pretrained(path)
    reference = batch_processor_reference(
        processor, lambda px: _features(model.get_image_features(pixel_values=px)))
    assert_loader_matches(scorer, tmp_path, reference, processor.image_processor)
