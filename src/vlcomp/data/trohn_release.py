"""BiVLC's released training data: ``imirandam/TROHN-Text`` and ``imirandam/TROHN-Img``.

TROHN-Text rows are ``image_id, caption, negative_caption`` (train 2,922,276 / validation
730,570); TROHN-Img rows add ``negative_image`` (a 512 × 512 JPEG; ≈237k / 59.2k). Both were
built from COCO 2017 train captions; ``image_id`` names the COCO image (BiVLC's loader joins it
to the image folder, so a file name; a numeric id is accepted too). BiVLC's epoch is one pass
over these rows, so `release_instances` keeps one instance row per released row, matched to
the caption dataset's image (and, where the text agrees, to its caption id).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from vlcomp.data.bivlc import _image_bytes, _write_image
from vlcomp.data.negclip_release import normalise
from vlcomp.pins import TROHN_HUB
from vlcomp.release_sizes import TROHN_ROWS

HUB_IDS = TROHN_HUB
SPLITS = {"train": "train", "val": "validation"}  # vlcomp's name -> the release's split
# rows of the published revisions (a partial download is an error); TROHN-Img's are rounded
ROWS = TROHN_ROWS
_DIGITS = re.compile(r"\d+")


def load_release(name: str, split: str, revision: str | None = None,
                 cache_dir: str | None = None, hub_path: str | None = None):
    """One split of a TROHN dataset via ``datasets.load_dataset`` (the hub id's fetched
    snapshot, `vlcomp.models.hub`, or ``hub_path``: a local folder in the hub's layout),
    negative images left encoded."""
    import datasets

    from vlcomp.models.hub import pretrained_source

    source, revision = (hub_path, None) if hub_path else \
        pretrained_source(HUB_IDS[name], revision, kind="dataset")
    ds = datasets.load_dataset(source, split=split, revision=revision, cache_dir=cache_dir)
    if "negative_image" in ds.features:
        ds = ds.cast_column("negative_image", datasets.Image(decode=False))
    expected = ROWS.get(name, {}).get(split)
    if hub_path is None and expected is not None and len(ds) != expected:
        raise ValueError(f"{HUB_IDS[name]} {split}: {len(ds)} rows, expected {expected}: the "
                         "download is partial or another revision; delete the cache")
    return ds


def coco_image_id(value: Any) -> str:
    """A COCO image's vlcomp id (the 12-digit file stem) from a file name or a numeric id."""
    text = Path(str(value).strip()).stem
    digits = _DIGITS.findall(text)
    if isinstance(value, int) or (digits and text == digits[-1]):
        return f"{int(value if isinstance(value, int) else text):012d}"
    return text


@dataclass(frozen=True)
class ReleaseRows:
    """Instance rows of one released split and the rows whose image the dataset lacks."""

    instances: pd.DataFrame
    missing: pd.DataFrame  # row, image_id


def release_instances(rows: Iterable[Mapping[str, Any]], images: pd.DataFrame,
                      captions: pd.DataFrame, where: str, max_missing: float = 0.01,
                      image_dir: str | Path | None = None) -> ReleaseRows:
    """One row per released row: ``row`` (its position), ``image_id``, ``path`` (the natural
    image), ``caption_id`` (the dataset caption of that image with the same text, else
    None), ``caption`` and ``negative`` as released; with ``image_dir`` (TROHN-Img) also
    ``negative_image_id`` and ``negative_path``, each distinct image written there once.

    Rows whose image is not in ``images`` are left out; more than ``max_missing`` of them is
    an error naming ``where`` and a few.
    """
    path_of = dict(zip(images.image_id.astype(str), images.path.astype(str), strict=True))
    caption_of: dict[tuple[str, str], str] = {}
    for cid, image_id, text in zip(captions.caption_id, captions.image_id, captions.text,
                                   strict=True):
        caption_of.setdefault((str(image_id), normalise(str(text))), str(cid))
    folder = Path(image_dir) if image_dir is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    kept, missing = [], []
    for index, row in enumerate(tqdm(rows, desc=where, mininterval=10)):
        image_id = coco_image_id(row["image_id"])
        if image_id not in path_of:
            missing.append((index, image_id))
            continue
        caption, negative = str(row["caption"]), str(row["negative_caption"])
        out = {"row": index, "image_id": image_id, "path": path_of[image_id],
               "caption_id": caption_of.get((image_id, normalise(caption))),
               "caption": caption, "negative": negative}
        if folder is not None:
            data = _image_bytes(row["negative_image"], f"{where} row {index}")
            out["negative_image_id"] = _write_image(data, folder, written)
            out["negative_path"] = written[out["negative_image_id"]]
        kept.append(out)
    total = len(kept) + len(missing)
    lost = pd.DataFrame(missing, columns=["row", "image_id"])
    if total == 0:
        raise ValueError(f"{where}: no rows")
    if len(missing) > max_missing * total:
        examples = ", ".join(f"row {r} (image {i})" for r, i in missing[:3])
        raise ValueError(f"{where}: {len(missing)} of {total} released rows name an image the "
                         f"caption dataset lacks (more than {max_missing:.1%}), e.g. {examples}")
    return ReleaseRows(pd.DataFrame(kept), lost)
