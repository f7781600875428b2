"""Spatial relations derived from object geometry, and placement validity."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vlcomp.world.scene import (
    ABOVE,
    AT_THE_BOTTOM,
    AT_THE_TOP,
    BELOW,
    LEFT_OF,
    NEXT_TO,
    ON_THE_LEFT,
    ON_THE_RIGHT,
    RIGHT_OF,
    WorldObject,
)

# An object this close to the centre along its dominant axis has no place a caption names.
PLACE_MARGIN = 0.1


def direction(a: WorldObject, b: WorldObject) -> str:
    """The asymmetric relation "a REL b" along the dominant axis of the displacement."""
    dx, dy = b.x - a.x, b.y - a.y
    if abs(dx) >= abs(dy):
        return LEFT_OF if dx > 0 else RIGHT_OF
    return ABOVE if dy > 0 else BELOW


def holds(a: WorldObject, relation: str, b: WorldObject, next_to_distance: float) -> bool:
    """Whether "a <relation> b" is true of the two objects."""
    if relation == NEXT_TO:
        return math.hypot(b.x - a.x, b.y - a.y) <= next_to_distance
    return direction(a, b) == relation


def place_of(o: WorldObject) -> str | None:
    """Where in the picture the object sits ("on the left", "at the top", ...): the side of
    the centre along its dominant axis, None within ``PLACE_MARGIN`` of the centre."""
    dx, dy = o.x - 0.5, o.y - 0.5
    if max(abs(dx), abs(dy)) < PLACE_MARGIN:
        return None
    if abs(dx) >= abs(dy):
        return ON_THE_LEFT if dx < 0 else ON_THE_RIGHT
    return AT_THE_TOP if dy < 0 else AT_THE_BOTTOM


def true_relations(
    a: WorldObject, b: WorldObject, next_to_distance: float
) -> tuple[str, ...]:
    """Every relation "a REL b" that holds (the direction, plus "next to" when close)."""
    rels = [direction(a, b)]
    if holds(a, NEXT_TO, b, next_to_distance):
        rels.append(NEXT_TO)
    return tuple(rels)


def pair_is_clear(a: WorldObject, b: WorldObject, min_axis_ratio: float, min_gap: float) -> bool:
    """Whether two objects are apart and unambiguous: no overlap, one clearly dominant axis."""
    dx, dy = abs(b.x - a.x), abs(b.y - a.y)
    reach = a.extent + b.extent + min_gap
    if dx < reach and dy < reach:
        return False
    major, minor = max(dx, dy), min(dx, dy)
    return major >= min_axis_ratio * minor


def inside(o: WorldObject, margin: float = 0.01) -> bool:
    """Whether the object's box lies within the image."""
    x0, y0, x1, y1 = o.bbox()
    return x0 >= margin and y0 >= margin and x1 <= 1 - margin and y1 <= 1 - margin


def layout_is_valid(
    objects: Sequence[WorldObject], min_axis_ratio: float, min_gap: float
) -> bool:
    """Every object inside the image and every pair clear."""
    if not all(inside(o) for o in objects):
        return False
    return all(
        pair_is_clear(objects[i], objects[j], min_axis_ratio, min_gap)
        for i in range(len(objects))
        for j in range(i + 1, len(objects))
    )
