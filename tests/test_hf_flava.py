"""The hf_flava family on a tiny random FLAVA saved locally (as ``FlavaForPreTraining``, like
``facebook/flava-full``): ITM pair scores as ARO's ``model_zoo/flava.py`` computes them,
unimodal embeddings as family hf_dual, one vision pass per picture for both."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes

from .test_hf_dual_models import SMALL, VIT, _bert_tokenizer

IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200), (10, 200, 30))]
TEXTS = ["a red square", "a blue circle on a mat", "dog", "a red square"]
PATCHES = 16  # (32 / 8) ** 2


@pytest.fixture(scope="module")
def tiny_flava(tmp_path_factory):
    """(saved folder, the model as built): weights drawn wide (std 0.5) so that the ITM
    head's match probabilities spread well away from 1/2."""
    import transformers as tf

    folder = tmp_path_factory.mktemp("tiny_flava")
    tokenizer = _bert_tokenizer(folder / "tok")
    wide = {"initializer_range": 0.5}
    config = tf.FlavaConfig(
        image_config={**VIT, **wide}, multimodal_config={**SMALL, **wide},
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=77, **SMALL,
                         **wide),
        image_codebook_config=dict(hidden_size=8, num_groups=1, num_blocks_per_group=1,
                                   vocab_size=16),
        hidden_size=16, projection_dim=8, **wide)
    torch.manual_seed(0)
    model = tf.FlavaForPreTraining(config).eval()
    model.save_pretrained(folder / "model")
    images = tf.FlavaImageProcessor(size={"height": 32, "width": 32},
                                    crop_size={"height": 32, "width": 32})
    tf.FlavaProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(
        folder / "model")
    return folder / "model", model


def _aro_itm_logits(path, model, images, texts):
    """ARO's FLAVA ITM forward: FlavaForPreTraining on the processor's inputs padded to 77
    tokens, ``input_ids_masked`` = the ids and an all-zero patch mask (the MIM/MLM losses,
    and so the codebook pixels, play no part in ``itm_logits``)."""
    from transformers import AutoProcessor

    inputs = AutoProcessor.from_pretrained(path)(
        text=texts, images=images, padding="max_length", max_length=77, return_tensors="pt")
    inputs["input_ids_masked"] = inputs["input_ids"].clone()
    inputs["bool_masked_pos"] = torch.zeros(len(images), PATCHES, dtype=torch.bool)
    with torch.no_grad():
        return model(**inputs, return_loss=False).itm_logits


def test_itm_scores_equal_aros_softmax_match_probability(tiny_flava):
    path, model = tiny_flava
    scorer = build_scorer("flava", {"family": "hf_flava", "model": str(path)})
    images = [IMAGES[0], IMAGES[1], IMAGES[2], IMAGES[0]]
    logits = _aro_itm_logits(path, model, images, TEXTS)
    probs = scorer.score_pairs(images, TEXTS, batch_size=3)  # default: itm_prob (ARO)
    np.testing.assert_allclose(probs, logits.softmax(-1)[:, 1].numpy(), atol=1e-5)
    assert np.ptp(probs) > 0.1  # the comparison is not vacuous
    np.testing.assert_allclose(scorer.score_pairs(images, TEXTS, kind="itm_logit"),
                               logits[:, 1].numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="pair score 'itm_plus_itc'"):
        scorer.score_pairs(images, TEXTS, kind="itm_plus_itc")
    with pytest.raises(ValueError, match="4 images but 1 texts"):
        scorer.score_pairs(images, TEXTS[:1])


def test_embeddings_equal_the_hf_dual_familys(tiny_flava):
    path, _ = tiny_flava
    flava = build_scorer("flava", {"family": "hf_flava", "model": str(path), "max_chars": 330})
    dual = build_scorer("flava", {"family": "hf_dual", "model": str(path), "max_chars": 330})
    np.testing.assert_allclose(flava.embed_images(IMAGES), dual.embed_images(IMAGES), atol=1e-6)
    np.testing.assert_allclose(flava.embed_texts(TEXTS), dual.embed_texts(TEXTS), atol=1e-6)
    states = flava.image_states(IMAGES, batch_size=2)
    np.testing.assert_allclose(flava.embed_image_states(states), dual.embed_images(IMAGES),
                               atol=1e-5)


def test_texts_are_cut_at_max_length(tiny_flava):
    path, _ = tiny_flava
    scorer = build_scorer("flava", {"family": "hf_flava", "model": str(path)})
    words = (["a", "red", "dog", "on", "mat"] * 20)[:90]  # one token each; 75 fit
    long, cut = " ".join(words), " ".join(words[:75])
    np.testing.assert_allclose(scorer.score_pairs(IMAGES[:2], [long, cut]),
                               scorer.score_pairs(IMAGES[:2], [cut, cut]), atol=1e-6)
    np.testing.assert_allclose(scorer.embed_texts([long]), scorer.embed_texts([cut]),
                               atol=1e-6)


def test_one_vision_pass_per_picture_serves_pairs_and_embeddings(tiny_flava, tmp_path):
    """A pair plan as FLAVA's score_pairs job builds it: ITM pairs of some pictures, every
    picture embedded; each picture (by content) through the image encoder once."""
    from vlcomp.score.pair_plan import PairPlan, score_plan
    from vlcomp.score.pairs import ImageRef

    path, _ = tiny_flava
    scorer = build_scorer("flava", {"family": "hf_flava", "model": str(path)})
    refs = []
    for k, image in enumerate([*IMAGES, IMAGES[0]]):  # the last file repeats the first
        image.save(tmp_path / f"{k}.png")
        refs.append(ImageRef(str(tmp_path / f"{k}.png"), None))
    plan = PairPlan()
    plan.want(refs[0], TEXTS[:2])
    plan.want(refs[1], TEXTS)
    plan.want(refs[3], ["dog"])
    for ref in refs:
        plan.embed(ref)
    passes = count_vision_passes(scorer)
    scored = score_plan(scorer, plan, batch_size=2, image_batch=2, chunk_pairs=3,
                        options={"kind": "itm_prob"})
    assert passes.images == 3 == len(plan.refs)
    opened = [Image.open(r.path).convert("RGB") for r in refs]
    first = [*TEXTS[:2], "dog"]  # the first picture's texts and its copy's
    np.testing.assert_allclose(scored.scores(0, first),
                               scorer.score_pairs([opened[0]] * 3, first), atol=1e-6)
    np.testing.assert_allclose(scored.embedding(refs), scorer.embed_images(opened), atol=1e-5)


def test_config_checks_pair_options():
    from vlcomp.config import ConfigError
    from vlcomp.config_checks import _check_pair_options

    _check_pair_options("f", {"family": "hf_flava", "pair_score": "itm_prob",
                              "pair_benchmarks": ["vg_relation", "coco_order"]})
    _check_pair_options("f", {"family": "hf_flava", "pair_score": "none"})
    with pytest.raises(ConfigError, match="'itm_plus_itc' is not a hf_flava pair score"):
        _check_pair_options("f", {"family": "hf_flava", "pair_score": "itm_plus_itc"})
    with pytest.raises(ConfigError, match="family hf_dual scores no pairs"):
        _check_pair_options("f", {"family": "hf_dual", "pair_score": "itm_prob"})
    with pytest.raises(ConfigError, match=r"\['coco_retrieval'\] are not choice benchmarks"):
        _check_pair_options("f", {"family": "hf_flava", "pair_score": "itm_prob",
                                  "pair_benchmarks": ["vg_relation", "coco_retrieval"]})
