"""Image tables of the classification sets (CIFAR-10, CIFAR-100, ImageNet ILSVRC2012).

Every loader returns a DataFrame ``image_id, path, label, split`` (+ ``filename`` for CIFAR,
``wnid`` for ImageNet), rows in a fixed order, labels in the standard class order:

- CIFAR-10 / CIFAR-100 (``cifar-10-python.tar.gz`` / ``cifar-100-python.tar.gz``): python
  pickles with bytes keys, ``b"data"`` a uint8 array of rows of 3,072 values (1,024 red,
  1,024 green, 1,024 blue, each 32x32 row-major), ``b"labels"`` (CIFAR-10) or
  ``b"fine_labels"`` (CIFAR-100), ``b"filenames"``; class names in ``batches.meta``
  (``b"label_names"``) or ``meta`` (``b"fine_label_names"``). The pixels are written as PNG
  files (`materialise_cifar`) so the embedder, which reads image paths, can encode them. The
  pickles are read from the extracted folder or straight from the ``.tar.gz``.
- ImageNet validation: the flat folder of ``ILSVRC2012_val_%08d.JPEG`` with the devkit's
  ``data/ILSVRC2012_validation_ground_truth.txt`` (line n: the 1-based ILSVRC2012_ID of image
  n) and ``data/meta.mat`` (struct array ``synsets``: ILSVRC2012_ID, WNID, words, gloss,
  num_children, ...; the 1,000 leaves, num_children 0, are the classes), or the common
  ``val/<wnid>/*.JPEG`` layout; train: ``train/<wnid>/*.JPEG``. The label of a WNID is its
  index in the sorted list of the 1,000 WNIDs (torchvision's ImageFolder order), checked
  against the list shipped in ``vlcomp/benchmarks/imagenet_classes.json``.

Pickles execute code when loaded: only read the released archives, verified by checksum.
"""

from __future__ import annotations

import io
import json
import pickle
import re
import tarfile
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from PIL import Image

from vlcomp.io import atomic_path

CIFAR: dict[str, dict[str, Any]] = {
    "cifar10": {
        "folder": "cifar-10-batches-py", "archive": "cifar-10-python.tar.gz",
        "splits": {"train": [f"data_batch_{k}" for k in range(1, 6)], "test": ["test_batch"]},
        "meta": "batches.meta", "names_key": "label_names", "labels_key": "labels",
        "n_classes": 10, "sizes": {"train": 50_000, "test": 10_000},
    },
    "cifar100": {
        "folder": "cifar-100-python", "archive": "cifar-100-python.tar.gz",
        "splits": {"train": ["train"], "test": ["test"]},
        "meta": "meta", "names_key": "fine_label_names", "labels_key": "fine_labels",
        "n_classes": 100, "sizes": {"train": 50_000, "test": 10_000},
    },
}
CIFAR_SIDE = 32
CIFAR_ROW = 3 * CIFAR_SIDE * CIFAR_SIDE

IMAGENET_CLASSES = 1000
IMAGENET_VAL_IMAGES = 50_000
IMAGENET_TRAIN_IMAGES = 1_281_167
DEVKIT_FOLDER = "ILSVRC2012_devkit_t12"
GROUND_TRUTH = "ILSVRC2012_validation_ground_truth.txt"
META_MAT = "meta.mat"
VAL_NAME = re.compile(r"^ILSVRC2012_val_(\d{8})\.jpe?g$", re.IGNORECASE)
WNID = re.compile(r"^n\d{8}$")
JPEG_SUFFIXES = (".jpeg", ".jpg")


# ---------------------------------------------------------------------------- CIFAR


def _normalise_keys(obj: Any, where: str) -> dict[str, Any]:
    """A pickled dict with bytes (Python 2 release) or str keys, keyed by str."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected a pickled dict, got {type(obj).__name__}")
    return {k.decode("latin1") if isinstance(k, bytes) else str(k): v for k, v in obj.items()}


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _read_cifar_members(source: Path, folder: str, names: Iterable[str]) -> dict[str, dict]:
    """The named pickles of one CIFAR release, from its folder or its ``.tar.gz``.

    ``source`` may be the extracted ``cifar-*-(batches-)py`` folder, a folder holding it, or
    the archive. Raises FileNotFoundError naming the missing file or archive member.
    """
    wanted = list(names)
    raw: dict[str, bytes] = {}
    if source.is_file():
        with tarfile.open(source, "r:*") as tar:
            for member in tar:  # one pass: a .tar.gz only reads forward cheaply
                name = member.name.removeprefix("./")
                if member.isfile() and name.startswith(f"{folder}/"):
                    base = name[len(folder) + 1:]
                    if base in wanted:
                        handle = tar.extractfile(member)
                        raw[base] = handle.read() if handle else b""
        missing = [n for n in wanted if n not in raw]
        if missing:
            raise FileNotFoundError(f"{source}: archive lacks {[f'{folder}/{m}' for m in missing]}")
    else:
        root = source if source.name == folder else source / folder
        if not root.is_dir():
            raise FileNotFoundError(f"{root}: no CIFAR folder (expected {folder}/ or its archive)")
        for name in wanted:
            path = root / name
            if not path.is_file():
                raise FileNotFoundError(f"{path} is missing from the CIFAR release")
            raw[name] = path.read_bytes()
    out = {}
    for name in wanted:
        where = f"{source}:{folder}/{name}"
        try:
            obj = pickle.loads(raw[name], encoding="bytes")  # a checksummed release
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as err:
            raise ValueError(f"{where}: not a CIFAR pickle ({err})") from err
        out[name] = _normalise_keys(obj, where)
    return out


def cifar_class_names(source: str | Path, dataset: str) -> list[str]:
    """The class names of the release's meta file, in label order (bytes decoded)."""
    spec = _cifar_spec(dataset)
    meta = _read_cifar_members(Path(source), spec["folder"], [spec["meta"]])[spec["meta"]]
    names = meta.get(spec["names_key"])
    if not isinstance(names, list | tuple) or len(names) != spec["n_classes"]:
        raise ValueError(f"{source}:{spec['folder']}/{spec['meta']}: key {spec['names_key']!r} "
                         f"should list {spec['n_classes']} class names")
    return [_text(n) for n in names]


def _cifar_spec(dataset: str) -> dict[str, Any]:
    if dataset not in CIFAR:
        raise ValueError(f"unknown CIFAR dataset {dataset!r}; known: {sorted(CIFAR)}")
    return CIFAR[dataset]


def read_cifar(source: str | Path, dataset: str, split: str
               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Pixels ``(n, 32, 32, 3)`` uint8 (HWC), labels ``(n,)`` and file names of one split,
    batches concatenated in release order (data_batch_1..5 for CIFAR-10 train)."""
    spec = _cifar_spec(dataset)
    if split not in spec["splits"]:
        raise ValueError(f"{dataset}: unknown split {split!r}; known: {sorted(spec['splits'])}")
    batches = _read_cifar_members(Path(source), spec["folder"], spec["splits"][split])
    pixels, labels, filenames = [], [], []
    for name, batch in batches.items():
        where = f"{source}:{spec['folder']}/{name}"
        for key in ("data", spec["labels_key"], "filenames"):
            if key not in batch:
                raise ValueError(f"{where}: missing key {key!r} (keys: {sorted(batch)})")
        data = np.asarray(batch["data"])
        if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != CIFAR_ROW:
            raise ValueError(f"{where}: 'data' should be uint8 rows of {CIFAR_ROW}, "
                             f"got {data.dtype} {data.shape}")
        rows_labels = np.asarray(batch[spec["labels_key"]], dtype=np.int64)
        if rows_labels.shape != (len(data),) or len(batch["filenames"]) != len(data):
            raise ValueError(f"{where}: {len(data)} rows but {len(rows_labels)} labels and "
                             f"{len(batch['filenames'])} file names")
        bad = (rows_labels < 0) | (rows_labels >= spec["n_classes"])
        if bad.any():
            raise ValueError(f"{where}: label {int(rows_labels[bad][0])} outside "
                             f"0..{spec['n_classes'] - 1}")
        pixels.append(data.reshape(-1, 3, CIFAR_SIDE, CIFAR_SIDE).transpose(0, 2, 3, 1))
        labels.append(rows_labels)
        filenames.extend(_text(f) for f in batch["filenames"])
    return np.concatenate(pixels), np.concatenate(labels), filenames


def materialise_cifar(source: str | Path, dataset: str, out_dir: str | Path,
                      splits: Iterable[str] = ("train", "test"), *,
                      expect_sizes: bool = True) -> pd.DataFrame:
    """Write every image of ``splits`` as ``out_dir/{split}/{dataset}-{split}-{index:05d}.png``
    (atomic writes; an existing file is kept, so a rerun only finishes what is missing) and
    return the table ``image_id, path, label, split, filename``.

    ``index`` is the row in the split's release order; ``image_id`` is the file stem.
    ``expect_sizes`` checks the released sizes (50,000 train, 10,000 test).
    """
    spec = _cifar_spec(dataset)
    out_dir = Path(out_dir)
    rows = []
    for split in splits:
        pixels, labels, filenames = read_cifar(source, dataset, split)
        if expect_sizes and len(pixels) != spec["sizes"][split]:
            raise ValueError(f"{source}: {dataset} {split} has {len(pixels)} images, the release "
                             f"has {spec['sizes'][split]} (pass expect_sizes=False for a subset)")
        folder = out_dir / split
        folder.mkdir(parents=True, exist_ok=True)
        for index, (image, label, filename) in enumerate(zip(pixels, labels, filenames,
                                                             strict=True)):
            image_id = f"{dataset}-{split}-{index:05d}"
            path = folder / f"{image_id}.png"
            if not path.is_file():
                with atomic_path(path) as tmp:
                    Image.fromarray(image, mode="RGB").save(tmp, format="PNG")
            rows.append({"image_id": image_id, "path": str(path), "label": int(label),
                         "split": split, "filename": filename})
    return pd.DataFrame(rows, columns=["image_id", "path", "label", "split", "filename"])


# ---------------------------------------------------------------------------- ImageNet


def imagenet_wnids() -> list[str]:
    """The 1,000 ILSVRC2012 WNIDs in class order (sorted), as shipped with the package."""
    text = resources.files("vlcomp.benchmarks").joinpath("imagenet_classes.json").read_text(
        "utf-8")
    wnids = json.loads(text)["wnids"]
    if len(wnids) != IMAGENET_CLASSES or wnids != sorted(wnids):
        raise ValueError("vlcomp/benchmarks/imagenet_classes.json: 'wnids' should be 1,000 "
                         "sorted WNIDs")
    return wnids


def _devkit_bytes(devkit: Path, name: str) -> tuple[bytes, str]:
    """``data/<name>`` of the devkit: its folder (or the folder holding it) or its archive."""
    member = f"{DEVKIT_FOLDER}/data/{name}"
    if devkit.is_file():
        with tarfile.open(devkit, "r:*") as tar:
            for info in tar:
                if info.isfile() and info.name.removeprefix("./") == member:
                    handle = tar.extractfile(info)
                    return (handle.read() if handle else b""), f"{devkit}:{member}"
        raise FileNotFoundError(f"{devkit}: archive lacks {member}")
    for root in (devkit, devkit / DEVKIT_FOLDER):
        path = root / "data" / name
        if path.is_file():
            return path.read_bytes(), str(path)
    raise FileNotFoundError(f"{devkit}: no data/{name} (give the {DEVKIT_FOLDER} folder, the "
                            "folder holding it, or ILSVRC2012_devkit_t12.tar.gz)")


def _field(record: Any, name: str, where: str) -> Any:
    try:
        value = record[name]
    except (KeyError, ValueError, IndexError) as err:
        raise ValueError(f"{where}: synsets record lacks field {name!r}") from err
    return value.item() if isinstance(value, np.ndarray) and value.size == 1 else value


def read_meta_mat(devkit: str | Path) -> dict[int, str]:
    """ILSVRC2012_ID -> WNID of the 1,000 leaf synsets (num_children 0) of ``meta.mat``.

    Needs scipy (``scipy.io.loadmat``); raises ValueError naming the file when the struct
    array ``synsets`` lacks a field or does not hold 1,000 leaves.
    """
    from scipy.io import loadmat

    data, where = _devkit_bytes(Path(devkit), META_MAT)
    try:
        synsets = loadmat(io.BytesIO(data), squeeze_me=True)["synsets"]
    except KeyError as err:
        raise ValueError(f"{where}: no 'synsets' variable") from err
    except (ValueError, TypeError, OSError) as err:
        raise ValueError(f"{where}: not a MATLAB file ({err})") from err
    leaves = {}
    for record in np.atleast_1d(synsets):
        if int(_field(record, "num_children", where)) == 0:
            ilsvrc_id = int(_field(record, "ILSVRC2012_ID", where))
            leaves[ilsvrc_id] = str(_field(record, "WNID", where))
    if len(leaves) != IMAGENET_CLASSES:
        raise ValueError(f"{where}: {len(leaves)} leaf synsets, expected {IMAGENET_CLASSES}")
    return leaves


def read_val_ground_truth(devkit: str | Path) -> list[int]:
    """The 1-based ILSVRC2012_IDs of the validation images, image n on line n."""
    data, where = _devkit_bytes(Path(devkit), GROUND_TRUTH)
    ids = []
    for n, line in enumerate(data.decode("ascii").splitlines(), 1):
        if not line.strip():
            continue
        try:
            ids.append(int(line))
        except ValueError as err:
            raise ValueError(f"{where}:{n}: not an ILSVRC2012_ID: {line!r}") from err
    return ids


def _label_of(wnids: list[str]) -> dict[str, int]:
    """WNID -> label, after checking the WNIDs are the shipped 1,000 classes."""
    canonical = imagenet_wnids()
    if sorted(wnids) != canonical:
        extra = sorted(set(wnids) - set(canonical))[:3]
        raise ValueError(f"the WNIDs are not the 1,000 ILSVRC2012 classes (unknown: {extra})")
    return {w: k for k, w in enumerate(canonical)}


def _jpegs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix.lower() in JPEG_SUFFIXES)


def _check_count(found: int, expected: int | None, where: Path) -> None:
    if expected is not None and found != expected:
        raise ValueError(f"{where}: {found} images, expected {expected}")


def imagenet_val_table(val_dir: str | Path, devkit: str | Path | None = None, *,
                       expected: int | None = None) -> pd.DataFrame:
    """The validation images: a flat folder (needs ``devkit``: folder or archive) or
    ``val/<wnid>/*.JPEG`` folders; ``image_id`` is the file stem, rows sorted by it.

    ``expected`` (50,000 for the full set) checks the image count.
    """
    val_dir = Path(val_dir)
    if not val_dir.is_dir():
        raise FileNotFoundError(f"{val_dir}: no ImageNet validation folder")
    subfolders = [p for p in val_dir.iterdir() if p.is_dir() and WNID.match(p.name)]
    if subfolders:
        table = _wnid_folders(val_dir, "val")
    else:
        if devkit is None:
            raise ValueError(f"{val_dir}: flat validation folder needs the devkit "
                             f"({GROUND_TRUTH}, {META_MAT})")
        table = _flat_val(val_dir, Path(devkit))
    _check_count(len(table), expected, val_dir)
    return table


def _flat_val(val_dir: Path, devkit: Path) -> pd.DataFrame:
    id_to_wnid = read_meta_mat(devkit)
    label = _label_of(list(id_to_wnid.values()))
    truth = read_val_ground_truth(devkit)
    rows = []
    for path in _jpegs(val_dir):
        match = VAL_NAME.match(path.name)
        if not match:
            raise ValueError(f"{path}: not an ILSVRC2012_val_XXXXXXXX.JPEG file name")
        n = int(match.group(1))
        if not 1 <= n <= len(truth):
            raise ValueError(f"{path}: image {n} has no line in {GROUND_TRUTH} "
                             f"({len(truth)} lines)")
        if truth[n - 1] not in id_to_wnid:
            raise ValueError(f"{GROUND_TRUTH}:{n}: ILSVRC2012_ID {truth[n - 1]} is no leaf "
                             f"synset of {META_MAT}")
        wnid = id_to_wnid[truth[n - 1]]
        rows.append({"image_id": path.stem, "path": str(path), "label": label[wnid],
                     "split": "val", "wnid": wnid})
    if not rows:
        raise ValueError(f"{val_dir}: no JPEG images")
    return pd.DataFrame(rows)


def _wnid_folders(root: Path, split: str) -> pd.DataFrame:
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    odd = [p.name for p in folders if not WNID.match(p.name)]
    if odd:
        raise ValueError(f"{root}: folder {odd[0]!r} is not a WNID (nXXXXXXXX)")
    label = {w: k for k, w in enumerate(imagenet_wnids())}  # a partial copy keeps its labels
    unknown = [p.name for p in folders if p.name not in label]
    if unknown:
        raise ValueError(f"{root}: folder {unknown[0]!r} is no ILSVRC2012 class")
    rows = []
    for folder in folders:
        for path in _jpegs(folder):
            rows.append({"image_id": path.stem, "path": str(path), "label": label[folder.name],
                         "split": split, "wnid": folder.name})
    if not rows:
        raise ValueError(f"{root}: no JPEG images in its WNID folders")
    table = pd.DataFrame(rows)
    dup = table.image_id[table.image_id.duplicated()]
    if len(dup):
        raise ValueError(f"{root}: image id {dup.iloc[0]!r} occurs in two folders")
    return table.sort_values("image_id", ignore_index=True)


def imagenet_train_table(train_dir: str | Path, *, expected: int | None = None
                         ) -> pd.DataFrame:
    """The training images ``train/<wnid>/*.JPEG`` (``expected``: 1,281,167 for the full set),
    rows sorted by ``image_id`` (the file stem, ``<wnid>_<n>``)."""
    train_dir = Path(train_dir)
    if not train_dir.is_dir():
        raise FileNotFoundError(f"{train_dir}: no ImageNet train folder")
    table = _wnid_folders(train_dir, "train")
    _check_count(len(table), expected, train_dir)
    return table

