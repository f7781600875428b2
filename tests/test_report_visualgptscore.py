"""VisualGPTScore tables and α-curve figure from α-curve records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.metrics.alpha_curves import alpha_curve
from vlcomp.report.visualgptscore import (
    alpha_curves_figure,
    alpha_table,
    chance_level,
    method_table,
    prior_table,
)

from .test_alpha_curves import PRIOR, i2t_items, pair_items


@pytest.fixture(scope="module")
def records():
    out, curves = {}, {}
    for benchmark, items in (("sugarcrepe", i2t_items(n=40)), ("bivlc", pair_items(n=30))):
        curve, summary = alpha_curve(items, PRIOR, metric=benchmark, step=0.01, repeats=3)
        out.setdefault("cap", {})[benchmark] = summary
        curves[("cap", benchmark)] = curve
    return out, curves


def test_prior_table_rows_and_columns(records):
    recs, _ = records
    table = prior_table(recs, {"cap": "VisualGPTScore"})
    assert list(table.index) == ["VisualGPTScore P(t|null)", "VisualGPTScore",
                                 "VisualGPTScore PMI"]
    assert list(table.columns) == ["SugarCrepe", "BiVLC Text Score", "BiVLC Per-Image"]
    assert table.loc["VisualGPTScore", "SugarCrepe"] == \
        recs["cap"]["sugarcrepe"]["accuracy_alpha0"]
    assert table.loc["VisualGPTScore P(t|null)", "BiVLC Text Score"] == 0
    assert table.loc["VisualGPTScore P(t|null)", "BiVLC Per-Image"] == pytest.approx(50)
    named = prior_table(recs, {"cap": "G"}, names={"bivlc": "Winoground-style"})
    assert "Winoground-style Text Score" in named.columns


def test_prior_table_has_one_row_per_text_only_lm_whatever_the_captioner():
    flipped = {t: -v for t, v in PRIOR.items()}
    items = {"sugarcrepe": i2t_items(n=40), "bivlc": pair_items(n=30)}
    with_llm = {m: {b: alpha_curve(i, PRIOR, metric=b, step=0.01, repeats=2,
                                   other_priors={"llm_opt": flipped, "llm_bart": PRIOR})[1]
                    for b, i in items.items()} for m in ("cap", "cap2")}
    llms = {"bart": "bart-base", "opt": "opt-2.7b"}
    table = prior_table(with_llm, {"cap": "A", "cap2": "B"}, llms=llms)
    assert list(table.index[:2]) == ["P_LLM(t) bart-base", "P_LLM(t) opt-2.7b"]
    assert "A P(t|null)" in table.index and "B P(t|null)" in table.index
    # the LM that is the captioner's own prior is as accurate as P(t|null); the flipped one not
    assert table.loc["P_LLM(t) bart-base", "SugarCrepe"] == \
        with_llm["cap"]["sugarcrepe"]["accuracy_prior_only"]
    assert table.loc["P_LLM(t) opt-2.7b", "SugarCrepe"] == \
        with_llm["cap"]["sugarcrepe"]["accuracy_prior_only_llm_opt"]
    assert table.loc["P_LLM(t) opt-2.7b", "SugarCrepe"] != \
        table.loc["P_LLM(t) bart-base", "SugarCrepe"]
    assert np.isnan(table.loc["P_LLM(t) opt-2.7b", "BiVLC Per-Image"])  # no per-image cell
    # an LM no record carries gets no row
    assert "P_LLM(t) t5" not in prior_table(with_llm, {}, llms={"t5": "t5"}).index


def test_alpha_table_reports_validation_and_oracle(records):
    recs, _ = records
    table = alpha_table(recs, {"cap": "G"})
    summary = recs["cap"]["sugarcrepe"]["validation"]["summary"]
    assert list(table.index) == ["G", "G (alpha=1)", "G (alpha=alpha*val)",
                                 "G (oracle alpha*)"]
    assert table.loc["G (alpha=alpha*val)", "SugarCrepe"] == summary["test_accuracy"]["mean"]
    assert table.loc["G (alpha=alpha*val)", "SugarCrepe alpha* std"] == summary["alpha"]["std"]
    assert table.loc["G", "SugarCrepe std"] == summary["test_accuracy_alpha0"]["std"]
    assert table.loc["G (oracle alpha*)", "SugarCrepe"] == \
        recs["cap"]["sugarcrepe"]["oracle"]["accuracy"]
    assert table.loc["G (oracle alpha*)", "BiVLC alpha*"] == \
        recs["cap"]["bivlc"]["oracle"]["alpha"]
    assert table.loc["G (alpha=alpha*val)"].notna().all()


def test_alpha_table_leads_with_the_itm_rows_on_the_same_halves(records):
    from vlcomp.metrics.alpha_curves import held_out_accuracy

    recs, _ = records
    items = pair_items(n=30)
    itm = {"itm": {"bivlc": held_out_accuracy(items, metric="bivlc", repeats=3)}}
    retrieval = {"itm": {"coco_retrieval": {"overall": {"i2t_r1": 71.9, "i2t_r5": 90.6,
                                                         "t2i_r1": 50.0}}}}
    table = alpha_table(recs, {"cap": "G", "itm": "BLIP ITM"}, names={"coco_retrieval": "COCO"},
                        itm=itm, itm_retrieval=retrieval)
    assert table.index[0] == "BLIP ITM"
    held = itm["itm"]["bivlc"]["validation"]["summary"]["test_accuracy"]
    assert table.loc["BLIP ITM", "BiVLC Text Score"] == held["mean"]
    assert table.loc["BLIP ITM", "BiVLC Text Score std"] == held["std"]
    assert table.loc["BLIP ITM", "COCO I2T R@1"] == 71.9
    assert table.loc["BLIP ITM", "COCO I2T R@5"] == 90.6
    assert np.isnan(table.loc["BLIP ITM", "SugarCrepe"])  # held out on pair sets only
    assert "COCO T2I R@1" not in table.columns  # Table 4a: I2T only
    assert table.loc["G", "BiVLC Text Score"] == \
        recs["cap"]["bivlc"]["validation"]["summary"]["test_accuracy_alpha0"]["mean"]


def test_method_table_has_chance_roles_and_the_best_discriminative():
    def record(kind, **overall):
        return {"metric": kind, "overall": overall}

    results = {
        "itm": {"vg_relation": record("aro_relation", macro_accuracy=60.0)},
        "cap": {"vg_relation": record("aro_relation", macro_accuracy=80.0),
                "winoground": record("winoground", I2T=10.0, T2I=20.0, Group=5.0)},
        "clip_s0": {"vg_relation": record("aro_relation", macro_accuracy=50.0),
                    "winoground": record("winoground", I2T=30.0, T2I=10.0, Group=4.0)},
        "clip_s1": {"vg_relation": record("aro_relation", macro_accuracy=54.0),
                    "winoground": record("winoground", I2T=20.0, T2I=12.0, Group=2.0)},
        "neg": {"vg_relation": record("aro_relation", macro_accuracy=70.0),
                "winoground": record("winoground", I2T=0.0, T2I=0.0, Group=0.0)},
    }
    items = pd.DataFrame({"texts": [["a", "b"], ["a", "b", "c"]], "image_ids": [["i"]] * 2,
                          "protocol": "i2t"})
    chance = {"vg_relation": chance_level(items, "aro_relation"),
              "winoground": chance_level(items, "winoground")}
    table = method_table(
        results, {"winoground": "winoground", "vg_relation": "aro_relation"}, chance,
        {"CLIP": ["clip_s0", "clip_s1"], "NegCLIP": ["neg"], "VGS": ["cap"], "ITM": ["itm"]},
        {"CLIP": "discriminative", "NegCLIP": "discriminative", "VGS": "generative",
         "ITM": "itm"}, names={"winoground": "Winoground-style"})
    assert list(table.index) == ["Random", "ITM", "VGS", "CLIP", "NegCLIP",
                                 "Best discriminative"]
    assert list(table.columns) == ["VG-Relation", "Winoground-style Text Score",
                                   "Winoground-style Image Score",
                                   "Winoground-style Group Score"]
    assert table.loc["Random", "VG-Relation"] == pytest.approx(100 * (1 / 2 + 1 / 3) / 2)
    assert table.loc["Random", "Winoground-style Group Score"] == pytest.approx(100 / 6)
    assert table.loc["CLIP", "VG-Relation"] == 52.0  # seeds averaged
    assert table.loc["Best discriminative", "VG-Relation"] == 70.0
    assert table.loc["Best discriminative", "Winoground-style Text Score"] == 25.0
    assert np.isnan(table.loc["ITM", "Winoground-style Text Score"])


def test_alpha_curves_figure_is_a_png(records, tmp_path):
    recs, curves = records
    path = alpha_curves_figure(curves, recs, {"cap": "G"}, tmp_path / "curves.png", title="t")
    with Image.open(path) as img:
        assert img.size[0] > 800 and np.asarray(img.convert("L")).std() > 5
    again = alpha_curves_figure(curves, recs, {"cap": "G"}, tmp_path / "again.png", title="t")
    assert path.read_bytes() == again.read_bytes()  # deterministic bytes
    assert isinstance(curves[("cap", "bivlc")], pd.DataFrame)


def test_interval_tables_give_every_cell_its_interval(records):
    from vlcomp.metrics.alpha_uncertainty import alpha_intervals
    from vlcomp.report.visualgptscore import interval_tables

    cis = interval_tables(records[0], {}, {}, {"cap": "G"})
    assert all(not len(frame) for frame in cis.values())  # no intervals: no cells
    items = {"sugarcrepe": i2t_items(n=40), "bivlc": pair_items(n=30)}
    other = {"llm_opt": {t: -v for t, v in PRIOR.items()}}
    recs = {"cap": {b: alpha_curve(i, PRIOR, metric=b, step=0.01, repeats=3,
                                   other_priors=other)[1]
                    for b, i in items.items()}}
    intervals = {("cap", b): alpha_intervals(i, PRIOR, metric=b, benchmark=b, step=0.01,
                                             repeats=3, n_resamples=100, other_priors=other)
                 for b, i in items.items()}
    llms = {"opt": "opt-2.7b"}
    cis = interval_tables(recs, {}, intervals, {"cap": "G"}, llms=llms)
    assert ("P_LLM(t) opt-2.7b", "SugarCrepe") in set(
        cis["table2"].set_index(["row", "column"]).index)
    for name, table in (("table2", prior_table(recs, {"cap": "G"}, llms=llms)),
                        ("table4", alpha_table(recs, {"cap": "G"}))):
        frame = cis[name].set_index(["row", "column"])
        stds = [c for c in table.columns if c.endswith(" std")]
        cells = table.drop(columns=stds).stack()
        assert set(frame.index) == set(cells.index), name  # every cell but the spreads
        for key, value in cells.items():
            assert frame.loc[key, "value"] == pytest.approx(value, abs=1e-3), (name, key)
            assert frame.loc[key, "ci_low"] <= frame.loc[key, "ci_high"]
    oracle = cis["table4"].set_index(["row", "column"]).loc[("G (oracle alpha*)",
                                                              "SugarCrepe alpha*")]
    assert 0 <= oracle.ci_low <= oracle.ci_high <= 1


def test_alpha_table_sets_the_null_image_prior_rows_beside_the_gallery_mean():
    """VisualGPTScore Table 6's "Null Images": a retrieval record's ``null`` numbers become
    ``(alpha=1) null n=3`` and ``(alpha=alpha*val) null n=3`` rows (the names the published
    rows carry), beside the gallery-mean rows."""
    from vlcomp.metrics.generative_retrieval import generative_retrieval

    rng = np.random.default_rng(0)
    links = np.repeat(np.arange(12), 2)
    test = rng.normal(-20, 2, (12, 24)) + 4 * (links[None] == np.arange(12)[:, None])
    val = rng.normal(-20, 2, (12, 24)) + 4 * (links[None] == np.arange(12)[:, None])
    _, record = generative_retrieval(test, links, val, links, step=0.01,
                                     null_priors=(rng.normal(-20, 1, 24),
                                                  rng.normal(-20, 1, 24)), null_images=3)
    table = alpha_table({}, {"cap": "G"}, names={"coco_retrieval": "COCO"},
                        retrieval={"cap": {"coco_retrieval": record}})
    assert {"G (alpha=1) null n=3", "G (alpha=alpha*val) null n=3"} <= set(table.index)
    assert table.loc["G (alpha=1) null n=3", "COCO I2T R@1"] == record["null"]["alpha1"][
        "i2t_r1"]
    assert table.loc["G (alpha=alpha*val) null n=3", "COCO alpha*"] == record["null"][
        "alpha_val"]["alpha"]
    assert np.isnan(table.loc["G (alpha=1) null n=3", "COCO alpha*"])
