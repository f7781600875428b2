"""A CREPE-style productivity set built from world scenes (CREPE, Ma et al. 2023, §4).

Each item is a world image, one true caption of a given **complexity** (its number of atoms:
objects + attributes + relations, CREPE's ``n``) and ``n_negatives`` hard negatives of one type:

- ``atom``: one atom replaced by a foil absent from the scene (a shape no object has, a colour
  no object has when one exists, else another value, a relation that does not hold);
- ``negate``: a true atom negated ("a circle that is not red", "a circle not above a
  square", "something above a square. There is no red circle.", "... There is no circle.",
  "There is no circle above a square."), CREPE's forms;
- ``swap``: two atoms of one kind exchanged (two nouns, two attribute slots, two whole phrases).

Captions stay in the world grammar: clauses ``NP [REL NP]`` over distinct objects, so a
caption with k of the scene's objects has at most k // 2 relations and 2k attributes (colour,
size). A scene with n objects supports complexities 1 .. n + n // 2 + 2n; with the default
2-3 objects that is up to 7 or 10, so the default range is CREPE's lower bound 4 up to
`max_complexity` (10 for ``max_objects`` 3). A caption's decomposition (k, r, a) is drawn
uniformly among those the scene allows.

Truth: positives and ``atom``/``swap`` negatives are checked by the world's `Oracle` (parsed
text); ``negate`` negatives leave the grammar, so `negation_is_true` judges them with the
oracle's own pieces (`np_matches`, `holds`, `spec_is_true`). Every negative is false of its
scene and differs from the positive and the other negatives; an item with fewer than
``n_negatives`` such negatives is skipped (low-complexity ``swap`` items are rare, as in
CREPE). Unlike CREPE's release, all texts share one casing. Every draw is seeded from
``(seed, scene_id, complexity[, type])``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from itertools import permutations

import numpy as np
import pandas as pd

from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import holds, true_relations
from vlcomp.world.grammar import CaptionSpec, Clause, NounPhrase, np_text, render_caption
from vlcomp.world.oracle import Oracle, np_matches, spec_is_true
from vlcomp.world.scene import RELATIONS, Scene, WorldObject

NEGATIVE_TYPES = ("atom", "negate", "swap")
ATTRIBUTES = ("color", "size")
MIN_COMPLEXITY = 4  # CREPE's lowest complexity
NEGATION_FORMS = ("relation", "attribute", "absent", "something", "clause")


@dataclass(frozen=True)
class Negation:
    """One negated atom of a caption: ``form`` in `NEGATION_FORMS`, the clause or noun
    phrase (index into ``spec.noun_phrases()``) it applies to, and the negated attribute."""

    form: str
    clause: int = -1
    phrase: int = -1
    attribute: str | None = None


def max_complexity(cfg: WorldConfig) -> int:
    """The most atoms one caption can hold in this world."""
    n = cfg.max_objects
    return n + n // 2 + len(ATTRIBUTES) * n


def decompositions(n_objects: int, complexity: int) -> list[tuple[int, int, int]]:
    """Every ``(objects, relations, attributes)`` summing to ``complexity`` for a scene."""
    return [(k, r, complexity - k - r) for k in range(1, n_objects + 1)
            for r in range(k // 2 + 1) if 0 <= complexity - k - r <= len(ATTRIBUTES) * k]


def positive_spec(scene: Scene, complexity: int, cfg: WorldConfig, rng: np.random.Generator
                  ) -> tuple[CaptionSpec, tuple[int, int, int]] | None:
    """A true caption of the scene with ``complexity`` atoms and its (k, r, a), or None."""
    options = decompositions(len(scene.objects), complexity)
    if not options:
        return None
    k, r, a = options[int(rng.integers(len(options)))]
    order = [int(i) for i in rng.permutation(len(scene.objects))[:k]]
    slots = [(pos, attr) for pos in range(k) for attr in ATTRIBUTES]
    chosen = {slots[int(i)] for i in rng.choice(len(slots), size=a, replace=False)}

    def phrase(pos: int) -> NounPhrase:
        o = scene.objects[order[pos]]
        return NounPhrase(o.shape, o.color if (pos, "color") in chosen else None,
                          o.size if (pos, "size") in chosen else None, ref=order[pos])

    clauses = []
    for i in range(r):
        subj, obj = scene.objects[order[2 * i]], scene.objects[order[2 * i + 1]]
        options_rel = true_relations(subj, obj, cfg.next_to_distance)
        rel = options_rel[int(rng.integers(len(options_rel)))]
        clauses.append(Clause(phrase(2 * i), rel, phrase(2 * i + 1)))
    clauses += [Clause(phrase(pos)) for pos in range(2 * r, k)]
    return CaptionSpec(tuple(clauses)), (k, r, a)


# -- candidate negatives -------------------------------------------------------------------

def _with_phrases(spec: CaptionSpec, new: dict[int, NounPhrase]) -> CaptionSpec:
    """A copy with the noun phrases at the given positions replaced."""
    it = iter(range(len(spec.noun_phrases())))
    return spec.map_noun_phrases(lambda p: new.get(next(it), p))


def atom_candidates(spec: CaptionSpec, scene: Scene, cfg: WorldConfig
                    ) -> list[tuple[str, CaptionSpec]]:
    """Every single-atom foil: absent shapes, absent (else other) attribute values, relations
    that do not hold; as ``(kind, spec)``."""
    out: list[tuple[str, CaptionSpec]] = []
    nps = spec.noun_phrases()
    shapes = {o.shape for o in scene.objects}
    for j, p in enumerate(nps):
        out += [("object", _with_phrases(spec, {j: replace(p, shape=s)}))
                for s in cfg.shapes if s not in shapes]
    for attr, values in (("color", cfg.colors), ("size", tuple(sorted(cfg.sizes)))):
        present = {getattr(o, attr) for o in scene.objects}
        for j, p in enumerate(nps):
            if getattr(p, attr) is None:
                continue
            others = [v for v in values if v != getattr(p, attr)]
            foils = [v for v in others if v not in present] or others
            out += [("attribute", _with_phrases(spec, {j: replace(p, **{attr: v})}))
                    for v in foils]
    for i, c in enumerate(spec.clauses):
        if c.relation is None or c.object is None:
            continue
        subj, obj = scene.objects[c.subject.ref], scene.objects[c.object.ref]
        for rel in RELATIONS:
            if not holds(subj, rel, obj, cfg.next_to_distance):
                clauses = list(spec.clauses)
                clauses[i] = replace(c, relation=rel)
                out.append(("relation", replace(spec, clauses=tuple(clauses))))
    return out


def swap_candidates(spec: CaptionSpec) -> list[tuple[str, CaptionSpec]]:
    """Every exchange of two atoms of one kind: nouns, attribute slots (a value may move to
    a phrase without one), whole phrases, and the relations of two clauses."""
    out: list[tuple[str, CaptionSpec]] = []
    nps = spec.noun_phrases()
    for j in range(len(nps)):
        for m in range(j + 1, len(nps)):
            p, q = nps[j], nps[m]
            out.append(("object", _with_phrases(
                spec, {j: replace(p, shape=q.shape), m: replace(q, shape=p.shape)})))
            for attr in ATTRIBUTES:
                a, b = getattr(p, attr), getattr(q, attr)
                if a != b:
                    out.append(("attribute", _with_phrases(
                        spec, {j: replace(p, **{attr: b}), m: replace(q, **{attr: a})})))
            out.append(("phrase", _with_phrases(
                spec, {j: replace(q, ref=p.ref), m: replace(p, ref=q.ref)})))
    rel_clauses = [i for i, c in enumerate(spec.clauses) if c.relation is not None]
    for x in range(len(rel_clauses)):
        for y in range(x + 1, len(rel_clauses)):
            i, m = rel_clauses[x], rel_clauses[y]
            clauses = list(spec.clauses)
            clauses[i] = replace(spec.clauses[i], relation=spec.clauses[m].relation)
            clauses[m] = replace(spec.clauses[m], relation=spec.clauses[i].relation)
            out.append(("relation", replace(spec, clauses=tuple(clauses))))
    return out


def negation_candidates(spec: CaptionSpec) -> list[Negation]:
    """Every negation CREPE writes: of a relation, of an attribute, of an object's existence
    (appended), of a related object replaced by "something", and of a whole clause."""
    out = [Negation("relation", clause=i) for i, c in enumerate(spec.clauses)
           if c.relation is not None]
    nps = spec.noun_phrases()
    out += [Negation("attribute", phrase=j, attribute=a)
            for j, p in enumerate(nps) for a in ATTRIBUTES if getattr(p, a) is not None]
    out += [Negation("absent", phrase=j) for j in range(len(nps))]
    related = [j for j, (c, _) in enumerate(_phrase_clauses(spec)) if c.relation is not None]
    out += [Negation("something", phrase=j) for j in related]
    out += [Negation("clause", clause=i) for i in range(len(spec.clauses))]
    return out


def _phrase_clauses(spec: CaptionSpec) -> list[tuple[Clause, int]]:
    """Per noun phrase, its clause and its place in it (0 subject, 1 object)."""
    return [(c, k) for c in spec.clauses for k in range(1 if c.object is None else 2)]


# -- negation: text and truth -------------------------------------------------------------

def _bare(p: NounPhrase) -> str:
    """A phrase without its article ("red circle"), for "there is no ..."."""
    return " ".join(p.words())


def _negated_phrase(p: NounPhrase, attribute: str) -> str:
    """ "a small circle that is not red" for the phrase with ``attribute`` negated."""
    kept = replace(p, **{attribute: None})
    return f"{np_text(kept, False)} that is not {getattr(p, attribute)}"


def negation_text(spec: CaptionSpec, neg: Negation) -> str:
    """The negated caption, sentence-cased like `render_caption`."""
    nps = spec.noun_phrases()
    texts = [np_text(p, False) for p in nps]
    tail = ""
    if neg.form == "attribute":
        texts[neg.phrase] = _negated_phrase(nps[neg.phrase], str(neg.attribute))
    elif neg.form == "something":
        texts[neg.phrase] = "something"
        tail = f" There is no {_bare(nps[neg.phrase])}."
    elif neg.form == "absent":
        tail = f" There is no {_bare(nps[neg.phrase])}."
    parts, k = [], 0
    for i, c in enumerate(spec.clauses):
        subject = texts[k]
        k += 1
        if c.object is None:
            part = subject
        else:
            rel = f"not {c.relation}" if neg.form == "relation" and neg.clause == i else c.relation
            part = f"{subject} {rel} {texts[k]}"
            k += 1
        if neg.form == "clause" and neg.clause == i:
            words = part.split(" ", 1)
            tail = f" There is no {words[1] if words[0] in ('a', 'an') else part}."
            continue
        parts.append(part)
    if not parts:
        return tail.strip()
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return body[0].upper() + body[1:] + "." + tail


def _satisfiable(spec: CaptionSpec, scene: Scene,
                 phrase_ok: Callable[[int, NounPhrase, WorldObject], bool],
                 relation_ok: Callable[[int, Clause, WorldObject, WorldObject], bool]) -> bool:
    """Whether distinct objects can be assigned to the phrases with every phrase and every
    relation clause accepted (the oracle's semantics with pluggable tests)."""
    nps = spec.noun_phrases()
    if len(nps) > len(scene.objects):
        return False
    for assignment in permutations(range(len(scene.objects)), len(nps)):
        objs = [scene.objects[k] for k in assignment]
        if not all(phrase_ok(j, p, o) for j, (p, o) in enumerate(zip(nps, objs, strict=True))):
            continue
        k, ok = 0, True
        for i, c in enumerate(spec.clauses):
            k += 1
            if c.object is not None:
                ok = relation_ok(i, c, objs[k - 1], objs[k])
                k += 1
                if not ok:
                    break
        if ok:
            return True
    return False


def negation_is_true(spec: CaptionSpec, neg: Negation, scene: Scene, next_to: float) -> bool:
    """Whether the negated caption is true of the scene."""
    def matches(j: int, p: NounPhrase, o: WorldObject) -> bool:
        return np_matches(p, o)

    def related(i: int, c: Clause, a: WorldObject, b: WorldObject) -> bool:
        return holds(a, str(c.relation), b, next_to)

    if neg.form == "relation":
        def relation_ok(i: int, c: Clause, a: WorldObject, b: WorldObject) -> bool:
            return related(i, c, a, b) != (i == neg.clause)
        return _satisfiable(spec, scene, matches, relation_ok)
    if neg.form == "attribute":
        attr = str(neg.attribute)

        def phrase_ok(j: int, p: NounPhrase, o: WorldObject) -> bool:
            if j != neg.phrase:
                return np_matches(p, o)
            value = getattr(p, attr)
            return np_matches(replace(p, **{attr: None}), o) and getattr(o, attr) != value
        return _satisfiable(spec, scene, phrase_ok, related)
    if neg.form in ("absent", "something"):
        target = spec.noun_phrases()[neg.phrase]
        if any(np_matches(target, o) for o in scene.objects):
            return False
        if neg.form == "absent":
            return spec_is_true(spec, scene, next_to)
        return _satisfiable(spec, scene, lambda j, p, o: j == neg.phrase or np_matches(p, o),
                            related)
    if neg.form == "clause":
        rest = tuple(c for i, c in enumerate(spec.clauses) if i != neg.clause)
        negated = CaptionSpec((spec.clauses[neg.clause],))
        if spec_is_true(negated, scene, next_to):
            return False
        return not rest or spec_is_true(CaptionSpec(rest), scene, next_to)
    raise ValueError(f"unknown negation form {neg.form!r}; expected one of {NEGATION_FORMS}")


# -- items -------------------------------------------------------------------------------

def false_negatives(neg_type: str, spec: CaptionSpec, scene: Scene, cfg: WorldConfig,
                    oracle: Oracle) -> list[tuple[str, str]]:
    """Every distinct ``(kind, text)`` negative of the type that is false of the scene and
    differs from the positive, in a fixed order."""
    positive = render_caption(spec)
    if neg_type == "negate":
        pairs = [(n.form, negation_text(spec, n)) for n in negation_candidates(spec)
                 if not negation_is_true(spec, n, scene, cfg.next_to_distance)]
    elif neg_type in ("atom", "swap"):
        cands = atom_candidates(spec, scene, cfg) if neg_type == "atom" else swap_candidates(spec)
        pairs = [(kind, render_caption(s)) for kind, s in cands
                 if not oracle.is_true(render_caption(s), scene)]
    else:
        raise ValueError(f"unknown negative type {neg_type!r}; known: {NEGATIVE_TYPES}")
    seen, out = {positive}, []
    for kind, text in pairs:
        if text not in seen:
            seen.add(text)
            out.append((kind, text))
    return out


def productivity_items(
    scenes: Iterable[Scene],
    cfg: WorldConfig,
    *,
    seed: int = 0,
    types: Iterable[str] = NEGATIVE_TYPES,
    complexities: Iterable[int] | None = None,
    n_negatives: int = 5,
    tie_policy: str = "strict",
) -> pd.DataFrame:
    """Items in the CREPE loader's schema (``subset`` = type, ``complexity``) on world image
    ids: per scene and complexity one positive (shared by the types), then per type
    ``n_negatives`` negatives drawn from `false_negatives`. ``complexities`` default to
    ``MIN_COMPLEXITY .. max_complexity(cfg)``. Ties default to strict: world texts are all
    distinct, so only a degenerate scorer ties."""
    types = tuple(types)
    for t in types:
        if t not in NEGATIVE_TYPES:
            raise ValueError(f"unknown negative type {t!r}; known: {NEGATIVE_TYPES}")
    levels = tuple(complexities) if complexities is not None else tuple(
        range(MIN_COMPLEXITY, max_complexity(cfg) + 1))
    if not levels or not types or n_negatives < 1:
        raise ValueError(f"nothing to build: complexities {levels}, types {types}, "
                         f"n_negatives {n_negatives}")
    oracle = Oracle(cfg)
    rows = []
    for scene in scenes:
        for complexity in levels:
            drawn = positive_spec(scene, int(complexity),
                                  cfg, stable_rng("crepe-productivity", seed, scene.scene_id,
                                                  complexity))
            if drawn is None:
                continue
            spec, (k, r, a) = drawn
            positive = render_caption(spec)
            if not oracle.is_true(positive, scene):
                raise AssertionError(f"{scene.scene_id}: positive {positive!r} is false")
            for neg_type in types:
                pool = false_negatives(neg_type, spec, scene, cfg, oracle)
                if len(pool) < n_negatives:
                    continue
                rng = stable_rng("crepe-productivity", seed, scene.scene_id, complexity,
                                 neg_type)
                picked = [pool[int(i)] for i in rng.choice(len(pool), n_negatives,
                                                           replace=False)]
                rows.append({
                    "item_id": f"world-{neg_type}-c{int(complexity):02d}-{scene.scene_id}",
                    "subset": neg_type, "image_ids": [scene.scene_id],
                    "texts": [positive, *(text for _, text in picked)], "protocol": "i2t",
                    "label": 0, "tie_policy": tie_policy, "complexity": int(complexity),
                    "n_objects": k, "n_relations": r, "n_attributes": a,
                    "negative_kinds": [kind for kind, _ in picked], "spec": spec.to_json(),
                })
    if not rows:
        raise ValueError(f"no productivity items: the scenes support none of complexities "
                         f"{levels} with {n_negatives} negatives of types {types}")
    return make_items(rows)

