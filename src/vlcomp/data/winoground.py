"""Winoground (Thrush et al., 2022) as pair items: 2 images x 2 captions, Winoground's text,
image and group scores (BiVLC's rules, strict ``>``).

``examples.jsonl`` (the hub dataset's fields, and t2v_metrics' zip): one object per line with
``id, image_0, image_1, caption_0, caption_1, collapsed_tag, ...``; image ``k`` goes with
caption ``k``. Images are ``{image_k}.png`` (or ``.jpg``), named, not opened.

The archive's layout is not documented, so `find_release` accepts the plausible ones: the
first ``examples.jsonl`` by depth anywhere in the unpacked folder, and each image wherever it
lies below that folder (``images/`` beside ``examples.jsonl``, the folder itself, or any
subfolder), as long as every image is found exactly once; otherwise the error lists the
folders looked at.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from vlcomp.items import make_items

ITEMS = 400
FIELDS = ("id", "image_0", "image_1", "caption_0", "caption_1")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def find_release(root: str | Path) -> tuple[Path, dict[str, Path]]:
    """The unpacked release's ``examples.jsonl`` (the shallowest one) and every image under
    ``root`` by file stem (an ``images/`` folder wins over other copies of a stem)."""
    root = Path(root)
    found = sorted(root.rglob("examples.jsonl"), key=lambda p: (len(p.parts), str(p)))
    if not found:
        raise FileNotFoundError(f"{root}: no examples.jsonl below it (Winoground is gated; "
                                "config/README.md says how to get it)")
    images: dict[str, list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file():
            images.setdefault(path.stem, []).append(path)
    chosen = {}
    for stem, paths in images.items():
        preferred = [p for p in paths if p.parent.name == "images"] or paths
        if len(preferred) > 1:
            raise ValueError(f"{root}: image {stem!r} is there {len(preferred)} times "
                             f"({', '.join(map(str, preferred[:3]))}); keep one")
        chosen[stem] = preferred[0]
    return found[0], chosen


def winoground_items(
    examples: str | Path, images_at: str | Path | Mapping[str, Path],
    expected_items: int | None = ITEMS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair items (``image_ids`` and ``texts`` index-aligned, label 0 as for BiVLC; subset =
    ``collapsed_tag``: Object, Relation or Both) and the image table. ``images_at``: the
    image folder (``{id}.png`` in it), or each image's path by id (`find_release`); an image
    missing from the latter is an error naming it and the folders looked at."""
    path = Path(examples)
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
            images[image_id] = _image_path(images_at, image_id, where)
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
    table = table.astype({"path": str})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)


def _image_path(images_at: str | Path | Mapping[str, Path], image_id: str, where: str) -> str:
    if not isinstance(images_at, Mapping):
        return str(Path(images_at) / f"{image_id}.png")
    if image_id in images_at:
        return str(images_at[image_id])
    folders = sorted({str(p.parent) for p in images_at.values()})
    raise FileNotFoundError(
        f"{where}: image {image_id!r} ({'|'.join(IMAGE_SUFFIXES)}) not found; looked in "
        f"{folders[:10] or 'no folder with images'}"
        f"{' and more' if len(folders) > 10 else ''}. If the images are still zipped "
        "(the hub's data/images.zip), unpack them beside examples.jsonl")
