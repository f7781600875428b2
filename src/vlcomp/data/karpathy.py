"""Karpathy splits of COCO and Flickr30k, in both released formats, as common tables.

* BLIP's JSONs (``coco_karpathy_{val,test}.json``, ``flickr30k_{val,test}.json``): a list of
  ``{"image": "val2014/COCO_val2014_….jpg", "caption": [five strings]}``; the train file has
  one entry per caption (``{"caption": str, "image": …, "image_id": …}``).
* Karpathy's ``dataset_coco.json`` / ``dataset_flickr30k.json``: ``{"images": [{"filepath"
  (COCO only), "filename", "split" (train|restval|val|test), "sentences": [{"raw", …}]}]}``;
  ``restval`` counts as train, as everyone trains on it.

Both give ``images`` (image_id, path, split) and ``captions`` (caption_id, image_id, text,
split), with ``image_id`` the file stem and ``caption_id`` ``{image_id}#{k}`` by position
within the image (FG captions replace captions by this position). Paths are only named.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

SPLITS = ("train", "val", "test")


def _load(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download the Karpathy split files "
                                "(config/README.md lists the URLs)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from err


def _tables(records: list[tuple[str, str, str, list[str]]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(image_id, path, split, captions) records → images and captions tables."""
    images = pd.DataFrame([(i, p, s) for i, p, s, _ in records],
                          columns=["image_id", "path", "split"])
    dup = images.image_id[images.image_id.duplicated()]
    if len(dup):
        raise ValueError(f"image {dup.iloc[0]!r} appears twice")
    captions = pd.DataFrame(
        [(f"{i}#{k}", i, text, s) for i, _, s, texts in records for k, text in enumerate(texts)],
        columns=["caption_id", "image_id", "text", "split"])
    return images, captions


def read_blip(path: str | Path, image_root: str | Path, split: str
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One BLIP-format split file (list per image, or per caption for train)."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {SPLITS}")
    path, root = Path(path), Path(image_root)
    entries = _load(path)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a non-empty JSON list")
    grouped: dict[str, list[str]] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or "image" not in entry or "caption" not in entry:
            raise ValueError(f"{path} entry {index}: needs 'image' and 'caption'")
        caps = entry["caption"]
        grouped.setdefault(entry["image"], []).extend([caps] if isinstance(caps, str) else caps)
    records = [(Path(image).stem, str(root / image), split, caps)
               for image, caps in grouped.items()]
    return _tables(records)


def read_karpathy(path: str | Path, image_root: str | Path
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Karpathy's ``dataset_*.json`` (all splits; restval → train)."""
    path, root = Path(path), Path(image_root)
    data = _load(path)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{path}: expected an object with an 'images' list")
    records = []
    for index, image in enumerate(data["images"]):
        where = f"{path} image {index}"
        missing = [k for k in ("filename", "split", "sentences") if k not in image]
        if missing:
            raise ValueError(f"{where}: missing field(s) {missing}")
        split = "train" if image["split"] == "restval" else image["split"]
        if split not in SPLITS:
            raise ValueError(f"{where}: unknown split {image['split']!r}")
        rel = Path(image.get("filepath", "")) / image["filename"]
        records.append((Path(image["filename"]).stem, str(root / rel), split,
                        [s["raw"] for s in image["sentences"]]))
    return _tables(records)


FOLD_CAPTIONS = 5  # VSE++ data.py: sentids[:5]


@dataclass(frozen=True)
class FoldOrder:
    """The reference order: test image ids (file stems, file order) and, per image, the raw
    text of its first ``per_image`` listed sentences (``sentids`` order)."""

    image_ids: tuple[str, ...]
    captions: tuple[tuple[str, ...], ...]
    source: str = ""


def _listed_sentences(image: dict[str, Any], where: str, per_image: int) -> tuple[str, ...]:
    """Raw text of the image's first ``per_image`` sentences in ``sentids`` order."""
    sentences = image.get("sentences")
    if not isinstance(sentences, list):
        raise ValueError(f"{where}: missing 'sentences'")
    by_id = {s.get("sentid"): s for s in sentences if isinstance(s, dict)}
    sentids = image.get("sentids", [s.get("sentid") for s in sentences])
    if len(sentids) < per_image:
        raise ValueError(f"{where}: {len(sentids)} sentences, fewer than {per_image}")
    absent = [sid for sid in sentids[:per_image] if sid not in by_id]
    if absent:
        raise ValueError(f"{where}: listed sentid(s) {absent} not among its sentences")
    missing_raw = [sid for sid in sentids[:per_image] if "raw" not in by_id[sid]]
    if missing_raw:
        raise ValueError(f"{where}: sentence(s) {missing_raw} have no 'raw' text")
    return tuple(str(by_id[sid]["raw"]) for sid in sentids[:per_image])


def karpathy_fold_order(path: str | Path, split: str = "test",
                        per_image: int = FOLD_CAPTIONS) -> FoldOrder:
    """The fold order of ``split`` in Karpathy's ``dataset_coco.json`` (or
    ``dataset_flickr30k.json``): its images in file order, each with its first ``per_image``
    sentences as VSE++ ``data.py`` selects them (``sentids[:per_image]``)."""
    path = Path(path)
    data = _load(path)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{path}: expected an object with an 'images' list")
    ids: list[str] = []
    captions: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for index, image in enumerate(data["images"]):
        if not isinstance(image, dict) or "filename" not in image or "split" not in image:
            raise ValueError(f"{path} image {index}: needs 'filename' and 'split'")
        if image["split"] != split:
            continue
        image_id = Path(image["filename"]).stem
        where = f"{path} image {index} ({image_id})"
        if image_id in seen:
            raise ValueError(f"{where}: image {image_id!r} appears twice in split {split!r}")
        seen.add(image_id)
        ids.append(image_id)
        captions.append(_listed_sentences(image, where, per_image))
    if not ids:
        raise ValueError(f"{path}: no images with split {split!r}")
    return FoldOrder(tuple(ids), tuple(captions), str(path))
