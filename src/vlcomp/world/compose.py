"""Compose a scene from a caption: what the world's text-to-image backend draws.

A caption names noun phrases and relations between them. Phrases with the same shape and
compatible attributes are one object (world captions refer to an object once per clause);
unstated colours and sizes are drawn at random, and positions are drawn until every stated
relation and place holds and the layout is clear.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import holds, layout_is_valid, place_of
from vlcomp.world.grammar import CaptionSpec, NounPhrase
from vlcomp.world.sampler import place_object
from vlcomp.world.scene import Scene, WorldObject

MAX_LAYOUT_TRIES = 200


@dataclass(frozen=True)
class ObjectSlot:
    """One object a caption asks for: its shape and the attributes the caption fixes."""

    shape: str
    color: str | None
    size: str | None


def _compatible(slot: ObjectSlot, np_: NounPhrase) -> bool:
    return (
        slot.shape == np_.shape
        and (slot.color is None or np_.color is None or slot.color == np_.color)
        and (slot.size is None or np_.size is None or slot.size == np_.size)
    )


def object_slots(spec: CaptionSpec) -> tuple[list[ObjectSlot], list[int]]:
    """The distinct objects of a caption and, per noun phrase, the index of its object."""
    slots: list[ObjectSlot] = []
    index: list[int] = []
    for np_ in spec.noun_phrases():
        for k, slot in enumerate(slots):
            if _compatible(slot, np_):
                slots[k] = ObjectSlot(
                    slot.shape, slot.color or np_.color, slot.size or np_.size
                )
                index.append(k)
                break
        else:
            slots.append(ObjectSlot(np_.shape, np_.color, np_.size))
            index.append(len(slots) - 1)
    return slots, index


def stated_relations(spec: CaptionSpec, index: list[int]) -> list[tuple[int, str, int]]:
    """``(subject object, relation, object object)`` for every relation clause."""
    return [(subject, str(c.relation), obj)
            for c, subject, obj in spec.with_phrase_items(index) if obj is not None]


def stated_places(spec: CaptionSpec, index: list[int]) -> list[tuple[int, str]]:
    """``(object, place)`` for every place clause ("a red circle on the left")."""
    return [(subject, c.place)
            for c, subject, _ in spec.with_phrase_items(index) if c.place is not None]


def relations_hold(
    objects: list[WorldObject], relations: list[tuple[int, str, int]], next_to: float
) -> bool:
    return all(holds(objects[a], rel, objects[b], next_to) for a, rel, b in relations)


def layout(
    specs: list[tuple[str, str, str]],
    relations: list[tuple[int, str, int]],
    cfg: WorldConfig,
    rng: np.random.Generator,
    places: Sequence[tuple[int, str]] = (),
) -> list[WorldObject] | None:
    """Positions for ``(shape, colour, size)`` objects with every relation and place holding,
    or None."""
    for _ in range(MAX_LAYOUT_TRIES):
        objects: list[WorldObject] = []
        for shape, color, size in specs:
            obj = place_object(rng, shape, color, size, objects, cfg)
            if obj is None:
                break
            objects.append(obj)
        if (
            len(objects) == len(specs)
            and layout_is_valid(objects, cfg.min_axis_ratio, cfg.min_gap)
            and relations_hold(objects, relations, cfg.next_to_distance)
            and all(place_of(objects[k]) == place for k, place in places)
        ):
            return objects
    return None


def compose_scene(
    spec: CaptionSpec, cfg: WorldConfig, rng: np.random.Generator, scene_id: str,
    split: str = "generated",
) -> Scene | None:
    """A scene the caption is true of, or None when no layout was found."""
    slots, index = object_slots(spec)
    sizes = sorted(cfg.sizes)
    drawn = [
        (
            s.shape,
            s.color or cfg.colors[int(rng.integers(len(cfg.colors)))],
            s.size or sizes[int(rng.integers(len(sizes)))],
        )
        for s in slots
    ]
    objects = layout(drawn, stated_relations(spec, index), cfg, rng, stated_places(spec, index))
    if objects is None:
        return None
    return Scene(scene_id, split, tuple(objects))
