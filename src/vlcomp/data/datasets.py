"""Real caption datasets (COCO and Flickr30k Karpathy splits, optionally with FG captions;
COCO 2017 with COCO's caption files) as the common tables ``images.parquet`` /
``captions.parquet`` of DESIGN §4.

A dataset entry of ``config: datasets:`` names its source and which files make it; the rules
turn it into `resources/` inputs (`dataset_files`) and the script into tables
(`build_caption_dataset`). Images are only named (their paths checked to exist), never read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

import pandas as pd

from vlcomp.data.coco_captions import read_coco_captions
from vlcomp.data.fg_captions import substitute_fg
from vlcomp.data.karpathy import SPLITS, read_blip, read_karpathy

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
# COCO 2017 with COCO's own caption files (BiVLC's CLIP_COCO / TROHN training data)
COCO_CAPTIONS = {
    "coco2017": {
        "files": "coco/annotations2017",  # annotations/captions_{split}2017.json inside
        "caption_file": "annotations/captions_{split}2017.json",
        "image_roots": {"train": "coco/2017_train/train2017", "val": "coco/2017_val/val2017"},
    },
}
# Karpathy's own files: one JSON per collection with every split (restval counts as train)
KARPATHY_JSON = {"folder": "karpathy/caption_datasets", "file": "dataset_{collection}.json",
                 # dataset_flickr30k.json names files without their folder
                 "image_subfolder": {"flickr30k": "flickr30k-images"}}
MANUAL_CHECKS = {"flickr30k": "flickr30k/.vlcomp_checked"}
SOURCES = ("world", "karpathy", "coco_captions", "karpathy_json")


def _collection(name: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    known = COCO_CAPTIONS if spec.get("source") == "coco_captions" else KARPATHY
    collection = spec.get("collection")
    if collection not in known:
        raise ValueError(f"datasets.{name}.collection: {collection!r} for source "
                         f"{spec.get('source')!r}, one of {sorted(known)}")
    return known[collection]


def dataset_splits(name: str, spec: Mapping[str, Any]) -> list[str]:
    default = ("train", "val") if spec.get("source") == "coco_captions" else SPLITS
    splits = list(spec.get("splits", default))
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        raise ValueError(f"datasets.{name}.splits: unknown split(s) {unknown}; one of {SPLITS}")
    return splits


def dataset_files(name: str, spec: Mapping[str, Any]) -> dict[str, list[str]]:
    """Paths under ``resources/`` a dataset is built from: split files, image folders (or
    the check of a manual download) and the FG captions when asked."""
    if spec.get("source") not in SOURCES[1:]:
        raise ValueError(f"datasets.{name}.source: {spec.get('source')!r}, one of {SOURCES}")
    coll = _collection(name, spec)
    splits = dataset_splits(name, spec)
    if spec["source"] == "coco_captions":
        if spec.get("fg"):
            raise ValueError(f"datasets.{name}.fg: FG captions exist for Karpathy test sets only")
        unknown = [s for s in splits if s not in coll["image_roots"]]
        if unknown:
            raise ValueError(f"datasets.{name}.splits: COCO 2017 has no {unknown} captions")
        folders = sorted({str(Path(coll["image_roots"][s]).parent) for s in splits})
        return {"splits": [coll["files"]], "images": folders}
    roots = list(coll["image_roots"])
    if spec["collection"] == "coco" and "train" not in splits:
        roots = roots[:1]  # val and test images are all in val2014
    folders = [MANUAL_CHECKS.get(r, r) for r in roots]
    if spec["source"] == "karpathy_json":
        files = {"splits": [KARPATHY_JSON["folder"]], "images": folders}
    else:
        files = {"splits": [coll["files"].format(split=s) for s in splits], "images": folders}
    if spec.get("fg"):
        files["fg"] = [coll["fg"]]
    return files


def image_roots(name: str, spec: Mapping[str, Any], resources: str | Path = "resources"
                ) -> list[Path]:
    """The folders a dataset's relative image paths are resolved against, in order (COCO
    captions: one per split, in `dataset_splits` order)."""
    if spec.get("source") == "coco_captions":
        roots = _collection(name, spec)["image_roots"]
        return [Path(resources) / roots[s] for s in dataset_splits(name, spec)]
    folders = dataset_files(name, spec)["images"]
    roots = [Path(resources) / Path(f).parent if f.endswith(".vlcomp_checked")
             else Path(resources) / f for f in folders]
    sub = KARPATHY_JSON["image_subfolder"].get(spec["collection"])
    if spec.get("source") == "karpathy_json" and sub:
        roots = [r / sub for r in roots]
    return roots


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


def _coco_captions_dataset(name: str, spec: Mapping[str, Any], folder: Path,
                           roots: Sequence[Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """COCO captions files of each split (inside the unpacked annotations folder)."""
    coll, images, captions = _collection(name, spec), [], []
    for split, root in zip(dataset_splits(name, spec), roots, strict=True):
        path = folder / coll["caption_file"].format(split=split)
        imgs, caps = read_coco_captions(path, "", split)
        images.append(resolve_paths(imgs, [root], f"datasets.{name} ({path})"))
        captions.append(caps)
    return pd.concat(images, ignore_index=True), pd.concat(captions, ignore_index=True)


def _karpathy_json_dataset(name: str, spec: Mapping[str, Any], folder: Path,
                           roots: Sequence[Path], fg_file: str | Path | None
                           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Karpathy's ``dataset_{collection}.json``, cut to the configured splits."""
    path = folder / KARPATHY_JSON["file"].format(collection=spec["collection"])
    images, captions = read_karpathy(path, "")
    splits = dataset_splits(name, spec)
    images = images[images.split.isin(splits)].reset_index(drop=True)
    captions = captions[captions.split.isin(splits)].reset_index(drop=True)
    images = resolve_paths(images, roots, f"datasets.{name} ({path})")
    return images, _with_fg(captions, fg_file)


def _with_fg(captions: pd.DataFrame, fg_file: str | Path | None) -> pd.DataFrame:
    """Test captions replaced by the FG captions, position by position (when given); an
    image's captions past the fifth keep their text, as in Hendriksen et al. (logged)."""
    if fg_file is None:
        return captions
    captions = captions.copy()
    test = captions.split == "test"
    substituted = substitute_fg(captions[test], fg_file)
    captions.loc[test, "text"] = substituted.text
    kept = int((~substituted.fg).sum())
    logging.getLogger("vlcomp").info(
        "%s: %d of %d test captions replaced by FG captions; %d past an image's fifth keep "
        "their original text", fg_file, len(substituted) - kept, len(substituted), kept)
    return captions


def build_caption_dataset(
    name: str, spec: Mapping[str, Any], split_files: Sequence[str | Path],
    roots: Sequence[Path], fg_file: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Images and captions of a Karpathy dataset: one BLIP file per split (in
    `dataset_splits` order), paths resolved against ``roots``, test captions replaced by the
    FG captions position by position when ``fg_file`` is given (Hendriksen et al.)."""
    splits = dataset_splits(name, spec)
    if spec.get("source") == "coco_captions":
        return _coco_captions_dataset(name, spec, Path(split_files[0]), roots)
    if spec.get("source") == "karpathy_json":
        return _karpathy_json_dataset(name, spec, Path(split_files[0]), roots, fg_file)
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
    return image_table, _with_fg(pd.concat(captions, ignore_index=True), fg_file)


def folder_images(images: pd.DataFrame) -> pd.DataFrame:
    """The images of a dataset's image folder: every image (any split) whose file lies in a
    folder holding a test image. COCO Karpathy: the val, test and restval images (restval
    comes with the train split), all in ``val2014`` (40,504 with every split), not
    ``train2014``; Flickr30k: every split (31,783); the world: every image."""
    parents = images.path.map(lambda p: str(PurePath(p).parent))
    folders = set(parents[images.split == "test"])
    if not folders:
        raise ValueError("no test images: the image folder is the test images' folder")
    return images[parents.isin(folders)].reset_index(drop=True)


def folder_extra_images(images: pd.DataFrame) -> pd.DataFrame:
    """`folder_images` outside the test split (image_id, path): what a text-to-image gallery
    over the whole folder adds to the test images."""
    folder = folder_images(images)
    return folder[folder.split != "test"][["image_id", "path"]].reset_index(drop=True)
