"""ARO's VG-Relation and VG-Attribution JSONs (``dataset_zoo/aro_datasets.py``) as items.

Each file is a list of dicts with ``image_path`` (a file name under ``images/``),
``bbox_x/y/w/h``, ``true_caption``, ``false_caption``, and ``relation_name`` (VG-R) or
``attributes`` (VG-A, grouped as ``f"{a[0]}_{a[1]}"``). The reference crops the box, then
offers ``[false_caption, true_caption]``: the true caption is at index 1, kept here
(``label`` 1). Crops are not cut here: the image table carries each item's box, and the
embedder crops while it reads (images are opened lazily, one batch at a time).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from vlcomp.items import make_items

KINDS = {"vg_relation": "visual_genome_relation.json",
         "vg_attribution": "visual_genome_attribution.json"}
BOX = ("bbox_x", "bbox_y", "bbox_w", "bbox_h")


def _subset(kind: str, entry: dict, where: str) -> str:
    if kind == "vg_relation":
        if not isinstance(entry.get("relation_name"), str):
            raise ValueError(f"{where}: VG-Relation entries need a 'relation_name'")
        return entry["relation_name"]
    attributes = entry.get("attributes")
    if not isinstance(attributes, list) or len(attributes) < 2:
        raise ValueError(f"{where}: VG-Attribution entries need two 'attributes'")
    return f"{attributes[0]}_{attributes[1]}"


def aro_vg_items(path: str | Path, image_root: str | Path, kind: str
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items (``i2t``, texts ``[false, true]``, label 1, strict ties) and the crop table
    (``image_id, path, bbox`` with bbox ``[x, y, w, h]`` in pixels, as in the JSON; the
    embedder crops ``(x, y, x + w, y + h)`` as the reference does, PIL rounding the corners)."""
    if kind not in KINDS:
        raise ValueError(f"unknown ARO VG benchmark {kind!r}; known: {sorted(KINDS)}")
    path, root = Path(path), Path(image_root)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download {KINDS[kind]} (ARO, Google Drive; "
                                "see ../shared/reference or config/README.md)")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from err
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a non-empty JSON list")
    rows, crops = [], {}
    for index, entry in enumerate(entries):
        where = f"{path.name} entry {index}"
        missing = [k for k in ("image_path", "true_caption", "false_caption", *BOX)
                   if k not in entry]
        if missing:
            raise ValueError(f"{where}: missing field(s) {missing}")
        box = [float(entry[k]) for k in BOX]
        if box[2] <= 0 or box[3] <= 0:
            raise ValueError(f"{where}: empty box {box}")
        image = Path(entry["image_path"]).stem
        crop_id = "_".join([image, *(f"{v:g}" for v in box)])
        crops[crop_id] = (str(root / entry["image_path"]), box)
        rows.append({
            "item_id": f"{kind}-{index:05d}", "subset": _subset(kind, entry, where),
            "image_ids": [crop_id], "texts": [entry["false_caption"], entry["true_caption"]],
            "protocol": "i2t", "label": 1, "tie_policy": "strict",
        })
    table = pd.DataFrame({"image_id": list(crops), "path": [p for p, _ in crops.values()],
                          "bbox": [b for _, b in crops.values()]})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)
