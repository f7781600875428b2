"""The results page's top: the findings (`results/findings.csv`, rule findings) at full
width, with their counts."""

from __future__ import annotations

import pandas as pd

from vlcomp.report.findings import FAILS, HOLDS, signed_number, verdict_counts
from vlcomp.report.html import cell, esc, table


def finding_counts(findings: pd.DataFrame) -> dict[str, int]:
    """How many findings hold, do not hold, were not run, and hold after Holm's adjustment
    (`vlcomp.report.findings.verdict_counts`)."""
    holds, fails, not_run = verdict_counts(findings)
    return {"holds": int(holds), "fails": int(fails), "not_run": int(not_run),
            "holm": int(verdict_counts(findings, "verdict_holm")[0]), "run": int(holds + fails)}


def counts_line(counts: dict[str, int]) -> str:
    """The counts as one sentence (HTML)."""
    return (f'<p class="counts"><b>{counts["holds"]}</b> findings hold, '
            f'<b>{counts["fails"]}</b> do not, {counts["not_run"]} were not run by this '
            f'configuration; after Holm\'s adjustment across the {counts["run"]} run, '
            f'{counts["holm"]} hold.</p>')


def effect_text(row: pd.Series) -> str:
    """``effect [low, high]`` in points."""
    if pd.isna(row["effect"]):
        return ""
    effect, low, high = (signed_number(row[k], missing="") for k in ("effect", "ci_low", "ci_high"))
    return f'{effect} <span class="ci">[{low}, {high}]</span>'


def _where(row: pd.Series) -> str:
    """``benchmark · metric`` under the compared models (nothing for a claim not run)."""
    parts = [str(row[k]) for k in ("benchmark", "metric") if not pd.isna(row[k]) and row[k]]
    return f'<div class="paper">{esc(" · ".join(parts))}</div>' if parts else ""


def _verdict_class(verdict: str) -> str:
    return {HOLDS: "holds", FAILS: "fails"}.get(verdict, "notrun")


def findings_html(findings: pd.DataFrame) -> str:
    """The counts, then one row per finding: claim, what was compared, effect with its
    interval, the test, the verdict (and after Holm), and the paper's effect."""
    rows = []
    for _, r in findings.iterrows():
        verdict, holm = str(r["verdict"]), str(r["verdict_holm"])
        published = esc(r["published"]) if not pd.isna(r["published"]) else ""
        paper_effect = signed_number(r["published_effect"], missing="")
        rows.append([
            cell(f'{esc(r["paper"])}<div class="paper">{esc(r["where"])}</div>'),
            cell(esc(r["claim"])),
            cell(esc(r["compared"]) + _where(r)),
            cell(effect_text(r), classes="num"),
            cell(esc(r["test"])),
            cell(esc(verdict), classes=_verdict_class(verdict)),
            cell(esc(holm) if verdict in (HOLDS, FAILS) else "",
                 classes=_verdict_class(holm) if verdict in (HOLDS, FAILS) else ""),
            cell(f"{esc(paper_effect)}<div class=\"paper\">{published}</div>"),
        ])
    header = ["paper", "claim", "compared", "effect a − b [95 % CI]", "test", "verdict",
              "after Holm", "paper's effect"]
    note = ('<p class="note">Each claim is a one-sided test at 2.5 % on this run\'s numbers '
            "(results/findings.md explains the tests); the effect is in points.</p>")
    return (counts_line(finding_counts(findings)) + note
            + table(header, rows, classes="findings"))
