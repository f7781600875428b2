"""The papers' headline claims (``claims.yaml``) tested on a run: ``results/findings.{csv,md}``.

Each claim compares two numbers of the run, ``a`` and ``b`` (a model's metric, or a constant
such as a chance level), by their difference with its confidence interval:

* two models on the same benchmark and metric: the paired bootstrap of
  ``results/uncertainty/{benchmark}_comparisons.csv`` (same test items, same resamples);
* anything else (two metrics, two sources, a constant): the difference of the two values,
  its interval from their intervals as if independent (normal approximation; wider than
  the paired interval when the two numbers move together over items);
* a label trained with several seeds: one difference per seed (paired seed by seed), their
  mean, and a t interval over seeds, so that the seeds' spread decides.

A claim **holds** when the interval clears the claim's margin on the claimed side, **does not
hold** otherwise, and is **not run** when the configuration has no such model or benchmark.
"""

from __future__ import annotations

import fnmatch
import functools
import glob
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from vlcomp.report.multiplicity import claim_p_value, holm, one_sided_level

TESTS = ("greater", "less", "within", "not_below", "not_above")
SOURCES = ("uncertainty", "detectors", "robustness", "alpha", "granularity")
OPERAND_KEYS = ("source", "benchmark", "model", "metric", "gallery", "kind", "perturbation",
                "value", "label")
CLAIM_KEYS = {"id", "paper", "where", "claim", "quote", "test", "margin", "a", "b", "each",
              "published", "note", *OPERAND_KEYS}
NUMERIC_COLUMNS = ("effect", "ci_low", "ci_high", "p_value", "seeds", "published_effect",
                   "claim_p", "claim_p_holm")
HOLDS, FAILS, NOT_RUN = "holds", "does not hold", "not run"
COLUMNS = ["id", "paper", "where", "claim", "compared", "benchmark", "metric", "test",
           "effect", "ci_low", "ci_high", "p_value", "method", "seeds", "verdict",
           "claim_p", "claim_p_holm", "verdict_holm", "published_effect", "published", "note",
           "quote"]


class NotRun(Exception):
    """The run has no number for an operand (its model, benchmark or metric)."""


@dataclass(frozen=True)
class Operand:
    """Where one side of a claim is read: a source file's row, or a constant."""

    source: str = "uncertainty"
    benchmark: tuple[str, ...] = ()
    model: tuple[str, ...] = ()
    metric: str | tuple[str, ...] | None = None  # a tuple: candidates in order
    gallery: tuple[str, ...] = ()
    kind: str | None = None
    perturbation: str | None = None
    value: float | None = None
    label: str | None = None

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any], where: str, each: Sequence[str] = ()
                     ) -> Operand:
        unknown = set(spec) - set(OPERAND_KEYS)
        if unknown:
            raise ValueError(f"{where}: unknown operand keys {sorted(unknown)}")
        values = dict(spec)
        for key in ("benchmark", "model", "gallery"):
            if key in values:
                values[key] = tuple(_as_list(values[key]))
        if isinstance(values.get("metric"), list):
            values["metric"] = tuple(values["metric"])
        if values.get("source", "uncertainty") not in SOURCES:
            raise ValueError(f"{where}: source must be one of {SOURCES}, not "
                             f"{values['source']!r}")
        if "value" in values:
            values["value"] = float(values["value"])
        elif not values.get("metric") and "metric" not in each:
            raise ValueError(f"{where}: an operand needs a metric (or a constant value)")
        return cls(**values)

    @property
    def constant(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Claim:
    """One testable claim (a finding once `each` is expanded)."""

    id: str
    paper: str
    where: str
    claim: str
    test: str
    margin: float
    a: Operand
    b: Operand
    published_effect: float | None = None
    published: str = ""
    note: str = ""
    each: tuple[tuple[str, tuple[Any, ...]], ...] = field(default=())
    quote: str = ""  # the paper's sentence the claim tests, verbatim
    # the paper's effect of each finding of an `each` claim, by its value (or model label)
    published_by: tuple[tuple[str, float], ...] = field(default=())


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def parse_claims(records: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Claims from ``claims.yaml``'s records (ValueError naming the claim and key)."""
    claims, seen = [], set()
    for i, record in enumerate(records):
        name = record.get("id", f"claim {i + 1}")
        where = f"claims.yaml: {name}"
        missing = {"id", "paper", "where", "claim", "test", "a", "b"} - set(record)
        if missing:
            raise ValueError(f"{where}: missing {sorted(missing)}")
        unknown = set(record) - CLAIM_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        if name in seen:
            raise ValueError(f"{where}: the id is used twice")
        seen.add(name)
        if record["test"] not in TESTS:
            raise ValueError(f"{where}: test must be one of {TESTS}, not {record['test']!r}")
        defaults = {k: record[k] for k in OPERAND_KEYS if k in record}
        each = record.get("each") or {}
        if len(each) > 1 or set(each) - {"model", "benchmark", "metric", "perturbation"}:
            raise ValueError(f"{where}: each takes one of model, benchmark, metric, "
                             f"perturbation")
        a = Operand.from_mapping({**defaults, **(record["a"] or {})}, f"{where}: a", each)
        b = Operand.from_mapping({**defaults, **(record["b"] or {})}, f"{where}: b", each)
        if a.constant:
            raise ValueError(f"{where}: a must be read from the run (b may be a constant)")
        published = record.get("published") or {}
        effect = published.get("effect")
        by = effect if isinstance(effect, Mapping) else {}
        if by and not each:
            raise ValueError(f"{where}: published.effect by value needs `each`")
        claims.append(Claim(
            id=name, paper=record["paper"], where=record["where"], claim=record["claim"],
            test=record["test"], margin=float(record.get("margin", 0.0)), a=a, b=b,
            published_effect=None if effect is None or by else float(effect),
            published=published.get("text", ""), note=record.get("note", ""),
            each=tuple((k, tuple(v)) for k, v in each.items()),
            quote=" ".join(str(record.get("quote", "")).split()),
            published_by=tuple((str(k), float(v)) for k, v in by.items())))
    return claims


@functools.cache
def load_claims() -> tuple[Claim, ...]:
    """The shipped ``claims.yaml``, parsed and checked."""
    text = resources.files("vlcomp.report").joinpath("claims.yaml").read_text("utf-8")
    return tuple(parse_claims(yaml.safe_load(text)))


@dataclass(frozen=True)
class Reading:
    """One operand read: the benchmark and label it resolved to, and per seed (model id)
    the value and its interval."""

    benchmark: str
    label: str
    metric: str
    members: tuple[str, ...]
    values: tuple[tuple[float, float, float], ...]
    gallery: str = ""  # a robustness or granularity row's gallery


class RunNumbers:
    """The run's uncertainty tables under ``folder`` (``results/uncertainty``), read once
    each; ``groups`` maps a display label to its model ids (seeds), in config order."""

    def __init__(self, folder: str | Path, groups: Mapping[str, Sequence[str]]) -> None:
        self.folder = Path(folder)
        self.groups = {label: list(members) for label, members in groups.items()}

    @functools.cache  # noqa: B019 (one instance per findings job)
    def table(self, name: str) -> pd.DataFrame | None:
        path = self.folder / f"{name}.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if "measure" in frame.columns:  # alpha tables
            frame = frame.rename(columns={"measure": "metric"})
        return frame

    def labels(self, patterns: Sequence[str]) -> list[str]:
        """Every label that a pattern fits, in pattern order, then config order."""
        found: list[str] = []
        for pattern in patterns:
            found += [lab for lab in self.groups
                      if fnmatch.fnmatchcase(lab, pattern) and lab not in found]
        return found

    def rows(self, op: Operand, benchmark: str, model: str, metric: str | None = None
             ) -> pd.DataFrame | None:
        """The operand's rows for one model id on one benchmark (None: no such file), of
        ``metric`` (default: the operand's)."""
        if op.source == "alpha":
            frame = self.table(f"alpha/{model}/{benchmark}")
        elif op.source == "detectors":
            frame = self.table("detectors")
            if frame is not None and "benchmark" in frame:
                frame = frame[frame.benchmark == benchmark]
        elif op.source in ("robustness", "granularity"):
            frame = self.table(op.source)
            if frame is not None:
                # galleries are candidates in order: the first the run has
                present = [g for g in op.gallery if (frame.gallery == g).any()]
                keep = (frame.gallery == present[0]) if present else \
                    (frame.gallery.isin(op.gallery) if op.gallery else True)
                if op.kind:
                    keep = keep & (frame.kind == op.kind)
                if op.perturbation:
                    keep = keep & (frame.perturbation == op.perturbation)
                frame = frame[keep]
        else:
            frame = self.table(benchmark)
        if frame is None:
            return None
        if "model" in frame:  # a model-less operand reads only a table of none
            if not model:
                return None
            frame = frame[frame.model == model]
        return frame[frame.metric == (metric or op.metric)]

    def has(self, op: Operand) -> bool:
        """Whether the run has a number for ``op`` (a constant always)."""
        if op.constant:
            return True
        try:
            self.read(op)
        except NotRun:
            return False
        return True

    def benchmarks(self, op: Operand) -> list[str]:
        """The operand's candidate benchmarks (a robustness condition: ``robustness``; a
        caption set's granularity: ``granularity``)."""
        if op.benchmark:
            return list(op.benchmark)
        return [op.source] if op.source in ("robustness", "granularity") else []

    def read(self, op: Operand) -> Reading:
        """The first candidate benchmark and label with a number for ``op`` (NotRun with
        what is missing otherwise)."""
        benchmarks = self.benchmarks(op)
        if not benchmarks:
            raise NotRun("no benchmark named")
        labels = self.labels(op.model) if op.model else [""]
        if not labels:
            raise NotRun(f"no model labelled {' or '.join(op.model)}")
        metrics = op.metric if isinstance(op.metric, tuple) else (op.metric,)
        for benchmark, metric in itertools.product(benchmarks, metrics):
            for label in labels:
                values, members = [], []
                for model in self.groups[label] if label else [""]:
                    rows = self.rows(op, benchmark, model, metric)
                    if rows is None or rows.empty:
                        continue
                    if len(rows) > 1:
                        raise ValueError(f"findings: {len(rows)} rows for {model} "
                                         f"{op.metric} on {benchmark} ({op.source}); the "
                                         "claim must name one condition")
                    row = rows.iloc[0]
                    values.append((float(row.value), float(row.ci_low), float(row.ci_high)))
                    members.append(model)
                    gallery = str(row.get("gallery", ""))
                if values:
                    return Reading(benchmark, label, metric or "", tuple(members),
                                   tuple(values), gallery)
        where = op.source if op.source != "uncertainty" else "uncertainty tables"
        of = f" of {' or '.join(op.model)}" if op.model else ""
        raise NotRun(f"no {' or '.join(m for m in metrics if m)}{of} on "
                     f"{' or '.join(benchmarks)} ({where})")

    def paired(self, op_a: Operand, a: str, b: str, benchmark: str,
               metric_b: str | None = None) -> tuple[float, float, float, float] | None:
        """The paired bootstrap difference a - b (difference, low, high, p), if the run
        compared the two models on this benchmark and metric, or (``metric_b``: model a's
        metric less its ``metric_b``, ``a`` = ``b``) the two metrics on the same items."""
        name = "robustness_comparisons" if op_a.source == "robustness" else \
            f"{benchmark}_comparisons"
        frame = self.table(name)
        if frame is None:
            return None
        if op_a.source == "robustness":
            keep = frame.metric == op_a.metric
            keep &= frame.gallery.isin(op_a.gallery) if op_a.gallery else True
            keep &= (frame.kind == op_a.kind) if op_a.kind else True
            keep &= (frame.perturbation == op_a.perturbation) if op_a.perturbation else True
            frame = frame[keep]
        first_metric, second_metric = op_a.metric, metric_b or op_a.metric
        paired_metric = frame.get("metric_b", frame.metric)
        for first, second, x, y, sign in ((a, b, first_metric, second_metric, 1.0),
                                          (b, a, second_metric, first_metric, -1.0)):
            hit = frame[(frame.model_a == first) & (frame.model_b == second)
                        & (frame.metric == x) & (paired_metric == y)]
            if len(hit) == 1:
                r = hit.iloc[0]
                low, high = sorted((sign * r.ci_low, sign * r.ci_high))
                return sign * float(r.difference), low, high, float(r.p_bootstrap)
        return None


def _z(confidence: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(0.5 + confidence / 2))


def _unpaired(a: tuple[float, float, float], b: tuple[float, float, float],
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


def _over_seeds(diffs: Sequence[float], confidence: float) -> tuple[float, float, float, float]:
    """Mean of per-seed differences, t interval and two-sided t-test p over seeds."""
    from scipy import stats

    d = np.asarray(diffs, dtype=float)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:
        return mean, mean, mean, float(mean == 0)
    half = float(stats.t.ppf(0.5 + confidence / 2, len(d) - 1)) * sd / math.sqrt(len(d))
    p = float(2 * stats.t.sf(abs(mean) / (sd / math.sqrt(len(d))), len(d) - 1))
    return mean, mean - half, mean + half, p


def _seed_pairs(n_a: int, n_b: int) -> list[tuple[int, int]]:
    """Seed i of a with seed i of b; a single model faces every seed of the other."""
    if n_a == n_b or n_a == 1 or n_b == 1:
        return [(i if n_a > 1 else 0, i if n_b > 1 else 0) for i in range(max(n_a, n_b))]
    return [(i, i) for i in range(min(n_a, n_b))]


def verdict(test: str, margin: float, low: float, high: float) -> str:
    """Whether the interval [low, high] of a - b supports the claim."""
    ok = {"greater": low > margin,
          "less": high < -margin,
          "within": low >= -margin and high <= margin,
          "not_below": low >= -margin,
          "not_above": high <= margin}[test]
    return HOLDS if ok else FAILS


def describe_test(test: str, margin: float) -> str:
    """The claim's test in symbols (``a - b > 0``, ``|a - b| <= 10``...)."""
    m = f"{margin:g}"
    return {"greater": f"> {m}", "less": f"< -{m}", "within": f"within ±{m}",
            "not_below": f">= -{m}", "not_above": f"<= {m}"}[test]


def expand(claim: Claim, numbers: RunNumbers) -> list[Claim]:
    """One claim per `each` value (model patterns: every label they fit that has numbers
    for both sides)."""
    if not claim.each:
        return [claim]
    key, values = claim.each[0]
    out = []
    for value in values:
        if key == "model":
            for label in numbers.labels(_as_list(value)):
                finding = _with(claim, key, (label,), suffix=label)
                if numbers.has(finding.a) and numbers.has(finding.b):
                    out.append(finding)
        elif key == "benchmark":
            candidates = tuple(_as_list(value))
            out.append(_with(claim, key, candidates, suffix=candidates[0]))
        else:
            out.append(_with(claim, key, value, suffix=str(value)))
    return out


def _with(claim: Claim, key: str, value: Any, suffix: str) -> Claim:
    sides = {side: (op if op.constant else replace(op, **{key: value}))
             for side, op in (("a", claim.a), ("b", claim.b))}
    effect = dict(claim.published_by).get(suffix, claim.published_effect)
    return replace(claim, id=f"{claim.id}[{suffix}]", each=(), published_effect=effect,
                   **sides)


def evaluate_claim(claim: Claim, numbers: RunNumbers, confidence: float) -> dict[str, Any]:
    """One finding: the claim's effect a - b with its interval, p-value and verdict."""
    row: dict[str, Any] = {
        "id": claim.id, "paper": claim.paper, "where": claim.where, "claim": claim.claim,
        "compared": "", "benchmark": "", "metric": "",
        "test": describe_test(claim.test, claim.margin),
        "effect": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan,
        "method": "", "seeds": 0, "verdict": NOT_RUN, "claim_p": np.nan,
        "claim_p_holm": np.nan, "verdict_holm": NOT_RUN,
        "published_effect": np.nan if claim.published_effect is None
        else claim.published_effect, "published": claim.published, "note": claim.note,
        "quote": claim.quote}
    try:
        a = numbers.read(claim.a)
        b = None if claim.b.constant else numbers.read(claim.b)
        if b is not None and a.label == b.label:  # one model's two numbers: common seeds
            a, b = _common_seeds(a, b)
    except NotRun as reason:
        row["note"] = "; ".join(x for x in (str(reason), claim.note) if x)
        return row
    row.update(compared=_compared(claim, a, b),
               benchmark=_joined(_benchmark_text(claim.a, a),
                                 b and _benchmark_text(claim.b, b)),
               metric=_joined(a.metric, b and b.metric))
    paired = (b is not None and claim.a.source == claim.b.source
              and a.benchmark == b.benchmark and a.metric == b.metric
              and claim.a.gallery == claim.b.gallery and claim.a.kind == claim.b.kind
              and claim.a.perturbation == claim.b.perturbation and a.label != b.label)
    # one model's two metrics of the same items (BiVLC's I2T and T2I): paired too
    same_items = (b is not None and claim.a.source == claim.b.source == "uncertainty"
                  and a.benchmark == b.benchmark and a.label == b.label
                  and a.metric != b.metric)
    diffs: list[tuple[float, float, float, float]] = []
    if b is None:
        c = claim.b.value
        diffs = [(v[0] - c, v[1] - c, v[2] - c,
                  _unpaired(v, (c, c, c), confidence)[3]) for v in a.values]
        method = f"vs {claim.b.label or 'constant'} {claim.b.value:g}"
    else:
        method = "paired bootstrap" if paired or same_items else "unpaired (normal approx.)"
        for i, j in _seed_pairs(len(a.values), len(b.values)):
            found = None
            read_a = replace(claim.a, metric=a.metric)  # the candidate metric read
            if paired:
                found = numbers.paired(read_a, a.members[i], b.members[j], a.benchmark)
            elif same_items:
                found = numbers.paired(read_a, a.members[i], b.members[j], a.benchmark,
                                       b.metric)
            if (paired or same_items) and found is None:
                method = "unpaired (normal approx.)"
            diffs.append(found or _unpaired(a.values[i], b.values[j], confidence))
    df = None
    if len(diffs) == 1:
        effect, low, high, p = diffs[0]
    else:
        effect, low, high, p = _over_seeds([d[0] for d in diffs], confidence)
        method = f"t over {len(diffs)} seeds ({method} each)"
        df = len(diffs) - 1
    row.update(effect=effect, ci_low=low, ci_high=high, p_value=p, method=method,
               seeds=len(diffs), verdict=verdict(claim.test, claim.margin, low, high),
               claim_p=claim_p_value(claim.test, claim.margin, effect, low, high, confidence,
                                     df))
    return row


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


def _compared(claim: Claim, a: Reading, b: Reading | None) -> str:
    """``NegCLIP vs CLIP-FT``, ``CLIP: I2T vs T2I``, ``CLIP vs chance 50``..."""
    if b is None:
        return f"{a.label or a.metric} vs {claim.b.label or 'constant'} {claim.b.value:g}"
    if a.label != b.label:
        return f"{a.label} vs {b.label}"
    if claim.b.source == "detectors" != claim.a.source:
        return f"{a.label} vs its detector ({a.label}/Det)"
    if claim.a.perturbation != claim.b.perturbation:
        return f"{a.label}: {claim.a.perturbation} vs {claim.b.perturbation}"
    if a.gallery != b.gallery:
        return f"{a.label}: {a.gallery} vs {b.gallery}" if a.label else \
            f"{a.gallery} vs {b.gallery}"
    return f"{a.label}: {a.metric} vs {b.metric}"


def _benchmark_text(op: Operand, reading: Reading) -> str:
    """The benchmark, and a robustness condition's gallery and perturbation."""
    if op.source not in ("robustness", "granularity"):
        return reading.benchmark
    return " / ".join(x for x in (reading.benchmark, reading.gallery or ",".join(op.gallery),
                                  op.perturbation) if x)


def evaluate(claims: Sequence[Claim], numbers: RunNumbers,
             confidence: float = 0.95) -> pd.DataFrame:
    """Every claim's findings, in the claims' order (an `each` claim that nothing in the run
    fits: one row, not run), each with its test's p-value and the verdict after Holm's
    adjustment across the findings run (`vlcomp.report.multiplicity`)."""
    rows = []
    for claim in claims:
        findings = expand(claim, numbers)
        rows += [evaluate_claim(finding, numbers, confidence) for finding in findings]
        if not findings:
            rows.append(evaluate_claim(replace(claim, each=()), numbers, confidence)
                        | {"verdict": NOT_RUN, "note": f"no model fits "
                           f"{', '.join(map(str, claim.each[0][1]))}"})
    return with_holm(pd.DataFrame(rows, columns=COLUMNS), confidence)


def with_holm(findings: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """``claim_p`` (each run finding's one-sided p-value of its test), ``claim_p_holm``
    (Holm-adjusted across the run's findings) and ``verdict_holm``."""
    findings = findings.copy()
    findings["claim_p_holm"] = holm(findings.claim_p.astype(float))
    level = one_sided_level(confidence)
    # a finding holds after Holm when it holds and its adjusted p-value clears the level
    findings["verdict_holm"] = [
        NOT_RUN if v == NOT_RUN else (HOLDS if v == HOLDS and adjusted < level else FAILS)
        for v, adjusted in zip(findings.verdict, findings.claim_p_holm, strict=True)]
    return findings


def difference(numbers: RunNumbers, benchmark: str, metric: str, a: str, b: str,
               confidence: float = 0.95) -> tuple[float, float, float] | None:
    """Label ``a``'s metric less label ``b``'s on one benchmark, with its interval (as a
    claim compares them), or None where the run lacks either."""
    side = functools.partial(Operand, benchmark=(benchmark,), metric=metric)
    claim = Claim(id="difference", paper="", where="", claim="", test="greater", margin=0.0,
                  a=side(model=(glob.escape(a),)), b=side(model=(glob.escape(b),)))
    row = evaluate_claim(claim, numbers, confidence)
    if row["verdict"] == NOT_RUN:
        return None
    return row["effect"], row["ci_low"], row["ci_high"]


def signed_number(value: float, digits: int = 1, sign: bool = True, missing: str = "–") -> str:
    """``value`` with ``digits`` decimals (signed unless ``sign`` is False); ``missing`` for
    none or not finite."""
    if value is None or not np.isfinite(value):
        return missing
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _p(value: float) -> str:
    if not np.isfinite(value):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _effect_text(r: Any) -> str:
    """``+9.2 [+5.5, +12.6]`` (``–`` for a claim not run)."""
    if r.verdict == NOT_RUN:
        return "–"
    return f"{signed_number(r.effect)} [{signed_number(r.ci_low)}, {signed_number(r.ci_high)}]"


def verdict_counts(findings: pd.DataFrame, column: str = "verdict") -> tuple[int, int, int]:
    """How many findings hold, do not hold, were not run (by ``column``)."""
    counts = findings[column].value_counts()
    return counts.get(HOLDS, 0), counts.get(FAILS, 0), counts.get(NOT_RUN, 0)


def _holm_line(findings: pd.DataFrame, confidence: float) -> str:
    """How many hold after Holm's adjustment, and at what level."""
    holds, fails, _ = verdict_counts(findings, "verdict_holm")
    level = f"{one_sided_level(confidence) * 100:g} %"
    return (f"After Holm's adjustment across the {holds + fails} findings run (family-wise "
            f"one-sided level {level}), {holds} hold.")


def markdown_findings(findings: pd.DataFrame, confidence: float = 0.95) -> str:
    """The findings as a Markdown table, with the counts of each verdict above it."""
    from vlcomp.report.summary import markdown

    holds, fails, not_run = verdict_counts(findings)
    level = f"{confidence * 100:g} %"
    table = pd.DataFrame({
        "paper (where)": [f"{r.paper} ({r.where})" for r in findings.itertuples()],
        "claim": findings.claim,
        "compared": findings.compared,
        "benchmark · metric": [f"{r.benchmark} · {r.metric}" if r.benchmark else "–"
                               for r in findings.itertuples()],
        f"effect a − b [{level} CI]": [_effect_text(r) for r in findings.itertuples()],
        "test": findings.test,
        "p": [_p(p) for p in findings.p_value],
        "verdict": [f"**{v}**" if v == FAILS else v for v in findings.verdict],
        "after Holm": [f"**{v}**" if v == FAILS else v for v in findings.verdict_holm],
        "paper's effect": [
            "; ".join(x for x in (signed_number(r.published_effect), r.published) if x != "–")
            or "–" for r in findings.itertuples()],
    })
    notes = list(dict.fromkeys(f"- `{r.id.split('[', 1)[0]}`: {r.note}"
                               for r in findings.itertuples() if r.note))
    text = [
        f"{holds} findings hold, {fails} do not, {not_run} were not run by this "
        f"configuration. {_holm_line(findings, confidence)}", "",
        "Each claim of a paper is a test on this run's numbers: the effect is a − b (the "
        f"compared numbers, in points) with its {level} interval, and the claim holds when "
        "the interval clears the test's margin. Two models on one benchmark and metric, and "
        "one model's two metrics of the same items (BiVLC's I2T and T2I), use the paired "
        "bootstrap over test items; other pairs, the two intervals as if "
        "independent; a model trained with several seeds, a t interval over its per-seed "
        "differences. `p` tests a − b = 0. The paper's effect is the same difference on "
        "the paper's numbers. Each test is one-sided at "
        f"{one_sided_level(confidence) * 100:g} % (the interval's bound against the margin); "
        "run together, some would hold by chance, so `after Holm` gives each finding's "
        "verdict when the p-value of its own test (read from its interval) is adjusted by "
        "Holm's step-down method across this run's findings, which bounds the chance of any "
        "false 'holds' at that level without assuming the tests independent.", "",
        markdown(table, index=False)]
    quotes = list(dict.fromkeys(
        f"- `{r.id.split('[', 1)[0]}` ({r.paper}, {r.where}): “{readable(r.quote)}”"
        for r in findings.itertuples() if r.quote))
    if quotes:
        text += ["", "What the papers say (each claim's sentence, verbatim):", "", *quotes]
    if notes:
        text += ["", "Notes:", "", *notes]
    return "\n".join(text)


def readable(quote: str) -> str:
    """A quote as a reader sees it: the text extraction's LaTeX residue of percentages
    (``63%percent6363\\%``) shown as ``63%``; the words are the paper's."""
    return re.sub(r"%percent\d+\\%", "%", quote)


def read_findings(path: str | Path) -> pd.DataFrame:
    """``results/findings.csv`` as `evaluate` returned it (text columns empty, not NaN)."""
    frame = pd.read_csv(path)
    text = [c for c in COLUMNS if c not in NUMERIC_COLUMNS]
    frame[text] = frame[text].fillna("").astype(str)
    return frame


def write_findings(findings: pd.DataFrame, csv: str | Path, md: str | Path,
                   confidence: float = 0.95) -> None:
    """``results/findings.csv`` (every column, full precision) and ``findings.md``."""
    from vlcomp.io import atomic_path

    with atomic_path(Path(csv)) as tmp:
        findings.to_csv(tmp, index=False, float_format="%.4f")
    with atomic_path(Path(md)) as tmp:
        tmp.write_text("# Findings: the papers' claims on this run\n\n"
                       + markdown_findings(findings, confidence) + "\n", encoding="utf-8")


def _rst(text: str) -> str:
    """Plain text as inline reStructuredText (markup characters escaped)."""
    for char in ("\\", "*", "|", "`", "_"):
        text = text.replace(char, "\\" + char)
    return text


def not_holding(findings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The findings that do not hold, and those that hold only before Holm's adjustment."""
    fails = findings[findings.verdict == FAILS]
    holm_only = findings[(findings.verdict == HOLDS) & (findings.verdict_holm == FAILS)]
    return fails, holm_only


def finding_line(r: Any) -> str:
    """One finding in a sentence: claim (paper, where): compared; a − b [CI], test."""
    compared = "; ".join(x for x in (r.compared, r.benchmark) if x) or "–"
    return f"{r.claim} ({r.paper}, {r.where}): {compared}; a − b {_effect_text(r)}, {r.test}"


def rst_findings(findings: pd.DataFrame, confidence: float = 0.95) -> str:
    """The report's front page section: the counts, where the results page is, and the
    claims that do not hold (short, for the panel beside the workflow's graph)."""
    holds, fails, not_run = verdict_counts(findings)
    failing, holm_only = not_holding(findings)
    lines = ["Findings", "--------", "",
             f"**The papers' claims on this run: {holds} hold, {fails} do not, {not_run} were "
             f"not run.** {_holm_line(findings, confidence)}", "",
             "**The results page**, ``results/index.html``, shows every finding with its "
             "interval, every paper table with intervals and the published numbers beside, "
             "and the items each model gets right or wrong. ``results/findings.md`` explains "
             "the tests.", ""]
    for title, rows in ((f"Claims that do not hold ({len(failing)})", failing),
                        (f"Claims that hold, but not after Holm's adjustment ({len(holm_only)})",
                         holm_only)):
        if len(rows):
            lines += [f"{title}:", ""] + [f"- {_rst(finding_line(r))}"
                                          for r in rows.itertuples()] + [""]
    return "\n".join(lines).rstrip("\n")


def write_front_page(description: str, findings: pd.DataFrame, path: str | Path,
                     confidence: float = 0.95) -> None:
    """The report's front page: the workflow's description, then the findings (kept out of
    the report's Jinja templating)."""
    from vlcomp.io import atomic_path

    text = (description.rstrip("\n") + "\n\n{% raw %}\n" + rst_findings(findings, confidence)
            + "\n{% endraw %}\n")
    with atomic_path(Path(path)) as tmp:
        tmp.write_text(text, encoding="utf-8")
