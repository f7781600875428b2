"""The state a CLIP training run can stop and continue from: after an epoch or inside one.

A long run is split into segments (`vlcomp.shards` names, ``{index}-of-{count}``), each a
block of the run's optimisation steps and a job of its own: a segment starts from the state
its predecessor wrote and writes its own at its last step. A state holds everything that
decides the rest of the run (weights, optimizer, random generators, the current epoch's
draws and position, the best epoch's weights so far), so on CPU a run cut into any number
of segments, or killed and resumed, ends with the weights of one unbroken run.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from vlcomp.io import atomic_path
from vlcomp.shards import shard_block


@dataclass
class EpochProgress:
    """An epoch under way: its caption draws and batch order, and what it has done so far."""

    epoch: int
    chosen: np.ndarray  # the caption row of every image this epoch
    order: np.ndarray  # the permutation the epoch's batches are cut from
    next_batch: int = 0
    losses: list[float] = field(default_factory=list)
    samples: int = 0
    seconds: float = 0.0
    lr: float = 0.0

    def to_state(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "chosen": torch.from_numpy(self.chosen),
                "order": torch.from_numpy(self.order), "next_batch": self.next_batch,
                "losses": list(self.losses), "samples": self.samples,
                "seconds": self.seconds, "lr": self.lr}

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> EpochProgress | None:
        if state is None:
            return None
        return cls(state["epoch"], state["chosen"].numpy(), state["order"].numpy(),
                   state["next_batch"], list(state["losses"]), state["samples"],
                   state["seconds"], state["lr"])


@dataclass
class Checkpoint:
    """Where a run stands: its last finished epoch, global step, log rows and, if an epoch is
    under way, its `EpochProgress`; the best epoch so far and its weights."""

    epoch: int = 0
    step: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    progress: EpochProgress | None = None
    best_epoch: int = 0
    best_weights: dict[str, torch.Tensor] | None = None


def segment_steps(total_steps: int, segment: tuple[int, int]) -> tuple[int, int]:
    """The ``[start, stop)`` optimisation steps of segment ``(index, count)`` of a run."""
    block = shard_block(total_steps, segment)
    return block.start, block.stop


def _comparable(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "threads"}


def save_training_state(path: str | os.PathLike, model: Any, optimizer: torch.optim.Optimizer,
                        rng: np.random.Generator, cfg: Any, checkpoint: Checkpoint,
                        origin: str | None = None) -> None:
    """Everything needed to continue training from ``checkpoint``, written atomically;
    ``origin`` names what the run started from (checked on resuming)."""
    state = {
        "epoch": checkpoint.epoch,
        "step": checkpoint.step,
        "rows": checkpoint.rows,
        "config": asdict(cfg),
        "origin": origin,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "numpy_rng": rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "progress": checkpoint.progress.to_state() if checkpoint.progress else None,
        "best_epoch": checkpoint.best_epoch,
        "best_weights": checkpoint.best_weights,
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        torch.save(state, tmp)


def read_training_state(path: str | os.PathLike) -> dict[str, Any]:
    """A state file as written by `save_training_state`; a ValueError names a broken one."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # a truncated or foreign file
        raise ValueError(f"{path}: not a readable training state ({err})") from err


def restore_training_state(state: dict[str, Any], model: Any,
                           optimizer: torch.optim.Optimizer,
                           rng: np.random.Generator) -> Checkpoint:
    """Load a state into model, optimizer and generators; return where the run stands."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng.bit_generator.state = state["numpy_rng"]
    torch.set_rng_state(state["torch_rng"])
    return Checkpoint(state["epoch"], state["step"], list(state["rows"]),
                      EpochProgress.from_state(state.get("progress")),
                      state.get("best_epoch", 0), state.get("best_weights"))


def usable_resume_state(path: str | os.PathLike, cfg: Any, origin: str | None,
                        steps: tuple[int, int]) -> dict[str, Any] | None:
    """The state a killed job left at ``path`` if it continues this job: same configuration,
    same origin, and a step inside this job's ``[start, stop]``; else None (with a warning
    when the file exists but belongs to another run)."""
    if not Path(path).exists():
        return None
    state = read_training_state(path)
    if _comparable(state["config"]) != _comparable(asdict(cfg)):
        reason = f"another configuration ({_comparable(state['config'])})"
    elif state.get("origin") != origin:
        reason = f"another start ({state.get('origin')!r}, not {origin!r})"
    elif not steps[0] <= state["step"] <= steps[1]:
        reason = f"step {state['step']}, outside this job's steps {steps[0]}-{steps[1]}"
    else:
        return state
    warnings.warn(f"{path}: training state is for {reason}; starting over", stacklevel=3)
    return None


def segment_start_state(path: str | os.PathLike, cfg: Any, start_step: int) -> dict[str, Any]:
    """The state the previous segment ended with, checked to be this run's at ``start_step``."""
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: the previous segment's state is missing")
    state = read_training_state(path)
    if _comparable(state["config"]) != _comparable(asdict(cfg)):
        raise ValueError(f"{path}: the previous segment trained another configuration "
                         f"({_comparable(state['config'])})")
    if state["step"] != start_step:
        raise ValueError(f"{path}: the previous segment ended at step {state['step']}, but "
                         f"this segment starts at step {start_step}")
    return state


def input_origin(paths: Iterable[str | os.PathLike], settings: Any = None) -> str:
    """A short fingerprint of a job's input files (names, sizes, modification times) and its
    run ``settings`` (e.g. the run's configuration entry, architecture included): a resume
    state left by a killed job is only continued while both are unchanged."""
    digest = hashlib.sha256()
    for path in sorted(str(p) for p in paths):
        stat = Path(path).stat() if Path(path).exists() else None
        digest.update(f"{path}\0{stat.st_size if stat else -1}\0"
                      f"{stat.st_mtime_ns if stat else -1}\n".encode())
    if settings is not None:
        digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]
