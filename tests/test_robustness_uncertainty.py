"""Bootstrap CIs of the robustness numbers: full-sample values equal the tables' records,
the R@1 drop is computed per resample, seeds are averaged and never resampled."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.metrics.robustness import Embeddings, evaluate_gallery, item_table
from vlcomp.metrics.robustness_uncertainty import DROP, RobustnessBootstrap
from vlcomp.report.robustness import hendriksen_table

N_IMAGES, DIM = 40, 16
IMAGES = [f"i{k}" for k in range(N_IMAGES)]
QUERIES = pd.DataFrame({
    "query_id": [f"q{k}_{j}" for k in range(N_IMAGES) for j in range(2)],
    "image_id": [f"i{k}" for k in range(N_IMAGES) for _ in range(2)],
    "text": [f"text {k} {j}" for k in range(N_IMAGES) for j in range(2)],
})
PERTURBED = pd.DataFrame([
    {"caption_id": q, "perturbation": "typo", "seed": seed, "perturbed": f"{t} typo{seed}",
     "changed": bool((k + seed) % 3)}
    for seed in (0, 1) for k, (q, t) in enumerate(zip(QUERIES.query_id, QUERIES.text,
                                                        strict=True))])


def _model(noise: float, seed: int) -> Embeddings:
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((N_IMAGES, DIM))
    texts = list(QUERIES.text) + list(PERTURBED.perturbed)
    owner = [int(t.split()[1]) for t in texts]
    shift = np.array([2.0 * noise if "typo" in t else noise for t in texts])[:, None]
    t_emb = base[owner] + shift * rng.standard_normal((len(texts), DIM))
    shuffled = base[rng.permutation(N_IMAGES)] * 0.5 + base * 0.5
    ids = {i: k for k, i in enumerate(IMAGES)}
    return Embeddings({"clean": (base, ids), "shuffled": (shuffled, ids)},
                      (t_emb, {t: k for k, t in enumerate(texts)}))


def _run(models: dict[str, Embeddings]) -> tuple[dict, dict[str, pd.DataFrame]]:
    relevance = _model(0.5, 99)
    records, items = {}, {}
    for name, model in models.items():
        frames: list[pd.DataFrame] = []
        conditions = evaluate_gallery("g", IMAGES, QUERIES, model, relevance, PERTURBED,
                                      [("shuffle", 0, "shuffled")], "clean", items=frames)
        records[name] = {"robustness": {"conditions": conditions}}
        items[name] = item_table(frames)  # categorical keys, as the job writes them
    return records, items


@pytest.fixture(scope="module")
def run():
    models = {"a": _model(0.8, 1), "b": _model(1.2, 2), "a_copy": _model(0.8, 1)}
    records, items = _run(models)
    boot = RobustnessBootstrap(items, n_resamples=300, seed=0, confidence=0.95)
    return records, items, boot, boot.table({"pair": ["a", "b"]})


def _cell(table: pd.DataFrame, model: str, perturbation: str, metric: str) -> pd.Series:
    row = table[(table.model == model) & (table.perturbation == perturbation)
                & (table.metric == metric)]
    assert len(row) == 1, (model, perturbation, metric)
    return row.iloc[0]


def test_values_equal_the_tables_records(run):
    records, _, _, table = run
    ours = hendriksen_table(records)
    for model in ("a", "b"):
        for label, metric in (("T2I R@1", "t2i_r1"), ("DCG@10", "t2i_dcg10"),
                              ("R@1 drop %", DROP), ("I2T R@5", "i2t_true_r5"),
                              ("rsum decreased %", "t2i_decreased"),
                              ("captions changed %", "changed")):
            for perturbation in ("none", "typo"):
                cell = _cell(table, model, perturbation, metric)
                assert cell.value == pytest.approx(
                    ours.loc[("g", f"{perturbation} / {model}"), label], abs=2e-3)
                assert cell.ci_low <= cell.value + 1e-9 <= cell.ci_high + 2e-9
    typo = _cell(table, "a", "typo", "t2i_r1")
    assert typo.seeds == 2 and typo.n == N_IMAGES
    per_seed = [c["t2i_r1"] for c in records["a"]["robustness"]["conditions"]
                if c["perturbation"] == "typo"]
    assert typo.perturbation_seed_std == pytest.approx(np.std(per_seed, ddof=1), abs=1e-3)
    assert typo.ci_high > typo.ci_low  # item resampling spreads it


def test_drop_is_computed_per_resample(run):
    _, _, _, table = run
    clean = _cell(table, "a", "none", DROP)
    assert clean.value == 0 and clean.ci_low == 0 and clean.ci_high == 0
    drop = _cell(table, "a", "typo", DROP)
    r1 = {p: _cell(table, "a", p, "t2i_r1").value for p in ("none", "typo")}
    assert drop.value == pytest.approx(100 * (r1["none"] - r1["typo"]) / r1["none"])


def test_groups_average_members_and_report_training_spread(run):
    _, _, _, table = run
    group = _cell(table, "pair", "typo", "t2i_r1")
    members = [_cell(table, m, "typo", "t2i_r1").value for m in ("a", "b")]
    assert group.value == pytest.approx(np.mean(members))
    assert group.training_seeds == 2
    assert group.training_seed_std == pytest.approx(np.std(members, ddof=1))


def test_comparisons_pair_models_on_the_same_resamples(run):
    _, _, boot, _ = run
    comparisons = boot.comparisons()
    same = comparisons[(comparisons.model_a == "a") & (comparisons.model_b == "a_copy")]
    assert len(same) and (same.difference == 0).all()
    assert (same.ci_low == 0).all() and (same.ci_high == 0).all()
    assert (same.p_bootstrap == 1).all()
    # McNemar only for 0/1 outcomes of one seed: image conditions' I2T R@1, not the typo's
    ab = comparisons[(comparisons.model_a == "a") & (comparisons.model_b == "b")]
    one_seed = ab[(ab.perturbation == "shuffle") & (ab.metric == "i2t_r1")].iloc[0]
    assert np.isfinite(one_seed.p_mcnemar)
    assert ab[ab.perturbation == "typo"].p_mcnemar.isna().all()
    assert ab[ab.metric == "t2i_r1"].p_mcnemar.isna().all()  # means over an image's queries


def test_deterministic_and_bca(run):
    _, items, _, table = run
    again = RobustnessBootstrap(items, n_resamples=300, seed=0).table({"pair": ["a", "b"]})
    pd.testing.assert_frame_equal(table, again)
    bca = RobustnessBootstrap(items, n_resamples=300, seed=0, method="bca").table()
    assert np.isfinite(bca.ci_low).all()


def test_conditions_must_share_their_images(run):
    _, items, _, _ = run
    broken = items["a"][~((items["a"].unit == "image") & (items["a"].image == 3)
                          & (items["a"].perturbation == "typo"))]
    with pytest.raises(ValueError, match="image rows"):
        RobustnessBootstrap({"a": broken}, n_resamples=10)
