"""Reading ``torch.save`` files safely, released checkpoints with numpy metadata included.

BiVLC's released checkpoints (``{epoch, model_state_dict, optimizer_state_dict, loss}``) pickle
numpy scalars and dtypes beside the tensors, written by numpy 1.x as the globals
``numpy.core.multiarray.scalar`` and ``numpy.dtype``. ``torch.load(weights_only=True)`` refuses
them. `load_torch_file` admits exactly those data-only globals (under both numpy spellings, plus
the numeric dtype classes that rebuilding a dtype needs) and still refuses everything else, with
an error naming the file and the refused globals. ``weights_only=False`` stays an explicit
opt-in for files one trusts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

NUMPY_SCALAR_NAMES = ("numpy.core.multiarray.scalar", "numpy._core.multiarray.scalar")
"""How numpy 1.x and 2.x name the function that rebuilds a numpy scalar in a pickle."""

_NUMERIC_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float16", "float32", "float64", "longdouble", "complex64",
                   "complex128")


class UnsafeCheckpointError(ValueError):
    """A checkpoint pickles a global that is not on the allow-list."""


def numpy_safe_globals() -> list[Any]:
    """The allow-list: numpy's scalar constructor (both module names), ``numpy.dtype`` and the
    numeric dtype classes (a pickled dtype is rebuilt by setting the state of one of them)."""
    core = np._core if hasattr(np, "_core") else np.core  # numpy 2 : numpy 1.x
    scalar = core.multiarray.scalar
    return [*((scalar, name) for name in NUMPY_SCALAR_NAMES), np.dtype,
            *(type(np.dtype(name)) for name in _NUMERIC_DTYPES)]


def unsafe_globals(path: str | os.PathLike) -> list[str]:
    """Globals in ``path`` that neither torch's defaults nor `numpy_safe_globals` admit."""
    with torch.serialization.safe_globals(numpy_safe_globals()):
        return list(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))


def load_torch_file(path: str | os.PathLike, weights_only: bool = True,
                    map_location: str | torch.device = "cpu") -> Any:
    """``torch.load`` a file; with ``weights_only`` (the default) numpy scalars and dtypes load
    too, and any other pickled global raises `UnsafeCheckpointError` naming it."""
    path = Path(path)
    if not weights_only:
        return torch.load(path, map_location=map_location, weights_only=False)
    with torch.serialization.safe_globals(numpy_safe_globals()):
        try:
            return torch.load(path, map_location=map_location, weights_only=True)
        except Exception as err:
            refused = _refused_globals(path)
            if not refused:
                raise
            raise UnsafeCheckpointError(
                f"{path}: refused to unpickle {', '.join(refused)} (not a tensor, a plain value "
                "or a numpy scalar/dtype; loading it could run code). If you trust the file, "
                "set weights_only: false on its model entry") from err


def _refused_globals(path: Path) -> list[str]:
    try:
        return unsafe_globals(path)
    except Exception:  # not a torch zip file at all: the caller re-raises the original error
        return []
