"""Generate candidate images for a table of captions with any backend, and list them.

The manifest has one row per image: ``key`` (the item the caption belongs to), ``candidate``
(0..N-1), ``image_id`` (``{key}-g{candidate}``), ``caption``, ``prompt`` (what the backend
was given), ``seed`` (the prompt's seed), ``path``, ``backend`` and ``meta`` (JSON: what the
backend reports, e.g. the world's drawn scene and failures).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from vlcomp.benchmarks.bivlc import format_caption
from vlcomp.generate.base import TextToImage, prompt_seed

# Fast PNG compression: generated images carry sensor noise, which zlib barely compresses,
# and level 1 writes ~3x faster than the default for the same pixels.
SAVE_OPTIONS = {"png": {"compress_level": 1}, "jpg": {"quality": 95}}
GENERATION_CHUNK = 64  # captions a backend is handed at once
MANIFEST_COLUMNS = ["key", "candidate", "image_id", "caption", "prompt", "seed", "path",
                    "backend", "meta"]


def generate_candidates(
    keys: Sequence[str],
    captions: Sequence[str],
    backend: TextToImage,
    out_dir: str | Path,
    base_seed: int,
    chunk: int = GENERATION_CHUNK,
    image_format: str = "png",
) -> pd.DataFrame:
    """Generate and save every caption's candidates; returns the manifest (in input order).

    Each caption's seed is `prompt_seed(base_seed, key)`, so the images of a key do not
    depend on which other captions are generated or how they are batched.
    """
    if len(keys) != len(captions):
        raise ValueError(f"{len(keys)} keys but {len(captions)} captions")
    if len(set(keys)) != len(keys):
        raise ValueError("keys must be unique (they name the generated files)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    bar = tqdm(total=len(keys), desc=f"generate ({backend.name})", mininterval=5)
    for start in range(0, len(keys), chunk):
        part_keys = list(keys[start : start + chunk])
        part_caps = list(captions[start : start + chunk])
        seeds = [prompt_seed(base_seed, k) for k in part_keys]
        images = backend.generate(part_caps, seeds)
        for key, caption, seed, generated in zip(part_keys, part_caps, seeds, images,
                                                 strict=True):
            for k, gen in enumerate(generated):
                image_id = f"{key}-g{k}"
                path = out_dir / f"{image_id}.{image_format}"
                gen.image.save(path, **SAVE_OPTIONS.get(image_format, {}))
                rows.append({
                    "key": key, "candidate": k, "image_id": image_id, "caption": caption,
                    "prompt": backend.prompt(caption), "seed": seed, "path": str(path),
                    "backend": backend.name, "meta": json.dumps(gen.meta, sort_keys=True),
                })
        bar.update(len(part_keys))
    bar.close()
    return pd.DataFrame(rows, columns=MANIFEST_COLUMNS)


def generation_items(table: pd.DataFrame) -> pd.DataFrame:
    """Items to generate negative images for, from either source, in one layout:
    ``item_id, image_ids ([natural]), texts ([positive, negative], BiVLC-formatted), type,
    subtype`` (+ ``caption_id`` for TROHN-Img).

    Sources: SugarCrepe-style benchmark items (``texts``) or a TROHN-Img selection of caption
    pairs (``key, caption_id, image_id, text, negative, type, subtype``).
    """
    if "texts" in table:
        out = table[["item_id", "image_ids", "type", "subtype"]].copy()
        out["texts"] = [[format_caption(t) for t in texts[:2]] for texts in table.texts]
        return out.reset_index(drop=True)
    need = {"key", "caption_id", "image_id", "text", "negative", "type", "subtype"}
    missing = need - set(table)
    if missing:
        raise ValueError(f"generation source lacks column(s) {sorted(missing)}")
    return pd.DataFrame({
        "item_id": table.key.to_numpy(),
        "image_ids": [[i] for i in table.image_id],
        "texts": [[format_caption(a), format_caption(b)]
                  for a, b in zip(table.text, table.negative, strict=True)],
        "type": table.type.to_numpy(), "subtype": table.subtype.to_numpy(),
        "caption_id": table.caption_id.to_numpy(),
    })
