"""The papers' claims on a run as text: ``results/findings.md`` (every claim with its verdicts
and its findings beneath, sanity checks apart), the summary's overview, and the HTML report's
front page; ``results/claims.csv`` and ``results/findings.csv`` written beside them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.report.claim_verdicts import CLAIM, SANITY, paper_counts, verdict_counts
from vlcomp.report.findings import FAILS, HOLDS, NOT_RUN, signed_number
from vlcomp.report.multiplicity import one_sided_level


def readable(quote: str) -> str:
    """A quote as a reader sees it: the text extraction's LaTeX residue of percentages
    (``63%percent6363\\%``) shown as ``63%``; the words are the paper's."""
    return re.sub(r"%percent\d+\\%", "%", quote)


def p_text(value: float) -> str:
    if value is None or not np.isfinite(value):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def effect_text(r: Any) -> str:
    """``+9.2 [+5.5, +12.6]`` (``–`` for a finding not run)."""
    if r.verdict == NOT_RUN:
        return "–"
    return f"{signed_number(r.effect)} [{signed_number(r.ci_low)}, {signed_number(r.ci_high)}]"


def _bold_fail(verdict: str) -> str:
    return f"**{verdict}**" if verdict == FAILS else verdict


def headline(claims: pd.DataFrame, findings: pd.DataFrame) -> str:
    """The counts in one paragraph: claims, their findings, the adjusted verdicts, the
    sanity checks."""
    family = claims[claims.kind == CLAIM]
    holds, fails, not_run = verdict_counts(family)
    f_holds, f_fails, f_not = verdict_counts(findings[findings.claim_id.isin(family.id)])
    sanity = claims[claims.kind == SANITY]
    s_holds, s_fails, _ = verdict_counts(sanity)
    text = (f"Of the papers' {len(family)} claims, **{holds} hold, {fails} do not** and "
            f"{not_run} were not run by this configuration (their findings: {f_holds} hold, "
            f"{f_fails} do not, {f_not} not run). Adjusted within each paper, "
            f"{verdict_counts(family, 'verdict_holm')[0]} hold after Holm's method and "
            f"{verdict_counts(family, 'verdict_bh')[0]} after Benjamini–Hochberg's.")
    if len(sanity):
        text += (f" Sanity checks: {s_holds} of {s_holds + s_fails} run pass"
                 + (" (a failing check is a defect of the run)." if s_fails else "."))
    return text


def _counts_table(claims: pd.DataFrame) -> str:
    from vlcomp.report.summary import markdown

    return markdown(paper_counts(claims), index=False)


def _claims_table(claims: pd.DataFrame) -> str:
    """One row per claim: paper, claim, findings held of run, verdict, after Holm / BH."""
    from vlcomp.report.summary import markdown

    table = pd.DataFrame({
        "claim": [f"`{r.id}` {r.claim}" for r in claims.itertuples()],
        "paper (where)": [f"{r.paper} ({r.where})" for r in claims.itertuples()],
        "findings held / run": [f"{r.held} / {r.run}" + (f" (of {r.findings})"
                                                         if r.run < r.findings else "")
                                for r in claims.itertuples()],
        "needs": [r.holds for r in claims.itertuples()],
        "verdict": [_bold_fail(v) for v in claims.verdict],
        "Holm": [_bold_fail(v) for v in claims.verdict_holm],
        "BH": [_bold_fail(v) for v in claims.verdict_bh],
    })
    return markdown(table, index=False)


def _findings_table(rows: pd.DataFrame, level: str) -> str:
    from vlcomp.report.summary import markdown

    table = pd.DataFrame({
        "finding": [r.id.split("[", 1)[1].rstrip("]") if "[" in r.id else "–"
                    for r in rows.itertuples()],
        "compared": [r.compared or "–" for r in rows.itertuples()],
        "benchmark · metric": [f"{r.benchmark} · {r.metric}" if r.benchmark else "–"
                               for r in rows.itertuples()],
        f"effect a − b [{level} CI]": [effect_text(r) for r in rows.itertuples()],
        "test": rows.test,
        "verdict": [_bold_fail(v) for v in rows.verdict],
        "paper's effect": [signed_number(v) for v in rows.published_effect],
        "note": [r.note or "" for r in rows.itertuples()],
    })
    return markdown(table, index=False)


def _claim_section(c: Any, rows: pd.DataFrame, level: str) -> list[str]:
    verdicts = f"**{c.verdict}**"
    if c.kind == CLAIM and c.verdict != NOT_RUN:
        verdicts += (f" (claim p {p_text(c.claim_p)}; within {c.paper}: after Holm "
                     f"{c.verdict_holm}, p {p_text(c.claim_p_holm)}; after Benjamini–Hochberg "
                     f"{c.verdict_bh}, q {p_text(c.claim_p_bh)})")
    need = "all of its findings" if c.holds == "all" else "most (more than half) of its findings"
    lines = [f"### `{c.id}`: {c.claim}", "",
             f"{c.paper}, {c.where}. {verdicts}: {c.held} of {c.run} findings run hold; it "
             f"needs {need}.", "",
             f"> “{readable(c.quote)}”", ""]
    if c.sanity:
        lines += [f"Sanity check: {c.sanity}", ""]
    if c.published:
        lines += [f"The paper: {c.published}", ""]
    if c.note:
        lines += [f"Note: {c.note}", ""]
    return [*lines, _findings_table(rows, level), ""]


def untested_models_section(labels: Sequence[str]) -> list[str]:
    """The configured models no claim tests (they play no paper model), each in a line that
    says why and where its numbers are."""
    if not labels:
        return []
    return ["## This run's models that no claim tests", "",
            "A claim tests the models its paper names, as config `paper_models` maps them. "
            "These configured models play none of them: their rows are in every paper table "
            "they score and in `results/summary.md`, and a claim tests one only once "
            "`paper_models` names it (docs/own-model.md).", ""] + [
        f"- {label}: not run in any claim: plays no paper model" for label in labels] + [""]


def markdown_findings(claims: pd.DataFrame, findings: pd.DataFrame,
                      confidence: float = 0.95, untested: Sequence[str] = ()) -> str:
    """``results/findings.md``'s body: the counts, per paper; how to read the tests; every
    claim with its verdicts, its sentence and its findings; the configured models no claim
    tests; the sanity checks apart."""
    level = f"{confidence * 100:g} %"
    one_sided = f"{one_sided_level(confidence) * 100:g} %"
    text = [headline(claims, findings), "", _counts_table(claims), "",
            "Each claim tests one sentence of its paper (quoted verbatim) on this run. Its "
            "findings are the comparisons the sentence makes, each an effect a − b (in points) "
            f"with its {level} interval that holds when the interval clears the test's margin "
            f"(a one-sided test at {one_sided}). Two models on one benchmark and metric, and "
            "one model's two metrics of the same items, use the paired bootstrap over test "
            "items; other pairs, the two intervals as if independent; a model trained with "
            "several seeds, a t interval over its per-seed differences. A claim holds when "
            "all its findings run hold (or, where the sentence says \"most\", \"generally\", "
            "\"nearly all\", more than half of them), as its p-value over its findings says "
            "(vlcomp.report.multiplicity). Run together, some claims would hold by chance: "
            "within each paper's family of claims, Holm's method bounds the chance of any "
            f"false \"holds\" at {one_sided}, and Benjamini–Hochberg's the expected share of "
            "false \"holds\" among those that hold. Models are the papers' own, played by the "
            "configuration's models (config `paper_models`; `name [label]` where the two "
            "differ); a paper model no configured model plays leaves its findings not run.",
            ""]
    family = claims[claims.kind == CLAIM]
    if len(family):
        text += ["## The claims", "", _claims_table(family), ""]
    by_claim = {cid: rows for cid, rows in findings.groupby("claim_id", sort=False)}
    for paper in family.paper.unique():
        text += [f"## {paper}", ""]
        for c in family[family.paper == paper].itertuples():
            text += _claim_section(c, by_claim.get(c.id, findings.iloc[0:0]), level)
    text += untested_models_section(untested)
    sanity = claims[claims.kind == SANITY]
    if len(sanity):
        text += ["## Sanity checks", "",
                 "Claims that cannot fail or restate a definition: a check that fails points "
                 "to a defect of the run, not to a finding about a paper. They are not counted "
                 "among the claims.", ""]
        for c in sanity.itertuples():
            text += _claim_section(c, by_claim.get(c.id, findings.iloc[0:0]), level)
    return "\n".join(text).rstrip() + "\n"


def markdown_overview(claims: pd.DataFrame, findings: pd.DataFrame) -> str:
    """The summary's opening: the counts, per paper, and one row per claim."""
    family = claims[claims.kind == CLAIM]
    return "\n".join([headline(claims, findings), "", _counts_table(claims), "",
                      _claims_table(family), "",
                      "Every claim's sentence, findings and tests: `results/findings.md`."])


def write_findings(claims: pd.DataFrame, findings: pd.DataFrame, claims_csv: str | Path,
                   findings_csv: str | Path, md: str | Path, confidence: float = 0.95,
                   untested: Sequence[str] = ()) -> None:
    """``results/claims.csv``, ``results/findings.csv`` (every column, full precision) and
    ``results/findings.md`` (``untested``: the labels of the configured models that play no
    paper model)."""
    from vlcomp.io import atomic_path

    for frame, path in ((claims, claims_csv), (findings, findings_csv)):
        with atomic_path(Path(path)) as tmp:
            frame.to_csv(tmp, index=False, float_format="%.4f")
    with atomic_path(Path(md)) as tmp:
        tmp.write_text("# Findings: the papers' claims on this run\n\n"
                       + markdown_findings(claims, findings, confidence, untested),
                       encoding="utf-8")


def _rst(text: str) -> str:
    """Plain text as inline reStructuredText (markup characters escaped)."""
    for char in ("\\", "*", "|", "`", "_"):
        text = text.replace(char, "\\" + char)
    return text


def not_holding(claims: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims that do not hold, and those that hold only before Holm's adjustment."""
    family = claims[claims.kind == CLAIM]
    fails = family[family.verdict == FAILS]
    holm_only = family[(family.verdict == HOLDS) & (family.verdict_holm == FAILS)]
    return fails, holm_only


def claim_line(r: Any) -> str:
    """One claim in a sentence: claim (paper, where): k of n findings hold, needs all/most."""
    return (f"{r.claim} ({r.paper}, {r.where}): {r.held} of {r.run} findings hold"
            + (", needs most" if r.holds == "most" else ""))


def rst_findings(claims: pd.DataFrame, findings: pd.DataFrame) -> str:
    """The report's front page section: the counts, where the results page is, and the
    claims that do not hold."""
    failing, holm_only = not_holding(claims)
    lines = ["Findings", "--------", "",
             f"**The papers' claims on this run.** {_rst(headline(claims, findings))}", "",
             "**The results page**, ``results/index.html``, shows every claim with its findings "
             "and intervals, every paper table with intervals and the published numbers beside, "
             "and the items each model gets right or wrong. ``results/findings.md`` explains "
             "the tests.", ""]
    for title, rows in ((f"Claims that do not hold ({len(failing)})", failing),
                        (f"Claims that hold, but not after Holm's adjustment within their "
                         f"paper ({len(holm_only)})", holm_only)):
        if len(rows):
            lines += [f"{title}:", ""] + [f"- {_rst(claim_line(r))}"
                                          for r in rows.itertuples()] + [""]
    return "\n".join(lines).rstrip("\n")


def write_front_page(description: str, claims: pd.DataFrame, findings: pd.DataFrame,
                     path: str | Path) -> None:
    """The report's front page: the workflow's description, then the findings (kept out of
    the report's Jinja templating)."""
    from vlcomp.io import atomic_path

    text = (description.rstrip("\n") + "\n\n{% raw %}\n" + rst_findings(claims, findings)
            + "\n{% endraw %}\n")
    with atomic_path(Path(path)) as tmp:
        tmp.write_text(text, encoding="utf-8")
