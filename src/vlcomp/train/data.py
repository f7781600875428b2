"""In-memory training data: image arrays, caption lists, hard negatives and neighbour images."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.io import open_rgb
from vlcomp.items import finest_index


@dataclass
class SplitData:
    """One split: images (N, H, W, 3) uint8 (or, unread, their paths) and, per image, its
    captions and their ids."""

    image_ids: list[str]
    images: np.ndarray
    captions: list[list[str]]
    caption_ids: list[list[str]]


def load_split(
    images: pd.DataFrame, captions: pd.DataFrame, split: str, drop_uncaptioned: bool = False,
    read_images: bool = True,
) -> SplitData:
    """Images of ``split`` in ``image_id`` order with their captions (file order kept).

    Images without captions are an error, or are left out with ``drop_uncaptioned`` (when
    captions were filtered, e.g. to some templates). With ``read_images=False`` the images
    are not opened: ``images`` holds their paths (for `vlcomp.train.image_bank.FileImages`).
    """
    imgs = images[images.split == split].sort_values("image_id")
    caps = captions[captions.split == split]
    if "caption_id" not in caps:
        caps = caps.assign(caption_id=[str(i) for i in range(len(caps))])
    groups = {k: g for k, g in caps.groupby("image_id", sort=False)}
    if drop_uncaptioned:
        imgs = imgs[imgs.image_id.isin(groups)]
    if imgs.empty:
        raise ValueError(f"no images in split {split!r}")
    missing = [i for i in imgs.image_id if i not in groups]
    if missing:
        raise ValueError(f"split {split!r}: images without captions, e.g. {missing[:3]}")
    ids = [str(i) for i in imgs.image_id]
    if read_images:
        pixels = load_images(imgs.path.tolist())
    else:
        pixels = np.asarray(imgs.path.astype(str).tolist(), dtype=object)
    return SplitData(
        image_ids=ids,
        images=pixels,
        captions=[[str(t) for t in groups[i].text] for i in ids],
        caption_ids=[[str(c) for c in groups[i].caption_id] for i in ids],
    )


def finest_captions(captions: list[list[str]]) -> list[list[str]]:
    """Each image's most detailed caption (`vlcomp.items.finest_index`) as a one-item list."""
    return [[caps[finest_index(caps)]] for caps in captions]


def negatives_by_caption(table: pd.DataFrame) -> dict[str, list[str]]:
    """``caption_id → negatives`` from a negatives file in either layout.

    NegCLIP files have one row per caption with a ``negatives`` list; SugarCrepe-style files
    are long (one row per caption and subset, column ``negative``).
    """
    if "negatives" in table:
        pairs = zip(table.caption_id, table.negatives, strict=True)
        return {str(c): [str(n) for n in negs] for c, negs in pairs}
    if "negative" in table:
        out: dict[str, list[str]] = {}
        for cid, neg in zip(table.caption_id, table.negative, strict=True):
            out.setdefault(str(cid), []).append(str(neg))
        return out
    raise ValueError(f"negatives table needs a 'negatives' or 'negative' column, has {list(table)}")


def align_negatives(
    caption_ids: Sequence[Sequence[str]], negatives: Mapping[str, Sequence[str]]
) -> list[list[list[str]]]:
    """Per image, per caption, its negatives (an empty list where it has none)."""
    return [[list(negatives.get(cid, [])) for cid in ids] for ids in caption_ids]


def neighbour_indices(
    image_ids: Sequence[str], pairs: pd.DataFrame
) -> list[list[int]]:
    """Per training image, the row indices of its neighbour images that are in training.

    ``pairs`` is a pairs file (``image_id``, ``neighbour_ids``); neighbours outside
    ``image_ids`` (e.g. images dropped for lack of captions) are left out, so a list can be
    empty. Every training image must appear in ``pairs``.
    """
    row = {image_id: k for k, image_id in enumerate(image_ids)}
    table = {str(i): list(n) for i, n in zip(pairs.image_id, pairs.neighbour_ids, strict=True)}
    missing = [i for i in image_ids if i not in table]
    if missing:
        raise ValueError(f"pairs file lacks {len(missing)} training images, e.g. {missing[:3]}")
    return [[row[n] for n in table[i] if n in row and n != i] for i in image_ids]


def load_images(paths: Sequence[str]) -> np.ndarray:
    """(N, H, W, 3) uint8 array of the images at ``paths`` (all of one size)."""
    arrays = []
    for path in paths:
        arrays.append(np.asarray(open_rgb(path), dtype=np.uint8))
    if not arrays:
        return np.zeros((0, 1, 1, 3), dtype=np.uint8)
    return np.stack(arrays)


@dataclass
class GeneratedNegatives:
    """TROHN-Img's hard negatives aligned with a split: per image, per caption, the negative
    captions and the rows of their generated images in ``images``."""

    captions: list[list[list[str]]]
    image_rows: list[list[list[int]]]
    images: np.ndarray


def generated_negatives(
    instances: pd.DataFrame, caption_ids: Sequence[Sequence[str]], read_images: bool = True
) -> GeneratedNegatives:
    """Align instances (``caption_id, negative, negative_path``) with a split's captions;
    ``read_images=False`` keeps the generated images' paths instead of their pixels."""
    missing = {"caption_id", "negative", "negative_path"} - set(instances)
    if missing:
        raise ValueError(f"instances table lacks column(s) {sorted(missing)}")
    paths = sorted(set(instances.negative_path))
    row_of = {p: i for i, p in enumerate(paths)}
    by_caption: dict[str, list[tuple[str, int]]] = {}
    for cid, neg, path in zip(instances.caption_id, instances.negative, instances.negative_path,
                              strict=True):
        by_caption.setdefault(str(cid), []).append((str(neg), row_of[path]))
    return GeneratedNegatives(
        captions=[[[n for n, _ in by_caption.get(c, [])] for c in ids] for ids in caption_ids],
        image_rows=[[[r for _, r in by_caption.get(c, [])] for c in ids] for ids in caption_ids],
        images=load_images(paths) if read_images else np.asarray(paths, dtype=object),
    )


def instance_split(
    split: SplitData, instances: pd.DataFrame, read_images: bool = True
) -> tuple[SplitData, GeneratedNegatives]:
    """One training row per TROHN-Img instance, as BiVLC iterates its dataset.

    Each instance (a caption of a split image with its negative caption and generated image)
    becomes a row holding that image and that caption only, so an epoch is one pass over the
    instances. Instances whose caption is not in ``split`` are left out.
    """
    where = {cid: (k, j) for k, ids in enumerate(split.caption_ids) for j, cid in enumerate(ids)}
    inst = instances[instances.caption_id.astype(str).isin(where)].reset_index(drop=True)
    if inst.empty:
        raise ValueError("no instance belongs to a caption of the training split")
    rows = [where[str(c)] for c in inst.caption_id]
    data = SplitData(
        image_ids=[split.image_ids[k] for k, _ in rows],
        images=split.images[[k for k, _ in rows]],
        captions=[[split.captions[k][j]] for k, j in rows],
        caption_ids=[[split.caption_ids[k][j]] for k, j in rows],
    )
    # each row's single caption is its own instance (caption ids repeat across rows)
    keyed = inst.assign(caption_id=[f"{i}" for i in range(len(inst))])
    negatives = generated_negatives(keyed, [[str(i)] for i in range(len(inst))], read_images)
    return data, negatives


def instance_rows(
    instances: pd.DataFrame, read_images: bool = True
) -> tuple[SplitData, dict[str, Any]]:
    """One training row per instance (``image_id, path, caption`` [``, negative``
    [``, negative_path``]]), as BiVLC iterates its datasets: an epoch is one pass over the
    rows (BiVLC's released TROHN rows, or CLIP_COCO's caption rows).

    Returns the rows and the trainer's hard-negative arguments: ``negatives`` (per row, its
    one negative caption) and, with ``negative_path``, ``negative_images`` /
    ``generated_images``.
    """
    missing = {"image_id", "path", "caption"} - set(instances)
    if missing:
        raise ValueError(f"instances table lacks column(s) {sorted(missing)}")
    if instances.empty:
        raise ValueError("no training instances")
    paths = instances.path.astype(str).tolist()
    ids = (instances.caption_id.astype(str).tolist() if "caption_id" in instances
           else [str(i) for i in range(len(instances))])
    data = SplitData(
        image_ids=instances.image_id.astype(str).tolist(),
        images=load_images(paths) if read_images else np.asarray(paths, dtype=object),
        captions=[[str(c)] for c in instances.caption],
        caption_ids=[[c] for c in ids],
    )
    hard: dict[str, Any] = {}
    if "negative" in instances:
        hard["negatives"] = [[[str(n)]] for n in instances.negative]
    if "negative_path" in instances:
        keys = [str(i) for i in range(len(instances))]
        generated = generated_negatives(instances.assign(caption_id=keys), [[k] for k in keys],
                                        read_images)
        hard.update(negatives=generated.captions, negative_images=generated.image_rows,
                    generated_images=generated.images)
    return data, hard

