"""Scene graphs of the synthetic world: objects with shape, colour, size and position."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

# Relations as they appear in captions. "next to" is symmetric; ARO-style relation
# benchmarks exclude it from macro accuracy, as ARO does with "near"/"next to".
LEFT_OF = "to the left of"
RIGHT_OF = "to the right of"
ABOVE = "above"
BELOW = "below"
NEXT_TO = "next to"
ASYMMETRIC_RELATIONS = (LEFT_OF, RIGHT_OF, ABOVE, BELOW)
SYMMETRIC_RELATIONS = (NEXT_TO,)
RELATIONS = ASYMMETRIC_RELATIONS + SYMMETRIC_RELATIONS
# Places in the picture, as captions say them ("a red circle on the left"): the side of the
# image an object sits on, along its dominant axis (`vlcomp.world.geometry.place_of`).
ON_THE_LEFT = "on the left"
ON_THE_RIGHT = "on the right"
AT_THE_TOP = "at the top"
AT_THE_BOTTOM = "at the bottom"
PLACES = (ON_THE_LEFT, ON_THE_RIGHT, AT_THE_TOP, AT_THE_BOTTOM)
INVERSE = {LEFT_OF: RIGHT_OF, RIGHT_OF: LEFT_OF, ABOVE: BELOW, BELOW: ABOVE, NEXT_TO: NEXT_TO}


@dataclass(frozen=True)
class WorldObject:
    """One object: a shape (the noun), a colour and a size (the adjectives), and a centre.

    Coordinates are fractions of the image side, with y growing downwards as in images.
    ``extent`` is the half-side of the object's bounding box, also as a fraction.
    """

    shape: str
    color: str
    size: str
    x: float
    y: float
    extent: float

    def bbox(self) -> tuple[float, float, float, float]:
        """Bounding box ``(x0, y0, x1, y1)`` in image fractions."""
        e = self.extent
        return (self.x - e, self.y - e, self.x + e, self.y + e)


@dataclass(frozen=True)
class Scene:
    """A scene: its id, split and objects. Relations are derived from geometry."""

    scene_id: str
    split: str
    objects: tuple[WorldObject, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def with_objects(self, objects: tuple[WorldObject, ...], scene_id: str | None = None) -> Scene:
        """A copy with other objects (and optionally another id)."""
        return replace(self, objects=tuple(objects), scene_id=scene_id or self.scene_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scene_id": self.scene_id,
            "split": self.split,
            "objects": [asdict(o) for o in self.objects],
            "meta": self.meta,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Scene:
        return Scene(
            scene_id=d["scene_id"],
            split=d["split"],
            objects=tuple(WorldObject(**o) for o in d["objects"]),
            meta=dict(d.get("meta", {})),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)
