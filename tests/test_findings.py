"""The papers' claims tested on a run's uncertainty tables (results/claims.csv,
results/findings.{csv,md}), on the papers' own models as a configuration maps them, and the
world's direction-only comparisons with published numbers."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from vlcomp.config import ConfigError
from vlcomp.report.claim_verdicts import (
    CLAIM,
    SANITY,
    paper_counts,
    read_claims,
    verdict_claims,
)
from vlcomp.report.claims import instantiate, load_claims, parse_claims
from vlcomp.report.findings import (
    FAILS,
    HOLDS,
    NOT_RUN,
    difference,
    evaluate_findings,
    read_findings,
    verdict,
)
from vlcomp.report.findings_text import (
    markdown_findings,
    readable,
    rst_findings,
    write_findings,
    write_front_page,
)
from vlcomp.report.paper_models import (
    check_paper_models,
    models_playing_no_paper_model,
    paper_model_labels,
    registry,
    unplayed_paper_models,
)
from vlcomp.report.published import (
    DIRECTION_COLUMNS,
    agreement,
    chance_levels,
    load_published,
    side_by_side,
)
from vlcomp.report.run_numbers import RunNumbers
from vlcomp.report.summary import published_rows

from .conftest import REPO

GROUPS = {"CLIP": ["clip"], "CLIP-FT": ["ft_s0", "ft_s1", "ft_s2"],
          "NegCLIP": ["neg_s0", "neg_s1", "neg_s2"], "Blind: P(t|null) of Captioner": ["blind"],
          "Captioner": ["cap"]}
# ARO's models and VisualGPTScore's as a configuration maps them to GROUPS' labels
LABELS = {"ARO": {"CLIP": ["CLIP"], "CLIP-FT": ["CLIP-FT"], "NegCLIP": ["NegCLIP"]},
          "VisualGPTScore": {"VisualGPTScore": ["Captioner"],
                             "P(t|null)": ["Blind: P(t|null) of Captioner"]},
          "BISON": {"retrieval system": ["CLIP", "NegCLIP"]}}


def write(folder, name, rows, columns):
    path = folder / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)


INTERVAL = ["model", "metric", "value", "ci_low", "ci_high", "n"]
PAIRED = ["model_a", "model_b", "metric", "difference", "ci_low", "ci_high", "p_bootstrap",
          "only_a", "only_b", "p_mcnemar"]


@pytest.fixture
def run(tmp_path):
    """A run's uncertainty folder: VG-Relation with CLIP, 3 seeds of CLIP-FT and NegCLIP, a
    captioner and its blind prior; paired rows stored in either order."""
    folder = tmp_path / "uncertainty"
    write(folder, "vg_relation", [
        ("clip", "macro_accuracy", 44.0, 40.0, 48.0, 500),
        *[(f"ft_s{i}", "macro_accuracy", v, v - 3, v + 3, 500)
          for i, v in enumerate((46.0, 40.0, 43.0))],
        *[(f"neg_s{i}", "macro_accuracy", v, v - 3, v + 3, 500)
          for i, v in enumerate((55.0, 53.0, 52.0))],
        ("blind", "macro_accuracy", 75.0, 71.0, 79.0, 500),
        ("cap", "macro_accuracy", 90.0, 86.0, 94.0, 500)], INTERVAL)
    write(folder, "vg_relation_comparisons", [
        # seed 0 stored as (CLIP-FT, NegCLIP): the findings flip it
        ("ft_s0", "neg_s0", "macro_accuracy", -9.0, -12.5, -5.5, 0.0, 1, 2, 0.0),
        ("neg_s1", "ft_s1", "macro_accuracy", 13.0, 9.0, 17.0, 0.0, 1, 2, 0.0),
        ("neg_s2", "ft_s2", "macro_accuracy", 9.0, 5.0, 13.0, 0.0, 1, 2, 0.0),
        ("clip", "neg_s0", "macro_accuracy", -11.0, -15.0, -7.0, 0.0, 1, 2, 0.0)], PAIRED)
    return RunNumbers(folder, GROUPS)


def claim(**fields):
    record = {"id": "c", "paper": "ARO", "where": "Table 1", "claim": "a claim",
              "quote": "q", "test": "greater", **fields}
    return parse_claims([record])[0]


def evaluate(claims, numbers, labels=None):
    return evaluate_findings(claims, numbers, LABELS if labels is None else labels)


# ---------------------------------------------------------------- the shipped claims


def test_shipped_claims_parse_and_cover_every_paper():
    claims = load_claims()
    assert len(claims) >= 50 and len({c.id for c in claims}) == len(claims)
    per_paper = pd.Series([c.paper for c in claims]).value_counts()
    assert set(per_paper.index) == set(registry())
    assert per_paper.min() >= 5
    assert {c.id for c in claims if c.sanity} == {"bison.above_chance",
                                                  "visualgptscore.blind_balanced"}


def test_every_claim_names_only_its_papers_models():
    """No claim borrows another paper's model: ARO's CLIP-FT is not BiVLC's CLIP_COCO, nor
    Hendriksen et al.'s ALIGN; BISON's systems are its own kinds."""
    for c in load_claims():
        names = {n for s in c.findings for op in (s.a, s.b) for n in (*op.model, *op.versus)}
        assert names <= set(registry()[c.paper]), c.id
    bivlc = [c for c in load_claims() if c.paper == "BiVLC"]
    assert not any("CLIP-FT" in str(s) for c in bivlc for s in c.findings)
    with pytest.raises(ValueError, match="'CLIP-FT' is not one of BiVLC's models"):
        claim(paper="BiVLC", benchmark="bivlc", metric="Group", a={"model": "CLIP-FT"},
              b={"value": 50})


def _papers() -> dict[str, str]:
    """Each paper's text as extracted (the JSON one decoded), line-end hyphens joined."""
    files = {"BiVLC": "000", "ARO": "001", "BISON": "002", "VisualGPTScore": "003",
             "Hendriksen et al.": "004"}
    papers = REPO.parent / "shared" / "papers"
    out = {}
    for name, prefix in files.items():
        raw = next(papers.glob(f"{prefix}_*.txt")).read_text("utf-8")
        if raw.lstrip().startswith("{"):
            doc = json.loads(raw)
            raw = "\n".join([doc["title"], doc["abstract"],
                             *(s["title"] + "\n" + s["content"] for s in doc["sections"])])
        out[name] = re.sub(r"-\n(?=[a-z])", "", raw)
    return out


def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t").rstrip("*_")
    return not before or before.endswith("\n") or before[-1] in ".?!:"


def test_every_claim_quotes_a_whole_sentence_of_its_paper_verbatim():
    """Each claim cites the sentence it tests, word for word as the paper has it (runs of
    white space aside), from its first word to its full stop: a paraphrase, a fragment
    (a heading ending in a colon, half a sentence) or another paper's words fail. A sentence
    a table cuts in two is quoted as its two parts, in order."""
    texts = _papers()
    for c in load_claims():
        text, position = texts[c.paper], 0
        assert c.quote, f"{c.id} quotes nothing"
        for k, part in enumerate(c.quote):
            pattern = r"\s+".join(re.escape(w) for w in part.split())
            found = re.compile(pattern).search(text, position)
            assert found, f"{c.id}: not in {c.paper}: {part[:60]}"
            if k == 0:
                assert _sentence_start(text, found.start()), f"{c.id}: starts mid-sentence"
            position = found.end()
        assert re.search(r'[.?!]["”)]?$', c.quote[-1]), f"{c.id}: ends mid-sentence"
    fragment = "Models have little to no preference toward correctly formed sentences:"
    assert fragment in " ".join(texts["ARO"].split())  # the heading aro.clip_order quoted
    assert not re.search(r'[.?!]["”)]?$', fragment)


def _published_values() -> set[float]:
    return {float(v) for r in load_published() for v in r["rows"].values()}


def published_bison_tau() -> float:
    """Kendall's tau x 100 of BISON Table 3's accuracy against its COCO-1K T2I R@1."""
    from scipy import stats

    rows = {r["column"]: r["rows"] for r in load_published("bison", "table3")}
    systems = sorted(rows["Accuracy"])
    return round(100 * stats.kendalltau([rows["Accuracy"][s] for s in systems],
                                        [rows["T2I R@1"][s] for s in systems]).statistic, 6)


def test_published_effects_are_the_papers_numbers():
    """Each finding's paper effect is a difference of published.yaml's numbers (or against the
    claim's constant); a relative drop the drop between two published numbers; a difference of
    two paired differences (BiVLC's T2I lead less its I2T lead) the same of four numbers:
    never a number of our own."""
    values = _published_values()
    constants = {50.0, 25.0, 20.0, 16.67, 100.0, 75.0, 0.0, 86.80}
    pairs = {round(a - b, 1) for a in values | constants for b in values | constants}
    drops = {round(100 * (1 - x / y), 1) for x in values for y in values if y > 0 and x <= y}
    bivlc = sorted({float(v) for r in load_published("bivlc", "table3")
                    for v in r["rows"].values()})
    leads = {round(a - b, 2) for a in bivlc for b in bivlc}
    lead_gaps = {round(x - y, 1) for x in leads for y in leads}
    checked = 0
    for c in load_claims():
        for spec in c.findings:
            effect = spec.published_effect
            if effect is None:
                continue
            if (spec.a.metrics[0] or "").endswith("_drop"):
                assert round(effect + (spec.b.value or 0), 1) in drops, (c.id, spec.suffix)
            elif spec.a.source == "comparisons":
                assert round(effect, 1) in lead_gaps, (c.id, spec.suffix)
            elif spec.b.constant and spec.a.benchmark == ("bison_rank_agreement",):
                assert effect == published_bison_tau(), c.id
            elif spec.b.constant:  # a published number against the constant, or (a
                # difference the run measures itself, as null - train) two published numbers
                assert any(round(v - spec.b.value, 1) == round(effect, 1)
                           for v in values | {spec.b.value}) or round(effect, 1) in pairs, (
                    c.id, spec.suffix, effect)
            else:
                assert round(effect, 1) in pairs, (c.id, spec.suffix, effect)
            checked += 1
    assert checked >= 250


def test_the_sentences_own_baselines_and_scope():
    """ARO's NegCLIP sentence compares VG-Relation with CLIP-FT and the other three with CLIP;
    its downstream sentence is about the original CLIP, on COCO and Flickr30k retrieval too;
    its marginal-loss sentence covers every model and the image shuffles."""
    claims = {c.id: c for c in load_claims()}
    improves = {s.suffix: s.b.model for s in claims["aro.negclip_improves"].findings}
    assert improves == {"VG-Relation": ("CLIP-FT",), "VG-Attribution": ("CLIP",),
                        "COCO-Order": ("CLIP",), "Flickr30k-Order": ("CLIP",)}
    downstream = claims["aro.negclip_downstream"]
    assert {s.b.model for s in downstream.findings} == {("CLIP",)}
    assert {"Flickr30k T2I R@1", "COCO I2T R@1", "ImageNet"} <= {s.suffix
                                                                for s in downstream.findings}
    marginal = claims["aro.retrieval_without_order"]
    assert len(marginal.findings) == 64 and marginal.holds == "most"
    assert {"shuffle_patches", "shuffle_all_words"} <= {s.a.perturbation
                                                        for s in marginal.findings}
    assert {s.a.model for s in marginal.findings} >= {("BLIP",), ("FLAVA",), ("X-VLM",)}


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(("fields", "message"), [
    ({"test": "bigger", "a": {"metric": "m"}, "b": {"value": 1}}, "test must be one of"),
    ({"a": {"metric": "m", "colour": 1}, "b": {"value": 1}}, "unknown operand keys"),
    ({"a": {"model": "CLIP"}, "b": {"value": 1}}, "needs a metric"),
    ({"a": {"value": 1}, "b": {"metric": "m"}}, "a must be read from the run"),
    ({"a": {"metric": "m"}, "b": {"value": 1}, "each": {"seed": [1]}}, "each takes"),
    ({"a": {"metric": "m", "source": "files"}, "b": {"value": 1}}, "source must be one of"),
    ({"a": {"metric": "m"}, "b": {"value": 1}, "holds": "some"}, "holds must be one of"),
    ({"a": {"metric": "m", "source": "comparisons"}, "b": {"value": 1}}, "needs `versus`"),
    ({"a": {"metric": "m"}, "b": {"value": 1}, "cases": [{"case": "x"}, {"case": "x"}]},
     "own `case` name"),
    ({"a": {"metric": "m", "model": "ALIGN"}, "b": {"value": 1}}, "not one of ARO's models"),
    ({"a": {"metric": "m"}, "b": {"value": 1}, "each": {"benchmark": ["x"]},
      "published": {"effect": {"y": 1}}}, "names no finding"),
])
def test_bad_claims_are_refused_by_name(fields, message):
    with pytest.raises(ValueError, match=f"claims.yaml: c: .*{message}"):
        claim(**fields)


def test_each_crosses_its_keys_and_a_side_key_varies_one_side():
    c = claim(metric="m", a={"model": "NegCLIP"},
              each={"benchmark": ["x", ["y", "world_y"]], "b.model": ["CLIP", "CLIP-FT"]},
              published={"effect": {"y/CLIP-FT": 3}})
    assert [s.suffix for s in c.findings] == ["x/CLIP", "x/CLIP-FT", "y/CLIP", "y/CLIP-FT"]
    assert {s.a.model for s in c.findings} == {("NegCLIP",)}
    assert c.findings[3].b.model == ("CLIP-FT",) and c.findings[3].b.benchmark == ("y", "world_y")
    assert [s.published_effect for s in c.findings] == [None, None, None, 3.0]


def test_cases_set_their_own_operands_test_and_each():
    c = claim(metric="m", a={"model": "NegCLIP"}, test="greater", cases=[
        {"case": "one", "benchmark": "x", "b": {"model": "CLIP-FT"}, "published": 18},
        {"case": "two", "benchmark": "y", "test": "not_below", "margin": 5,
         "each": {"b.model": ["CLIP", "CLIP-FT"]}}])
    one, two_clip, two_ft = c.findings
    assert (one.suffix, one.b.model, one.published_effect, one.test) == (
        "one", ("CLIP-FT",), 18.0, None)
    assert (two_clip.suffix, two_clip.test, two_clip.margin) == ("two/CLIP", "not_below", 5.0)
    assert two_ft.b.model == ("CLIP-FT",) and two_ft.a.benchmark == ("y",)


# ---------------------------------------------------------------- the papers' models


def test_a_configuration_names_which_model_plays_each_paper_model():
    config = {"models": {"blip": {"label": "BLIP (L)"}, "itm": {"label": "BLIP ITM"},
                         "clip": {"label": "CLIP"}, "neg": {"label": "NegCLIP"}},
              "paper_models": {"VisualGPTScore": {"VisualGPTScore": "blip", "ITMScore": "itm"},
                               "BISON": {"retrieval system": ["clip", "neg"]},
                               "ARO": {"CLIP-FT": None}}}
    check_paper_models(config)
    labels = paper_model_labels(config)
    assert labels["VisualGPTScore"] == {"VisualGPTScore": ["BLIP (L)"], "ITMScore": ["BLIP ITM"],
                                        "P(t|null)": ["Blind: P(t|null) of BLIP (L)"]}
    assert labels["BISON"]["retrieval system"] == ["CLIP", "NegCLIP"]
    assert labels["ARO"] == {}


@pytest.mark.parametrize(("mapping", "message"), [
    ({"ARXIV": {"CLIP": "clip"}}, r"config.paper_models.ARXIV: unknown paper"),
    ({"ARO": {"CLIP_COCO": "clip"}}, r"paper_models.ARO.CLIP_COCO: ARO has no model"),
    ({"ARO": {"CLIP": ["clip", "neg"]}}, r"one model plays ARO's CLIP, not 2"),
    ({"VisualGPTScore": {"P(t|null)": "clip"}}, r"follows the model that plays"),
])
def test_bad_paper_model_mappings_are_refused_by_key(mapping, message):
    config = {"models": {"clip": {"label": "CLIP"}, "neg": {"label": "NegCLIP"}},
              "paper_models": mapping}
    with pytest.raises(ConfigError, match=message):
        check_paper_models(config)


def test_a_model_key_left_out_of_models_plays_nothing_and_is_reported():
    """A configuration that trims ``models`` keeps its mapping: the key left out plays
    nothing (its findings are not run), the rest of a list still plays, and the workflow
    warns once per key."""
    config = {"models": {"clip": {"label": "CLIP"}},
              "paper_models": {"ARO": {"CLIP": "world_clip", "NegCLIP": "nope"},
                               "BISON": {"retrieval system": ["clip", "gone"]}}}
    check_paper_models(config)
    assert paper_model_labels(config) == {"ARO": {},
                                          "BISON": {"retrieval system": ["CLIP"]}}
    assert unplayed_paper_models(config) == [
        "config.paper_models.ARO.CLIP: world_clip not under models, so it does not play "
        "ARO's CLIP",
        "config.paper_models.ARO.NegCLIP: nope not under models, so it does not play "
        "ARO's NegCLIP",
        "config.paper_models.BISON.retrieval system: gone not under models, so it does not "
        "play BISON's retrieval system"]


def test_a_configured_model_no_claim_tests_is_listed_in_the_findings_with_why(run):
    """A model of one's own plays no paper model: the findings list it (its rows are in the
    tables and the summary), rather than leave the reader to wonder where it went."""
    config = {"models": {"clip": {"label": "CLIP"}, "neg": {"label": "NegCLIP"},
                         "mine": {"label": "My CLIP"}},
              "paper_models": {"ARO": {"CLIP": "clip"},
                               "BISON": {"retrieval system": ["clip", "neg"]}}}
    assert models_playing_no_paper_model(config) == ["My CLIP"]
    claims = [claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": "NegCLIP"},
                    b={"model": "CLIP-FT"})]
    findings = evaluate(claims, run)
    verdicts = verdict_claims(claims, findings)
    text = markdown_findings(verdicts, findings, untested=["My CLIP"])
    assert "## This run's models that no claim tests" in text
    assert "- My CLIP: not run in any claim: plays no paper model" in text
    assert "no claim tests" not in markdown_findings(verdicts, findings)


def test_a_paper_model_nobody_plays_is_absent_never_a_stand_in(run):
    """VisualGPTScore's ITMScore is not mapped: its finding is not run, naming the model and
    the key, although CLIP has a number."""
    c = claim(paper="VisualGPTScore", benchmark="vg_relation", metric="macro_accuracy",
              a={"model": "VisualGPTScore"}, b={"model": "ITMScore"})
    row = evaluate([c], run).iloc[0]
    assert row.verdict == NOT_RUN and row.effect != row.effect
    assert row.note.startswith("ITMScore absent (no configured model plays VisualGPTScore's "
                               "ITMScore: config paper_models)")
    blind = claim(paper="VisualGPTScore", benchmark="vg_relation", metric="macro_accuracy",
                  a={"model": "P(t|null)"}, b={"model": "VisualGPTScore"}, test="less")
    row = evaluate([blind], run).iloc[0]
    assert row.verdict == HOLDS and row.compared == \
        "P(t|null) [Blind: P(t|null) of Captioner] vs VisualGPTScore [Captioner]"


def test_a_kind_of_system_expands_to_every_model_playing_it(run):
    c = claim(paper="BISON", benchmark="vg_relation", metric="macro_accuracy", a={},
              b={"value": 50}, each={"model": ["retrieval system"]})
    rows = evaluate([c], run)
    assert rows.id.tolist() == ["c[retrieval system/CLIP]", "c[retrieval system/NegCLIP]"]
    assert rows.compared.tolist() == ["retrieval system [CLIP] vs constant 50",
                                      "retrieval system [NegCLIP] vs constant 50"]


# ---------------------------------------------------------------- findings


def test_verdicts_follow_the_interval_and_margin():
    assert verdict("greater", 0, 0.1, 5) == HOLDS and verdict("greater", 0, -0.1, 5) == FAILS
    assert verdict("greater", 10, 9.9, 30) == FAILS
    assert verdict("within", 10, -9.8, -1.5) == HOLDS
    assert verdict("within", 5, -5.3, 0.3) == FAILS
    assert verdict("not_below", 5, -4.9, 9) == HOLDS and verdict("not_below", 5, -5.1, 0) == FAILS
    assert verdict("not_above", 0, -25, -25) == HOLDS and verdict("not_above", 0, -1, 0.5) == FAILS


def test_seeded_labels_pair_seed_by_seed_with_a_t_interval(run):
    """NegCLIP - CLIP-FT over 3 seeds: the per-seed paired differences (one stored the other
    way round), their mean and a t interval over seeds."""
    from scipy import stats

    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": "NegCLIP"},
              b={"model": "CLIP-FT"})
    row = evaluate([c], run).iloc[0]
    diffs = np.array([9.0, 13.0, 9.0])
    half = stats.t.ppf(0.975, 2) * diffs.std(ddof=1) / np.sqrt(3)
    assert row.effect == pytest.approx(diffs.mean())
    assert (row.ci_low, row.ci_high) == pytest.approx((diffs.mean() - half,
                                                       diffs.mean() + half))
    assert row.seeds == 3 and row.method.startswith("t over 3 seeds (paired bootstrap")
    assert row.verdict == HOLDS and row.compared == "NegCLIP vs CLIP-FT"


def test_one_model_against_seeds_and_a_constant(run):
    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": "CLIP"},
              b={"value": 50, "label": "chance"}, test="within", margin=10)
    row = evaluate([c], run).iloc[0]
    assert (row.effect, row.ci_low, row.ci_high) == (-6.0, -10.0, -2.0)
    assert row.verdict == HOLDS and row.compared == "CLIP vs chance 50"
    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": "CLIP"},
              b={"model": "NegCLIP"})
    row = evaluate([c], run).iloc[0]
    # seed 0 is paired (-11 stored); seeds 1, 2 have no paired row: independent intervals
    assert row.seeds == 3 and row.effect == pytest.approx(np.mean([-11.0, -9.0, -8.0]))
    assert row.verdict == FAILS


def test_unpaired_difference_uses_both_intervals(run):
    c = claim(paper="VisualGPTScore", benchmark="vg_relation", metric="macro_accuracy",
              a={"model": "P(t|null)"}, b={"model": "NegCLIP"})
    labels = {"VisualGPTScore": {**LABELS["VisualGPTScore"], "NegCLIP": ["CLIP"]}}
    row = evaluate([c], run, labels).iloc[0]
    z = 1.959964
    spread = np.hypot(8 / (2 * z), 8 / (2 * z))
    assert row.effect == 31.0 and row.ci_low == pytest.approx(31.0 - z * spread, abs=1e-4)
    assert row.method == "unpaired (normal approx.)"


def test_missing_benchmarks_are_not_run_with_the_reason(run):
    missing = claim(benchmark=["coco_order", "order"], metric="mean", a={"model": "CLIP"},
                    b={"value": 20})
    row = evaluate([missing], run).iloc[0]
    assert row.verdict == NOT_RUN and "no mean of CLIP on coco_order or order" in row.note


def test_difference_reads_labels_for_the_summary(run):
    diff = difference(run, "vg_relation", "macro_accuracy", "Blind: P(t|null) of Captioner",
                      "CLIP")
    assert diff[0] == 31.0
    assert difference(run, "vg_relation", "macro_accuracy", "CLIP", "X-VLM") is None


def test_two_metrics_of_the_same_items_use_their_paired_interval(tmp_path):
    """BiVLC's I2T less T2I of one model reads the uncertainty job's same-item pair (stored
    either way round), not two independent intervals."""
    folder = tmp_path / "uncertainty"
    write(folder, "bivlc", [("clip", "I2T", 70.0, 66.0, 74.0, 500),
                            ("clip", "T2I", 50.0, 46.0, 54.0, 500)], INTERVAL)
    write(folder, "bivlc_comparisons", [
        ("clip", "clip", "T2I", "I2T", -20.0, -22.5, -17.5, 0.0, 1, 2, 0.0)],
        ["model_a", "model_b", "metric", "metric_b", *PAIRED[3:]])
    numbers = RunNumbers(folder, {"CLIP": ["clip"]})
    c = claim(paper="BiVLC", benchmark="bivlc", a={"model": "CLIP", "metric": "I2T"},
              b={"model": "CLIP", "metric": "T2I"})
    row = evaluate([c], numbers, {"BiVLC": {"CLIP": ["CLIP"]}}).iloc[0]
    assert row.method == "paired bootstrap"
    assert (row.effect, row.ci_low, row.ci_high) == (20.0, 17.5, 22.5)


def test_a_difference_of_two_paired_differences(tmp_path):
    """BiVLC's "mainly from T2I": TROHN-Img's paired lead over a rival on T2I less its lead on
    I2T, the two leads' intervals combined as if independent."""
    folder = tmp_path / "uncertainty"
    write(folder, "bivlc", [(m, k, 50.0, 45.0, 55.0, 100) for m in ("img", "coco")
                            for k in ("I2T", "T2I")], INTERVAL)
    write(folder, "bivlc_comparisons", [
        ("img", "coco", "T2I", 8.0, 6.0, 10.0, 0.0, 1, 2, 0.0),
        ("coco", "img", "I2T", -6.0, -8.0, -4.0, 0.0, 1, 2, 0.0)], PAIRED)
    numbers = RunNumbers(folder, {"CLIP_TROHN-Img": ["img"], "CLIP_COCO": ["coco"]})
    c = claim(paper="BiVLC", source="comparisons", benchmark="bivlc", model="CLIP_TROHN-Img",
              versus="CLIP_COCO", a={"metric": "T2I"}, b={"metric": "I2T"})
    labels = {"BiVLC": {"CLIP_TROHN-Img": ["CLIP_TROHN-Img"], "CLIP_COCO": ["CLIP_COCO"]}}
    row = evaluate([c], numbers, labels).iloc[0]
    z = 1.959964
    assert row.effect == pytest.approx(2.0) and row.method == "unpaired (normal approx.)"
    assert row.ci_high - row.effect == pytest.approx(z * np.hypot(2 / z, 2 / z), abs=1e-4)
    assert row.compared.startswith("CLIP_TROHN-Img − CLIP_COCO")


def test_table_cells_and_model_less_operands(tmp_path):
    """A paper table's cell (BISON Table 4: a captioner against the Human row; a table without
    an interval companion is exact); an operand without a model reads a table of none."""
    folder = tmp_path / "uncertainty"
    tables = tmp_path / "tables"
    write(tables / "bison", "table4", [("Captioner", 30.0, 90.0), ("Human", 21.7, 95.0)],
          ["model", "BLEU-4", "CIDEr-D"])
    write(folder, "bison_section6", [("BLEU-4", 70.0, 66.0, 74.0, 500)],
          ["metric", "value", "ci_low", "ci_high", "n"])
    numbers = RunNumbers(folder, {"Captioner": ["cap"]})
    c = claim(paper="BISON", source="table", table="bison/table4", a={}, b={"row": "Human"},
              each={"model": ["captioning system"], "metric": ["BLEU-4", "CIDEr-D"]})
    rows = evaluate([c], numbers, {"BISON": {"captioning system": ["Captioner"]}})
    assert rows.verdict.tolist() == [HOLDS, FAILS]
    assert rows.effect.tolist() == pytest.approx([8.3, -5.0])
    assert rows.compared.iloc[0] == "captioning system [Captioner] vs Human"
    select = claim(paper="BISON", test="not_above", benchmark="bison_section6", a={},
                   b={"value": 75}, each={"metric": ["BLEU-4", "SPICE"]})
    rows = evaluate([select], numbers).set_index("id")
    assert rows.verdict["c[BLEU-4]"] == HOLDS and rows.verdict["c[SPICE]"] == NOT_RUN


def test_robustness_conditions_and_gallery_candidates(tmp_path):
    folder = tmp_path / "uncertainty"
    write(folder, "robustness", [
        (g, "text", "char_swap", "clip", "t2i_r1_drop", v, v - 2, v + 2)
        for g, v in (("coco", 20.0), ("coco_fine", 5.0), ("coco_hendriksen", 12.0))],
        ["gallery", "kind", "perturbation", "model", "metric", "value", "ci_low", "ci_high"])
    numbers = RunNumbers(folder, {"CLIP": ["clip"]})
    drop = claim(paper="Hendriksen et al.", test="less", margin=2, source="robustness",
                 model="CLIP", kind="text", metric="t2i_r1_drop", perturbation="char_swap",
                 a={"gallery": ["coco_fine"]}, b={"gallery": ["coco_hendriksen", "coco"]})
    row = evaluate([drop], numbers, {"Hendriksen et al.": {"CLIP": ["CLIP"]}}).iloc[0]
    assert row.effect == pytest.approx(5.0 - 12.0) and row.verdict == HOLDS
    assert row.test == "< -2" and row.compared == "CLIP: coco_fine vs coco_hendriksen"


# ---------------------------------------------------------------- claims' verdicts


def _frame(ps, verdicts, claim_id="c", paper="ARO"):
    return pd.DataFrame({"id": [f"{claim_id}[{k}]" for k in range(len(ps))],
                         "claim_id": claim_id, "paper": paper, "test": "> 0",
                         "verdict": verdicts, "finding_p": ps, "note": ""})


def test_a_claim_holds_when_all_or_most_of_its_findings_do():
    from vlcomp.report.claim_verdicts import claim_row

    every = claim(a={"metric": "m"}, b={"value": 0})
    most = claim(a={"metric": "m"}, b={"value": 0}, holds="most")
    findings = _frame([0.001, 0.002, 0.3, np.nan], [HOLDS, HOLDS, FAILS, NOT_RUN])
    row = claim_row(every, findings, 0.95)
    assert (row["verdict"], row["run"], row["held"], row["needed"]) == (FAILS, 3, 2, 3)
    assert row["claim_p"] == pytest.approx(0.3)  # the intersection-union test: the largest
    row = claim_row(most, findings, 0.95)
    # 2 of 3: p = (3 - 2 + 1) x the 2nd smallest
    assert row["verdict"] == HOLDS and row["claim_p"] == pytest.approx(0.004)
    assert claim_row(most, _frame([0.02, 0.02, 0.5], [HOLDS, HOLDS, FAILS]),
                     0.95)["verdict"] == FAILS  # 2 x 0.02 is not below 2.5 %
    none = claim_row(every, _frame([np.nan], [NOT_RUN]), 0.95)
    assert none["verdict"] == NOT_RUN and none["run"] == 0


def test_holm_and_bh_adjust_within_each_paper():
    """A paper's adjusted verdicts do not move when another paper's claims are added."""
    aro = [claim(id=f"aro{k}", a={"metric": "m"}, b={"value": 0}) for k in range(3)]
    rows = pd.concat([_frame([p], [HOLDS if p < 0.025 else FAILS], c.id)
                      for c, p in zip(aro, (0.001, 0.012, 0.3), strict=True)])
    alone = verdict_claims(aro, rows)
    assert alone.verdict_holm.tolist() == [HOLDS, HOLDS, FAILS]  # 0.012 x 2 = 0.024 < 0.025
    assert alone.claim_p_holm.tolist() == pytest.approx([0.003, 0.024, 0.3])
    assert alone.claim_p_bh.tolist() == pytest.approx([0.003, 0.018, 0.3])
    others = [claim(id=f"vgs{k}", paper="VisualGPTScore", a={"metric": "m"}, b={"value": 0})
              for k in range(20)]
    more = pd.concat([rows, *[_frame([0.001], [HOLDS], c.id, "VisualGPTScore")
                              for c in others]])
    together = verdict_claims(aro + others, more).set_index("id")
    assert together.loc[[c.id for c in aro], "verdict_holm"].tolist() == \
        alone.verdict_holm.tolist()
    counts = paper_counts(together.reset_index()).set_index("paper")
    assert counts.loc["VisualGPTScore", "hold after Holm"] == 20
    assert counts.loc["ARO", "claims"] == 3


def test_sanity_checks_stand_apart():
    check = claim(id="s", a={"metric": "m"}, b={"value": 0}, sanity="cannot fail")
    normal = claim(id="n", a={"metric": "m"}, b={"value": 0})
    rows = pd.concat([_frame([0.001], [HOLDS], "s"), _frame([0.5], [FAILS], "n")])
    frame = verdict_claims([check, normal], rows).set_index("id")
    assert frame.kind["s"] == SANITY and frame.kind["n"] == CLAIM
    assert frame.verdict_holm["s"] == "" and np.isnan(frame.claim_p_holm["s"])
    assert paper_counts(frame.reset_index()).claims.tolist() == [1]


def test_claim_p_values_agree_with_the_interval_verdicts():
    """A finding's one-sided p-value, read from its interval, is below 2.5 % exactly when a
    95 % normal interval clears the margin; a t interval over seeds reads with its t."""
    from scipy import stats

    from vlcomp.report.multiplicity import claim_p_value

    z = 1.959963984540054
    for test, margin, effect in (("greater", 0.0, 3.0), ("greater", 10.0, 12.0),
                                 ("not_below", 5.0, -2.5), ("not_above", 0.0, -1.0),
                                 ("within", 10.0, 4.0), ("less", 5.0, -8.0)):
        for se in (0.5, 1.0, 2.0, 4.0):
            low, high = effect - z * se, effect + z * se
            p = claim_p_value(test, margin, effect, low, high)
            assert (p < 0.025) == (verdict(test, margin, low, high) == HOLDS), (test, se, p)
    t = stats.t.ppf(0.975, 2)
    assert claim_p_value("greater", 0, 4.1, 4.1 - t * 2.0, 4.1 + t * 2.0, df=2) == \
        pytest.approx(stats.t.sf(4.1 / 2.0, 2))
    assert claim_p_value("not_above", 0, -25.0, -25.0, -25.0) == 0.0  # a point interval
    # an exact number on the bound: inclusive tests hold, strict ones do not (the verdicts)
    for test, expected in (("not_above", 0.0), ("not_below", 0.0), ("within", 0.0),
                           ("greater", 1.0), ("less", 1.0)):
        assert claim_p_value(test, 0, 0.0, 0.0, 0.0) == expected
        assert (expected < 0.025) == (verdict(test, 0, 0.0, 0.0) == HOLDS)
    assert np.isnan(claim_p_value("greater", 0, np.nan, np.nan, np.nan))


def test_holm_bh_and_at_least_k():
    from vlcomp.report.multiplicity import at_least_p, benjamini_hochberg, holm

    adjusted = holm([0.01, np.nan, 0.04, 0.003, 0.5])
    assert np.allclose(adjusted[[3, 0, 2, 4]], [0.012, 0.03, 0.08, 0.5])
    assert np.isnan(adjusted[1])
    q = benjamini_hochberg([0.01, np.nan, 0.04, 0.003, 0.5])
    assert np.allclose(q[[3, 0, 2, 4]], [0.012, 0.02, 0.0533333, 0.5])
    assert at_least_p([0.01, 0.2, 0.03], 3) == pytest.approx(0.2)
    assert at_least_p([0.01, 0.2, 0.03], 2) == pytest.approx(0.06)
    assert np.isnan(at_least_p([0.01, np.nan], 2))


# ---------------------------------------------------------------- files and text


def test_findings_files_round_trip_and_render(run, tmp_path):
    claims = [claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": "NegCLIP"},
                    b={"model": "CLIP-FT"}, published={"effect": 18,
                                                        "text": "NegCLIP 81, CLIP-FT 63"}),
              claim(id="d", benchmark="vg_relation", metric="macro_accuracy",
                    a={"model": "FLAVA"}, b={"value": 50}, note="why")]
    findings = evaluate(claims, run)
    verdicts = verdict_claims(claims, findings)
    write_findings(verdicts, findings, tmp_path / "claims.csv", tmp_path / "findings.csv",
                   tmp_path / "findings.md")
    back, back_claims = read_findings(tmp_path / "findings.csv"), read_claims(tmp_path /
                                                                              "claims.csv")
    assert back.verdict.tolist() == [HOLDS, NOT_RUN] and back.note.iloc[0] == ""
    assert back_claims.verdict.tolist() == [HOLDS, NOT_RUN]
    assert back_claims.absent.iloc[1].startswith("FLAVA absent")
    md = (tmp_path / "findings.md").read_text()
    assert "Of the papers' 2 claims, **1 hold, 0 do not** and 1 were not run" in md
    assert "| ARO | 2 | 1 | 0 | 1 | 1 | 1 |" in md
    assert "### `c`: a claim" in md and "> “q”" in md and "Note: why" in md
    assert "| – | NegCLIP vs CLIP-FT | vg_relation · macro_accuracy |" in md
    assert markdown_findings(back_claims, back) in md
    rst = rst_findings(back_claims, back)
    assert "1 hold, 0 do not" in rst and "``results/index.html``" in rst
    assert "- " not in rst.split("index.html")[1]  # nothing fails: no list
    write_front_page("Intro {{ snakemake.config }}\n", back_claims, back, tmp_path / "f.rst")
    front = (tmp_path / "f.rst").read_text()
    assert front.startswith("Intro {{ snakemake.config }}\n\n{% raw %}\nFindings")
    assert front.rstrip().endswith("{% endraw %}")


def test_quotes_read_without_the_extractions_latex_residue():
    assert readable(r"from 63%percent6363\% to 81%percent8181\%, on") == "from 63% to 81%, on"
    assert readable("no residue: 5 % of 20") == "no residue: 5 % of 20"


def test_every_shipped_claim_expands_on_the_paper_configuration():
    """config/paper.yaml plays every paper model but a few the papers' authors never
    released: its claims' findings all resolve (none absent) but those."""
    import yaml

    config = yaml.safe_load((REPO / "config/paper.yaml").read_text())
    check_paper_models(config)
    labels = paper_model_labels(config)
    absent = {f.absent for c in load_claims() for f in instantiate(c, labels) if f.absent}
    assert absent == set()


# ---------------------------------------------------------------- published, by direction


def test_world_tables_face_published_numbers_by_direction():
    """A world run's ARO Table 6: gaps to chance and to CLIP, published and ours, never the
    absolute difference."""
    ours = pd.DataFrame({"VG-Relation": [44.0, 46.0, 56.0], "Order": [25.0, 25.5, 35.0]},
                        index=pd.Index(["CLIP", "CLIP-FT", "NegCLIP"], name="model"))
    table = side_by_side(ours, load_published("aro", "table6"), {"COCO-Order": "Order"},
                         directions=True).reset_index()
    assert "difference" not in table and set(table.columns) == set(DIRECTION_COLUMNS)
    clip = table[(table.row == "CLIP") & (table.column == "VG-Relation")].iloc[0]
    assert (clip.chance, clip.vs_chance_published, clip.vs_chance_reproduced) == (50, 9, -6)
    assert clip.reference == "" and clip.agrees == "no"
    neg = table[(table.row == "NegCLIP") & (table.column == "COCO-Order")].iloc[0]
    assert neg.reference == "CLIP" and neg.vs_reference_published == 40
    assert neg.vs_reference_reproduced == 10 and neg.agrees == "yes"
    ft = table[(table.row == "CLIP-FT") & (table.column == "COCO-Order")].iloc[0]
    assert ft.agrees == "partly"  # above chance as published; +0.5 vs CLIP has no direction
    assert chance_levels("aro")["COCO-Order"] == 20


def test_agreement_ignores_gaps_without_direction():
    assert agreement([(9.0, -5.0), (0.5, 3.0)]) == "no"
    assert agreement([(9.0, 5.0), (-4.0, -2.0)]) == "yes"
    assert agreement([(9.0, 5.0), (-4.0, 2.0)]) == "partly"
    assert agreement([(0.2, 5.0), (np.nan, 1.0)]) == "–"


def test_summary_gives_world_directions_with_intervals():
    """The summary's published rows of a direction table: the gap to chance with the value's
    interval less chance, the gap to the reference with the paired interval."""
    from vlcomp.report.intervals import CellIntervals

    ours = pd.DataFrame({"VG-Relation": [44.0, 56.0]},
                        index=pd.Index(["CLIP", "NegCLIP"], name="model"))
    table = side_by_side(ours, load_published("aro", "table6"),
                         directions=True).reset_index()
    table = table[table.reproduced.notna()]
    cells = pd.DataFrame({"row": ["CLIP", "NegCLIP"], "column": ["VG-Relation"] * 2,
                          "value": [44.0, 56.0], "ci_low": [40.0, 52.0],
                          "ci_high": [48.0, 60.0]})
    lookup = CellIntervals.from_frame("aro/table6", cells)
    rows, without = published_rows({"aro/table6": table}, lookup, {},
                                   lambda t, a, b, c: (12.0, 8.0, 16.0))
    assert not without and "difference" not in rows
    neg = rows[rows.model == "NegCLIP"].iloc[0]
    assert neg["vs chance: paper → ours [95 % CI]"] == "+31.0 → +6.0 [+2.0, +10.0]"
    assert neg["vs reference: paper → ours [95 % CI]"] == "CLIP: +22.0 → +12.0 [+8.0, +16.0]"
    assert neg.agrees == "yes"


def test_a_column_on_a_0_to_1_scale_has_directions():
    """α* lives on 0-1: its gaps are read with a 0.01 tolerance, not 1 point (which would
    leave every α* gap without a direction)."""
    from vlcomp.report.published import column_tolerance

    ours = pd.DataFrame({"α*": [0.30, 0.72]}, index=pd.Index(["A", "B"], name="model"))
    records = [{"paper": "visualgptscore", "table": "t", "column": "α*", "source": "s",
                "rows": {"A": 0.25, "B": 0.80}}]
    table = side_by_side(ours, records, directions=True).reset_index()
    b = table[table.row == "B"].iloc[0]
    assert b.reference == "A" and b.vs_reference_published == pytest.approx(0.55)
    assert b.vs_reference_reproduced == pytest.approx(0.42) and b.agrees == "yes"
    assert column_tolerance([0.25, 0.8]) == 0.01 and column_tolerance([25.0, 0.8]) == 1.0


def test_a_kind_named_on_both_sides_is_one_model_in_each_finding(run):
    """BISON's "the BISON score of all systems is higher than their recall@1": each retrieval
    system against its own R@1, never another's."""
    c = claim(paper="BISON", metric="macro_accuracy", a={"benchmark": "vg_relation"},
              b={"benchmark": "vg_relation"}, test="within", margin=1,
              each={"model": ["retrieval system"]})
    rows = evaluate([c], run)
    assert rows.id.tolist() == ["c[retrieval system/CLIP]", "c[retrieval system/NegCLIP]"]
    assert rows.effect.tolist() == [0.0, 0.0]
    two = claim(paper="BISON", benchmark="vg_relation", metric="macro_accuracy",
                each={"a.model": ["retrieval system"], "b.model": ["retrieval system"]})
    assert len(evaluate([two], run)) == 2  # one kind, one model per finding
