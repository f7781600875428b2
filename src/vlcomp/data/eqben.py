"""EqBen (Wang et al., ICCV 2023) as pair items: 2 images x 2 captions, Winoground's text,
image and group scores with strict ``>`` (the authors' ``evaluate_eqben_locally.py`` and
t2v_metrics' ``get_winoground_acc`` both compare with ``>``).

The labelled releases follow "the Winoground style": one JSON list of objects with
``image0, caption0, image1, caption1`` (extra keys are ignored); image ``k`` goes with
caption ``k``. Image paths are relative to the image folder and start with the folder of
EqBen's sub-benchmark: ``eqbenag``, ``eqbenyoucook2``, ``eqbengebc``, ``eqbenkubric_cnt``,
``eqbenkubric_loc``, ``eqbenkubric_attr``, ``eqbensd``; t2v_metrics groups them into five
subsets (``eqbenk`` = the three Kubric folders). Quirks handled here:

- YouCook2 frames are ``.npy`` arrays in BGR order (the authors' toolkit reads them with
  ``np.load(path)[:, :, [2, 1, 0]]``); `frames_as_png` writes PNG copies for the embedder.
- The authors' "light" release converts every ``.png`` to ``.jpg`` without changing the
  annotation, so an image missing under its listed suffix is looked up under the others.
- A caption given as a list is read as its first element (EqBen-AG's own convention).

Releases: the 10 % "Sub-Test Set" (``eqben_subset_10percent_final.json`` + images, labels
public since April 2023: the "public val set" VisualGPTScore reports) and the small MLLM
subset t2v_metrics ships as ``eqben_vllm.zip`` (``all_select.json`` + ``images/``).
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
from PIL import Image

from vlcomp.io import atomic_path
from vlcomp.items import make_items

ANNOTATION_NAMES = ("eqben_subset_10percent_final.json", "all_select.json")
FIELDS = ("image0", "caption0", "image1", "caption1")
# EqBen's image folders and the sub-benchmark (t2v_metrics' subset name) each belongs to.
FOLDER_SUBSETS = {
    "eqbenag": "eqbenag",
    "eqbenyoucook2": "eqbeny",
    "eqbengebc": "eqbeng",
    "eqbenkubric_cnt": "eqbenk",
    "eqbenkubric_loc": "eqbenk",
    "eqbenkubric_attr": "eqbenk",
    "eqbensd": "eqbensd",
}
# The paper's order: natural (Action Genome, YouCook2, GEBC), then synthetic (Kubric, SD).
SUBSETS = ("eqbenag", "eqbeny", "eqbeng", "eqbenk", "eqbensd")
UNCLASSIFIED = "eqben"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".npy")
IMAGE_FOLDER_NAMES = ("images", "image_subset")


def read_annotation(path: str | Path) -> list[dict]:
    """The annotation list, checked: every entry an object with the four fields."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable EqBen annotation file ({err})") from err
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON list of "
                         f"{{{', '.join(FIELDS)}}} objects, got {type(data).__name__}")
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise ValueError(f"{path} entry {index}: expected an object, "
                             f"got {type(entry).__name__}")
        missing = [f for f in FIELDS if f not in entry]
        if missing:
            raise ValueError(f"{path} entry {index}: missing field(s) {missing}")
    return data


def find_release(root: str | Path) -> tuple[Path, Path]:
    """The unpacked release's annotation (a known name, the shallowest) and image folder (the
    folder below which the first entry's ``image0`` path exists)."""
    root = Path(root)
    found = sorted((p for name in ANNOTATION_NAMES for p in root.rglob(name)),
                   key=lambda p: (len(p.parts), ANNOTATION_NAMES.index(p.name), str(p)))
    if not found:
        others = sorted(str(p.relative_to(root)) for p in root.rglob("*.json"))[:10]
        raise FileNotFoundError(f"{root}: no EqBen annotation ({' or '.join(ANNOTATION_NAMES)}) "
                                f"below it; JSON files there: {others or 'none'}")
    annotation = found[0]
    first = str(read_annotation(annotation)[0]["image0"])
    return annotation, image_folder(root, annotation, first)


def image_folder(root: Path, annotation: Path, relative: str) -> Path:
    """The folder ``relative`` (an annotation image path) resolves under: beside the
    annotation (``images/``, ``image_subset/``, itself), ``root``, or any folder holding the
    path's first component."""
    head = PurePosixPath(relative).parts[0]
    candidates = [annotation.parent / n for n in IMAGE_FOLDER_NAMES]
    candidates += [annotation.parent, root]
    candidates += sorted((p.parent for p in root.rglob(head) if p.is_dir()),
                         key=lambda p: (len(p.parts), str(p)))
    for folder in candidates:
        if _existing(folder, relative) is not None:
            return folder
    looked = list(dict.fromkeys(str(c) for c in candidates))
    raise FileNotFoundError(f"{annotation}: its first image {relative!r} is in none of "
                            f"{looked[:10]}; unpack the image archive below {root}")


def eqben_items(
    annotation: str | Path, image_root: str | Path, *, expected_items: int | None = None,
    strict_subsets: bool = True, check_images: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair items (``image_ids``/``texts`` index-aligned, label 0, strict ties; ``subset`` =
    the sub-benchmark, ``folder`` = its image folder, ``source_index`` = the entry's place in
    the list) and the image table (``image_id`` = the relative path without its suffix).

    An image path naming no sub-benchmark folder is an error unless ``strict_subsets`` is
    False (then its subset is ``"eqben"``); a missing image is an error naming the folder
    where it was expected (unless ``check_images`` is False).
    """
    path, image_root = Path(annotation), Path(image_root)
    rows, images = [], {}
    for index, entry in enumerate(read_annotation(path)):
        where = f"{path.name} entry {index}"
        ids, folders = [], []
        for key in ("image0", "image1"):
            relative = _relative(entry[key], f"{where} {key}")
            image_id = str(PurePosixPath(relative).with_suffix(""))
            if image_id not in images:
                images[image_id] = _image_path(image_root, relative, where, check_images)
            ids.append(image_id)
            folders.append(_folder(relative, f"{where} {key}", strict_subsets))
        if folders[0] != folders[1]:
            raise ValueError(f"{where}: its images lie in different sub-benchmark folders "
                             f"{folders}")
        folder = folders[0]
        rows.append({
            "item_id": f"eqben-{index:05d}",
            "subset": FOLDER_SUBSETS.get(folder, UNCLASSIFIED), "image_ids": ids,
            "texts": [_caption(entry[k], f"{where} {k}") for k in ("caption0", "caption1")],
            "protocol": "pair", "label": 0, "tie_policy": "strict",
            "folder": folder, "source_index": index,
        })
    if expected_items is not None and len(rows) != expected_items:
        raise ValueError(f"{path}: {len(rows)} items, expected {expected_items}")
    table = pd.DataFrame({"image_id": list(images), "path": list(images.values())})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)


def frames_as_png(images: pd.DataFrame, out_dir: str | Path) -> pd.DataFrame:
    """The image table with every ``.npy`` frame (BGR, ``uint8``, H x W x 3) written as
    ``{out_dir}/{image_id}.png`` in RGB and its path replaced; other rows are unchanged."""
    out_dir = Path(out_dir)
    table = images.copy()
    for k, row in enumerate(images.itertuples(index=False)):
        if Path(row.path).suffix.lower() != ".npy":
            continue
        try:
            frame = np.load(row.path, allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ValueError(f"{row.path}: not a readable .npy frame ({err})") from err
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"{row.path}: expected a uint8 H x W x 3 BGR frame, got "
                             f"{frame.dtype} {frame.shape}")
        target = out_dir / f"{row.image_id}.png"
        with atomic_path(target) as tmp:
            Image.fromarray(np.ascontiguousarray(frame[:, :, ::-1]), "RGB").save(tmp, "PNG")
        table.iloc[k, table.columns.get_loc("path")] = str(target)
    return table


def _relative(value: object, where: str) -> str:
    """An annotation image path as a clean relative POSIX path."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: expected an image path, got {value!r}")
    relative = PurePosixPath(value.strip().replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"{where}: image path {value!r} must be relative to the image folder")
    return str(relative)


def _folder(relative: str, where: str, strict: bool) -> str:
    """The first path component that is an EqBen sub-benchmark folder."""
    for part in PurePosixPath(relative).parts:
        if part in FOLDER_SUBSETS:
            return part
    if strict:
        raise ValueError(f"{where}: image path {relative!r} names no EqBen sub-benchmark "
                         f"folder (known: {sorted(FOLDER_SUBSETS)}); pass "
                         "strict_subsets=False to keep such items unclassified")
    return ""


def _caption(value: object, where: str) -> str:
    """A caption string (a list gives its first element, as EqBen-AG's loader reads it)."""
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: expected a non-empty caption, got {value!r}")
    return value


def _existing(folder: Path, relative: str) -> Path | None:
    """``folder/relative``, or the same file under another image suffix, if it exists."""
    exact = folder / relative
    if exact.is_file():
        return exact
    for suffix in IMAGE_SUFFIXES:
        other = exact.with_suffix(suffix)
        if other.is_file():
            return other
    return None


def _image_path(image_root: Path, relative: str, where: str, check: bool) -> str:
    if not check:
        return str(image_root / relative)
    found = _existing(image_root, relative)
    if found is None:
        expected = (image_root / relative).parent
        raise FileNotFoundError(
            f"{where}: image {relative!r} not found; expected it in {expected} (as "
            f"{Path(relative).name} or with suffix {'|'.join(IMAGE_SUFFIXES)})")
    return str(found)
