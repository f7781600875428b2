"""The hf_blip_lm family: teacher-forced log P(text | image) on a tiny random BLIP captioner."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.hf_blip_lm import BlipCaptionScorer

from .tiny_blip import save_tiny_blip

WORDS = ["a", "picture", "of", "red", "blue", "square", "circle", "dog", "on", "mat"]


@pytest.fixture(scope="module")
def tiny_captioner(tmp_path_factory):
    from transformers import BlipForConditionalGeneration

    return save_tiny_blip(tmp_path_factory.mktemp("tiny_blip_lm"),
                          BlipForConditionalGeneration, WORDS)


IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]


def _by_hand(model, tokenizer, image, text, prompt="a picture of "):
    """log P over the caption tokens and [SEP], with [DEC] first, one pair at a time."""
    from transformers import BlipImageProcessor

    ids = tokenizer(prompt + text, return_tensors="pt").input_ids
    ids[0, 0] = 5
    skip = len(tokenizer(prompt).input_ids) - 1
    pixels = BlipImageProcessor(size={"height": 32, "width": 32})(
        images=[image], return_tensors="pt").pixel_values
    with torch.no_grad():
        logits = model(pixel_values=pixels, input_ids=ids).logits[0]
    logp = torch.log_softmax(logits, dim=-1)
    return sum(float(logp[k - 1, ids[0, k]]) for k in range(skip, ids.shape[1])), \
        ids.shape[1] - skip


def test_sum_and_mean_log_likelihood_by_hand(tiny_captioner):
    path, model, tokenizer = tiny_captioner
    texts = ["red square", "a blue circle on a mat"]
    total = BlipCaptionScorer("b", {"model": str(path)}).log_likelihood(IMAGES, texts)
    mean = BlipCaptionScorer("b", {"model": str(path), "reduction": "mean"}).log_likelihood(
        IMAGES, texts)
    for k, text in enumerate(texts):
        expected, n = _by_hand(model, tokenizer, IMAGES[k], text)
        assert total[k] == pytest.approx(expected, abs=1e-4)  # padded batch = one by one
        assert mean[k] == pytest.approx(expected / n, abs=1e-5)
    assert (total < 0).all()


def test_prompt_and_errors(tiny_captioner):
    path, _, _ = tiny_captioner
    scorer = BlipCaptionScorer("b", {"model": str(path)})
    assert scorer.prompt_length() == 4  # [DEC] a picture of
    with pytest.raises(ValueError, match="2 images but 1 texts"):
        scorer.log_likelihood(IMAGES, ["dog"])
    with pytest.raises(ValueError, match="reduction 'max'"):
        BlipCaptionScorer("b", {"reduction": "max"})
    other = BlipCaptionScorer("b", {"model": str(path), "prompt": ""})
    assert not np.allclose(other.log_likelihood(IMAGES[:1], ["dog"]),
                           scorer.log_likelihood(IMAGES[:1], ["dog"]))


def test_registry_builds_the_captioner(tiny_captioner):
    from vlcomp.models.registry import FAMILIES, build_scorer

    path, _, _ = tiny_captioner
    assert FAMILIES["hf_blip_lm"] is BlipCaptionScorer
    entry = {"family": "hf_blip_lm", "model": str(path), "reduction": "mean"}
    scorer = build_scorer("blip_lm", entry)
    assert isinstance(scorer, BlipCaptionScorer) and scorer.name == "blip_lm"
    direct = BlipCaptionScorer("b", {"model": str(path), "reduction": "mean"})
    texts = ["red square", "a blue circle on a mat"]
    np.testing.assert_allclose(scorer.log_likelihood(IMAGES, texts),
                               direct.log_likelihood(IMAGES, texts), atol=1e-6)
