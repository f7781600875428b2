"""The results page's top: the papers' claims (`results/claims.csv`) at full width with their
counts, each claim's findings (`results/findings.csv`) beneath it, folded until asked for,
and the sanity checks apart."""

from __future__ import annotations

import re

import pandas as pd

from vlcomp.report.claim_verdicts import CLAIM, SANITY, paper_counts
from vlcomp.report.findings import FAILS, HOLDS, NOT_RUN, signed_number
from vlcomp.report.findings_text import headline, readable
from vlcomp.report.html import cell, esc, table


def effect_text(row: pd.Series) -> str:
    """``effect [low, high]`` in points."""
    if pd.isna(row["effect"]):
        return ""
    effect, low, high = (signed_number(row[k], missing="") for k in ("effect", "ci_low", "ci_high"))
    return f'{effect} <span class="ci">[{low}, {high}]</span>'


def _where(row: pd.Series) -> str:
    """``benchmark · metric`` under the compared models (the reason for a finding not run)."""
    if row["verdict"] == NOT_RUN:
        return f'<div class="paper">{esc(row["note"])}</div>' if row["note"] else ""
    parts = [str(row[k]) for k in ("benchmark", "metric") if not pd.isna(row[k]) and row[k]]
    return f'<div class="paper">{esc(" · ".join(parts))}</div>' if parts else ""


def _verdict_class(verdict: str) -> str:
    return {HOLDS: "holds", FAILS: "fails"}.get(verdict, "notrun")


def _claim_row(c: pd.Series, n_rows: int) -> list[str]:
    held = f'{c["held"]} of {c["run"]} run' + (f' (of {c["findings"]})'
                                               if c["run"] < c["findings"] else "")
    need = "all" if c["holds"] == "all" else "most"
    toggle = (f'<button class="toggle" onclick="toggleFindings(\'{esc(c["id"])}\')">'
              f'{n_rows} finding{"s" if n_rows != 1 else ""}</button>') if n_rows else ""
    adjusted = [cell(esc(c[k]) if c["verdict"] in (HOLDS, FAILS) and c[k] else "",
                     classes=_verdict_class(str(c[k])) if c[k] else "")
                for k in ("verdict_holm", "verdict_bh")]
    return [
        cell(f'{esc(c["paper"])}<div class="paper">{esc(c["where"])}</div>'),
        cell(f'{esc(c["claim"])}<div class="paper" title="{esc(readable(c["quote"]))}">'
             f'{esc(c["id"])}</div>'),
        cell(f"{held} hold <span class=\"paper\">(needs {need})</span> {toggle}"),
        cell(esc(c["verdict"]), classes=_verdict_class(str(c["verdict"]))),
        *adjusted,
        cell(f'<div class="paper">{esc(c["published"])}</div>'),
    ]


def _finding_row(r: pd.Series) -> list[str]:
    name = r["id"].split("[", 1)[1].rstrip("]") if "[" in r["id"] else ""
    paper_effect = signed_number(r["published_effect"], missing="")
    return [
        cell(""),
        cell(f'{esc(name)} {esc(r["compared"])}{_where(r)}'),
        cell(f'{effect_text(r)} <span class="paper">{esc(r["test"])}</span>', classes="num"),
        cell(esc(r["verdict"]), classes=_verdict_class(str(r["verdict"]))),
        cell(""), cell(""),
        cell(f"{esc(paper_effect)}"),
    ]


def claims_table(claims: pd.DataFrame, findings: pd.DataFrame) -> str:
    """One row per claim, its findings' rows beneath it (hidden until its button is
    pressed)."""
    by_claim = {cid: rows for cid, rows in findings.groupby("claim_id", sort=False)}
    rows, attrs = [], []
    for _, c in claims.iterrows():
        mine = by_claim.get(c["id"], findings.iloc[0:0])
        rows.append(_claim_row(c, len(mine)))
        attrs.append(' class="claim"')
        for _, r in mine.iterrows():
            rows.append(_finding_row(r))
            attrs.append(f' class="finding" data-claim="{esc(c["id"])}" hidden')
    header = ["paper", "claim", "findings", "verdict", "after Holm", "after BH",
              "the paper"]
    return table(header, rows, classes="findings", row_attrs=attrs)


def findings_html(claims: pd.DataFrame, findings: pd.DataFrame) -> str:
    """The counts, the per-paper counts, the claims with their findings, the sanity checks."""
    from vlcomp.report.html import table as html_table

    counts = paper_counts(claims)
    per_paper = html_table(list(counts.columns),
                           [[cell(esc(v)) for v in row] for row in counts.itertuples(index=False)],
                           classes="paper-counts")
    note = ('<p class="note">Each claim tests one sentence of its paper on this run; its '
            "findings are the sentence's comparisons, each a one-sided test at 2.5 % of the "
            "effect a − b in points (results/findings.md explains the tests). Holm and "
            "Benjamini–Hochberg adjust the claims within each paper.</p>")
    sanity = claims[claims.kind == SANITY]
    counts_line = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", esc(headline(claims, findings)))
    body = (f'<p class="counts">{counts_line}</p>'
            + per_paper + note + claims_table(claims[claims.kind == CLAIM], findings))
    if len(sanity):
        body += ('<h3>Sanity checks</h3><p class="note">Claims that cannot fail or restate a '
                 "definition: a failing one is a defect of the run.</p>"
                 + claims_table(sanity, findings))
    return body
