"""Real caption datasets (COCO and Flickr30k Karpathy splits, optionally with FG captions) as
the common tables ``images.parquet`` / ``captions.parquet`` of DESIGN §4.

A dataset entry of ``config: datasets:`` names its source and which files make it; the rules
turn it into `resources/` inputs (`dataset_files`) and the script into tables
(`build_caption_dataset`). Images are only named (their paths checked to exist), never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from vlcomp.data.fg_captions import substitute_fg
from vlcomp.data.karpathy import SPLITS, read_blip

# BLIP's Karpathy files and the folders their relative image paths live under, per collection
KARPATHY = {
    "coco": {
        "files": "karpathy/coco_karpathy_{split}.json",
        # val2014/… and train2014/… paths: the unpacked zips' parent folders
        "image_roots": ("coco/2014_val", "coco/2014_train"),
        "fg": "fg/MSCOCO_FG_ann.json",
    },
    "flickr30k": {
        "files": "karpathy/flickr30k_{split}.json",
        "image_roots": ("flickr30k",),  # flickr30k-images/… (manual download, checked)
        "fg": "fg/Flickr30K_FG_ann.json",
    },
}
MANUAL_CHECKS = {"flickr30k": "flickr30k/.vlcomp_checked"}
SOURCES = ("world", "karpathy")


def _collection(name: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    collection = spec.get("collection")
    if collection not in KARPATHY:
        raise ValueError(f"datasets.{name}.collection: {collection!r}, one of {sorted(KARPATHY)}")
    return KARPATHY[collection]


def dataset_splits(name: str, spec: Mapping[str, Any]) -> list[str]:
    splits = list(spec.get("splits", SPLITS))
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        raise ValueError(f"datasets.{name}.splits: unknown split(s) {unknown}; one of {SPLITS}")
    return splits


def dataset_files(name: str, spec: Mapping[str, Any]) -> dict[str, list[str]]:
    """Paths under ``resources/`` a dataset is built from: split files, image folders (or
    the check of a manual download) and the FG captions when asked."""
    if spec.get("source") != "karpathy":
        raise ValueError(f"datasets.{name}.source: {spec.get('source')!r}, one of {SOURCES}")
    coll = _collection(name, spec)
    splits = dataset_splits(name, spec)
    roots = list(coll["image_roots"])
    if spec["collection"] == "coco" and "train" not in splits:
        roots = roots[:1]  # val and test images are all in val2014
    folders = [MANUAL_CHECKS.get(r, r) for r in roots]
    files = {"splits": [coll["files"].format(split=s) for s in splits], "images": folders}
    if spec.get("fg"):
        files["fg"] = [coll["fg"]]
    return files


def image_roots(name: str, spec: Mapping[str, Any], resources: str | Path = "resources"
                ) -> list[Path]:
    """The folders a dataset's relative image paths are resolved against, in order."""
    folders = dataset_files(name, spec)["images"]
    return [Path(resources) / Path(f).parent if f.endswith(".vlcomp_checked")
            else Path(resources) / f for f in folders]


def resolve_paths(images: pd.DataFrame, roots: Sequence[Path], where: str) -> pd.DataFrame:
    """``images`` with each relative ``path`` replaced by the first root holding the file.
    A missing image is an error naming it and the folders searched."""
    resolved = []
    for image_id, rel in zip(images.image_id, images.path, strict=True):
        for root in roots:
            candidate = root / rel
            if candidate.is_file():
                resolved.append(str(candidate))
                break
        else:
            raise FileNotFoundError(
                f"{where}: image {image_id!r} ({rel}) is in none of "
                f"{[str(r) for r in roots]}; download or unpack the images again "
                "(config/README.md, 'datasets')")
    return images.assign(path=resolved)


def build_caption_dataset(
    name: str, spec: Mapping[str, Any], split_files: Sequence[str | Path],
    roots: Sequence[Path], fg_file: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Images and captions of a Karpathy dataset: one BLIP file per split (in
    `dataset_splits` order), paths resolved against ``roots``, test captions replaced by the
    FG captions position by position when ``fg_file`` is given (Hendriksen et al.)."""
    splits = dataset_splits(name, spec)
    if len(split_files) != len(splits):
        raise ValueError(f"datasets.{name}: {len(split_files)} split files for splits {splits}")
    images, captions = [], []
    for split, path in zip(splits, split_files, strict=True):
        imgs, caps = read_blip(path, "", split)
        images.append(resolve_paths(imgs, roots, f"datasets.{name} ({path})"))
        captions.append(caps)
    image_table = pd.concat(images, ignore_index=True)
    dup = image_table.image_id[image_table.image_id.duplicated()]
    if len(dup):
        raise ValueError(f"datasets.{name}: image {dup.iloc[0]!r} is in two splits")
    caption_table = pd.concat(captions, ignore_index=True)
    if fg_file is not None:
        test = caption_table.split == "test"
        caption_table.loc[test, "text"] = substitute_fg(caption_table[test], fg_file).text
    return image_table, caption_table
