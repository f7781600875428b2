"""Scene-graph edits that turn a true caption into a fluent false one (SugarCrepe-style).

Each edit changes the scene and the caption together: the negative caption is the positive
caption's structure written about the edited scene, so it is fluent by construction, and the
edited scene is what the negative caption depicts (the BiVLC negative image). Callers verify
with the oracle that the negative is false of the original scene.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import direction, layout_is_valid
from vlcomp.world.grammar import CaptionSpec, Clause, NounPhrase, render_caption
from vlcomp.world.oracle import Oracle
from vlcomp.world.sampler import place_object
from vlcomp.world.scene import ABOVE, ASYMMETRIC_RELATIONS, BELOW, LEFT_OF, RIGHT_OF, Scene

SUBSETS = (
    "replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att", "add_obj", "add_att"
)
STEP = {LEFT_OF: (-1, 0), RIGHT_OF: (1, 0), ABOVE: (0, -1), BELOW: (0, 1)}


@dataclass(frozen=True)
class Edit:
    """A negative caption spec and the scene it is true of."""

    subset: str
    negative: CaptionSpec
    scene: Scene


def _choice(rng: np.random.Generator, items):
    items = list(items)
    return items[int(rng.integers(len(items)))] if items else None


def _set_object(scene: Scene, k: int, **changes) -> Scene:
    objects = list(scene.objects)
    objects[k] = replace(objects[k], **changes)
    return scene.with_objects(tuple(objects))


def _refs(spec: CaptionSpec) -> list[NounPhrase]:
    return [p for p in spec.noun_phrases() if p.ref is not None]


def replace_obj(spec, scene, rng, cfg) -> Edit | None:
    """Replace one mentioned object's noun with a shape absent from the scene."""
    target = _choice(rng, _refs(spec))
    present = {o.shape for o in scene.objects}
    new = _choice(rng, [s for s in cfg.shapes if s not in present])
    if target is None or new is None:
        return None
    neg = spec.map_noun_phrases(lambda p: replace(p, shape=new) if p == target else p)
    return Edit("replace_obj", neg, _set_object(scene, target.ref, shape=new))


def replace_att(spec, scene, rng, cfg) -> Edit | None:
    """Replace a mentioned colour or size with another value of the same attribute."""
    options = [(p, a) for p in _refs(spec) for a in ("color", "size") if getattr(p, a)]
    pick = _choice(rng, options)
    if pick is None:
        return None
    target, attr = pick
    values = cfg.colors if attr == "color" else sorted(cfg.sizes)
    new = _choice(rng, [v for v in values if v != getattr(target, attr)])
    if new is None:
        return None
    neg = spec.map_noun_phrases(lambda p: replace(p, **{attr: new}) if p == target else p)
    changes = {attr: new} if attr == "color" else {"size": new, "extent": cfg.sizes[new]}
    edited = _set_object(scene, target.ref, **changes)
    if not layout_is_valid(edited.objects, cfg.min_axis_ratio, cfg.min_gap):
        return None
    return Edit("replace_att", neg, edited)


def _move_to_relation(scene, i, j, rel, cfg) -> Scene | None:
    """Move object i so that "i REL j" holds, keeping the layout valid."""
    b = scene.objects[j]
    sx, sy = STEP[rel]
    for dist in (0.3, 0.35, 0.4, 0.45, 0.5, 0.25):
        for offset in (0.0, 0.05, -0.05, 0.1, -0.1):
            x = b.x + sx * dist + (offset if sx == 0 else 0.0)
            y = b.y + sy * dist + (offset if sy == 0 else 0.0)
            moved = _set_object(scene, i, x=round(x, 4), y=round(y, 4))
            if (
                layout_is_valid(moved.objects, cfg.min_axis_ratio, cfg.min_gap)
                and direction(moved.objects[i], b) == rel
            ):
                return moved
    return None


def replace_rel(spec, scene, rng, cfg) -> Edit | None:
    """Replace a stated relation with another one, moving the subject so the new one holds."""
    clauses = [c for c in spec.clauses if c.relation in ASYMMETRIC_RELATIONS]
    clause = _choice(rng, clauses)
    if clause is None:
        return None
    for rel in rng.permutation([r for r in ASYMMETRIC_RELATIONS if r != clause.relation]):
        edited = _move_to_relation(scene, clause.subject.ref, clause.object.ref, str(rel), cfg)
        if edited is not None:
            new_clause = replace(clause, relation=str(rel))
            neg = replace(spec, clauses=tuple(new_clause if c == clause else c
                                              for c in spec.clauses))
            return Edit("replace_rel", neg, edited)
    return None


def _two_phrases(spec, rng, ok) -> tuple[NounPhrase, NounPhrase] | None:
    refs = _refs(spec)
    pairs = [(p, q) for a, p in enumerate(refs) for q in refs[a + 1:] if ok(p, q)]
    return _choice(rng, pairs)


def _swap(attr: str, subset: str, spec, scene, rng) -> Edit | None:
    """Exchange ``attr`` between two mentioned objects whose values differ."""
    pair = _two_phrases(
        spec, rng, lambda p, q: getattr(p, attr) and getattr(q, attr)
        and getattr(p, attr) != getattr(q, attr)
    )
    if pair is None:
        return None
    p, q = pair
    a, b = getattr(p, attr), getattr(q, attr)
    neg = spec.map_noun_phrases(
        lambda x: replace(x, **{attr: b}) if x == p else replace(x, **{attr: a}) if x == q else x
    )
    edited = _set_object(_set_object(scene, p.ref, **{attr: b}), q.ref, **{attr: a})
    return Edit(subset, neg, edited)


def swap_obj(spec, scene, rng, cfg) -> Edit | None:
    """Swap the nouns of two mentioned objects (their attributes and places stay)."""
    return _swap("shape", "swap_obj", spec, scene, rng)


def swap_att(spec, scene, rng, cfg) -> Edit | None:
    """Swap the colours of two mentioned objects."""
    return _swap("color", "swap_att", spec, scene, rng)


def swap_phrases(spec, scene, rng, cfg) -> Edit | None:
    """Exchange two mentioned noun phrases and what their objects look like, so the two
    objects trade places (Winoground's "a mug in some grass" / "some grass in a mug")."""
    pair = _two_phrases(
        spec, rng, lambda p, q: (p.shape, p.color, p.size) != (q.shape, q.color, q.size))
    if pair is None:
        return None
    p, q = pair
    neg = spec.map_noun_phrases(
        lambda x: replace(q, ref=p.ref) if x == p else replace(p, ref=q.ref) if x == q else x
    )
    a, b = scene.objects[p.ref], scene.objects[q.ref]
    look = ("shape", "color", "size", "extent")
    edited = _set_object(_set_object(scene, p.ref, **{k: getattr(b, k) for k in look}),
                         q.ref, **{k: getattr(a, k) for k in look})
    if not layout_is_valid(edited.objects, cfg.min_axis_ratio, cfg.min_gap):
        return None
    return Edit("swap_phrases", neg, edited)


def add_obj(spec, scene, rng, cfg) -> Edit | None:
    """Add a phrase for a new object (a shape absent from the scene) and place it."""
    present = {o.shape for o in scene.objects}
    shape = _choice(rng, [s for s in cfg.shapes if s not in present])
    if shape is None:
        return None
    color = _choice(rng, cfg.colors)
    size = _choice(rng, sorted(cfg.sizes))
    obj = place_object(rng, shape, color, size, list(scene.objects), cfg)
    if obj is None:
        return None
    k = len(scene.objects)
    new_np = NounPhrase(shape, color if rng.random() < 0.7 else None, None, ref=k)
    neg = replace(spec, clauses=(*spec.clauses, Clause(new_np)))
    return Edit("add_obj", neg, scene.with_objects((*scene.objects, obj)))


def add_att(spec, scene, rng, cfg) -> Edit | None:
    """Give a colour-less phrase a colour its object does not have."""
    target = _choice(rng, [p for p in _refs(spec) if p.color is None])
    if target is None:
        return None
    color = _choice(rng, [c for c in cfg.colors if c != scene.objects[target.ref].color])
    neg = spec.map_noun_phrases(lambda p: replace(p, color=color) if p == target else p)
    return Edit("add_att", neg, _set_object(scene, target.ref, color=color))


EDITS = {
    "replace_obj": replace_obj,
    "replace_att": replace_att,
    "replace_rel": replace_rel,
    "swap_obj": swap_obj,
    "swap_att": swap_att,
    "add_obj": add_obj,
    "add_att": add_att,
    "swap_phrases": swap_phrases,   # Winoground-style pairs only, not a SugarCrepe subset
}


def apply_edit(
    subset: str, spec: CaptionSpec, scene: Scene, rng: np.random.Generator, cfg: WorldConfig
) -> Edit | None:
    """Apply the named edit, or None when the caption/scene offers no place for it."""
    return EDITS[subset](spec, scene, rng, cfg)


def verified_negative(
    subset: str,
    text: str,
    spec: CaptionSpec,
    scene: Scene,
    rng: np.random.Generator,
    cfg: WorldConfig,
    oracle: Oracle,
) -> tuple[str, Edit] | None:
    """A negative caption of ``text`` by the named edit, checked by the oracle: false of
    ``scene``, different from ``text``, and true of the edited scene (else an error)."""
    edit = apply_edit(subset, spec, scene, rng, cfg)
    if edit is None:
        return None
    negative = render_caption(edit.negative)
    if negative == text or oracle.is_true(edit.negative, scene):
        return None
    if not oracle.is_true(edit.negative, edit.scene):
        raise AssertionError(f"{scene.scene_id} {subset}: edited scene misses {negative!r}")
    return negative, edit
