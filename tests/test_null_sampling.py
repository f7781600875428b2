"""VisualGPTScore appendix Table 5's null half: priors from n null images per sampling seed
(`vlcomp.score.text_prior.null_sampling_priors`), the oracle α* text score per seed and
count (`vlcomp.metrics.null_sampling`), its table and the rows it faces in the paper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from vlcomp.config import ConfigError, null_sampling, null_sampling_models
from vlcomp.config_checks import _check_null_sampling
from vlcomp.metrics.alpha_curves import alpha_curve
from vlcomp.metrics.debias import log_mean_exp
from vlcomp.metrics.null_sampling import (
    null_against_train,
    null_sampling_column,
    null_sampling_runs,
    null_sampling_summary,
)
from vlcomp.report.coverage import plan_cells, row_counterparts
from vlcomp.report.visualgptscore import null_sampling_row, null_sampling_table
from vlcomp.score.text_prior import (
    gaussian_null_pixels,
    null_sampling_priors,
    train_sampling_priors,
)

from .conftest import REPO
from .test_alpha_curves import WORDS as PAIR_WORDS
from .test_alpha_curves import pair_items

RNG = np.random.default_rng(5)
WORDS = [f"caption {k}" for k in range(30)]
NULL = {"mean": 1.0, "std": 0.25, "space": "normalized", "seed": 0}


class NullScorer:
    """log P(t | image) = -(text length) * (1 + mean pixel of the image): each null image
    and seed gives other numbers, and the call records what it was asked."""

    def __init__(self):
        self.draws: list[tuple[int, int, int]] = []

    def null_image_states(self, n, *, mean, std, seed, space, batch_size):
        self.draws.append((n, seed, batch_size))
        pixels = gaussian_null_pixels(n, 4, mean=mean, std=std, seed=seed, space=space)
        return pixels.mean(dim=(1, 2, 3))

    def log_likelihood_given_states(self, states, index, texts, batch_size):
        return np.array([-len(t) * (1 + float(states[i])) for i, t in zip(
            index.tolist(), texts, strict=True)])


def test_each_seed_draws_the_largest_count_once_and_n_averages_its_first_n():
    scorer, texts = NullScorer(), WORDS[:5]
    priors = null_sampling_priors(scorer, texts, NULL, [1, 3, 5], [0, 7], image_batch=2)
    assert scorer.draws == [(5, 0, 2), (5, 7, 2)]
    assert set(priors) == {null_sampling_column(s, n) for s in (0, 7) for n in (1, 3, 5)}
    for seed in (0, 7):
        means = gaussian_null_pixels(5, 4, seed=seed).mean(dim=(1, 2, 3)).numpy()
        per_image = np.array([[-len(t) * (1 + m) for m in means] for t in texts])
        for n in (1, 3, 5):
            np.testing.assert_allclose(priors[null_sampling_column(seed, n)],
                                       log_mean_exp(per_image[:, :n], axis=1), rtol=1e-6)
    assert not np.allclose(priors["log_prior_s0_n3"], priors["log_prior_s7_n3"])


def test_each_run_is_the_oracle_alpha_of_the_alpha_curve_with_that_prior():
    items = pair_items(60, RNG)
    priors = pd.DataFrame({"text": PAIR_WORDS, **{
        null_sampling_column(s, n): RNG.normal(-20, 3, size=len(PAIR_WORDS))
        for s in (0, 1, 2) for n in (3, 10)}})
    runs = null_sampling_runs(items, priors, [3, 10], [0, 1, 2], metric="winoground")
    assert list(runs.columns) == ["source", "seed", "n", "alpha", "accuracy"]
    assert len(runs) == 6 and set(runs.source) == {"null"}
    for r in runs.itertuples():
        prior = dict(zip(priors.text, priors[null_sampling_column(r.seed, r.n)], strict=True))
        _, summary = alpha_curve(items, prior, metric="winoground")
        assert (r.alpha, r.accuracy) == (summary["oracle"]["alpha"],
                                          summary["oracle"]["accuracy"])
    summary = null_sampling_summary(runs)
    three = runs[runs.n == 3]
    assert summary.loc[("null", 3), "accuracy"] == pytest.approx(three.accuracy.mean())
    assert summary.loc[("null", 3), "accuracy_std"] == pytest.approx(np.std(three.accuracy))
    assert summary.loc[("null", 10), "alpha_std"] == pytest.approx(
        np.std(runs[runs.n == 10].alpha))  # population std (ddof 0)
    assert summary.loc[("null", 10), "seeds"] == 3


def test_a_missing_prior_column_names_the_seed_and_count():
    priors = pd.DataFrame({"text": PAIR_WORDS, null_sampling_column(0, 3): 0.0})
    with pytest.raises(ValueError, match="seed 1, 3 null images"):
        null_sampling_runs(pair_items(4, RNG), priors, [3], [0, 1], metric="winoground")


def test_the_table_names_rows_and_columns_as_the_paper():
    summary = pd.DataFrame({"accuracy": [36.0, 36.5, 32.2], "accuracy_std": [0.5, 0.1, 1.6],
                            "alpha": [0.82, 0.84, 0.7], "alpha_std": [0.01, 0.0, 0.15],
                            "seeds": [5, 5, 5]},
                           index=pd.MultiIndex.from_tuples(
                               [("null", 3), ("null", 10), ("train", 3)], names=["source", "n"]))
    table = null_sampling_table({"BLIP": summary}, "winoground")
    assert list(table.index) == [null_sampling_row("BLIP", 3), "BLIP (alpha=alpha*) null n=10",
                                 "BLIP (alpha=alpha*) train n=3"]
    assert null_sampling_row("BLIP", 3, "train") == "BLIP (alpha=alpha*) train n=3"
    assert list(table.columns) == ["Winoground Text Score", "Winoground Text Score std",
                                   "Winoground alpha*", "Winoground alpha* std"]
    assert table.loc["BLIP (alpha=alpha*) null n=3", "Winoground alpha*"] == 0.82


def paper_config():
    return yaml.safe_load((REPO / "config" / "paper.yaml").read_text())


def test_the_paper_configuration_faces_table5s_null_rows_with_the_laion_blip():
    config = paper_config()
    assert null_sampling(config) == {"benchmark": "winoground", "counts": [3, 10, 100, 1000],
                                     "seeds": [0, 1, 2, 3, 4],
                                     "models": ["blip_pretrained_large"], "sources": ["null"]}
    label = config["models"]["blip_pretrained_large"]["label"]
    for n in (3, 1000):
        assert row_counterparts(config, "visualgptscore", null_sampling_row("VisualGPTScore", n)
                                ) == [null_sampling_row(label, n)]
    cells = plan_cells(config)["visualgptscore/table5"].cells
    assert (null_sampling_row(label, 100), "Winoground alpha* std") in cells
    assert len(cells) == 4 * 4  # 4 counts x (score, its std, alpha*, its std)


def test_bad_null_sampling_keys_name_the_key():
    config = paper_config()
    config["visualgptscore"]["null_sampling"]["benchmark"] = "sugarcrepe"
    with pytest.raises(ConfigError, match=r"null_sampling\.benchmark: 'sugarcrepe'"):
        _check_null_sampling(config)
    config = paper_config()
    config["visualgptscore"]["null_sampling"]["sources"] = ["null", "train"]
    with pytest.raises(ConfigError, match=r"null_sampling\.sources: 'train' samples "
                                          r"visualgptscore\.train_images"):
        _check_null_sampling(config)
    config = paper_config()
    config["visualgptscore"]["null_sampling"]["models"] = ["blip_itm_large"]
    with pytest.raises(ConfigError, match=r"null_sampling\.models: 'blip_itm_large'"):
        _check_null_sampling(config)
    # a configuration cut down from the paper's may leave Winoground or the model out
    config = paper_config()
    assert null_sampling_models(config) == ["blip_pretrained_large"]
    del config["benchmarks"]["winoground"], config["models"]["blip_pretrained_large"]
    _check_null_sampling(config)
    assert null_sampling_models(config) == []
    assert plan_cells(config)["visualgptscore/table5"].cells == set()


def test_a_draws_first_images_do_not_depend_on_its_size():
    pixels = gaussian_null_pixels(5, 8, seed=3)
    assert torch.equal(pixels[:2], gaussian_null_pixels(2, 8, seed=3))


class TrainScorer(NullScorer):
    """`NullScorer` whose image states are each picture's mean pixel (0-1)."""

    def __init__(self):
        super().__init__()
        self.encoded: list[list[float]] = []

    def image_states(self, images, batch_size):
        means = [float(np.asarray(im, np.float32).mean()) / 255 for im in images]
        self.encoded.append(means)
        return torch.tensor(means)


def test_training_images_are_drawn_per_seed_and_n_averages_the_first_n(tmp_path):
    """Appendix Table 5's LAION half on a configuration's own training images: each seed
    encodes max(counts) images of the pool once, in a seeded order that does not depend on
    the table's row order, and n averages the first n of them."""
    from PIL import Image

    paths = []
    for k in range(8):
        path = tmp_path / f"train-{k}.png"
        Image.new("RGB", (4, 4), (30 * k, 30 * k, 30 * k)).save(path)
        paths.append(str(path))
    pool = pd.DataFrame({"image_id": [f"train-{k}" for k in range(8)], "path": paths})
    scorer, texts = TrainScorer(), WORDS[:4]
    priors = train_sampling_priors(scorer, texts, pool, [1, 3], [0, 1], image_batch=2)
    assert set(priors) == {null_sampling_column(s, n, "train") for s in (0, 1) for n in (1, 3)}
    assert null_sampling_column(0, 3, "train") == "log_prior_train_s0_n3"
    assert [len(m) for m in scorer.encoded] == [3, 3] and scorer.encoded[0] != scorer.encoded[1]
    for seed, means in zip((0, 1), scorer.encoded, strict=True):
        per_image = np.array([[-len(t) * (1 + m) for m in means] for t in texts])
        for n in (1, 3):
            np.testing.assert_allclose(priors[null_sampling_column(seed, n, "train")],
                                       log_mean_exp(per_image[:, :n], axis=1), rtol=1e-6)
    shuffled = TrainScorer()
    train_sampling_priors(shuffled, texts, pool.iloc[::-1], [1, 3], [0, 1], image_batch=2)
    assert shuffled.encoded == scorer.encoded
    with pytest.raises(ValueError, match="cannot draw 9 training images from 8"):
        train_sampling_priors(TrainScorer(), texts, pool, [9], [0])


def test_null_against_train_is_a_t_interval_over_the_seeds_beside_each_std():
    runs = pd.DataFrame({
        "model": "m", "source": ["null"] * 3 + ["train"] * 3, "seed": [0, 1, 2] * 2,
        "n": 3, "alpha": 0.9, "accuracy": [36.0, 36.5, 35.5, 32.0, 34.0, 33.0]})
    rows = null_against_train(runs).set_index("metric")
    diff = np.array([4.0, 2.5, 2.5])
    half = 4.302652729911275 * diff.std(ddof=1) / np.sqrt(3)  # t(0.975, df 2)
    assert rows.loc["null - train n=3", "value"] == pytest.approx(3.0)
    assert rows.loc["null - train n=3", "ci_low"] == pytest.approx(3.0 - half)
    assert rows.loc["null - train n=3", "n"] == 3
    assert rows.loc["null std n=3", "value"] == pytest.approx(np.std([36.0, 36.5, 35.5]))
    assert rows.loc["train std n=3", "value"] == pytest.approx(np.std([32.0, 34.0, 33.0]))
    # a count only one source ran gives no comparison
    assert null_against_train(runs[runs.source == "null"]).empty
