"""Bootstrap CIs of the VisualGPTScore α numbers: every full-sample value is the α record's,
α-picking numbers are re-picked per resample, and leave-one-out curves are exact."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.metrics.alpha_curves import alpha_curve
from vlcomp.metrics.alpha_uncertainty import (
    GroupedCurves,
    WeightedCurves,
    alpha_intervals,
    retrieval_alpha_intervals,
)
from vlcomp.metrics.generative_retrieval import generative_retrieval
from vlcomp.metrics.uncertainty import bootstrap_rng, resample_weights

from .test_alpha_curves import PRIOR, i2t_items, pair_items

OTHER = {t: v / 2 for t, v in PRIOR.items()}


def leaves(record: dict, prefix: str = "") -> dict[str, float]:
    """A record's numeric leaves by dotted path."""
    out = {}
    for key, value in record.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out |= leaves(value, path + ".")
        elif isinstance(value, float):
            out[path] = value
    return out


@pytest.mark.parametrize("metric, build", [("sugarcrepe", i2t_items),
                                           ("aro_relation", i2t_items),
                                           ("winoground", pair_items)])
def test_every_value_is_the_records(metric, build):
    items = build()
    _, record = alpha_curve(items, PRIOR, metric=metric, step=0.01, seed=3, repeats=4,
                            other_priors={"llm": OTHER})
    table = alpha_intervals(items, PRIOR, metric=metric, benchmark="b", step=0.01, seed=3,
                            repeats=4, other_priors={"llm": OTHER}, n_resamples=100)
    ours = dict(zip(table.measure, table.value, strict=True))
    wanted = {k: v for k, v in leaves(record).items()
              if not k.startswith("validation.summary") or k.endswith(".mean")}
    wanted.pop("alpha_step")
    assert set(ours) == set(wanted)
    for key, value in wanted.items():
        assert ours[key] == pytest.approx(value, abs=1e-3), key
    assert (table.ci_low <= table.value + 1e-9).all()
    assert (table.value <= table.ci_high + 1e-9).all()
    spread = table.set_index("measure")
    assert spread.loc["oracle.accuracy", "ci_high"] > spread.loc["oracle.accuracy", "ci_low"]


def test_fixed_alpha_draws_are_the_benchmarks_resamples():
    items = i2t_items()
    table = alpha_intervals(items, PRIOR, metric="sugarcrepe", benchmark="sugarcrepe",
                            step=0.1, n_resamples=200, bootstrap_seed=5).set_index("measure")
    correct = np.array([np.argmax(np.asarray(s)[0]) == label and
                        np.sum(np.asarray(s)[0] == np.max(s)) == 1
                        for s, label in zip(items.scores, items.label, strict=True)], float)
    weights = np.concatenate(resample_weights(len(items), 200, bootstrap_rng("sugarcrepe", 5)))
    draws = 100 * weights @ correct / weights.sum(axis=1)
    assert table.loc["accuracy_alpha0", "ci_low"] == pytest.approx(np.percentile(draws, 2.5))
    assert table.loc["accuracy_alpha0", "ci_high"] == pytest.approx(np.percentile(draws, 97.5))


def test_the_oracle_is_picked_again_on_every_resample():
    items = i2t_items()
    table = alpha_intervals(items, PRIOR, metric="sugarcrepe", benchmark="b", step=0.01,
                            n_resamples=300).set_index("measure")
    # picking the best α on each resample is optimistic: the oracle's interval sits above
    # the fixed α = 0 one's, and α* itself varies
    assert table.loc["oracle.accuracy", "ci_low"] >= table.loc["accuracy_alpha0", "ci_low"]
    assert table.loc["oracle.alpha", "ci_high"] > table.loc["oracle.alpha", "ci_low"]


@pytest.mark.parametrize("groups", [None, np.array(list("aabbbcccc") * 3, dtype=object)])
def test_leave_one_out_curves_are_exact(groups):
    rng = np.random.default_rng(1)
    values = rng.integers(0, 2, size=(27, 5)).astype(float)
    counted = np.ones(27, bool)
    counted[4] = False
    curves = GroupedCurves(values, counted, groups)
    mask = (rng.uniform(size=27) > 0.3).astype(float)
    loo = curves.leave_one_out(mask)
    for i in range(27):
        removed = mask.copy()
        removed[i] = 0
        np.testing.assert_allclose(loo[i], curves.curves(removed[None])[0], atol=1e-9)
    weighted = WeightedCurves(values[:, 0] * 3, np.full(27, 3.0))
    np.testing.assert_allclose(weighted.leave_one_out(mask)[5],
                               weighted.curves(np.where(np.arange(27) == 5, 0, mask))[0])


def test_a_group_leaving_with_its_only_item_drops_out_of_the_macro_mean():
    values = np.array([[1.0], [0.0], [0.0]])
    curves = GroupedCurves(values, groups=np.array(["a", "b", "b"], dtype=object))
    assert curves.curves(np.ones((1, 3)))[0, 0] == 50.0
    assert curves.leave_one_out()[0, 0] == 0.0  # only group b is left


def test_bca_runs_on_procedures():
    items = pair_items()
    table = alpha_intervals(items, PRIOR, metric="winoground", benchmark="w", step=0.05,
                            repeats=3, n_resamples=200, method="bca")
    assert np.isfinite(table.ci_low).all() and np.isfinite(table.ci_high).all()


def test_retrieval_values_are_the_records():
    rng = np.random.default_rng(2)
    links = np.repeat(np.arange(30), 2)
    test = rng.normal(-20, 2, size=(30, 60)) + 4 * (links[None] == np.arange(30)[:, None])
    val_links = np.repeat(np.arange(20), 2)
    val = rng.normal(-20, 2, size=(20, 40)) + 3 * (val_links[None] == np.arange(20)[:, None])
    _, record = generative_retrieval(test, links, val, val_links, step=0.01)
    table = retrieval_alpha_intervals(test, links, val, val_links, benchmark="r", step=0.01,
                                      n_resamples=200)
    ours = dict(zip(table.measure, table.value, strict=True))
    for section in ("overall", "alpha1", "alpha_val"):
        for key, value in record[section].items():
            assert ours[f"{section}.{key}"] == pytest.approx(value, abs=1e-3), (section, key)
    assert ours["oracle.i2t_r1"] == pytest.approx(record["oracle"]["i2t_r1"], abs=1e-3)
    assert ours["oracle.alpha"] == pytest.approx(record["oracle"]["alpha"])
    assert table.set_index("measure").loc["alpha_val.alpha", "n"] == 20
    assert set(table.n) == {30, 20}
    # a null-image prior's numbers (VisualGPTScore Table 6) are the record's too
    null = (rng.normal(-20, 1, 60), rng.normal(-20, 1, 40))
    _, record = generative_retrieval(test, links, val, val_links, step=0.01,
                                     null_priors=null, null_images=3)
    table = retrieval_alpha_intervals(test, links, val, val_links, benchmark="r", step=0.01,
                                      n_resamples=200, null_priors=null)
    ours = dict(zip(table.measure, table.value, strict=True))
    for section in ("alpha1", "alpha_val"):
        for key, value in record["null"][section].items():
            assert ours[f"null.{section}.{key}"] == pytest.approx(value, abs=1e-3), key
    row = table.set_index("measure").loc["null.alpha_val.i2t_r1"]
    assert row.ci_low <= row.value <= row.ci_high



def test_vl_checklist_curves_average_corpora_within_tags_as_the_metric_does():
    import pandas as pd

    from vlcomp.metrics.alpha_curves import headline_aggregate
    from vlcomp.metrics.alpha_uncertainty import GroupedCurves, headline_grouping

    items = pd.DataFrame({"subset": ["action"] * 5 + ["spatial"] * 3,
                          "corpus": ["vg", "vg", "swig", "hake", "hake", "vg", "vg", "vg"]})
    correct = np.array([[1], [0], [1], [0], [0], [1], [1], [0]], dtype=float)
    counted, groups = headline_grouping(items, "vl_checklist")
    ours = GroupedCurves(correct, counted, groups).curves(np.ones((1, len(items))))[0, 0]
    # action: (0.5 + 1 + 0) / 3; spatial: 2/3; Relation = their mean
    assert ours == pytest.approx(100 * ((0.5 + 1 + 0) / 3 + 2 / 3) / 2)
    metric = headline_aggregate(items, "vl_checklist")(correct.astype(bool),
                                                       np.arange(len(items)))
    assert ours == pytest.approx(100 * float(metric[0]))
