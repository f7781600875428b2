"""TROHN-Img: text-only scorers, caption selection with adversarial refinement, the
trohn_img objective, natural-vs-synthetic detectors and the detection-based BiVLC rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from vlcomp.metrics.detection import detection_scores, sugarcrepe_by_detection
from vlcomp.models.world_clip import build_world_clip, world_tokenizer
from vlcomp.text.text_scorers import BigramPlausibility, GrammarAcceptability, build_text_scorer
from vlcomp.text.trohn_img import adversarial_refine, preference_rate, select_negatives
from vlcomp.train.batches import BatchComposer
from vlcomp.train.clip_trainer import TrainConfig, train_clip
from vlcomp.train.data import generated_negatives
from vlcomp.train.detectors import DetectorConfig, accuracy, split_by_image, train_detector
from vlcomp.train.losses import trohn_img_loss
from vlcomp.world.grammar import CaptionParser

from .test_train import COLOURS, TINY_WORLD, _colour_task

# -- text-only scorers ---------------------------------------------------------------------------


def test_bigram_prefers_seen_word_order():
    corpus = ["a red circle to the left of a blue square."] * 20 + ["a green cross."] * 5
    lm = BigramPlausibility(corpus)
    good, shuffled = lm.score(["A red circle to the left of a blue square.",
                               "Square blue a of left the to circle red a."])
    assert 0 < shuffled < good < 1
    with pytest.raises(ValueError, match="non-empty"):
        BigramPlausibility([])


def test_grammar_acceptability_and_factory(world_cfg):
    parser = CaptionParser(world_cfg.shapes, world_cfg.colors, world_cfg.sizes)
    scorer = build_text_scorer({"kind": "grammar"}, parser=parser)
    assert isinstance(scorer, GrammarAcceptability)
    assert scorer.score(["A red circle.", "A circle red."]).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="unknown text scorer kind 'gpt'"):
        build_text_scorer({"kind": "gpt"})


# -- adversarial refinement and selection ----------------------------------------------------


def _signs_balanced(a: np.ndarray, b: np.ndarray) -> None:
    both = (a != 0) & (b != 0)
    same = both & ((a > 0) == (b > 0))
    assert ((a > 0) & same).sum() == ((a < 0) & same).sum()
    opposite = both & ~same
    assert ((a > 0) & opposite).sum() == ((a < 0) & opposite).sum()
    for zero, other in ((a == 0, b), (b == 0, a)):
        one = zero & (other != 0)
        assert (other[one] > 0).sum() == (other[one] < 0).sum()


def test_adversarial_refinement_balances_every_cell_and_is_seeded():
    rng = np.random.default_rng(0)
    a = np.clip(rng.normal(0.2, 0.3, 2000), -1, 1)
    b = np.clip(rng.normal(0.1, 0.3, 2000), -1, 1)
    a[:100], b[100:200], a[200:230], b[200:230] = 0.0, 0.0, 0.0, 0.0
    a[230], b[230] = 1.0, -1.0  # |gap| = 1 raised in the reference
    kept = adversarial_refine(a, b, np.random.default_rng(1))
    _signs_balanced(a[kept], b[kept])
    assert set(range(200, 230)) <= set(kept.tolist())  # both gaps zero: always kept
    assert preference_rate(a) > 60 and preference_rate(a[kept]) == pytest.approx(50, abs=3)
    again = adversarial_refine(a, b, np.random.default_rng(1))
    assert np.array_equal(kept, again)
    assert not np.array_equal(kept, adversarial_refine(a, b, np.random.default_rng(2)))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        adversarial_refine(np.array([1.5]), np.array([0.0]), rng)


def test_select_negatives_thresholds_and_dedupes():
    n = 40
    pairs = pd.DataFrame({
        "subtype": ["obj"] * n,
        "negative": [f"Negative caption {i}." for i in range(n - 2)] + ["short.", "No period"],
        "similarity": [0.5] * (n - 1) + [0.9995],
        "pos_plausibility": np.linspace(0.2, 0.6, n),
        "neg_plausibility": np.linspace(0.6, 0.2, n),
        "pos_acceptability": np.ones(n), "neg_acceptability": np.ones(n),
    })
    pairs.loc[5, "negative"] = pairs.loc[3, "negative"]
    chosen = select_negatives(pairs, quantile=0.5, seed=0)
    # top half by negative plausibility = rows 0..19, minus the duplicate row 5
    assert set(chosen.index) <= set(range(20)) - {5}
    assert (chosen.acceptability_gap == 0).all()
    assert (chosen.plausibility_gap > 0).sum() == (chosen.plausibility_gap < 0).sum()
    with pytest.raises(ValueError, match="lack column"):
        select_negatives(pairs.drop(columns="similarity"))


# -- the trohn_img objective ------------------------------------------------------------------


def _trohn_img_data(n: int = 32):
    images, captions = _colour_task(n, 0)
    names = list(COLOURS)
    negatives, image_rows, generated = [], [], []
    for caps in captions:
        colour = next(c for c in names if c in caps[0])
        other = names[(names.index(colour) + 1) % 4]
        negatives.append([[c.replace(colour, other)] for c in caps])
        image_rows.append([[len(generated)], [len(generated)]])
        generated.append(np.full((32, 32, 3), COLOURS[other], dtype=np.uint8))
    return images, captions, negatives, image_rows, np.stack(generated)


def test_composer_puts_generated_images_after_the_batch():
    _, captions, negatives, image_rows, _ = _trohn_img_data(8)
    counts = np.array([len(c) for c in captions])
    composer = BatchComposer("trohn_img", counts, world_tokenizer(TINY_WORLD), negatives,
                             negative_images=image_rows, n_images=8)
    chosen = np.arange(0, 16, 2)
    rows = composer.step(np.array([3, 5]), chosen, np.random.default_rng(0))
    assert rows.images.tolist() == [3, 5, 8 + 3, 8 + 5]
    assert rows.texts.tolist() == [6, 10] and rows.negatives.tolist() == [6, 10]
    with pytest.raises(ValueError, match="generated image"):
        BatchComposer("trohn_img", counts, world_tokenizer(TINY_WORLD), negatives)


def test_trohn_img_training_is_deterministic_and_uses_generated_images(tmp_path):
    images, captions, negatives, image_rows, generated = _trohn_img_data()
    tokenizer = world_tokenizer(TINY_WORLD)
    cfg = TrainConfig(epochs=1, batch_size=8, lr=2e-3, warmup_steps=2, seed=0, threads=2,
                      objective="trohn_img")
    states = []
    for pixels in (generated, generated, 255 - generated):
        torch.manual_seed(0)
        model = build_world_clip(TINY_WORLD)
        train_clip(model, images, captions, tokenizer, cfg, negatives=negatives,
                   negative_images=image_rows, generated_images=pixels)
        states.append(model.state_dict()["visual.attnpool.c_proj.weight"])
    assert torch.equal(states[0], states[1]) and not torch.equal(states[0], states[2])


def test_trohn_img_loss_is_symmetric_infonce_over_2b():
    torch.manual_seed(0)
    feats = [torch.nn.functional.normalize(torch.randn(3, 4), dim=1) for _ in range(4)]
    loss = trohn_img_loss(*feats, logit_scale=10.0)
    images, texts = torch.cat(feats[:2]), torch.cat(feats[2:])
    logits = 10.0 * images @ texts.T
    target = torch.arange(6)
    expected = (torch.nn.functional.cross_entropy(logits, target)
                + torch.nn.functional.cross_entropy(logits.T, target)) / 2
    assert torch.allclose(loss, expected)


def test_generated_negatives_align_with_caption_ids(tmp_path):
    from PIL import Image

    paths = []
    for k, colour in enumerate(("red", "blue")):
        path = tmp_path / f"g{k}.png"
        Image.new("RGB", (4, 4), COLOURS[colour]).save(path)
        paths.append(str(path))
    instances = pd.DataFrame({"caption_id": ["c1", "c1", "c3"],
                              "negative": ["n1", "n2", "n3"],
                              "negative_path": [paths[1], paths[0], paths[1]]})
    out = generated_negatives(instances, [["c1", "c2"], ["c3"]])
    assert out.captions == [[["n1", "n2"], []], [["n3"]]]
    assert out.image_rows == [[[1, 0], []], [[1]]]
    assert out.images.shape == (2, 4, 4, 3) and out.images[0, 0, 0].tolist() == [220, 20, 20]


# -- detectors ----------------------------------------------------------------------------------


def test_detector_learns_a_separable_direction():
    rng = np.random.default_rng(0)
    natural = rng.normal(0, 1, (300, 8)).astype(np.float32)
    synthetic = natural.copy()
    synthetic[:, 0] += 6.0  # Bayes accuracy 99.9 %
    det = train_detector(natural[:250], synthetic[:250], natural[250:], synthetic[250:],
                         DetectorConfig(epochs=20, batch_size=50, lr=0.05, seed=0))
    assert accuracy(det.probability(natural[250:]), det.probability(synthetic[250:])) > 97
    assert [r["epoch"] for r in det.log] == list(range(1, 21)) and 1 <= det.best_epoch <= 20
    again = train_detector(natural[:250], synthetic[:250], natural[250:], synthetic[250:],
                           DetectorConfig(epochs=20, batch_size=50, lr=0.05, seed=0))
    assert np.array_equal(det.weight, again.weight)


def test_detection_rules_by_hand():
    # item 0: everything right; item 1: image detector fooled on I1; item 2: text order wrong
    img0 = np.array([0.1, 0.1, 0.2])
    img1 = np.array([0.9, 0.4, 0.9])
    txt0 = np.array([0.3, 0.3, 0.7])
    txt1 = np.array([0.8, 0.8, 0.6])
    s = detection_scores(img0, img1, txt0, txt1)
    # from I0: [T, T, F]; I1: [T, F, F]; C0: [T, T, F]; C1: [T, T, T]
    assert s["I2T"] == pytest.approx(100 / 3) and s["T2I"] == pytest.approx(200 / 3)
    assert s["Group"] == pytest.approx(100 / 3)
    assert s["image_detection"] == pytest.approx(100 * 5 / 6)
    assert s["text_detection"] == pytest.approx(100 * 5 / 6)
    assert sugarcrepe_by_detection(txt0, txt1) == pytest.approx(200 / 3)



def test_detector_intervals_use_each_benchmarks_resamples():
    from vlcomp.metrics.detection import detector_uncertainty
    from vlcomp.metrics.uncertainty import bootstrap_rng, resample_weights
    from vlcomp.report.generation import detector_cells

    rng = np.random.default_rng(0)

    def probabilities(shift: float) -> pd.DataFrame:
        n, m = 60, 40
        bivlc = pd.DataFrame({"benchmark": "bivlc", "item_id": [f"b{k}" for k in range(n)],
                              **{c: rng.uniform(0, 1, n) + (shift if c.endswith("1") else 0)
                                 for c in ("p_image0", "p_image1", "p_text0", "p_text1")}})
        sugar = pd.DataFrame({"benchmark": "sugarcrepe", "item_id": [f"s{k}" for k in range(m)],
                              "p_text0": rng.uniform(0, 1, m),
                              "p_text1": rng.uniform(0, 1, m) + shift})
        return pd.concat([bivlc, sugar], ignore_index=True)

    probs = {"clip": probabilities(0.1), "trohn": probabilities(0.4)}
    intervals, comparisons = detector_uncertainty(probs, n_resamples=200, seed=3)
    clip = intervals[intervals.model == "clip"].set_index("metric")
    b = probs["clip"][probs["clip"].benchmark == "bivlc"]
    full = detection_scores(b.p_image0, b.p_image1, b.p_text0, b.p_text1)
    for metric in ("I2T", "T2I", "Group", "text_detection", "image_detection"):
        assert clip.loc[metric, "value"] == pytest.approx(full[metric])
        assert clip.loc[metric, "ci_low"] <= full[metric] <= clip.loc[metric, "ci_high"]
    assert clip.loc["SugarCrepe", "n"] == 40 and clip.loc["I2T", "n"] == 60
    # the resamples are the benchmark's own: a statistic redrawn by hand matches
    weights = np.concatenate(resample_weights(60, 200, bootstrap_rng("bivlc", 3)))
    i2t = ((b.p_image0 <= 0.5) & (b.p_text0 < b.p_text1) & (b.p_image1 > 0.5)).to_numpy()
    draws = 100 * (weights @ i2t) / weights.sum(axis=1)
    assert clip.loc["I2T", "ci_low"] == pytest.approx(np.percentile(draws, 2.5))
    assert set(comparisons.benchmark) == {"bivlc", "sugarcrepe"}
    cells = detector_cells(intervals, {"clip": "CLIP"})
    assert cells["bivlc/table4", "CLIP/Det", "Text detection acc"][0] == pytest.approx(
        full["text_detection"])
    mismatch = {"clip": probs["clip"], "trohn": probs["trohn"].iloc[1:]}
    with pytest.raises(ValueError, match="different items"):
        detector_uncertainty(mismatch, n_resamples=10)


def test_validation_split_keeps_images_on_one_side():
    ids = np.array(["a", "a", "b", "c", "c", "d", "e", "f", "g", "h"])
    val = split_by_image(ids, 0.25, 0)
    for image in set(ids):
        assert len(set(val[ids == image])) == 1
    assert len(set(ids[val])) == 2
    with pytest.raises(ValueError, match="val_fraction"):
        split_by_image(ids, 1.0, 0)


def test_instance_split_makes_one_row_per_instance(tmp_path):
    from PIL import Image

    from vlcomp.train.data import SplitData, instance_split

    paths = []
    for k in range(3):
        path = tmp_path / f"g{k}.png"
        Image.new("RGB", (4, 4), (k, k, k)).save(path)
        paths.append(str(path))
    split = SplitData(image_ids=["a", "b"], images=np.stack([np.zeros((4, 4, 3), np.uint8),
                                                             np.ones((4, 4, 3), np.uint8)]),
                      captions=[["a0", "a1"], ["b0"]], caption_ids=[["ca0", "ca1"], ["cb0"]])
    instances = pd.DataFrame({"caption_id": ["ca1", "ca1", "cb0", "zz"],
                              "negative": ["n1", "n2", "n3", "n4"],
                              "negative_path": [paths[0], paths[1], paths[2], paths[2]]})
    data, generated = instance_split(split, instances)
    assert data.image_ids == ["a", "a", "b"] and data.captions == [["a1"], ["a1"], ["b0"]]
    assert data.images[2].max() == 1
    assert generated.captions == [[["n1"]], [["n2"]], [["n3"]]]
    rows = [r[0][0] for r in generated.image_rows]
    assert [int(generated.images[r][0, 0, 0]) for r in rows] == [0, 1, 2]
    with pytest.raises(ValueError, match="no instance"):
        instance_split(split, instances[instances.caption_id == "zz"])
