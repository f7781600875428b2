"""Mixed precision for model jobs on CUDA (``compute.autocast``): fp16 or bf16 autocast.

CPU jobs always run in float32, so the embedded default stays bitwise reproducible; the
papers' CUDA runs differ (ARO's CLIP runs fp16 weights on CUDA, SugarCrepe fp32).
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

AUTOCAST = {"none": None, "fp16": torch.float16, "bf16": torch.bfloat16}


def autocast(device: str, mode: str = "none") -> Any:
    """``torch.autocast`` for a CUDA device and mode fp16/bf16; a no-op context otherwise."""
    if mode not in AUTOCAST:
        raise ValueError(f"compute.autocast: {mode!r} is not one of {sorted(AUTOCAST)}")
    dtype = AUTOCAST[mode]
    if dtype is None or not str(device).startswith("cuda"):
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=dtype)


def use_for_this_job(device: str, mode: str = "none") -> None:
    """Enter `autocast` for the rest of this process (a job script runs one job, then exits;
    autocast state is per thread, and the scoring runs on this one)."""
    autocast(device, mode).__enter__()


def job_scorer(model: str, entry: dict, device: str, threads: int, mode: str = "none"):
    """A model job's scorer: torch on the job's ``threads``, autocast ``mode`` for the rest of
    the job (`use_for_this_job`), the model built from its registry entry."""
    from vlcomp.models.registry import build_scorer
    from vlcomp.torch_threads import set_torch_threads

    set_torch_threads(threads)
    use_for_this_job(device, mode)
    return build_scorer(model, entry, device)
