"""SugarCrepe's released JSONs (``RAIVNLab/sugar-crepe`` ``data/*.json``) as benchmark items.

Each file is a dict keyed by string indices with ``filename`` (a COCO val2017 file name),
``caption`` and ``negative_caption``. Keys are not contiguous: PR #6 removed ``swap_obj``
key ``"108"`` (7,511 items in all; 7,512 before, the version BiVLC and the GPT-4V results
use), so items are read by key, never by position, and the version is recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from vlcomp.items import make_items

SUBSETS = ("replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att", "add_obj",
           "add_att")
# Items per subset in the current release (data/ at 0047054); swap_obj had 246 before PR #6.
COUNTS = {"add_obj": 2062, "add_att": 692, "replace_obj": 1652, "replace_att": 788,
          "replace_rel": 1406, "swap_obj": 245, "swap_att": 666}
REMOVED_KEY = ("swap_obj", "108")
FIELDS = ("filename", "caption", "negative_caption")


def read_subset(path: str | Path) -> dict[str, Mapping[str, str]]:
    """One subset file, checked: a dict of entries with the three fields as strings."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable SugarCrepe JSON file ({err})") from err
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON object keyed by item index")
    for key, entry in data.items():
        missing = [f for f in FIELDS if not isinstance(entry, dict) or
                   not isinstance(entry.get(f), str)]
        if missing:
            raise ValueError(f"{path}: item {key!r} lacks string field(s) {missing}")
    return data


def release_version(swap_obj: Mapping[str, object]) -> str:
    """``"7511"`` for the current release, ``"7512"`` for the one before PR #6."""
    return "7512" if REMOVED_KEY[1] in swap_obj else "7511"


def sugarcrepe_items(
    folder: str | Path, image_root: str | Path, subsets: tuple[str, ...] = SUBSETS
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Items (choice schema, ``i2t``, positive first, strict ties), the image table
    (``image_id, path``; files are only named here, opened lazily by the embedder) and the
    release version.

    ``item_id`` is ``{subset}-{key}``: the JSON key, so ids stay stable across versions.
    ``image_id`` is the file name without extension (``000000289393``).
    """
    folder, image_root = Path(folder), Path(image_root)
    rows, images, version = [], {}, None
    for subset in subsets:
        if subset not in SUBSETS:
            raise ValueError(f"unknown SugarCrepe subset {subset!r}; known: {SUBSETS}")
        path = folder / f"{subset}.json"
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} is missing: download SugarCrepe's data/{subset}.json "
                "(https://github.com/RAIVNLab/sugar-crepe) into this folder")
        data = read_subset(path)
        if subset == "swap_obj":
            version = release_version(data)
        kind, sub = subset.split("_")
        for key, entry in data.items():
            image_id = Path(entry["filename"]).stem
            images[image_id] = str(image_root / entry["filename"])
            rows.append({
                "item_id": f"{subset}-{key}", "subset": subset, "image_ids": [image_id],
                "texts": [entry["caption"], entry["negative_caption"]], "protocol": "i2t",
                "label": 0, "tie_policy": "strict", "type": kind, "subtype": sub,
            })
    table = pd.DataFrame({"image_id": list(images), "path": list(images.values())})
    return make_items(rows), table.sort_values("image_id", ignore_index=True), version or "n/a"
