"""BISON's annotations (``bison_annotations.cocoval2014.json``) joined with COCO captions.

``{"info": {...}, "data": [{"bison_id", "caption_id", "true_image_id", "image_candidates":
[{"image_id", "image_filename"}, {...}]}]}``; the caption text is COCO
``captions_val2014.json``'s annotation with ``id == caption_id``. Items are ``t2i``: one
caption, the two candidates in file order, ``label`` the true one's index. The true image is
candidate 0 in 49.96 % of the 54,253 items, so "always the first" is a chance baseline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from vlcomp.items import make_items

ITEMS = 54253


def _load(path: Path, what: str):
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download {what} (config/README.md)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from err


def coco_caption_texts(path: str | Path) -> dict[int, str]:
    """``caption id → text`` from a COCO ``captions_*.json``."""
    data = _load(Path(path), "COCO captions (annotations_trainval2014.zip)")
    try:
        return {int(a["id"]): str(a["caption"]) for a in data["annotations"]}
    except (KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a COCO captions file ({err!r})") from err


def bison_items(
    annotations: str | Path, captions: str | Path, image_root: str | Path,
    expected_items: int | None = ITEMS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items (``t2i``, strict ties) and the image table (``image_id`` = COCO file stem)."""
    path, root = Path(annotations), Path(image_root)
    data = _load(path, "BISON's annotations")
    texts = coco_caption_texts(captions)
    rows, images = [], {}
    for index, entry in enumerate(data.get("data", []) if isinstance(data, dict) else []):
        where = f"{path.name} item {index}"
        try:
            candidates = entry["image_candidates"]
            ids = [int(c["image_id"]) for c in candidates]
            files = [str(c["image_filename"]) for c in candidates]
            true_id, caption_id = int(entry["true_image_id"]), int(entry["caption_id"])
            bison_id = int(entry["bison_id"])
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{where}: malformed entry ({err!r})") from err
        if len(ids) != 2 or true_id not in ids:
            raise ValueError(f"{where}: needs two candidates including the true image")
        if caption_id not in texts:
            raise ValueError(f"{where}: caption_id {caption_id} is not in {captions}")
        stems = [Path(f).stem for f in files]
        for stem, name in zip(stems, files, strict=True):
            images[stem] = str(root / name)
        rows.append({
            "item_id": f"bison-{bison_id}", "subset": "bison", "image_ids": stems,
            "texts": [texts[caption_id]], "protocol": "t2i", "label": ids.index(true_id),
            "tie_policy": "strict", "caption_id": caption_id,
        })
    if not rows:
        raise ValueError(f"{path}: no items under 'data'")
    if expected_items is not None and len(rows) != expected_items:
        raise ValueError(f"{path}: {len(rows)} items, expected {expected_items}; another "
                         "version of the file?")
    table = pd.DataFrame({"image_id": list(images), "path": list(images.values())})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)
