"""The papers' claims tested on a run's uncertainty tables (results/findings.{csv,md}), and the
world's direction-only comparisons with published numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vlcomp.report.findings import (
    FAILS,
    HOLDS,
    NOT_RUN,
    RunNumbers,
    difference,
    evaluate,
    load_claims,
    markdown_findings,
    parse_claims,
    read_findings,
    rst_findings,
    verdict,
    write_findings,
    write_front_page,
)
from vlcomp.report.published import (
    DIRECTION_COLUMNS,
    agreement,
    chance_levels,
    load_published,
    side_by_side,
)
from vlcomp.report.summary import published_rows

GROUPS = {"CLIP": ["clip"], "CLIP-FT": ["ft_s0", "ft_s1", "ft_s2"],
          "NegCLIP": ["neg_s0", "neg_s1", "neg_s2"], "Blind: P(t|null) of Captioner": ["blind"]}


def write(folder, name, rows, columns):
    path = folder / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)


INTERVAL = ["model", "metric", "value", "ci_low", "ci_high", "n"]
PAIRED = ["model_a", "model_b", "metric", "difference", "ci_low", "ci_high", "p_bootstrap",
          "only_a", "only_b", "p_mcnemar"]


@pytest.fixture
def run(tmp_path):
    """A run's uncertainty folder: VG-Relation with CLIP, 3 seeds of CLIP-FT and NegCLIP and a
    blind prior; paired rows stored in either order."""
    folder = tmp_path / "uncertainty"
    write(folder, "vg_relation", [
        ("clip", "macro_accuracy", 44.0, 40.0, 48.0, 500),
        *[(f"ft_s{i}", "macro_accuracy", v, v - 3, v + 3, 500)
          for i, v in enumerate((46.0, 40.0, 43.0))],
        *[(f"neg_s{i}", "macro_accuracy", v, v - 3, v + 3, 500)
          for i, v in enumerate((55.0, 53.0, 52.0))],
        ("blind", "macro_accuracy", 75.0, 71.0, 79.0, 500)], INTERVAL)
    write(folder, "vg_relation_comparisons", [
        # seed 0 stored as (CLIP-FT, NegCLIP): the findings flip it
        ("ft_s0", "neg_s0", "macro_accuracy", -9.0, -12.5, -5.5, 0.0, 1, 2, 0.0),
        ("neg_s1", "ft_s1", "macro_accuracy", 13.0, 9.0, 17.0, 0.0, 1, 2, 0.0),
        ("neg_s2", "ft_s2", "macro_accuracy", 9.0, 5.0, 13.0, 0.0, 1, 2, 0.0),
        ("clip", "neg_s0", "macro_accuracy", -11.0, -15.0, -7.0, 0.0, 1, 2, 0.0)], PAIRED)
    return RunNumbers(folder, GROUPS)


def claim(**fields):
    return parse_claims([{"id": "c", "paper": "P", "where": "Table 1", "claim": "a claim",
                          "test": "greater", **fields}])[0]


def test_shipped_claims_parse_and_cover_every_paper():
    claims = load_claims()
    assert len(claims) >= 15 and len({c.id for c in claims}) == len(claims)
    assert {c.paper.split(" /")[0] for c in claims} >= {
        "ARO", "BiVLC", "BISON", "VisualGPTScore", "Hendriksen et al."}
    per_paper = pd.Series([c.paper for c in claims]).value_counts()
    assert per_paper.min() >= 1 and per_paper.get("ARO", 0) >= 3


def test_published_effects_are_the_papers_numbers():
    """Each claim's paper effect, and each finding's of an `each` claim, is a difference of
    published.yaml's numbers (or a chance level), or for a relative drop, the drop between
    two published numbers less the claim's constant: never a number of our own."""
    values = {float(v) for r in load_published() for v in r["rows"].values()}
    chance = {50.0, 25.0, 20.0, 16.67}
    pairs = {round(a - b, 1) for a in values | chance for b in values | chance}
    drops = {round(100 * (1 - x / y), 1) for x in values for y in values if y > 0 and x <= y}
    checked = 0
    for c in load_claims():
        effects = [e for e in (c.published_effect,) if e is not None]
        effects += [e for _, e in c.published_by]
        for effect in effects:
            if (c.a.metric or "").endswith("_drop"):
                assert round(effect + (c.b.value or 0), 1) in drops, (c.id, effect)
            elif c.b.constant:  # against the claim's own bound (chance, humans, 75 %)
                assert any(round(v - c.b.value, 1) == round(effect, 1) for v in values), (
                    c.id, effect)
            else:
                assert round(effect, 1) in pairs, (c.id, effect)
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize(("fields", "message"), [
    ({"test": "bigger", "a": {"metric": "m"}, "b": {"value": 1}}, "test must be one of"),
    ({"a": {"metric": "m", "colour": 1}, "b": {"value": 1}}, "unknown operand keys"),
    ({"a": {"model": "CLIP"}, "b": {"value": 1}}, "needs a metric"),
    ({"a": {"value": 1}, "b": {"metric": "m"}}, "a must be read from the run"),
    ({"a": {"metric": "m"}, "b": {"value": 1}, "each": {"seed": [1]}}, "each takes one of"),
    ({"a": {"metric": "m", "source": "files"}, "b": {"value": 1}}, "source must be one of"),
])
def test_bad_claims_are_refused_by_name(fields, message):
    with pytest.raises(ValueError, match=f"claims.yaml: c: .*{message}"):
        claim(**fields)


def test_each_finding_takes_its_own_paper_effect():
    from vlcomp.report.findings import expand

    found = claim(a={"metric": "m"}, b={"value": 50},
                  each={"benchmark": [["coco_order", "order"], "flickr30k_order"]},
                  published={"effect": {"coco_order": 40, "flickr30k_order": 32}})
    assert [f.published_effect for f in expand(found, None)] == [40.0, 32.0]
    with pytest.raises(ValueError, match=r"published\.effect by value needs `each`"):
        claim(a={"metric": "m"}, b={"value": 50}, published={"effect": {"x": 1}})


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

    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": ["NegCLIP"]},
              b={"model": ["CLIP-FT"]})
    row = evaluate([c], run).iloc[0]
    diffs = np.array([9.0, 13.0, 9.0])
    half = stats.t.ppf(0.975, 2) * diffs.std(ddof=1) / np.sqrt(3)
    assert row.effect == pytest.approx(diffs.mean())
    assert (row.ci_low, row.ci_high) == pytest.approx((diffs.mean() - half,
                                                       diffs.mean() + half))
    assert row.seeds == 3 and row.method.startswith("t over 3 seeds (paired bootstrap")
    assert row.verdict == HOLDS and row.compared == "NegCLIP vs CLIP-FT"


def test_one_model_against_seeds_and_a_constant(run):
    """CLIP (one model) faces every NegCLIP seed; a chance level is a constant, its interval
    the model's own."""
    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": ["CLIP"]},
              b={"value": 50, "label": "chance"}, test="within", margin=10)
    row = evaluate([c], run).iloc[0]
    assert (row.effect, row.ci_low, row.ci_high) == (-6.0, -10.0, -2.0)
    assert row.verdict == HOLDS and row.compared == "CLIP vs chance 50"
    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={"model": ["CLIP"]},
              b={"model": ["NegCLIP"]})
    row = evaluate([c], run).iloc[0]
    # seed 0 is paired (-11 stored); seeds 1, 2 have no paired row: independent intervals
    assert row.seeds == 3 and row.effect == pytest.approx(np.mean([-11.0, -9.0, -8.0]))
    assert row.verdict == FAILS


def test_unpaired_difference_uses_both_intervals(run):
    c = claim(benchmark="vg_relation", metric="macro_accuracy",
              a={"model": ["Blind: P(t|null) of *"]}, b={"model": ["CLIP"]})
    row = evaluate([c], run).iloc[0]
    z = 1.959964
    spread = np.hypot(8 / (2 * z), 8 / (2 * z))
    assert row.effect == 31.0 and row.ci_low == pytest.approx(31.0 - z * spread, abs=1e-4)
    assert row.method == "unpaired (normal approx.)"


def test_missing_models_and_benchmarks_are_not_run_with_the_reason(run):
    missing_model = claim(benchmark="vg_relation", metric="macro_accuracy",
                          a={"model": ["X-VLM"]}, b={"model": ["CLIP"]})
    missing_bench = claim(benchmark=["coco_order", "order"], metric="mean",
                          a={"model": ["CLIP"]}, b={"value": 20})
    rows = evaluate([missing_model, missing_bench], run)
    assert (rows.verdict == NOT_RUN).all() and rows.effect.isna().all()
    assert "no model labelled X-VLM" in rows.note.iloc[0]
    assert "no mean of CLIP on coco_order or order" in rows.note.iloc[1]


def test_each_model_expands_to_labels_with_numbers(run):
    c = claim(benchmark="vg_relation", metric="macro_accuracy", a={},
              b={"value": 50}, each={"model": ["*"]})
    rows = evaluate([c], run)
    assert rows.id.tolist() == [f"c[{label}]" for label in GROUPS]
    nothing = claim(benchmark="vg_relation", metric="macro_accuracy", a={},
                    b={"value": 50}, each={"model": ["GNM"]})
    row = evaluate([nothing], run)
    assert len(row) == 1 and row.verdict.iloc[0] == NOT_RUN and "GNM" in row.note.iloc[0]


def test_difference_escapes_labels_for_the_summary(run):
    diff = difference(run, "vg_relation", "macro_accuracy", "Blind: P(t|null) of Captioner",
                      "CLIP")
    assert diff[0] == 31.0
    assert difference(run, "vg_relation", "macro_accuracy", "CLIP", "X-VLM") is None


def test_findings_files_round_trip_and_render(run, tmp_path):
    claims = [claim(benchmark="vg_relation", metric="macro_accuracy",
                    a={"model": ["NegCLIP"]}, b={"model": ["CLIP-FT"]},
                    published={"effect": 18, "text": "NegCLIP 81, CLIP-FT 63"}),
              claim(id="d", benchmark="vg_relation", metric="macro_accuracy",
                    a={"model": ["X-VLM"]}, b={"value": 50}, note="why")]
    claims[1] = parse_claims([{"id": "d", "paper": "P", "where": "W", "claim": "another",
                               "test": "greater", "benchmark": "vg_relation",
                               "metric": "macro_accuracy", "a": {"model": ["X-VLM"]},
                               "b": {"value": 50}, "note": "why"}])[0]
    findings = evaluate(claims, run)
    write_findings(findings, tmp_path / "findings.csv", tmp_path / "findings.md")
    back = read_findings(tmp_path / "findings.csv")
    assert back.note.iloc[0] == "" and back.verdict.tolist() == [HOLDS, NOT_RUN]
    md = (tmp_path / "findings.md").read_text()
    assert "1 findings hold, 0 do not, 1 were not run" in md
    assert "+18.0; NegCLIP 81, CLIP-FT 63" in md and "- `d`: no model labelled X-VLM" in md
    assert markdown_findings(back) in md
    rst = rst_findings(back)
    assert "1 hold, 0 do not, 1 were not run" in rst and "``results/index.html``" in rst
    assert "- " not in rst.split("index.html")[1]  # nothing fails: no list
    write_front_page("Intro {{ snakemake.config }}\n", back, tmp_path / "front.rst")
    front = (tmp_path / "front.rst").read_text()
    assert front.startswith("Intro {{ snakemake.config }}\n\n{% raw %}\nFindings")
    assert front.rstrip().endswith("{% endraw %}")


def test_rst_escapes_markup():
    frame = pd.DataFrame([{"id": "x", "paper": "V", "where": "T", "claim": "P(t|i) > *ITC*",
                           "compared": "a_b vs c", "benchmark": "vg_relation", "metric": "m",
                           "test": "> 0", "effect": 1.0, "ci_low": 0.5, "ci_high": 1.5,
                           "p_value": 0.01, "method": "", "seeds": 1, "verdict": HOLDS,
                           "claim_p": 0.001, "claim_p_holm": 0.03, "verdict_holm": FAILS,
                           "published_effect": np.nan, "published": "", "note": ""}])
    rst = rst_findings(frame)
    assert "- P(t\\|i) > \\*ITC\\* (V, T): a\\_b vs c" in rst
    # a verdict Holm's adjustment changes is listed under its own heading
    assert "not after Holm's adjustment (1):" in rst and "1 findings run" in rst


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


def test_claim_p_values_agree_with_the_interval_verdicts():
    """A claim's one-sided p-value, read from its interval, is below 2.5 % exactly when a
    95 % normal interval clears the margin; a t interval over seeds reads with its t."""
    from vlcomp.report.multiplicity import claim_p_value

    z = 1.959963984540054
    for test, margin, effect in (("greater", 0.0, 3.0), ("greater", 10.0, 12.0),
                                 ("not_below", 5.0, -2.5), ("not_above", 0.0, -1.0),
                                 ("within", 10.0, 4.0), ("less", 5.0, -8.0)):
        for se in (0.5, 1.0, 2.0, 4.0):
            low, high = effect - z * se, effect + z * se
            p = claim_p_value(test, margin, effect, low, high)
            assert (p < 0.025) == (verdict(test, margin, low, high) == HOLDS), (test, se, p)
    from scipy import stats

    t = stats.t.ppf(0.975, 2)
    assert claim_p_value("greater", 0, 4.1, 4.1 - t * 2.0, 4.1 + t * 2.0, df=2) == \
        pytest.approx(stats.t.sf(4.1 / 2.0, 2))
    assert claim_p_value("not_above", 0, -25.0, -25.0, -25.0) == 0.0  # a point interval
    assert np.isnan(claim_p_value("greater", 0, np.nan, np.nan, np.nan))


def test_holm_adjusts_in_steps_and_skips_findings_not_run():
    from vlcomp.report.multiplicity import holm

    adjusted = holm([0.01, np.nan, 0.04, 0.003, 0.5])
    # sorted: 0.003 x 4, 0.01 x 3, 0.04 x 2 (then monotone), 0.5 x 1
    assert np.allclose(adjusted[[3, 0, 2, 4]], [0.012, 0.03, 0.08, 0.5])
    assert np.isnan(adjusted[1])


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


PAPER_FILES = {"BiVLC": "000", "ARO": "001", "BISON": "002", "VisualGPTScore": "003",
               "Hendriksen et al.": "004"}


def test_every_claim_quotes_its_paper_verbatim():
    """Each claim cites the sentence of its paper that it tests, word for word as the paper
    has it (runs of white space aside): a paraphrase, a quote from the wrong paper or a
    claim without one fails."""
    from vlcomp.report.findings import load_claims

    from .conftest import REPO

    papers = REPO.parent / "shared" / "papers"
    text = {name: " ".join(next(papers.glob(f"{prefix}_*.txt")).read_text("utf-8").split())
            for name, prefix in PAPER_FILES.items()}
    for claim in load_claims():
        assert claim.paper in PAPER_FILES, f"{claim.id}: paper {claim.paper!r}"
        assert claim.quote, f"{claim.id} quotes nothing"
        assert claim.quote in text[claim.paper], f"{claim.id}: not in {claim.paper}"


def test_quotes_read_without_the_extractions_latex_residue():
    from vlcomp.report.findings import readable

    assert readable(r"from 63%percent6363\% to 81%percent8181\%, on") == "from 63% to 81%, on"
    assert readable("no residue: 5 % of 20") == "no residue: 5 % of 20"


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
    c = claim(benchmark="bivlc", a={"model": ["CLIP"], "metric": "I2T"},
              b={"model": ["CLIP"], "metric": "T2I"})
    row = evaluate([c], numbers).iloc[0]
    assert row.method == "paired bootstrap"
    assert (row.effect, row.ci_low, row.ci_high) == (20.0, 17.5, 22.5)


def test_less_model_less_operands_and_candidates_in_order(tmp_path):
    """``less`` mirrors ``greater``; an operand without a model reads a table of none (BISON's
    caption-score selection); metric and gallery candidates are tried in order."""
    folder = tmp_path / "uncertainty"
    write(folder, "bison_section6", [("BLEU-4", 70.0, 66.0, 74.0, 500),
                                     ("SPICE", 78.0, 74.0, 82.0, 500)],
          ["metric", "value", "ci_low", "ci_high", "n"])
    write(folder, "bison", [("clip", "accuracy", 80.0, 77.0, 83.0, 500)], INTERVAL)
    write(folder, "world_retrieval", [("clip", "t2i_r1", 30.0, 27.0, 33.0, 300)], INTERVAL)
    write(folder, "robustness", [
        (g, "text", "char_swap", "clip", "t2i_r1_drop", v, v - 2, v + 2)
        for g, v in (("coco", 20.0), ("coco_fine", 5.0), ("coco_hendriksen", 12.0))],
        ["gallery", "kind", "perturbation", "model", "metric", "value", "ci_low", "ci_high"])
    numbers = RunNumbers(folder, {"CLIP": ["clip"]})
    select = claim(test="not_above", benchmark="bison_section6", a={}, b={"value": 75},
                   each={"metric": ["BLEU-4", "SPICE", "METEOR"]})
    rows = evaluate([select], numbers).set_index("id")
    assert rows.verdict["c[BLEU-4]"] == HOLDS and rows.verdict["c[SPICE]"] == FAILS
    assert rows.compared["c[BLEU-4]"] == "BLEU-4 vs constant 75"
    assert rows.verdict["c[METEOR]"] == NOT_RUN and "no METEOR on" in rows.note["c[METEOR]"]
    # a model-less operand never reads a table of models
    assert evaluate([claim(benchmark="bison", metric="accuracy", a={}, b={"value": 50})],
                    numbers).verdict.iloc[0] == NOT_RUN
    above = claim(a={"benchmark": "bison", "metric": "accuracy"},
                  b={"benchmark": ["coco_retrieval", "world_retrieval"],
                     "metric": ["folds t2i_r1", "t2i_r1"]}, model=["CLIP"])
    row = evaluate([above], numbers).iloc[0]
    assert row.effect == pytest.approx(50.0) and row.metric == "accuracy vs t2i_r1"
    drop = claim(test="less", margin=2, source="robustness", model=["CLIP"], kind="text",
                 metric="t2i_r1_drop", perturbation="char_swap", a={"gallery": ["coco_fine"]},
                 b={"gallery": ["coco_hendriksen", "coco"]})
    row = evaluate([drop], numbers).iloc[0]
    assert row.effect == pytest.approx(5.0 - 12.0) and row.verdict == HOLDS  # Hendriksen's
    assert row.test == "< -2"
    assert verdict("less", 5, -9.0, -5.5) == HOLDS and verdict("less", 5, -9.0, -4.0) == FAILS
