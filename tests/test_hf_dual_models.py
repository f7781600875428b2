"""The hf_dual family on tiny random ALIGN, AltCLIP, GroupViT and FLAVA models.

Each model is saved with its processor (tokenizer built offline) as its hub checkpoint is
(FLAVA as ``FlavaForPreTraining``, like ``facebook/flava-full``) and loaded through the
scorer's ``AutoModel`` / ``AutoProcessor`` path. References are the models' own forward
pass (``image_embeds`` / ``text_embeds``), or for FLAVA ARO's recipe: ``get_*_features``,
first token, texts padded to ``max_length``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.generate.tiny_pipeline import write_char_tokenizer
from vlcomp.models.registry import build_scorer

WORDS = ["a", "red", "blue", "square", "circle", "dog", "on", "mat"]
SMALL = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
VIT = dict(image_size=32, patch_size=8, **SMALL)
CLIP_IMAGES = dict(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200), (10, 200, 30))]
TEXTS = ["a red square", "a blue circle on a mat", "dog", "a red square"]


def _bert_tokenizer(folder):
    from transformers import BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return BertTokenizer(str(folder / "vocab.txt"))


def _align(folder):
    import transformers as tf

    tokenizer = _bert_tokenizer(folder)
    config = tf.AlignConfig(
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=64, **SMALL),
        # two EfficientNet blocks, 8 then 16 channels (width 0.25); 16 = image embedding size
        vision_config=dict(image_size=32, width_coefficient=0.25, depth_coefficient=1.0,
                           kernel_sizes=[3, 3], in_channels=[32, 32], out_channels=[32, 64],
                           strides=[1, 2], num_block_repeats=[1, 1], expand_ratios=[1, 2],
                           hidden_dim=64),
        projection_dim=16)
    images = tf.EfficientNetImageProcessor(size={"height": 32, "width": 32},
                                           crop_size={"height": 32, "width": 32})
    return tf.AlignModel(config), tf.AlignProcessor(image_processor=images,
                                                    tokenizer=tokenizer)


def _altclip(folder):
    import transformers as tf

    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("<mask>", 0.0)]
    vocab += [("\u2581" + w, -1.0) for w in WORDS]  # sentencepiece-style unigram pieces
    config = tf.AltCLIPConfig(
        text_config=dict(vocab_size=len(vocab), project_dim=16, max_position_embeddings=40,
                         pad_token_id=1, **SMALL),
        vision_config=VIT, projection_dim=8)
    return tf.AltCLIPModel(config), tf.AltCLIPProcessor(
        image_processor=tf.CLIPImageProcessor(**CLIP_IMAGES),
        tokenizer=tf.XLMRobertaTokenizer(vocab=vocab))


def _groupvit(folder):
    import transformers as tf

    vocab = write_char_tokenizer(folder)
    tokenizer = tf.CLIPTokenizer(vocab=str(folder / "vocab.json"),
                                 merges=str(folder / "merges.txt"), model_max_length=77)
    config = tf.GroupViTConfig(
        # eos_token_id=2: the pre-2023 configs' value, which pools at the largest id (eos)
        text_config=dict(vocab_size=len(vocab), bos_token_id=vocab["<|startoftext|>"],
                         eos_token_id=2, pad_token_id=1, **SMALL),
        vision_config=dict(VIT, num_hidden_layers=2, depths=[1, 1], num_group_tokens=[4, 0],
                           num_output_groups=[4, 2]),
        projection_dim=8, projection_intermediate_dim=16)
    return tf.GroupViTModel(config), tf.CLIPProcessor(
        image_processor=tf.CLIPImageProcessor(**CLIP_IMAGES), tokenizer=tokenizer)


def _flava(folder):
    import transformers as tf

    tokenizer = _bert_tokenizer(folder)
    config = tf.FlavaConfig(
        image_config=VIT, multimodal_config=SMALL,
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=77, **SMALL),
        image_codebook_config=dict(hidden_size=8, num_groups=1, num_blocks_per_group=1,
                                   vocab_size=16),
        hidden_size=16, projection_dim=8)
    images = tf.FlavaImageProcessor(size={"height": 32, "width": 32},
                                    crop_size={"height": 32, "width": 32})
    return tf.FlavaForPreTraining(config), tf.FlavaProcessor(image_processor=images,
                                                             tokenizer=tokenizer)


BUILDERS = {"align": _align, "altclip": _altclip, "groupvit": _groupvit, "flava": _flava}
DIMS = {"align": 16, "altclip": 8, "groupvit": 8, "flava": 8}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def tiny(request, tmp_path_factory):
    """(kind, saved folder, the model as built) for each architecture."""
    folder = tmp_path_factory.mktemp(f"tiny_{request.param}")
    torch.manual_seed(0)
    model, processor = BUILDERS[request.param](folder / "tok")
    model.eval().save_pretrained(folder / "model")
    processor.save_pretrained(folder / "model")
    return request.param, folder / "model", model


def _reference(kind, path, model):
    """Normalised (image, text) embeddings of IMAGES and TEXTS from the model itself, texts
    padded to a fixed length (ARO's ``padding="max_length"``)."""
    from transformers import AutoProcessor

    processor = AutoProcessor.from_pretrained(path)
    text = processor(text=TEXTS, padding="max_length", max_length=32, return_tensors="pt")
    pixels = processor(images=IMAGES, return_tensors="pt").pixel_values
    with torch.no_grad():
        if kind == "flava":  # ARO: model.flava.get_*_features(...)[:, 0, :]
            img = model.flava.get_image_features(pixel_values=pixels).pooler_output[:, 0, :]
            txt = model.flava.get_text_features(**text).pooler_output[:, 0, :]
        else:
            out = model(**text, pixel_values=pixels)
            img, txt = out.image_embeds, out.text_embeds
    return F.normalize(img, dim=-1).numpy(), F.normalize(txt, dim=-1).numpy()


def test_embeddings_equal_the_models_own(tiny):
    kind, path, model = tiny
    scorer = build_scorer(kind, {"family": "hf_dual", "model": str(path)})
    img, txt = scorer.embed_images(IMAGES), scorer.embed_texts(TEXTS, batch_size=2)
    assert img.shape == (3, DIMS[kind]) and txt.shape == (4, DIMS[kind])
    assert img.dtype == txt.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(img, axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(txt, axis=1), 1, atol=1e-6)
    ref_img, ref_txt = _reference(kind, path, model)
    np.testing.assert_allclose(img, ref_img, atol=1e-5)
    np.testing.assert_allclose(txt, ref_txt, atol=1e-5)
    # distinct inputs differ by more than the tolerance, so the comparison is not vacuous
    assert np.abs(txt[0] - txt[1]).max() > 1e-4 and np.abs(img[0] - img[1]).max() > 1e-4


def test_embeddings_do_not_depend_on_the_batch(tiny):
    kind, path, _ = tiny
    scorer = build_scorer(kind, {"family": "hf_dual", "model": str(path)})
    img, txt = scorer.embed_images(IMAGES), scorer.embed_texts(TEXTS)
    np.testing.assert_allclose(scorer.embed_images(IMAGES, batch_size=1), img, atol=1e-6)
    np.testing.assert_allclose(scorer.embed_images(IMAGES[1:2]), img[1:2], atol=1e-6)
    np.testing.assert_allclose(scorer.embed_texts(TEXTS, batch_size=1), txt, atol=1e-6)
    np.testing.assert_allclose(scorer.embed_texts(TEXTS[2:3]), txt[2:3], atol=1e-6)
    np.testing.assert_allclose(txt[0], txt[3], atol=1e-6)


@pytest.mark.parametrize("tiny", ["align"], indirect=True)
def test_align_truncates_texts_to_64_tokens(tiny):
    kind, path, _ = tiny
    scorer = build_scorer(kind, {"family": "hf_dual", "model": str(path)})
    words = (WORDS * 10)[:70]  # one token each; only 62 fit between [CLS] and [SEP]
    np.testing.assert_allclose(scorer.embed_texts([" ".join(words)]),
                               scorer.embed_texts([" ".join(words[:62])]), atol=1e-6)


@pytest.mark.parametrize("tiny", ["flava"], indirect=True)
def test_flava_ignores_the_processors_patch_mask(tiny):
    kind, path, _ = tiny
    scorer = build_scorer(kind, {"family": "hf_dual", "model": str(path)})
    plain = scorer.embed_images(IMAGES)
    images = scorer._processor.image_processor
    images.return_image_mask = images.return_codebook_pixels = True
    assert "bool_masked_pos" in scorer._processor(images=IMAGES, return_tensors="pt")
    np.testing.assert_allclose(scorer.embed_images(IMAGES), plain, atol=1e-6)


def test_papers_hub_ids_are_listed():
    from vlcomp.models import hf_blip, hf_blip_lm
    from vlcomp.models.hf_dual_encoder import HUB_IDS, HFDualEncoderScorer

    assert set(HUB_IDS.values()) == {"kakaobrain/align-base", "BAAI/AltCLIP",
                                      "nvidia/groupvit-gcc-yfcc", "facebook/flava-full"}
    assert HFDualEncoderScorer("f", {"model": "flava"}).model_id == "facebook/flava-full"
    assert hf_blip.PAPER_MODELS == ("Salesforce/blip-itm-base-coco",
                                    "Salesforce/blip-itm-large-coco")
    assert hf_blip_lm.PAPER_MODELS == ("Salesforce/blip-image-captioning-base",
                                       "Salesforce/blip-image-captioning-large")
