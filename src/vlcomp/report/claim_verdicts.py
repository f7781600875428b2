"""Each claim's verdict over its findings, and the verdicts adjusted within each paper
(``results/claims.csv``; `vlcomp.report.multiplicity` explains the tests).

A claim **holds** when enough of its findings run hold (all, or most: more than half) as
its p-value over them says; it **does not hold** otherwise, and is **not run** when none of
its findings ran. Sanity checks (claims that cannot fail or restate a definition: a failure
there is a defect of the run, not a finding) keep their own verdicts, outside the papers'
families.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from vlcomp.report.claims import Claim
from vlcomp.report.findings import FAILS, HOLDS, NOT_RUN, describe_test
from vlcomp.report.multiplicity import (
    at_least_p,
    benjamini_hochberg,
    holm,
    needed,
    one_sided_level,
)

CLAIM, SANITY = "claim", "sanity check"
NUMERIC = ("findings", "run", "held", "needed", "claim_p", "claim_p_holm", "claim_p_bh")
COLUMNS = ["id", "paper", "kind", "where", "claim", "test", "holds", "findings", "run",
           "held", "needed", "verdict", "claim_p", "claim_p_holm", "verdict_holm",
           "claim_p_bh", "verdict_bh", "absent", "published", "note", "sanity", "quote"]


def _absent(rows: pd.DataFrame) -> str:
    """The reasons the claim's findings were not run, each once."""
    notes = rows.loc[rows.verdict == NOT_RUN, "note"].astype(str)
    return "; ".join(dict.fromkeys(n for n in notes if n))


def claim_row(claim: Claim, rows: pd.DataFrame, confidence: float) -> dict:
    """One claim over its findings' rows."""
    run = rows[rows.verdict != NOT_RUN]
    held = int((run.verdict == HOLDS).sum())
    k = needed(claim.holds, len(run)) if len(run) else 0
    p = at_least_p(run.finding_p.astype(float).tolist(), k) if len(run) else np.nan
    if not len(run):
        verdict = NOT_RUN
    else:
        verdict = HOLDS if np.isfinite(p) and p < one_sided_level(confidence) else FAILS
    return {
        "id": claim.id, "paper": claim.paper, "kind": SANITY if claim.sanity else CLAIM,
        "where": claim.where, "claim": claim.claim,
        "test": "; ".join(dict.fromkeys(rows.test.astype(str))) if len(rows)
        else describe_test(claim.test, claim.margin),
        "holds": claim.holds, "findings": len(rows), "run": len(run), "held": held,
        "needed": k, "verdict": verdict, "claim_p": p, "claim_p_holm": np.nan,
        "verdict_holm": NOT_RUN if verdict == NOT_RUN else "", "claim_p_bh": np.nan,
        "verdict_bh": NOT_RUN if verdict == NOT_RUN else "",
        "absent": _absent(rows) if len(run) < len(rows) else "",
        "published": claim.published, "note": claim.note, "sanity": claim.sanity,
        "quote": claim.quote_text}


def verdict_claims(claims: Sequence[Claim], findings: pd.DataFrame,
                   confidence: float = 0.95) -> pd.DataFrame:
    """One row per claim, in the claims' order, with Holm's and Benjamini–Hochberg's
    adjustments within each paper's family of claims (sanity checks apart)."""
    by_claim = {cid: rows for cid, rows in findings.groupby("claim_id", sort=False)}
    empty = findings.iloc[0:0]
    frame = pd.DataFrame([claim_row(c, by_claim.get(c.id, empty), confidence)
                          for c in claims], columns=COLUMNS)
    return with_adjustments(frame, confidence)


def with_adjustments(claims: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """``claim_p_holm`` / ``claim_p_bh`` and their verdicts, within each paper's claims."""
    claims = claims.copy()
    level = one_sided_level(confidence)
    family = claims.kind == CLAIM
    for paper in claims.loc[family, "paper"].unique():
        members = family & (claims.paper == paper)
        p = claims.loc[members, "claim_p"].astype(float).to_numpy()
        claims.loc[members, "claim_p_holm"] = holm(p)
        claims.loc[members, "claim_p_bh"] = benjamini_hochberg(p)
    for column, verdict_column in (("claim_p_holm", "verdict_holm"),
                                   ("claim_p_bh", "verdict_bh")):
        claims[verdict_column] = [
            NOT_RUN if v == NOT_RUN else "" if kind != CLAIM
            else HOLDS if v == HOLDS and adjusted < level else FAILS
            for v, kind, adjusted in zip(claims.verdict, claims.kind, claims[column],
                                         strict=True)]
    return claims


def verdict_counts(frame: pd.DataFrame, column: str = "verdict") -> tuple[int, int, int]:
    """How many rows hold, do not hold, were not run (by ``column``)."""
    counts = frame[column].value_counts()
    return int(counts.get(HOLDS, 0)), int(counts.get(FAILS, 0)), int(counts.get(NOT_RUN, 0))


def paper_counts(claims: pd.DataFrame) -> pd.DataFrame:
    """Per paper: its claims, how many hold, do not, were not run, and hold after Holm and
    after Benjamini–Hochberg (sanity checks apart)."""
    rows = []
    family = claims[claims.kind == CLAIM]
    for paper, group in family.groupby("paper", sort=False):
        holds, fails, not_run = verdict_counts(group)
        rows.append({"paper": paper, "claims": len(group), "hold": holds, "do not": fails,
                     "not run": not_run, "hold after Holm": verdict_counts(group,
                                                                            "verdict_holm")[0],
                     "hold after BH": verdict_counts(group, "verdict_bh")[0]})
    return pd.DataFrame(rows, columns=["paper", "claims", "hold", "do not", "not run",
                                       "hold after Holm", "hold after BH"])


def read_claims(path: str) -> pd.DataFrame:
    """``results/claims.csv`` as `verdict_claims` returned it (text columns empty, not NaN)."""
    frame = pd.read_csv(path)
    text = [c for c in COLUMNS if c not in NUMERIC]
    frame[text] = frame[text].fillna("").astype(str)
    return frame
