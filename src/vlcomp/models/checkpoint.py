"""Checkpoint files: normalising foreign state dicts, and our own `vlcomp-clip-v1` format."""

from __future__ import annotations

import os
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import open_clip
import torch

from vlcomp.io import atomic_path
from vlcomp.models.torch_files import UnsafeCheckpointError, load_torch_file
from vlcomp.models.world_clip import build_world_clip

CHECKPOINT_FORMAT = "vlcomp-clip-v1"
_WRAPPER_KEYS = ("state_dict", "model_state_dict")
_JIT_EXTRA_KEYS = ("input_resolution", "context_length", "vocab_size")


def _is_torchscript(path: Path) -> bool:
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as zf:
        return any(name.endswith("constants.pkl") for name in zf.namelist())


def _read_raw(path: Path, weights_only: bool) -> Any:
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path), device="cpu")
    if _is_torchscript(path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # torch.jit is deprecated, still works
            state = torch.jit.load(str(path), map_location="cpu").state_dict()
        return {k: v for k, v in state.items() if k not in _JIT_EXTRA_KEYS}
    try:
        return load_torch_file(path, weights_only=weights_only)
    except UnsafeCheckpointError:
        raise
    except Exception as err:
        raise ValueError(f"cannot read checkpoint file {path}: {err}") from err


def load_state_dict_file(path: str | os.PathLike, weights_only: bool = True) -> dict[str, Any]:
    """Read a checkpoint file and return a flat state dict.

    Handles plain state dicts, `{"state_dict": ...}` (open_clip training),
    `{"model_state_dict": ...}` (BiVLC), DDP `module.` prefixes, safetensors and
    TorchScript archives (OpenAI `.pt` files).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint file not found: {path}")
    state = _read_raw(path, weights_only)
    while isinstance(state, Mapping):
        inner = next((state[k] for k in _WRAPPER_KEYS if isinstance(state.get(k), Mapping)), None)
        if inner is None:
            break
        state = inner
    if not isinstance(state, Mapping) or not state:
        raise ValueError(f"{path}: no state dict found (got {type(state).__name__})")
    bad = [k for k, v in state.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise ValueError(f"{path}: state dict has non-tensor entries, e.g. {bad[:3]}")
    if all(k.startswith("module.") for k in state):
        state = {k.removeprefix("module."): v for k, v in state.items()}
    return dict(state)


def save_checkpoint(
    path: str | os.PathLike,
    model: torch.nn.Module,
    model_cfg: dict[str, Any],
    train_cfg: dict[str, Any],
    epoch: int,
) -> None:
    """Write a `vlcomp-clip-v1` checkpoint atomically (temp file in the same folder + rename)."""
    payload = {
        "format": CHECKPOINT_FORMAT,
        "model_config": model_cfg,
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "train_config": dict(train_cfg),
        "epoch": int(epoch),
    }
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def save_state_dict(path: str | os.PathLike, model: torch.nn.Module) -> None:
    """Write a model's plain state dict atomically (fine-tuned open_clip models: the
    open_clip family loads it back with ``pretrained: <path>``)."""
    with atomic_path(path) as tmp:
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp)


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a `vlcomp-clip-v1` checkpoint dict (no model is built)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint file not found: {path}")
    try:
        payload = load_torch_file(path)
    except Exception as err:
        raise ValueError(f"{path}: not a readable {CHECKPOINT_FORMAT} checkpoint ({err})") from err
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"{path}: expected format {CHECKPOINT_FORMAT!r}, found {found!r}")
    missing = {"model_config", "state_dict"} - set(payload)
    if missing:
        raise ValueError(f"{path}: checkpoint lacks keys {sorted(missing)}")
    return payload


def load_checkpoint(path: str | os.PathLike) -> tuple[open_clip.CLIP, dict[str, Any]]:
    """Rebuild the world CLIP stored in a `vlcomp-clip-v1` file; returns (model in eval, config)."""
    payload = read_checkpoint(path)
    cfg = payload["model_config"]
    model = build_world_clip(cfg)
    try:
        model.load_state_dict(payload["state_dict"], strict=True)
    except RuntimeError as err:
        raise ValueError(f"{path}: state dict does not match its model_config: {err}") from err
    return model.eval(), cfg
