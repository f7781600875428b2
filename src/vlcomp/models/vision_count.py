"""Count the images that go through a scorer's vision tower (a forward pre-hook on it).

Model-running jobs log the count (`VisionPassCounter.summary`), and `python -m vlcomp.bench
encodes` adds the logs up per model and compares them with the distinct images of the DAG.
"""

from __future__ import annotations

import re
from typing import Any

import torch

LOG_PATTERN = re.compile(r"vision passes: (\d+) images through (\S+)'s vision tower")


def vision_tower(scorer: Any) -> torch.nn.Module | None:
    """The scorer's image encoder module (its ``vision_tower()``), or None if it has none."""
    get = getattr(scorer, "vision_tower", None)
    return get() if callable(get) else None


class VisionPassCounter:
    """Adds up the batch size of every call of one model's vision tower."""

    def __init__(self, name: str, tower: torch.nn.Module | None) -> None:
        self.name = name
        self.images = 0
        self.calls = 0
        self.counted = tower is not None
        if tower is not None:
            tower.register_forward_pre_hook(self._count, with_kwargs=True)

    def _count(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        pixels = args[0] if args else kwargs.get("pixel_values")
        if pixels is None:
            pixels = next(v for v in kwargs.values() if isinstance(v, torch.Tensor))
        self.images += int(pixels.shape[0])
        self.calls += 1

    def summary(self) -> str:
        """The log line `vlcomp.bench` reads back (`LOG_PATTERN`)."""
        if not self.counted:
            return f"vision passes: not counted ({self.name}'s scorer has no vision_tower())"
        return (f"vision passes: {self.images} images through {self.name}'s vision tower "
                f"in {self.calls} calls")


def count_vision_passes(scorer: Any) -> VisionPassCounter:
    """A counter hooked on the scorer's vision tower (loading a lazily loaded model)."""
    return VisionPassCounter(str(getattr(scorer, "name", "model")), vision_tower(scorer))
