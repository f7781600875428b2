"""A generated set's candidates in shards: each shard job generates its block of the captions
(whole generation chunks, so a backend sees the batches one job would give it), and a gather
links the shards' images into the set's folder and joins their manifests into the one an
unsharded job writes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from vlcomp.generate.candidates import GENERATION_CHUNK, MANIFEST_COLUMNS
from vlcomp.io import read_parquet
from vlcomp.shards import shard_block


def shard_items(items: pd.DataFrame, shard: str) -> pd.DataFrame:
    """One shard's block of the captions to generate for, on whole generation chunks."""
    return items.iloc[shard_block(len(items), shard, GENERATION_CHUNK)]


def link_or_copy(source: Path, target: Path) -> None:
    """A hard link of ``source`` at ``target`` (no second copy of an image on the same file
    system), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def gather_candidates(manifests: Sequence[str | Path], out_dir: str | Path) -> pd.DataFrame:
    """Join shard manifests (in shard order) and put their images in ``out_dir``; returns
    the joined manifest with paths under ``out_dir``. Raises naming the manifest when an
    image is missing or two shards made the same one."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    parts = []
    for manifest in manifests:
        part = read_parquet(manifest)
        missing = set(MANIFEST_COLUMNS) - set(part.columns)
        if missing:
            raise ValueError(f"{manifest}: no columns {sorted(missing)}")
        targets = []
        for source in part.path:
            source = Path(source)
            target = out_dir / source.name
            if not source.is_file():
                raise FileNotFoundError(f"{manifest}: image {source} is missing")
            if target.exists():
                raise ValueError(f"{manifest}: {source.name} was made by an earlier shard too")
            link_or_copy(source, target)
            targets.append(str(target))
        parts.append(part.assign(path=targets))
    if not parts:
        raise ValueError("no shard manifests given")
    return pd.concat(parts, ignore_index=True)[MANIFEST_COLUMNS]
