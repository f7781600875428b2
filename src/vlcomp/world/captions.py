"""COCO-like captions of a scene, from coarse ("a circle and a square") to fine."""

from __future__ import annotations

import numpy as np

from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import direction, holds, place_of
from vlcomp.world.grammar import CaptionSpec, Clause, NounPhrase, render_caption
from vlcomp.world.prior import figure_first
from vlcomp.world.scene import NEXT_TO, Scene

# Detail levels of a noun phrase.
SHAPE, COLOR, FULL, MIXED = "shape", "color", "full", "mixed"
NEXT_TO_PROBABILITY = 0.3


def noun_phrase(scene: Scene, k: int, detail: str, rng: np.random.Generator) -> NounPhrase:
    """A phrase for object ``k``: shape only, + colour, + size and colour, or a random mix."""
    o = scene.objects[k]
    if detail == MIXED:
        detail = (SHAPE, COLOR, FULL)[int(rng.integers(3))]
    color = o.color if detail in (COLOR, FULL) else None
    size = o.size if detail == FULL else None
    return NounPhrase(o.shape, color, size, ref=k)


def listed_clause(
    scene: Scene, k: int, detail: str, rng: np.random.Generator, cfg: WorldConfig
) -> Clause:
    """Object ``k`` as a clause of a list; with chance ``cfg.place_phrases`` it also says where
    the object is ("a red circle on the left"), as real captions now and then do."""
    phrase = noun_phrase(scene, k, detail, rng)
    if cfg.place_phrases > 0 and rng.random() < cfg.place_phrases:
        return Clause(phrase, place=place_of(scene.objects[k]))
    return Clause(phrase)


def relation_clause(
    scene: Scene, i: int, j: int, detail: str, rng: np.random.Generator, cfg: WorldConfig
) -> Clause:
    """ "object i REL object j" with a relation true of the scene."""
    a, b = scene.objects[i], scene.objects[j]
    rel = direction(a, b)
    if holds(a, NEXT_TO, b, cfg.next_to_distance) and rng.random() < NEXT_TO_PROBABILITY:
        rel = NEXT_TO
    return Clause(noun_phrase(scene, i, detail, rng), rel, noun_phrase(scene, j, detail, rng))


def template_spec(
    template: str, scene: Scene, rng: np.random.Generator, cfg: WorldConfig
) -> CaptionSpec:
    """One caption of the named template."""
    n = len(scene.objects)
    order = [int(k) for k in rng.permutation(n)]
    if template == "list_shapes":
        return CaptionSpec(tuple(Clause(noun_phrase(scene, k, SHAPE, rng)) for k in order))
    if template == "list_attributes":
        return CaptionSpec(tuple(listed_clause(scene, k, MIXED, rng, cfg) for k in order))
    i, j = figure_first(order[0], order[1], scene.objects, cfg.shapes, cfg.subject_prior,
                        rng) or (order[0], order[1])
    if template == "relation_coarse":
        return CaptionSpec((relation_clause(scene, i, j, SHAPE, rng, cfg),))
    if template == "relation_fine":
        return CaptionSpec((relation_clause(scene, i, j, FULL, rng, cfg),))
    if template == "there_relation":
        return CaptionSpec((relation_clause(scene, i, j, MIXED, rng, cfg),), style="there")
    if template == "definite_relation":
        return CaptionSpec((relation_clause(scene, i, j, SHAPE, rng, cfg),), style="definite")
    if template == "relation_and":
        extra = tuple(listed_clause(scene, k, MIXED, rng, cfg) for k in order[2:])
        return CaptionSpec((relation_clause(scene, i, j, MIXED, rng, cfg), *extra))
    raise ValueError(f"unknown caption template {template!r}")


FIXED_TEMPLATES = ("list_shapes", "list_attributes", "relation_coarse", "relation_fine")
EXTRA_TEMPLATES = ("there_relation", "definite_relation", "relation_and", "relation_fine")


def scene_captions(
    scene: Scene, cfg: WorldConfig, rng: np.random.Generator
) -> list[tuple[str, CaptionSpec]]:
    """``cfg.captions_per_image`` distinct captions: the four fixed templates from coarse to
    fine, then random extra templates. Returns ``(template, spec)`` pairs."""
    out: list[tuple[str, CaptionSpec]] = []
    seen: set[str] = set()
    tries = 0
    while len(out) < cfg.captions_per_image and tries < 50:
        k = len(out)
        if k < len(FIXED_TEMPLATES) and tries < 10:
            template = FIXED_TEMPLATES[k]
        else:
            template = EXTRA_TEMPLATES[int(rng.integers(len(EXTRA_TEMPLATES)))]
        tries += 1
        if template == "relation_and" and len(scene.objects) < 3:
            continue
        spec = template_spec(template, scene, rng, cfg)
        text = render_caption(spec)
        if text not in seen:
            seen.add(text)
            out.append((template, spec))
    return out
