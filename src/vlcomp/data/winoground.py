"""Winoground (Thrush et al., 2022) as pair items: 2 images x 2 captions, Winoground's text,
image and group scores (BiVLC's rules, strict ``>``).

``examples.jsonl`` (the hub dataset's fields, and t2v_metrics' zip): one object per line with
``id, image_0, image_1, caption_0, caption_1, collapsed_tag, ...``; image ``k`` goes with
caption ``k``. Images are ``{image_k}.png`` under the images folder, named, not opened.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from vlcomp.benchmarks.schema import make_items

ITEMS = 400
FIELDS = ("id", "image_0", "image_1", "caption_0", "caption_1")


def winoground_items(
    examples: str | Path, image_dir: str | Path, expected_items: int | None = ITEMS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair items (``image_ids`` and ``texts`` index-aligned, label 0 as for BiVLC; subset =
    ``collapsed_tag``: Object, Relation or Both) and the image table."""
    path, folder = Path(examples), Path(image_dir)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: Winoground is gated (config/README.md)")
    rows, images = [], {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{where}: not JSON ({err})") from err
        missing = [f for f in FIELDS if f not in entry]
        if missing:
            raise ValueError(f"{where}: missing field(s) {missing}")
        ids = [str(entry["image_0"]), str(entry["image_1"])]
        for image_id in ids:
            images[image_id] = str(folder / f"{image_id}.png")
        rows.append({
            "item_id": f"winoground-{int(entry['id']):03d}",
            "subset": str(entry.get("collapsed_tag", "all")), "image_ids": ids,
            "texts": [str(entry["caption_0"]), str(entry["caption_1"])], "protocol": "pair",
            "label": 0, "tie_policy": "strict",
        })
    if not rows:
        raise ValueError(f"{path}: no items")
    if expected_items is not None and len(rows) != expected_items:
        raise ValueError(f"{path}: {len(rows)} items, expected {expected_items}")
    table = pd.DataFrame({"image_id": list(images), "path": list(images.values())})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)
