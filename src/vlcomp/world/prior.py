"""The world's scene prior: some arrangements and colourings are more common than their swaps.

Real photographs are not balanced: horses eat grass, and the sky is above the sea. That is
why a language prior alone solves ARO's VG-Relation (VisualGPTScore Table 2: P(t|null) 87.6)
and why NegCLIP, whose swapped negative captions are mostly implausible, climbs on it. The
world copies this with three knobs, all 0 (a balanced world) unless configured:

* ``relation_prior``: the share of scenes whose shapes are arranged in the world's canonical
  order: a shape listed earlier in ``world.shapes`` is to the left of, or above, a shape listed
  later. Positions and sizes stay where the sampler put them; the shapes (with their colours)
  are assigned to the positions so that as many pairs as possible follow the order.
* ``attribute_prior``: the chance that an object wears its shape's usual colour (the shape's
  position in ``world.shapes`` indexes ``world.colors``: circle red, square green, ...).
* ``subject_prior``: the chance that a caption or annotation relating two objects names the
  earlier-listed shape first, as people name the figure before the ground ("the cup is on the
  table", seldom "the table is under the cup"; Visual Genome's subject-predicate-object
  triplets, and so ARO's VG-Relation items, follow the same habit). It acts on the texts, not
  on the scenes.

The scene priors draw from their own generator (seeded by world seed, split and index), so a
prior of 0 leaves every scene exactly as the balanced sampler drew it; the subject prior draws
from the text's generator only when it is above 0.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations

import numpy as np

from vlcomp.world.geometry import direction
from vlcomp.world.scene import ABOVE, LEFT_OF, WorldObject

CANONICAL_RELATIONS = (LEFT_OF, ABOVE)


def usual_color(shape: str, shapes: tuple[str, ...], colors: tuple[str, ...]) -> str:
    """The colour a shape wears under the attribute prior."""
    return colors[shapes.index(shape) % len(colors)]


def follows_order(a: WorldObject, b: WorldObject, shapes: tuple[str, ...]) -> bool:
    """Whether the pair is in canonical order: the earlier-listed shape left of or above."""
    first, second = (a, b) if shapes.index(a.shape) < shapes.index(b.shape) else (b, a)
    return direction(first, second) in CANONICAL_RELATIONS


def ordered_pairs(objects: tuple[WorldObject, ...], shapes: tuple[str, ...]) -> int:
    """How many object pairs of a scene are in canonical order."""
    n = len(objects)
    return sum(
        follows_order(objects[i], objects[j], shapes) for i in range(n) for j in range(i + 1, n)
    )


def arrange_in_order(
    objects: tuple[WorldObject, ...], shapes: tuple[str, ...]
) -> tuple[WorldObject, ...]:
    """Reassign shapes (with their colours) to the scene's positions so that the most pairs
    are in canonical order; ties go to the first assignment in permutation order."""
    best, best_count = objects, -1
    looks = [(o.shape, o.color) for o in objects]
    for perm in permutations(range(len(objects))):
        cand = tuple(replace(o, shape=looks[p][0], color=looks[p][1])
                     for p, o in zip(perm, objects, strict=True))
        count = ordered_pairs(cand, shapes)
        if count > best_count:
            best, best_count = cand, count
    return best


def apply_scene_prior(
    objects: tuple[WorldObject, ...],
    shapes: tuple[str, ...],
    colors: tuple[str, ...],
    relation_prior: float,
    attribute_prior: float,
    rng: np.random.Generator,
) -> tuple[WorldObject, ...]:
    """The scene's objects under the prior (unchanged when both priors are 0)."""
    if attribute_prior > 0:
        objects = tuple(
            replace(o, color=usual_color(o.shape, shapes, colors))
            if rng.random() < attribute_prior else o
            for o in objects
        )
    if relation_prior > 0 and rng.random() < relation_prior:
        objects = arrange_in_order(objects, shapes)
    return objects


def figure_first(
    i: int, j: int, objects: tuple[WorldObject, ...], shapes: tuple[str, ...],
    subject_prior: float, rng: np.random.Generator,
) -> tuple[int, int] | None:
    """``(subject, object)`` indices with the earlier-listed shape first, with chance
    ``subject_prior``; None (no draw at 0) when the text keeps its own order."""
    if subject_prior <= 0 or rng.random() >= subject_prior:
        return None
    if shapes.index(objects[i].shape) <= shapes.index(objects[j].shape):
        return i, j
    return j, i
