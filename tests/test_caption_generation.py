"""Caption generation with an hf_blip_lm captioner: BLIP's decoding on a tiny random BLIP."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from PIL import Image

from vlcomp.models.caption_generation import (
    GenerationSettings,
    caption_image_set,
    caption_images,
    strip_prompt,
)
from vlcomp.models.hf_blip_lm import BlipCaptionScorer

from .tiny_blip import save_tiny_blip

WORDS = ["a", "picture", "of", "red", "blue", "square", "circle", "dog", "on", "mat"]
COLOURS = [(200, 0, 0), (0, 0, 200), (0, 180, 40), (250, 250, 250), (20, 20, 20)]


@pytest.fixture(scope="module")
def tiny_captioner(tmp_path_factory):
    """The tiny BLIP with strong cross-attention (N(0, 1) weights), so that its captions
    depend on the image (at BLIP's 0.02 init the decoder hardly looks at it)."""
    from transformers import BlipForConditionalGeneration

    path, model, tokenizer = save_tiny_blip(tmp_path_factory.mktemp("tiny_blip_gen"),
                                            BlipForConditionalGeneration, WORDS)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, weight in model.text_decoder.named_parameters():
            if "crossattention" in name and weight.dim() == 2:
                weight.copy_(torch.randn(weight.shape, generator=generator))
    model.save_pretrained(path)
    return path, model, tokenizer


def pictures() -> list[Image.Image]:
    """Images the tiny vision tower tells apart: a colour with a grey square in a corner."""
    out = []
    for k, colour in enumerate(COLOURS):
        image = Image.new("RGB", (40, 30), colour)
        image.paste((128, 128, 128), (4 * k, 2 * k, 4 * k + 12, 2 * k + 10))
        out.append(image)
    return out


def blip_reference(model, tokenizer, images, prompt="a picture of ", beams=3, max_length=20,
                   min_length=5) -> list[str]:
    """BLIP's BLIP_Decoder.generate (salesforce/BLIP models/blip.py), written out: the
    prompt's ids with [DEC] first and [SEP] dropped, beam search of the text decoder ending at
    [SEP], decoded and cut by ``caption[len(prompt):]``. (BLIP repeats the vision states per
    beam by hand; today's ``generate`` expands them itself.)"""
    from transformers import BlipImageProcessor

    pixels = BlipImageProcessor(size={"height": 32, "width": 32})(
        images=images, return_tensors="pt").pixel_values
    with torch.no_grad():
        states = model.vision_model(pixel_values=pixels).last_hidden_state
        ids = tokenizer([prompt] * len(images), return_tensors="pt").input_ids
        ids[:, 0] = tokenizer.bos_token_id
        out = model.text_decoder.generate(
            input_ids=ids[:, :-1], max_length=max_length, min_length=min_length,
            num_beams=beams, eos_token_id=tokenizer.sep_token_id,
            pad_token_id=tokenizer.pad_token_id, repetition_penalty=1.0,
            encoder_hidden_states=states,
            encoder_attention_mask=torch.ones(states.shape[:2], dtype=torch.long))
    return [tokenizer.decode(o, skip_special_tokens=True)[len(prompt):] for o in out]


def test_captions_follow_blips_decoding(tiny_captioner):
    path, model, tokenizer = tiny_captioner
    scorer = BlipCaptionScorer("tiny", {"model": str(path)})
    images = pictures()
    ours = caption_images(scorer, images)
    assert ours == blip_reference(model, tokenizer, images)
    assert len(set(ours)) > 1  # the images are told apart
    assert all(isinstance(c, str) and not c.startswith("a picture of") for c in ours)
    # other settings reach generate: a shorter limit, a single beam
    short = GenerationSettings(num_beams=1, max_length=7, min_length=5)
    assert caption_images(scorer, images, short) == blip_reference(
        model, tokenizer, images, beams=1, max_length=7, min_length=5)
    # max_length counts the prompt's 4 tokens ([DEC] a picture of): 7 leaves 3 words at most
    assert max(len(c.split()) for c in caption_images(scorer, images, short)) <= 3


def test_image_set_captions_do_not_depend_on_batching(tiny_captioner, tmp_path):
    path, _, _ = tiny_captioner
    scorer = BlipCaptionScorer("tiny", {"model": str(path)})
    files = []
    for k, image in enumerate(pictures()):
        files.append(tmp_path / f"img{k}.png")
        image.save(files[-1])
    table = pd.DataFrame({"image_id": [f"img{k}" for k in range(5)], "path": map(str, files)})
    one = caption_image_set(scorer, table, batch_size=1)
    assert list(one.columns) == ["image_id", "caption"]
    assert one.image_id.tolist() == table.image_id.tolist()
    assert one.caption.tolist() == caption_images(scorer, pictures())
    pd.testing.assert_frame_equal(caption_image_set(scorer, table, batch_size=2), one)
    pd.testing.assert_frame_equal(caption_image_set(scorer, table, batch_size=5), one)
    # a bbox crops the file first, as the embedder does
    big = Image.new("RGB", (100, 80), (0, 0, 0))
    big.paste(pictures()[2], (30, 20))
    big.save(tmp_path / "big.png")
    boxed = pd.DataFrame({"image_id": ["crop"], "path": [str(tmp_path / "big.png")],
                          "bbox": [[30.0, 20.0, 40.0, 30.0]]})
    assert caption_image_set(scorer, boxed).caption.tolist() == [one.caption[2]]


def test_settings_prompt_and_errors(tiny_captioner, tmp_path):
    path, model, tokenizer = tiny_captioner
    assert GenerationSettings() == GenerationSettings(3, 20, 5, 1.0)  # caption_coco.yaml
    assert GenerationSettings.from_config(
        {"dataset": "coco", "beams": 5, "max_length": 30, "min_length": 10}
    ) == GenerationSettings(num_beams=5, max_length=30, min_length=10)
    with pytest.raises(ValueError, match="num_beams"):
        GenerationSettings(num_beams=0)
    with pytest.raises(ValueError, match="min_length"):
        GenerationSettings(max_length=4, min_length=5)
    assert strip_prompt("a picture of a red dog", "a picture of") == "a red dog"
    assert strip_prompt("a picture of", "a picture of") == ""
    with pytest.raises(ValueError, match="does not start with the prompt"):
        strip_prompt("the red dog", "a picture of")
    scorer = BlipCaptionScorer("tiny", {"model": str(path)})
    with pytest.raises(ValueError, match="no room after the prompt's 4 tokens"):
        caption_images(scorer, pictures()[:1], GenerationSettings(max_length=4, min_length=0))
    # the entry's prompt conditions the captions and is cut off them
    other = BlipCaptionScorer("tiny", {"model": str(path), "prompt": "a dog on "})
    captions = caption_images(other, pictures())
    assert captions == blip_reference(model, tokenizer, pictures(), prompt="a dog on ")
    assert captions != caption_images(scorer, pictures())
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['path'\]"):
        caption_image_set(scorer, pd.DataFrame({"image_id": ["a"]}))
    twice = pd.DataFrame({"image_id": ["a", "a"], "path": ["x.png", "y.png"]})
    with pytest.raises(ValueError, match="image 'a' twice"):
        caption_image_set(scorer, twice)
    assert caption_images(scorer, []) == []
