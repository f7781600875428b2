"""BiVLC from the Hugging Face hub (``imirandam/BiVLC``, split ``test``) as pair items.

Rows have ``image`` (COCO val2017), ``caption``, ``negative_caption``, ``negative_image``
(512 × 512 JPEG, SDXL-DPO), ``type`` (replace|swap|add) and ``subtype`` (obj|att|rel):
2,933 rows, 11,732 retrieval instances. The rows name no COCO file, and one COCO image
serves several rows, so an image's id is a hash of its encoded bytes: each distinct image
is written once (bytes as released, not re-encoded) and embedded once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from vlcomp.io import atomic_path
from vlcomp.items import make_items
from vlcomp.pins import BIVLC_HUB

HUB_ID = BIVLC_HUB
SPLIT = "test"
ROWS = 2933
FIELDS = ("image", "caption", "negative_caption", "negative_image", "type", "subtype")
TYPES = {"replace": ("obj", "att", "rel"), "swap": ("obj", "att"), "add": ("obj", "att")}


def load_hub_dataset(revision: str | None = None, cache_dir: str | None = None):
    """The hub dataset (its fetched snapshot, `vlcomp.models.hub`) with images left encoded
    (bytes), so nothing is decoded up front."""
    import datasets

    from vlcomp.models.hub import pretrained_source

    source, revision = pretrained_source(HUB_ID, revision, kind="dataset")
    ds = datasets.load_dataset(source, split=SPLIT, revision=revision, cache_dir=cache_dir)
    return undecoded(ds)


def undecoded(ds):
    """A ``datasets.Dataset`` whose two image columns yield ``{"bytes", "path"}`` dicts."""
    import datasets

    for column in ("image", "negative_image"):
        ds = ds.cast_column(column, datasets.Image(decode=False))
    return ds


def _image_bytes(value: Mapping[str, Any], where: str) -> bytes:
    data = value.get("bytes") if isinstance(value, Mapping) else None
    if data is None and isinstance(value, Mapping) and value.get("path"):
        data = Path(value["path"]).read_bytes()
    if not data:
        raise ValueError(f"{where}: no image bytes")
    return data


def _write_image(data: bytes, folder: Path, written: dict[str, str]) -> str:
    image_id = hashlib.sha1(data).hexdigest()[:16]
    if image_id not in written:
        path = folder / f"{image_id}.jpg"
        if not path.exists():
            with atomic_path(path) as tmp:
                tmp.write_bytes(data)
        written[image_id] = str(path)
    return image_id


def bivlc_items(
    rows: Iterable[Mapping[str, Any]], image_dir: str | Path, expected_rows: int | None = ROWS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair items (choice schema, strict ties; captions as released, already formatted) and
    the image table (``image_id, path``), writing each distinct image once to ``image_dir``.

    ``rows`` are the dataset's rows with undecoded images (`undecoded`). ``expected_rows``
    (2,933) guards against a partial download; None skips the check.
    """
    folder = Path(image_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    items = []
    for index, row in enumerate(tqdm(rows, desc="BiVLC rows", mininterval=5)):
        where = f"BiVLC row {index}"
        missing = [f for f in FIELDS if f not in row]
        if missing:
            raise ValueError(f"{where}: missing field(s) {missing}")
        kind, sub = row["type"], row["subtype"]
        if sub not in TYPES.get(kind, ()):
            raise ValueError(f"{where}: unknown category {kind!r}/{sub!r}")
        positive = _write_image(_image_bytes(row["image"], where), folder, written)
        negative = _write_image(_image_bytes(row["negative_image"], where), folder, written)
        items.append({
            "item_id": f"bivlc-{index:04d}", "subset": f"{kind}_{sub}",
            "image_ids": [positive, negative],
            "texts": [row["caption"], row["negative_caption"]], "protocol": "pair",
            "label": 0, "tie_policy": "strict", "type": kind, "subtype": sub,
        })
    if expected_rows is not None and len(items) != expected_rows:
        raise ValueError(f"BiVLC has {len(items)} rows, expected {expected_rows}: the download "
                         "is partial or another split; delete the cache and download again")
    images = pd.DataFrame({"image_id": list(written), "path": list(written.values())})
    return make_items(items), images.sort_values("image_id", ignore_index=True)
