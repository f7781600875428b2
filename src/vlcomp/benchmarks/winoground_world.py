"""A Winoground-style balanced set from world scenes (Thrush et al., 2022).

Each item is two images and two captions made of the same words in a different order
(Winoground's defining property); caption 0 is true of image 0 only and caption 1 of image
1 only, so every caption is once the positive and once the negative. A text-only score
therefore picks the same caption for both images: its per-image accuracy is exactly 50 % and
its text score 0, which is what makes the set a control for language priors (VisualGPTScore
Table 2b). Image 0 is a test scene, image 1 its edited copy, both rendered exactly.

Subsets (Winoground's swap kinds, in world terms): ``swap_obj`` exchanges two objects'
nouns, ``swap_att`` their colours, ``swap_phrases`` whole noun phrases, so the two objects
trade places and the relation between them reverses.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from vlcomp.benchmarks.sugarcrepe import first_verified_edits
from vlcomp.items import make_items
from vlcomp.world.config import WorldConfig
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle
from vlcomp.world.render import render_scene
from vlcomp.world.scene import Scene

SUBSETS = ("swap_obj", "swap_att", "swap_phrases")


def same_words(a: str, b: str) -> bool:
    """Whether two captions use the same words, as multisets (case and punctuation ignored)."""
    def words(t: str) -> Counter:
        return Counter(re.findall(r"\w+", t.lower()))
    return words(a) == words(b)


def balanced_items(
    scenes: dict[str, Scene], captions: pd.DataFrame, cfg: WorldConfig, seed: int,
    subsets: tuple[str, ...] = SUBSETS,
) -> tuple[pd.DataFrame, list[Scene]]:
    """Pair items (choice schema, protocol ``pair``; ``image_ids`` and ``texts`` aligned) and
    the edited scene of each item (its id is the item's second image id).

    A scene gives at most one item per subset: its captions are tried in a seeded order and
    the first whose edit yields a caption with the same words, false of the scene, true of
    the edited scene, and whose own caption is false of the edited scene, is kept.
    """
    unknown = set(subsets) - set(SUBSETS)
    if unknown:
        raise ValueError(f"unknown Winoground-style subset(s) {sorted(unknown)}; "
                         f"known: {list(SUBSETS)}")
    oracle, rows, edited = Oracle(cfg), [], []

    def balanced(cap: Any, spec: CaptionSpec, negative: str, edit: Any) -> bool:
        return same_words(cap.text, negative) and not oracle.is_true(spec, edit.scene)

    for scene_id, subset, cap, _, negative, edit in first_verified_edits(
            scenes, captions, cfg, seed, subsets, "winoground", balanced):
        item_id = f"wino-{subset}-{scene_id}"
        image_1 = f"{item_id}-1"
        rows.append({
            "item_id": item_id, "subset": subset, "image_ids": [scene_id, image_1],
            "texts": [cap.text, negative], "protocol": "pair", "label": 0,
            "tie_policy": "strict", "caption_id": cap.caption_id,
        })
        edited.append(edit.scene.with_objects(edit.scene.objects, image_1))
    if not rows:
        raise ValueError("no Winoground-style pair could be made from these scenes")
    return make_items(rows), edited


def render_pair_images(edited: list[Scene], cfg: WorldConfig, out_dir: Path) -> pd.DataFrame:
    """Render every edited scene to ``{scene_id}.png``; the image table (image_id, path)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for scene in tqdm(edited, desc="render pairs", mininterval=5):
        path = out_dir / f"{scene.scene_id}.png"
        render_scene(scene, cfg).save(path)
        rows.append({"image_id": scene.scene_id, "path": str(path)})
    return pd.DataFrame(rows, columns=["image_id", "path"])
