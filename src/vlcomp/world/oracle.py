"""The oracle: whether a caption is true of a scene (stands in for human annotators)."""

from __future__ import annotations

from itertools import permutations

from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import holds, place_of
from vlcomp.world.grammar import CaptionParser, CaptionSpec, NounPhrase
from vlcomp.world.scene import Scene, WorldObject


def np_matches(np_: NounPhrase, obj: WorldObject) -> bool:
    return (
        np_.shape == obj.shape
        and (np_.color is None or np_.color == obj.color)
        and (np_.size is None or np_.size == obj.size)
    )


def spec_is_true(spec: CaptionSpec, scene: Scene, next_to_distance: float) -> bool:
    """True iff distinct scene objects can be assigned to the noun phrases so that every
    phrase matches its object and every stated relation and place holds."""
    nps = spec.noun_phrases()
    if len(nps) > len(scene.objects):
        return False
    for assignment in permutations(range(len(scene.objects)), len(nps)):
        objs = [scene.objects[k] for k in assignment]
        if not all(np_matches(p, o) for p, o in zip(nps, objs, strict=True)):
            continue
        if all(
            (c.place is None or place_of(subj) == c.place)
            and (obj is None or holds(subj, c.relation, obj, next_to_distance))
            for c, subj, obj in spec.with_phrase_items(objs)
        ):
            return True
    return False


class Oracle:
    """Reads captions in the world's grammar and judges them against scenes."""

    def __init__(self, cfg: WorldConfig) -> None:
        self.cfg = cfg
        self.parser = CaptionParser(cfg.shapes, cfg.colors, cfg.sizes)

    def is_true(self, caption: str | CaptionSpec, scene: Scene) -> bool:
        spec = self.parser.parse(caption) if isinstance(caption, str) else caption
        return spec_is_true(spec, scene, self.cfg.next_to_distance)
