"""One model's embeddings in shards: each shard job embeds its block of the distinct images
and texts of every set (`vlcomp.shards.shard_block`), and a gather joins the blocks and writes
the per-set files an unsharded job writes, byte for byte.

Blocks start on whole batches (and whole chunks, `IMAGE_CHUNK` / `TEXT_CHUNK`), so the model
sees the same batches as in one job and its outputs do not depend on the sharding.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from vlcomp.score.embeddings import (
    IMAGE_CHUNK,
    TEXT_CHUNK,
    distinct_images,
    distinct_texts,
    embed_image_set,
    embed_texts,
)
from vlcomp.shards import batching_unit, check_complete, shard_block

KINDS = ("images", "texts")


def image_unit(scorer, batch_size: int) -> int:
    """The images a block keeps whole: a loader's batch for the dual encoders, otherwise the
    batches inside `IMAGE_CHUNK` chunks (`embed_image_set`)."""
    if callable(getattr(scorer, "image_batches", None)):
        return max(int(batch_size), 1)
    return batching_unit(batch_size, IMAGE_CHUNK)


def embed_shard(scorer, image_tables: Sequence[pd.DataFrame],
                text_tables: Sequence[pd.DataFrame], shard: str, batch_size: int = 256,
                text_batch_size: int = 32, workers: int = 0,
                unit_batch: int | None = None) -> dict[str, np.ndarray]:
    """The embeddings of one shard's block of the distinct images and of the distinct texts,
    with each block's bounds (``images_start``, ``images_stop``, ``images_total``, and the same
    for texts). Image blocks keep whole batches of ``unit_batch`` (default ``batch_size``):
    every shard must cut the same blocks, so a batch sized at run time
    (`vlcomp.models.auto_batch`) passes the largest it can be, which all the others divide."""
    rows, _ = distinct_images(image_tables) if image_tables else (pd.DataFrame(), [])
    texts, _ = distinct_texts(text_tables)
    unit = image_unit(scorer, batch_size if unit_batch is None else unit_batch)
    if unit % image_unit(scorer, batch_size):
        raise ValueError(f"blocks of {unit} images would split batches of {batch_size}")
    blocks = {"images": shard_block(len(rows), shard, unit),
              "texts": shard_block(len(texts), shard,
                                   batching_unit(text_batch_size, TEXT_CHUNK))}
    out: dict[str, np.ndarray] = {}
    for kind, block in blocks.items():
        out[f"{kind}_start"], out[f"{kind}_stop"] = np.int64(block.start), np.int64(block.stop)
        out[f"{kind}_total"] = np.int64(len(rows) if kind == "images" else len(texts))
    img = blocks["images"]
    out["images"] = (embed_image_set(scorer, rows.iloc[img].reset_index(drop=True),
                                     batch_size=batch_size, workers=workers)
                     if img.stop > img.start else np.zeros((0, 0), np.float32))
    txt = blocks["texts"]
    out["texts"] = (embed_texts(scorer, texts[txt], batch_size=text_batch_size)
                    if txt.stop > txt.start else np.zeros((0, 0), np.float32))
    return out


def join_shards(paths: Sequence[str | Path], kind: str) -> np.ndarray:
    """One kind's (``images`` or ``texts``) embeddings of all shards, in order; raises naming
    the file when the shards do not tile the items."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    blocks, parts, total = [], [], None
    for path in paths:
        with np.load(path) as shard:
            start, stop = int(shard[f"{kind}_start"]), int(shard[f"{kind}_stop"])
            found = int(shard[f"{kind}_total"])
            if total is not None and found != total:
                raise ValueError(f"{path}: {found} {kind} in all, other shards say {total}")
            total = found
            array = shard[kind]
            if len(array) != stop - start:
                raise ValueError(f"{path}: {len(array)} {kind} for block {start}:{stop}")
            blocks.append(slice(start, stop))
            if len(array):
                parts.append(array)
    if total is None:
        raise ValueError("no shards given")
    try:
        check_complete(blocks, total)
    except ValueError as error:
        raise ValueError(f"{kind} of {[str(p) for p in paths]}: {error}") from None
    return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
