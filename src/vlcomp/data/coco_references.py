"""COCO reference captions keyed as BISON names them, for caption-score baselines (BISON §6).

BISON items (`vlcomp.data.bison.bison_items`) name images by file stem
(``COCO_val2014_000000391895``) and the query by its COCO annotation ``id`` (``caption_id``);
this table keys a COCO ``captions_*.json`` the same way: ``image_id`` (file stem of
``images[].file_name``), ``caption_id`` (``annotations[].id``, int), ``text`` (the raw caption;
the scorers tokenise it). Rows are sorted by image and caption id. COCO val2014 images have
5 to 7 captions each; all are kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def coco_references(path: str | Path) -> pd.DataFrame:
    """``image_id, caption_id, text`` for every caption of a COCO captions file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download COCO captions "
                                "(annotations_trainval2014.zip)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        stems = {int(im["id"]): Path(str(im["file_name"])).stem for im in data["images"]}
        rows = [(int(a["image_id"]), int(a["id"]), str(a["caption"]))
                for a in data["annotations"]]
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a COCO captions file ({err!r})") from err
    unknown = [image for image, _, _ in rows if image not in stems]
    if unknown:
        raise ValueError(f"{path}: caption of unknown image id {unknown[0]}")
    table = pd.DataFrame([(stems[i], c, t) for i, c, t in rows],
                         columns=["image_id", "caption_id", "text"])
    return table.sort_values(["image_id", "caption_id"], ignore_index=True)
