"""The papers' claims (``claims.yaml``): each the test of one sentence of its paper, parsed and
expanded into its findings.

A claim compares operand ``a`` with operand ``b`` by a ``test`` on the effect a − b (see the
file's header). Its findings are one comparison each: one, or one per value of ``each`` (a
mapping of keys to values: their product, in key order), or one per ``cases`` entry (when the
sentence makes several comparisons of different kinds: "from 63 % to 81 % [against CLIP-FT]
... from 62 % to 71 % [against CLIP]"). Models are the paper's own (``paper_models.yaml``);
`instantiate` resolves them to the configured models that play them (config
``paper_models``), one finding per model where the paper speaks of a kind of system.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from vlcomp.report.paper_models import registry
from vlcomp.report.run_numbers import SOURCES, Operand
from vlcomp.yaml_text import safe_load

TESTS = ("greater", "less", "within", "not_below", "not_above")
QUANTIFIERS = ("all", "most")
OPERAND_KEYS = ("source", "benchmark", "model", "versus", "metric", "gallery", "kind",
                "perturbation", "table", "row", "value", "label")
EACH_KEYS = ("model", "versus", "benchmark", "metric", "gallery", "perturbation")
CASE_KEYS = {"case", "a", "b", "published", "each", "test", "margin", *OPERAND_KEYS}
CLAIM_KEYS = {"id", "paper", "where", "claim", "quote", "test", "margin", "holds", "sanity",
              "a", "b", "each", "cases", "published", "note", *OPERAND_KEYS}
REQUIRED = {"id", "paper", "where", "claim", "quote", "test"}
TUPLE_KEYS = ("benchmark", "model", "versus", "gallery")


@dataclass(frozen=True)
class FindingSpec:
    """One comparison of a claim, models still named as the paper names them."""

    suffix: str  # "" for a claim of one finding
    a: Operand
    b: Operand
    published_effect: float | None = None
    test: str | None = None  # a case's own test and margin (None: the claim's)
    margin: float | None = None


@dataclass(frozen=True)
class Claim:
    """One sentence of a paper and the test of what it says."""

    id: str
    paper: str
    where: str
    claim: str
    test: str
    margin: float
    findings: tuple[FindingSpec, ...]
    quote: tuple[str, ...] = ()  # the sentence, verbatim; parts where a table cuts it
    holds: str = "all"  # all findings hold, or most (more than half)
    sanity: str = ""  # why this is a sanity check (cannot fail / restates a definition)
    published: str = ""
    note: str = ""
    published_by: tuple[tuple[str, float], ...] = field(default=())

    @property
    def quote_text(self) -> str:
        return " […] ".join(self.quote)


@dataclass(frozen=True)
class Finding:
    """One comparison of a claim with its models resolved to this run's labels; ``a_name``
    and ``b_name`` are the paper's names of the compared models ("" for none), ``absent``
    says which paper model no configured model plays."""

    claim: Claim
    suffix: str
    a: Operand
    b: Operand
    published_effect: float | None = None
    a_name: str = ""
    b_name: str = ""
    absent: str = ""
    test: str = ""
    margin: float = 0.0

    @property
    def id(self) -> str:
        return f"{self.claim.id}[{self.suffix}]" if self.suffix else self.claim.id


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _operand(spec: Mapping[str, Any], where: str, varying: Sequence[str] = ()) -> Operand:
    unknown = set(spec) - set(OPERAND_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown operand keys {sorted(unknown)}")
    values = dict(spec)
    for key in TUPLE_KEYS:
        if key in values:
            values[key] = tuple(_as_list(values[key]))
    if isinstance(values.get("metric"), list):
        values["metric"] = tuple(values["metric"])
    source = values.get("source", "uncertainty")
    if source not in SOURCES:
        raise ValueError(f"{where}: source must be one of {SOURCES}, not {source!r}")
    if "value" in values:
        values["value"] = float(values["value"])
    elif not values.get("metric") and "metric" not in varying:
        raise ValueError(f"{where}: an operand needs a metric (or a constant value)")
    if source == "comparisons" and not values.get("versus") and "versus" not in varying:
        raise ValueError(f"{where}: a comparisons operand needs `versus`")
    if source == "table" and not values.get("table"):
        raise ValueError(f"{where}: a table operand needs `table` (e.g. bison/table4)")
    return Operand(**values)


def _sides(layers: Sequence[Mapping[str, Any]], where: str, varying: Sequence[str] = ()
           ) -> tuple[Operand, Operand]:
    """Operands a and b from layers of keys, later layers winning; a layer's ``a`` / ``b``
    apply to that side only."""
    sides: dict[str, dict[str, Any]] = {"a": {}, "b": {}}
    for layer in layers:
        shared = {k: layer[k] for k in OPERAND_KEYS if k in layer}
        for side in sides:
            sides[side].update(shared)
            sides[side].update(layer.get(side) or {})
    a = _operand(sides["a"], f"{where}: a", varying)
    b = _operand(sides["b"], f"{where}: b", varying)
    if a.constant:
        raise ValueError(f"{where}: a must be read from the run (b may be a constant)")
    return a, b


def _with(op: Operand, key: str, value: Any) -> Operand:
    if op.constant:
        return op
    if key in TUPLE_KEYS:
        value = tuple(_as_list(value))
    elif key == "metric" and isinstance(value, list):
        value = tuple(value)
    return replace(op, **{key: value})


def _suffix_part(value: Any) -> str:
    return str(_as_list(value)[0])


def _each_key(key: str) -> tuple[tuple[str, ...], str]:
    """``model`` (both sides) or ``a.model`` / ``b.model`` (one side): sides and key."""
    side, _, name = key.rpartition(".")
    return ((side,) if side else ("a", "b")), name


def _check_each(each: Mapping[str, Any], where: str) -> None:
    for key, values in each.items():
        sides, name = _each_key(key)
        if name not in EACH_KEYS or not set(sides) <= {"a", "b"}:
            raise ValueError(f"{where}: each takes {', '.join(EACH_KEYS)} (for one side: "
                             f"a.<key> or b.<key>), not {key!r}")
        if not isinstance(values, list) or not values:
            raise ValueError(f"{where}: each.{key} must be a non-empty list")


def _expand_each(each: Mapping[str, Sequence[Any]], a: Operand, b: Operand,
                 effects: Mapping[str, float], prefix: str = "", test: str | None = None,
                 margin: float | None = None) -> list[FindingSpec]:
    keys = list(each)
    out = []
    for combo in itertools.product(*(each[k] for k in keys)):
        ops = {"a": a, "b": b}
        for key, value in zip(keys, combo, strict=True):
            sides, name = _each_key(key)
            for side in sides:
                ops[side] = _with(ops[side], name, value)
        suffix = "/".join(x for x in (prefix, *(_suffix_part(v) for v in combo)) if x)
        out.append(FindingSpec(suffix, ops["a"], ops["b"], effects.get(suffix), test, margin))
    return out


def _cases(record: Mapping[str, Any], where: str, effects: Mapping[str, float]
           ) -> list[FindingSpec]:
    out, seen = [], set()
    for i, case in enumerate(record["cases"]):
        name = str(case.get("case", ""))
        at = f"{where}: cases[{i}]"
        if not name or name in seen:
            raise ValueError(f"{at}: every case needs its own `case` name")
        seen.add(name)
        unknown = set(case) - CASE_KEYS
        if unknown:
            raise ValueError(f"{at}: unknown keys {sorted(unknown)}")
        each = case.get("each") or {}
        _check_each(each, at)
        a, b = _sides([record, case], at, [_each_key(k)[1] for k in each])
        test = case.get("test")
        if test is not None and test not in TESTS:
            raise ValueError(f"{at}: test must be one of {TESTS}, not {test!r}")
        margin = None if case.get("margin") is None else float(case["margin"])
        if each:
            out += _expand_each(each, a, b, effects, name, test, margin)
            continue
        effect = case.get("published", effects.get(name))
        out.append(FindingSpec(name, a, b, None if effect is None else float(effect), test,
                               margin))
    return out


def _check_models(claim_paper: str, specs: Sequence[FindingSpec], where: str) -> None:
    """A claim names only its paper's models."""
    known = registry().get(claim_paper)
    if known is None:
        raise ValueError(f"{where}: paper {claim_paper!r} is not in paper_models.yaml "
                         f"({', '.join(registry())})")
    for spec in specs:
        for op in (spec.a, spec.b):
            for name in (*op.model, *op.versus):
                if name not in known:
                    raise ValueError(f"{where}: {name!r} is not one of {claim_paper}'s "
                                     f"models ({', '.join(known)})")


def parse_claim(record: Mapping[str, Any], index: int = 0) -> Claim:
    """One record of ``claims.yaml`` (ValueError naming the claim and key)."""
    name = record.get("id", f"claim {index + 1}")
    where = f"claims.yaml: {name}"
    missing = REQUIRED - set(record)
    if missing:
        raise ValueError(f"{where}: missing {sorted(missing)}")
    unknown = set(record) - CLAIM_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    if record["test"] not in TESTS:
        raise ValueError(f"{where}: test must be one of {TESTS}, not {record['test']!r}")
    holds = record.get("holds", "all")
    if holds not in QUANTIFIERS:
        raise ValueError(f"{where}: holds must be one of {QUANTIFIERS}, not {holds!r}")
    each = record.get("each") or {}
    _check_each(each, where)
    if each and "cases" in record:
        raise ValueError(f"{where}: a claim has `each` or `cases`, not both")
    published = record.get("published") or {}
    effect = published.get("effect")
    by = dict(effect) if isinstance(effect, Mapping) else {}
    if by and not (each or "cases" in record):
        raise ValueError(f"{where}: published.effect by value needs `each` or `cases`")
    if "cases" in record:
        specs = _cases(record, where, by)
    else:
        a, b = _sides([record], where, [_each_key(k)[1] for k in each])
        specs = _expand_each(each, a, b, by) if each else \
            [FindingSpec("", a, b, None if effect is None or by else float(effect))]
    unknown_effects = set(by) - {s.suffix for s in specs}
    if unknown_effects:
        raise ValueError(f"{where}: published.effect names no finding: "
                         f"{sorted(unknown_effects)}")
    _check_models(record["paper"], specs, where)
    quote = tuple(" ".join(str(q).split()) for q in _as_list(record["quote"]))
    return Claim(
        id=name, paper=record["paper"], where=record["where"], claim=record["claim"],
        test=record["test"], margin=float(record.get("margin", 0.0)), findings=tuple(specs),
        quote=quote, holds=holds, sanity=" ".join(str(record.get("sanity", "")).split()),
        published=published.get("text", ""), note=" ".join(str(record.get("note", "")).split()),
        published_by=tuple((str(k), float(v)) for k, v in by.items()))


def parse_claims(records: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Claims from ``claims.yaml``'s records; ids are unique."""
    claims, seen = [], set()
    for i, record in enumerate(records):
        claim = parse_claim(record, i)
        if claim.id in seen:
            raise ValueError(f"claims.yaml: {claim.id}: the id is used twice")
        seen.add(claim.id)
        claims.append(claim)
    return claims


@functools.cache
def load_claims() -> tuple[Claim, ...]:
    """The shipped ``claims.yaml``, parsed and checked."""
    text = resources.files("vlcomp.report").joinpath("claims.yaml").read_text("utf-8")
    return tuple(parse_claims(safe_load(text)))


def _resolve_side(op: Operand, key: str, labels: Mapping[str, Sequence[str]]
                  ) -> tuple[list[tuple[str, str]], str]:
    """The (paper name, label) choices of one model key of an operand, and the paper model
    that no configured model plays ("" when every one is played)."""
    names = getattr(op, key)
    if op.constant or not names:
        return [("", "")], ""
    name = names[0]
    played = labels.get(name) or []
    if not played:
        return [(name, "")], name
    return [(name, label) for label in played], ""


def instantiate(claim: Claim, paper_labels: Mapping[str, Mapping[str, Sequence[str]]]
                ) -> list[Finding]:
    """The claim's findings on a run: each paper model resolved to the label of the model
    that plays it (config ``paper_models``); a kind of system several models play gives one
    finding per model (the same model wherever the finding names that kind); an unplayed
    one leaves the finding absent (not run)."""
    labels = paper_labels.get(claim.paper, {})
    kinds = registry().get(claim.paper, {})
    out = []
    for spec in claim.findings:
        slots = [(side, key) for side in ("a", "b") for key in ("model", "versus")]
        named = {slot: _resolve_side(getattr(spec, slot[0]), slot[1], labels)
                 for slot in slots}
        absent = [missing for _, missing in named.values() if missing]
        # one choice per paper model: a kind named on both sides is one model in a finding
        choices = {options[0][0]: options for options, _ in named.values()}
        names = list(choices)
        for combo in itertools.product(*(choices[n] for n in names)):
            picked = dict(zip(names, combo, strict=True))
            ops = {}
            for side in ("a", "b"):
                op = getattr(spec, side)
                if not op.constant:
                    for key in ("model", "versus"):
                        if getattr(op, key):
                            label = picked[named[side, key][0][0][0]][1]
                            op = replace(op, **{key: (label,) if label else ()})
                ops[side] = op
            many = [label for name, label in picked.values()
                    if label and name in kinds and kinds[name].many]
            suffix = "/".join(x for x in (spec.suffix, *dict.fromkeys(many)) if x)
            out.append(Finding(claim, suffix, ops["a"], ops["b"], spec.published_effect,
                               a_name=named["a", "model"][0][0][0],
                               b_name=named["b", "model"][0][0][0],
                               absent=", ".join(dict.fromkeys(absent)),
                               test=spec.test or claim.test,
                               margin=claim.margin if spec.margin is None else spec.margin))
    return out


def claim_tables(claims: Sequence[Claim] | None = None) -> list[str]:
    """The paper tables (``bison/table4``) whose intervals the claims read."""
    found = {op.table for c in (claims or load_claims()) for s in c.findings
             for op in (s.a, s.b) if op.source == "table" and op.table}
    return sorted(found)
