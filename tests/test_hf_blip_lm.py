"""The hf_blip_lm family: teacher-forced log P(text | image) on a tiny random BLIP captioner."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.hf_blip_lm import BlipCaptionScorer

from .tiny_blip import images_through_vision, save_tiny_blip

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
    total = BlipCaptionScorer("b", {"model": str(path), "reduction": "sum"}).log_likelihood(
        IMAGES, texts)
    mean = BlipCaptionScorer("b", {"model": str(path)}).log_likelihood(IMAGES, texts)  # Eq. 2
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


def test_vision_tower_runs_once_per_distinct_image(tiny_captioner):
    """Five captions per image: two vision passes' worth of images, ten text passes; the
    scores equal those of one pair at a time."""
    path, model, tokenizer = tiny_captioner
    scorer = BlipCaptionScorer("b", {"model": str(path), "reduction": "sum"})
    texts = ["red square", "dog on mat", "a blue circle", "red", "mat on a dog"]
    images = [IMAGES[0]] * 5 + [IMAGES[1]] * 5
    with images_through_vision(scorer) as seen:
        scores = scorer.log_likelihood(images, texts * 2, batch_size=4)
    assert sum(seen) == 2
    for k, (image, text) in enumerate(zip(images, texts * 2, strict=True)):
        assert scores[k] == pytest.approx(_by_hand(model, tokenizer, image, text)[0], abs=1e-4)


def test_gaussian_null_pixels():
    from vlcomp.score.text_prior import gaussian_null_pixels

    a = gaussian_null_pixels(4, 32, seed=3)
    assert a.shape == (4, 3, 32, 32) and a.dtype == torch.float32
    assert torch.equal(a, gaussian_null_pixels(4, 32, seed=3))
    assert not torch.equal(a, gaussian_null_pixels(4, 32, seed=4))
    big = gaussian_null_pixels(8, 64, mean=1.0, std=0.25)
    assert float(big.mean()) == pytest.approx(1.0, abs=0.01)
    assert float(big.std()) == pytest.approx(0.25, abs=0.01)
    pixel = gaussian_null_pixels(2, 16, mean=0.4, space="pixel", image_mean=(0.5, 0.5, 0.5),
                                 image_std=(0.5, 0.5, 0.5))
    assert float(pixel.min()) >= -1 and float(pixel.max()) <= 1  # clipped to [0, 1] first
    with pytest.raises(ValueError, match="null image space"):
        gaussian_null_pixels(1, 8, space="latent")


def test_null_image_prior_is_the_mean_probability_over_null_images(tiny_captioner):
    from vlcomp.score.text_prior import log_prior_given_states

    path, _, _ = tiny_captioner
    scorer = BlipCaptionScorer("b", {"model": str(path)})
    states = scorer.null_image_states(3, seed=0)
    assert states.shape[0] == 3
    texts = ["red square", "a dog on a mat"]
    log_prior, per_image = log_prior_given_states(scorer, states, texts, batch_size=4)
    assert per_image.shape == (2, 3)
    for t, text in enumerate(texts):
        for k in range(3):  # each cell is log P(text | null image k), scored alone
            alone = scorer.log_likelihood_given_states(states, torch.tensor([k]), [text])
            assert per_image[t, k] == pytest.approx(float(alone[0]), abs=1e-5)
        assert log_prior[t] == pytest.approx(np.log(np.exp(per_image[t]).mean()), abs=1e-9)
    # the null images differ from real ones: a real image gives other likelihoods
    real = scorer.log_likelihood([IMAGES[0]], texts[:1])
    assert not np.isclose(real[0], per_image[0]).any()


def test_training_images_are_drawn_by_seed_not_row_order():
    from vlcomp.score.text_prior import sample_image_ids

    ids = [f"img{k}" for k in range(30)]
    first = sample_image_ids(ids, 5, seed=1)
    assert first == sample_image_ids(list(reversed(ids)), 5, seed=1) == sorted(first)
    assert first != sample_image_ids(ids, 5, seed=2) and len(set(first)) == 5
    with pytest.raises(ValueError, match="cannot draw 31 images from 30"):
        sample_image_ids(ids, 31, seed=0)


def test_gallery_score_matrix_encodes_each_image_once(tiny_captioner, tmp_path):
    """S[image, text] for retrieval from a pair plan equals pair-by-pair scoring; 3 images,
    3 vision passes whatever the number of texts or the chunking."""
    from vlcomp.score.pair_plan import PairPlan, score_plan
    from vlcomp.score.pairs import ImageRef

    path, _, _ = tiny_captioner
    scorer = BlipCaptionScorer("b", {"model": str(path)})
    images = [*IMAGES, Image.new("RGB", (30, 30), (0, 160, 0))]
    refs = []
    for k, image in enumerate(images):
        image.save(tmp_path / f"{k}.png")
        refs.append(ImageRef(str(tmp_path / f"{k}.png"), None))
    texts = ["red square", "dog on mat", "a blue circle", "mat"]
    plan = PairPlan()
    for ref in refs:
        plan.want(ref, texts)
    with images_through_vision(scorer) as seen:
        matrix = score_plan(scorer, plan, batch_size=3, chunk_pairs=5).matrix(refs, texts)
    assert sum(seen) == 3 and matrix.shape == (3, 4)
    opened = [Image.open(r.path).convert("RGB") for r in refs]
    pairs = scorer.log_likelihood([i for i in opened for _ in texts], texts * 3)
    np.testing.assert_allclose(matrix, pairs.reshape(3, 4), atol=1e-5)


def test_vision_pass_counter_sees_distinct_images_only(tiny_captioner):
    from vlcomp.models.vision_count import LOG_PATTERN, count_vision_passes

    scorer = BlipCaptionScorer("cap", {"model": str(tiny_captioner[0])})
    passes = count_vision_passes(scorer)
    scorer.log_likelihood([IMAGES[0]] * 3 + [IMAGES[1]] * 2, ["red", "dog", "mat", "a", "of"],
                          batch_size=2)
    assert passes.images == 2
    assert LOG_PATTERN.search(passes.summary()).groups() == ("2", "cap")


def test_per_benchmark_null_image_counts(tiny_captioner):
    """n_by_benchmark: a benchmark's prior uses the first n of one draw of the largest n; a
    text two benchmarks share is scored against the most images either needs."""
    from vlcomp.score.text_prior import null_counts, null_prior_matrix

    null = {"n": 2, "n_by_benchmark": {"winoground": 4}}
    n_for = null_counts(null, ["aro", "winoground"])
    assert n_for == {"aro": 2, "winoground": 4}
    assert null_counts({"n": 10}, ["aro"]) == {"aro": 10}
    scorer = BlipCaptionScorer("b", {"model": str(tiny_captioner[0])})
    states = scorer.null_image_states(4, seed=0)
    torch.testing.assert_close(states[:2], scorer.null_image_states(2, seed=0))
    union = ["a dog", "red square", "mat on a dog"]
    texts = {"aro": ["a dog", "red square"], "winoground": ["red square", "mat on a dog"]}
    matrix = null_prior_matrix(scorer, states, union, texts, n_for, batch_size=3)
    assert np.isnan(matrix[0, 2:]).all() and not np.isnan(matrix[1:]).any()
    for t, text in enumerate(union):
        for k in range(2 if t == 0 else 4):
            alone = scorer.log_likelihood_given_states(states, torch.tensor([k]), [text])
            assert matrix[t, k] == pytest.approx(float(alone[0]), abs=1e-5)
