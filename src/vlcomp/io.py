"""File I/O of the workflow: atomic, deterministic writers (temp file in the same folder,
then ``os.replace``), and readers whose errors name the file that is bad."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # imported where used: a job that only fetches or writes JSON skips them
    import pandas as pd
    from PIL import Image


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place only on success, with the
    permissions a plain ``open`` would give (mkstemp's are owner-only)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or path.suffix,
                               dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        if os.path.isfile(tmp):
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@contextmanager
def atomic_folder(path: str | os.PathLike) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path``; on success it replaces ``path``
    (a folder written before is removed), on failure it is removed: a reader never sees a
    half-written folder."""
    import shutil

    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        if path.exists():
            shutil.rmtree(path)
        tmp.rename(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _umask() -> int:
    """The process's file-creation mask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a DataFrame to Parquet atomically (no index)."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def write_json(obj: Any, path: str | os.PathLike) -> None:
    """Write JSON atomically with sorted keys, so equal content gives equal bytes."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_lines(lines: list[str], path: str | os.PathLike) -> None:
    """Write text lines atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text("".join(f"{line}\n" for line in lines))


def write_npy(array: np.ndarray, path: str | os.PathLike) -> None:
    """Write a NumPy array atomically."""
    with atomic_path(path, suffix=".npy") as tmp:
        np.save(tmp, array)


def write_npz(arrays: Mapping[str, np.ndarray], path: str | os.PathLike) -> None:
    """Write named NumPy arrays (.npz, in their order) atomically."""
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as handle:
        np.savez(handle, **arrays)


class InputFileError(OSError):
    """An input file that exists but cannot be read (truncated, corrupt, wrong format)."""


def read_parquet(path: str | os.PathLike, **kwargs: Any) -> pd.DataFrame:
    """Read a Parquet table; a truncated or corrupt file raises `InputFileError` naming it."""
    import pandas as pd
    import pyarrow as pa

    try:
        return pd.read_parquet(path, **kwargs)
    except (OSError, ValueError, pa.ArrowException) as err:
        if not Path(path).is_file():
            raise
        raise InputFileError(
            f"cannot read Parquet file {path}: {err} (truncated or corrupt? delete it and "
            "rerun, and the rule that writes it runs again)"
        ) from err


def open_rgb(path: str | os.PathLike) -> Image.Image:
    """Load an image fully as RGB; a truncated or corrupt file raises `InputFileError`
    naming it (PIL's own messages often do not)."""
    from PIL import Image

    try:
        with Image.open(path) as img:
            return img.convert("RGB")
    except OSError as err:
        if not Path(path).is_file():
            raise
        raise InputFileError(f"cannot read image {path}: {err}") from err
