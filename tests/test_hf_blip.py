"""The hf_blip_itm family on a tiny random BLIP saved locally with its processor."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.registry import build_scorer

from .tiny_blip import images_through_vision, save_tiny_blip

WORDS = ["a", "red", "blue", "square", "circle", "dog", "on", "mat"]


@pytest.fixture(scope="module")
def tiny_blip(tmp_path_factory):
    from transformers import BlipForImageTextRetrieval

    path, model, _ = save_tiny_blip(tmp_path_factory.mktemp("tiny_blip"),
                                    BlipForImageTextRetrieval, WORDS)
    return path, model


IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
TEXTS = ["a red square", "a blue circle on a mat"]


def test_itc_embeddings_match_the_models_cosine(tiny_blip):
    from transformers import BlipProcessor

    path, model = tiny_blip
    scorer = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path)})
    img, txt = scorer.embed_images(IMAGES), scorer.embed_texts(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(txt, axis=1), 1, atol=1e-6)
    processor = BlipProcessor.from_pretrained(path)
    inputs = processor(images=IMAGES, text=TEXTS, padding=True, return_tensors="pt")
    with torch.no_grad():
        cosine = model(**inputs, use_itm_head=False).itm_score
    np.testing.assert_allclose(img @ txt.T, cosine.numpy(), atol=1e-5)


CLS_FIRST = {"itm_first_token": "cls"}  # transformers' BlipForImageTextRetrieval's ids


def test_itm_pair_scores(tiny_blip):
    from transformers import BlipProcessor

    path, model = tiny_blip
    scorer = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path), **CLS_FIRST})
    logits = scorer.score_pairs(IMAGES, TEXTS, batch_size=1)
    inputs = BlipProcessor.from_pretrained(path)(images=IMAGES, text=TEXTS, padding=True,
                                                 return_tensors="pt")
    with torch.no_grad():
        expected = model(**inputs, use_itm_head=True).itm_score
    np.testing.assert_allclose(logits, expected[:, 1].numpy(), atol=1e-5)
    probs = scorer.score_pairs(IMAGES, TEXTS, kind="itm_prob")
    np.testing.assert_allclose(probs, expected.softmax(-1)[:, 1].numpy(), atol=1e-5)
    aro = scorer.score_pairs(IMAGES, TEXTS, kind="itm_plus_itc")
    cosine = np.einsum("ij,ij->i", scorer.embed_images(IMAGES), scorer.embed_texts(TEXTS))
    np.testing.assert_allclose(aro, logits + cosine, atol=1e-5)
    with pytest.raises(ValueError, match="pair score 'itc'"):
        scorer.score_pairs(IMAGES, TEXTS, kind="itc")
    with pytest.raises(ValueError, match="2 images but 1 texts"):
        scorer.score_pairs(IMAGES, TEXTS[:1])


def test_itm_encodes_each_distinct_image_once(tiny_blip):
    """Three texts against each of two images: two images through the vision tower, and the
    same scores as the model's own forward pass pair by pair."""
    from transformers import BlipProcessor

    path, model = tiny_blip
    scorer = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path), **CLS_FIRST})
    texts = ["a red square", "a dog on a mat", "blue circle"] * 2
    images = [IMAGES[0]] * 3 + [IMAGES[1]] * 3
    with images_through_vision(scorer) as seen:
        scores = scorer.score_pairs(images, texts, kind="itm_plus_itc", batch_size=4)
    assert sum(seen) == 2
    processor = BlipProcessor.from_pretrained(path)
    for k, (image, text) in enumerate(zip(images, texts, strict=True)):
        inputs = processor(images=[image], text=[text], return_tensors="pt")
        with torch.no_grad():
            itm = model(**inputs, use_itm_head=True).itm_score[0, 1]
            itc = model(**inputs, use_itm_head=False).itm_score[0, 0]
        assert scores[k] == pytest.approx(float(itm + itc), abs=1e-5)


def test_one_vision_pass_serves_itm_pairs_and_itc_embeddings(tiny_blip, tmp_path):
    """A pair plan with pictures to score and to embed: each picture through the tower once
    (a byte-equal copy is the same picture), pair scores equal to `score_pairs`, embeddings
    equal to `embed_images`."""
    from vlcomp.score.pair_plan import PairPlan, score_plan
    from vlcomp.score.pairs import ImageRef

    path, _ = tiny_blip
    scorer = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path)})
    refs = []
    for k, image in enumerate([*IMAGES, IMAGES[0]]):  # the third file repeats the first
        image.save(tmp_path / f"{k}.png")
        refs.append(ImageRef(str(tmp_path / f"{k}.png"), None))
    gallery = ImageRef(str(tmp_path / "g.png"), None)
    Image.new("RGB", (20, 20), (0, 150, 0)).save(gallery.path)
    plan = PairPlan()
    plan.want(refs[0], TEXTS)
    plan.want(refs[1], TEXTS[:1])
    plan.want(refs[2], ["a dog"])
    for ref in [*refs, gallery]:
        plan.embed(ref)
    with images_through_vision(scorer) as seen:
        scored = score_plan(scorer, plan, batch_size=2, chunk_pairs=2,
                            options={"kind": "itm_plus_itc"})
    assert sum(seen) == 3 and len(plan.refs) == 3
    opened = [Image.open(r.path).convert("RGB") for r in refs]
    first = [*TEXTS, "a dog"]  # the texts of the first picture and of its copy
    expected = scorer.score_pairs([opened[0]] * 3, first, kind="itm_plus_itc")
    np.testing.assert_allclose(scored.scores(0, first), expected, atol=1e-5)
    embedded = scored.embedding([*refs, gallery])
    direct = scorer.embed_images([*opened, Image.open(gallery.path).convert("RGB")])
    np.testing.assert_allclose(embedded, direct, atol=1e-5)


def test_itm_pass_puts_enc_first_by_default(tiny_blip):
    """BLIP's blip_itm.py: ids[:, 0] = enc_token_id for the ITM pass only. The default
    (``enc``) feeds [ENC] first and equals transformers' forward on ids edited that way; it
    differs from ``cls``; ITC embeddings and the ITC term keep [CLS]."""
    from transformers import BlipProcessor

    path, model = tiny_blip
    enc = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path)})
    cls = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path), **CLS_FIRST})
    assert enc.itm_first_token == "enc"
    enc._load()
    first: list[list[int]] = []
    hook = enc._model.text_encoder.register_forward_hook(
        lambda module, args, kwargs, out: first.append(kwargs["input_ids"][:, 0].tolist()),
        with_kwargs=True)
    try:
        logits = enc.score_pairs(IMAGES, TEXTS)
        first_itm = list(first)
        enc.score_pairs(IMAGES, TEXTS, kind="itm_plus_itc")
    finally:
        hook.remove()
    assert first_itm == [[6, 6]]  # [ENC] is id 6 in tiny_blip's vocabulary
    assert first[1:] == [[6, 6], [2, 2]]  # itm_plus_itc: the ITM pass, then ITC with [CLS]
    processor = BlipProcessor.from_pretrained(path)
    inputs = processor(images=IMAGES, text=TEXTS, padding=True, return_tensors="pt")
    inputs["input_ids"][:, 0] = 6
    with torch.no_grad():
        expected = model(**inputs, use_itm_head=True).itm_score[:, 1]
    np.testing.assert_allclose(logits, expected.numpy(), atol=1e-5)
    assert not np.allclose(logits, cls.score_pairs(IMAGES, TEXTS), atol=1e-4)
    np.testing.assert_allclose(enc.embed_texts(TEXTS), cls.embed_texts(TEXTS), atol=1e-6)
    itc = np.einsum("ij,ij->i", enc.embed_images(IMAGES), enc.embed_texts(TEXTS))
    np.testing.assert_allclose(enc.score_pairs(IMAGES, TEXTS, kind="itm_plus_itc"),
                               logits + itc, atol=1e-5)


def test_enc_token_lookup_and_errors(tmp_path):
    from transformers import BertTokenizer

    from vlcomp.models.hf_blip import enc_token_id

    (tmp_path / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"]))
    plain = BertTokenizer(str(tmp_path / "vocab.txt"))
    with pytest.raises(ValueError, match="model 'blip_x': its tokenizer has no \\[ENC\\]"):
        enc_token_id(plain, "blip_x")
    plain.add_special_tokens({"additional_special_tokens": ["[ENC]"]})  # BLIP's init_tokenizer
    assert enc_token_id(plain, "blip_x") == plain.convert_tokens_to_ids("[ENC]") == len(plain) - 1
    plain.enc_token_id = 9  # BLIP sets the attribute; it wins
    assert enc_token_id(plain, "blip_x") == 9
    with pytest.raises(ValueError, match="itm_first_token 'sep'"):
        build_scorer("b", {"family": "hf_blip_itm", "itm_first_token": "sep"})


def test_image_sets_read_through_loader_workers(tiny_blip, tmp_path):
    """Pictures preprocessed in DataLoader workers, one at a time, embed as the processor's
    whole batch does (ARO's shuffled views included)."""
    from transformers import BlipProcessor

    from .pixel_checks import assert_loader_matches, batch_processor_reference

    path, model = tiny_blip
    scorer = build_scorer("blip", {"family": "hf_blip_itm", "model": str(path)})
    processor = BlipProcessor.from_pretrained(path)
    reference = batch_processor_reference(
        processor, lambda px: model.vision_proj(model.vision_model(pixel_values=px)[0][:, 0, :]))
    assert_loader_matches(scorer, tmp_path, reference, processor.image_processor)
