"""Build the synthetic world dataset: images, captions and scene graphs for every split."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from vlcomp.io import atomic_path, write_parquet
from vlcomp.seeding import stable_rng
from vlcomp.world.captions import scene_captions
from vlcomp.world.config import WorldConfig
from vlcomp.world.grammar import render_caption
from vlcomp.world.render import render_scene
from vlcomp.world.sampler import sample_split
from vlcomp.world.scene import Scene

SPLITS = ("train", "val", "test")


def build_world(
    cfg: WorldConfig, images_dir: Path, images_table: Path, captions_table: Path, scenes: Path
) -> None:
    """Render every scene to PNG and write images.parquet, captions.parquet, scenes.jsonl.

    Image paths in the tables are relative to the workflow's working directory as given.
    """
    images_dir.mkdir(parents=True, exist_ok=True)
    image_rows, caption_rows, scene_lines = [], [], []
    total = sum(cfg.splits.get(s, 0) for s in SPLITS)
    with tqdm(total=total, desc="world", mininterval=5) as bar:
        for split in SPLITS:
            for scene in sample_split(cfg, split):
                path = images_dir / f"{scene.scene_id}.png"
                render_scene(scene, cfg).save(path)
                image_rows.append(
                    {"image_id": scene.scene_id, "path": str(path), "split": split,
                     "width": cfg.image_size, "height": cfg.image_size}
                )
                rng = stable_rng("captions", cfg.seed, scene.scene_id)
                for k, (template, spec) in enumerate(scene_captions(scene, cfg, rng)):
                    caption_rows.append(
                        {"caption_id": f"{scene.scene_id}-c{k}", "image_id": scene.scene_id,
                         "text": render_caption(spec), "split": split, "template": template,
                         "spec": spec.to_json()}
                    )
                scene_lines.append(scene.to_json())
                bar.update()
    write_parquet(pd.DataFrame(image_rows), images_table)
    write_parquet(pd.DataFrame(caption_rows), captions_table)
    with atomic_path(scenes) as tmp:
        tmp.write_text("".join(line + "\n" for line in scene_lines))


def read_scenes(path: str | Path) -> dict[str, Scene]:
    """Scenes by id from a scenes.jsonl file."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                scene = Scene.from_dict(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError) as err:
                raise ValueError(f"{path}:{n}: not a scene record ({err})") from err
            out[scene.scene_id] = scene
    return out
