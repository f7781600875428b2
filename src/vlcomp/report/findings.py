"""The papers' claims (``claims.yaml``) tested on a run: each claim's findings with their
effects and intervals (`evaluate_findings`), and each claim's verdict over its findings
(`vlcomp.report.claim_verdicts`); ``results/findings.{csv,md}`` and ``results/claims.csv``.

Each finding compares two numbers of the run, ``a`` and ``b`` (a model's metric, a table
cell, a paired difference of two models, or a constant such as a chance level), by their
difference with its confidence interval:

* two models on the same benchmark and metric: the paired bootstrap of
  ``results/uncertainty/{benchmark}_comparisons.csv`` (same test items, same resamples);
* one model's two metrics of the same items (BiVLC's I2T and T2I): the same bootstrap's
  same-item difference;
* anything else (two benchmarks, two sources, a constant): the difference of the two
  values, its interval from their intervals as if independent (normal approximation;
  wider than the paired interval when the two numbers move together over items);
* a label trained with several seeds: one difference per seed (paired seed by seed), their
  mean, and a t interval over seeds, so that the seeds' spread decides.

A finding **holds** when the interval clears the claim's margin on the claimed side, **does
not hold** otherwise, and is **not run** when no configured model plays the paper's model or
the run lacks the benchmark.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.report.claims import Claim, Finding, instantiate
from vlcomp.report.multiplicity import claim_p_value
from vlcomp.report.run_numbers import NotRun, Operand, Reading, RunNumbers, seed_pairs

HOLDS, FAILS, NOT_RUN = "holds", "does not hold", "not run"
NUMERIC_COLUMNS = ("effect", "ci_low", "ci_high", "p_value", "seeds", "published_effect",
                   "finding_p")
COLUMNS = ["id", "claim_id", "paper", "where", "claim", "compared", "benchmark", "metric",
           "test", "effect", "ci_low", "ci_high", "p_value", "method", "seeds", "verdict",
           "finding_p", "published_effect", "published", "note"]


def _z(confidence: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(0.5 + confidence / 2))


def unpaired(a: tuple[float, float, float], b: tuple[float, float, float],
             confidence: float) -> tuple[float, float, float, float]:
    """a - b with a normal-approximation interval from the two intervals (independent)."""
    from scipy import stats

    z = _z(confidence)
    spread = math.hypot((a[2] - a[1]) / (2 * z), (b[2] - b[1]) / (2 * z))
    diff = a[0] - b[0]
    if spread == 0:
        return diff, diff, diff, float(diff == 0)
    p = float(2 * stats.norm.sf(abs(diff) / spread))
    return diff, diff - z * spread, diff + z * spread, p


def over_seeds(diffs: Sequence[float], confidence: float) -> tuple[float, float, float, float]:
    """Mean of per-seed differences, t interval and two-sided t-test p over seeds."""
    from scipy import stats

    d = np.asarray(diffs, dtype=float)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:
        return mean, mean, mean, float(mean == 0)
    half = float(stats.t.ppf(0.5 + confidence / 2, len(d) - 1)) * sd / math.sqrt(len(d))
    p = float(2 * stats.t.sf(abs(mean) / (sd / math.sqrt(len(d))), len(d) - 1))
    return mean, mean - half, mean + half, p


def verdict(test: str, margin: float, low: float, high: float) -> str:
    """Whether the interval [low, high] of a - b supports the claim."""
    ok = {"greater": low > margin,
          "less": high < -margin,
          "within": low >= -margin and high <= margin,
          "not_below": low >= -margin,
          "not_above": high <= margin}[test]
    return HOLDS if ok else FAILS


def describe_test(test: str, margin: float) -> str:
    """The claim's test in symbols (``> 0``, ``within ±10``...)."""
    m = f"{margin:g}"
    return {"greater": f"> {m}", "less": f"< -{m}", "within": f"within ±{m}",
            "not_below": f">= -{m}", "not_above": f"<= {m}"}[test]


def _common_seeds(a: Reading, b: Reading) -> tuple[Reading, Reading]:
    """Two readings of one label kept to the model ids both have (a detector trained on one
    seed faces that seed), in ``a``'s order."""
    common = [m for m in a.members if m in b.members]
    if not common:
        raise NotRun(f"{a.label}: no seed has both numbers")
    pick = functools.partial(_pick, common)
    return pick(a), pick(b)


def _pick(members: Sequence[str], reading: Reading) -> Reading:
    index = [reading.members.index(m) for m in members]
    return replace(reading, members=tuple(members),
                   values=tuple(reading.values[i] for i in index))


def _joined(a: str, b: str | None) -> str:
    return a if not b or b == a else f"{a} vs {b}"


def who(name: str, label: str) -> str:
    """A paper's model as the run shows it: its paper name, and the configured label that
    plays it where the two differ (``VisualGPTScore [BLIP VisualGPTScore (ViT-L, …)]``)."""
    if not name:
        return label
    return name if not label or label == name else f"{name} [{label}]"


def _side(op: Operand, reading: Reading, name: str) -> str:
    """One side as the compared column names it."""
    if op.source == "table" and op.row:
        return op.row
    text = who(name, reading.label)
    if op.source == "comparisons":
        text += f" − {op.versus[0] if op.versus else '?'}"
    return text


def compared_text(finding: Finding, a: Reading, b: Reading | None) -> str:
    """``NegCLIP vs CLIP-FT``, ``CLIP: I2T vs T2I``, ``CLIP vs chance 50``..."""
    fa, fb = finding.a, finding.b
    left = _side(fa, a, finding.a_name)
    if b is None:
        return f"{left or a.metric} vs {fb.label or 'constant'} {fb.value:g}"
    right = _side(fb, b, finding.b_name)
    if fb.source == "detectors" != fa.source and a.label == b.label:
        return f"{left} vs its detector ({a.label}/Det)"
    if left != right:
        return f"{left} vs {right}"
    if fa.perturbation != fb.perturbation:
        return f"{left}: {fa.perturbation} vs {fb.perturbation}"
    if a.gallery != b.gallery:
        return f"{left}: {a.gallery} vs {b.gallery}" if left else f"{a.gallery} vs {b.gallery}"
    if a.benchmark != b.benchmark and a.metric == b.metric:
        return f"{left}: {a.benchmark} vs {b.benchmark}"
    return f"{left}: {a.metric} vs {b.metric}"


def _benchmark_text(op: Operand, reading: Reading) -> str:
    """The benchmark, and a robustness condition's gallery and perturbation."""
    if op.source not in ("robustness", "granularity"):
        return reading.benchmark
    return " / ".join(x for x in (reading.benchmark, reading.gallery or ",".join(op.gallery),
                                  op.perturbation) if x)


def _row(finding: Finding, confidence: float) -> dict[str, Any]:
    claim = finding.claim
    return {
        "id": finding.id, "claim_id": claim.id, "paper": claim.paper, "where": claim.where,
        "claim": claim.claim, "compared": "", "benchmark": "", "metric": "",
        "test": describe_test(finding.test, finding.margin),
        "effect": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan,
        "method": "", "seeds": 0, "verdict": NOT_RUN, "finding_p": np.nan,
        "published_effect": np.nan if finding.published_effect is None
        else finding.published_effect, "published": claim.published, "note": ""}


def evaluate_finding(finding: Finding, numbers: RunNumbers, confidence: float = 0.95
                     ) -> dict[str, Any]:
    """One finding: its effect a - b with its interval, p-value and verdict."""
    claim = finding.claim
    row = _row(finding, confidence)
    if finding.absent:
        row["note"] = f"{finding.absent} absent (no configured model plays {claim.paper}'s " \
            f"{finding.absent}: config paper_models)"
        return row
    try:
        a = numbers.read(finding.a)
        b = None if finding.b.constant else numbers.read(finding.b)
        if b is not None and a.label == b.label and a.label:  # one model's two numbers
            a, b = _common_seeds(a, b)
    except NotRun as reason:
        row["note"] = str(reason)
        return row
    fa, fb = finding.a, finding.b
    row.update(compared=compared_text(finding, a, b),
               benchmark=_joined(_benchmark_text(fa, a), b and _benchmark_text(fb, b)),
               metric=_joined(a.metric, b and b.metric))
    model_sources = ("uncertainty", "robustness", "alpha", "detectors", "granularity")
    paired = (b is not None and fa.source == fb.source and fa.source in model_sources
              and a.benchmark == b.benchmark and a.metric == b.metric
              and a.gallery == b.gallery and fa.kind == fb.kind
              and fa.perturbation == fb.perturbation and a.label != b.label)
    # one model's two metrics of the same items (BiVLC's I2T and T2I): paired too
    same_items = (b is not None and fa.source == fb.source == "uncertainty"
                  and a.benchmark == b.benchmark and a.label == b.label
                  and a.metric != b.metric)
    diffs: list[tuple[float, float, float, float]] = []
    if b is None:
        c = fb.value
        diffs = [(v[0] - c, v[1] - c, v[2] - c, unpaired(v, (c, c, c), confidence)[3])
                 for v in a.values]
        method = f"vs {fb.label or 'constant'} {fb.value:g}"
    else:
        method = "paired bootstrap" if paired or same_items else "unpaired (normal approx.)"
        for i, j in seed_pairs(len(a.values), len(b.values)):
            found = None
            read_a = replace(fa, metric=a.metric)  # the candidate metric read
            if paired:
                found = numbers.paired(read_a, a.members[i], b.members[j], a.benchmark,
                                       gallery=a.gallery)
            elif same_items:
                found = numbers.paired(read_a, a.members[i], b.members[j], a.benchmark,
                                       b.metric)
            if (paired or same_items) and found is None:
                method = "unpaired (normal approx.)"
            diffs.append(found or unpaired(a.values[i], b.values[j], confidence))
    df = None
    if len(diffs) == 1:
        effect, low, high, p = diffs[0]
    else:
        effect, low, high, p = over_seeds([d[0] for d in diffs], confidence)
        method = f"t over {len(diffs)} seeds ({method} each)"
        df = len(diffs) - 1
    row.update(effect=effect, ci_low=low, ci_high=high, p_value=p, method=method,
               seeds=len(diffs), verdict=verdict(finding.test, finding.margin, low, high),
               finding_p=claim_p_value(finding.test, finding.margin, effect, low, high,
                                       confidence, df))
    return row


def evaluate_findings(claims: Sequence[Claim], numbers: RunNumbers,
                      paper_labels: Mapping[str, Mapping[str, Sequence[str]]],
                      confidence: float = 0.95) -> pd.DataFrame:
    """Every claim's findings on the run, in the claims' order."""
    rows = [evaluate_finding(f, numbers, confidence)
            for claim in claims for f in instantiate(claim, paper_labels)]
    return pd.DataFrame(rows, columns=COLUMNS)


def difference(numbers: RunNumbers, benchmark: str, metric: str, a: str, b: str,
               confidence: float = 0.95) -> tuple[float, float, float] | None:
    """Label ``a``'s metric less label ``b``'s on one benchmark, with its interval (as a
    claim compares them), or None where the run lacks either."""
    side = functools.partial(Operand, benchmark=(benchmark,), metric=metric)
    claim = Claim(id="difference", paper="", where="", claim="", test="greater", margin=0.0,
                  findings=())
    finding = Finding(claim, "", side(model=(a,)), side(model=(b,)), test="greater")
    row = evaluate_finding(finding, numbers, confidence)
    if row["verdict"] == NOT_RUN:
        return None
    return row["effect"], row["ci_low"], row["ci_high"]


def signed_number(value: float, digits: int = 1, sign: bool = True, missing: str = "–") -> str:
    """``value`` with ``digits`` decimals (signed unless ``sign`` is False); ``missing`` for
    none or not finite."""
    if value is None or not np.isfinite(value):
        return missing
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def read_findings(path: str) -> pd.DataFrame:
    """``results/findings.csv`` as `evaluate_findings` returned it (text columns empty, not
    NaN)."""
    frame = pd.read_csv(path)
    text = [c for c in COLUMNS if c not in NUMERIC_COLUMNS]
    frame[text] = frame[text].fillna("").astype(str)
    return frame
