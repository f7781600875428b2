"""COCO's own caption files (``captions_{train,val}2017.json``) as common tables.

BiVLC builds TROHN-Text / TROHN-Img from the COCO 2017 train captions, stripped and with
newlines replaced by spaces. ``image_id`` is the file stem (``000000391895``), ``caption_id``
``{image_id}#{k}`` with k the caption's rank by annotation id within its image;
``annotation_index`` is the caption's position in the file (BiVLC's CLIP_COCO splits the rows
in that order: `vlcomp.train.caption_split.bivlc_caption_split`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def clean_caption(text: str) -> str:
    """BiVLC's cleaning of COCO captions: newlines to spaces, surrounding space stripped."""
    return text.replace("\n", " ").strip()


def read_coco_captions(path: str | Path, image_root: str | Path, split: str
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Images (``image_id, path, split``) and captions of one COCO captions file."""
    path, root = Path(path), Path(image_root)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download COCO's annotations zip "
                                "(config/README.md, 'datasets')")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = {int(im["id"]): str(im["file_name"]) for im in data["images"]}
        annotations = sorted((int(a["image_id"]), int(a["id"]), str(a["caption"]), k)
                             for k, a in enumerate(data["annotations"]))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a COCO captions file ({err!r})") from err
    rows, rank = [], {}
    for coco_id, _, text, position in annotations:
        if coco_id not in files:
            raise ValueError(f"{path}: caption of unknown image id {coco_id}")
        stem = Path(files[coco_id]).stem
        k = rank[stem] = rank.get(stem, -1) + 1
        rows.append((f"{stem}#{k}", stem, clean_caption(text), split, position))
    images = pd.DataFrame(
        [(Path(f).stem, str(root / f), split) for _, f in sorted(files.items())],
        columns=["image_id", "path", "split"])
    captions = pd.DataFrame(rows, columns=["caption_id", "image_id", "text", "split",
                                           "annotation_index"])
    return images.sort_values("image_id", ignore_index=True), captions
