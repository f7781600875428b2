"""The synthetic world's text-to-image backend: render the scene a negative caption depicts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from tqdm import tqdm

from vlcomp.world.config import WorldConfig
from vlcomp.world.oracle import Oracle
from vlcomp.world.render import render_scene
from vlcomp.world.scene import Scene


def generate_negative_images(
    items: pd.DataFrame, edited: dict[str, Scene], cfg: WorldConfig, out_dir: Path
) -> pd.DataFrame:
    """Render the edited scene of every item; the manifest records prompt, path and filters.

    Filter (automatic, standing in for BiVLC's human image selection): the negative caption
    must be true of the generated scene according to the oracle.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    oracle, rows = Oracle(cfg), []
    for item in tqdm(items.itertuples(), total=len(items), desc="render negatives",
                     mininterval=5):
        scene = edited[f"{item.item_id}-neg"]
        path = out_dir / f"{scene.scene_id}.png"
        render_scene(scene, cfg).save(path)
        prompt = item.texts[1]
        rows.append({
            "image_id": scene.scene_id, "item_id": item.item_id, "prompt": prompt,
            "seed": cfg.seed, "path": str(path), "backend": "world_renderer",
            "oracle_prompt_true": oracle.is_true(prompt, scene),
        })
    manifest = pd.DataFrame(rows)
    manifest["kept"] = manifest.oracle_prompt_true
    return manifest
