"""Timing, peak GPU memory, warnings and errors of one piece of `vlcomp.bench.gpu_check`."""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch


def synchronize(device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def reset_peak(device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peak_mb(device: str) -> float | None:
    """``torch.cuda.max_memory_allocated`` since `reset_peak` in MiB (None off CUDA)."""
    if not str(device).startswith("cuda"):
        return None
    return round(torch.cuda.max_memory_allocated() / 2**20, 1)


def timed(fn: Callable[[], Any], device: str) -> tuple[Any, float]:
    """``fn()`` and its wall seconds, the device's queue drained before and after."""
    synchronize(device)
    start = time.perf_counter()
    out = fn()
    synchronize(device)
    return out, time.perf_counter() - start


@contextmanager
def guarded(record: dict[str, Any]) -> Iterator[None]:
    """Run a block, filling ``record`` with its ``seconds``, the distinct ``warnings`` it
    raised and, if it failed, its ``error`` (and ``passed`` False): the check goes on."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        except Exception as err:  # a failed stage is a result, not the end of the check
            record["passed"] = False
            record["error"] = f"{type(err).__name__}: {err}"[:2000]
            record["traceback"] = traceback.format_exc()[-4000:]
        finally:
            seen = dict.fromkeys(f"{w.category.__name__}: {w.message}"[:500] for w in caught)
            record["warnings"] = list(seen)[:20]
            record["seconds"] = round(time.perf_counter() - start, 3)


def free_memory(device: str) -> None:
    """Return cached blocks after a model is dropped (CUDA)."""
    import gc

    gc.collect()
    if str(device).startswith("cuda"):
        torch.cuda.empty_cache()
