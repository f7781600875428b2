"""A job's memory and time requests on each try.

A retry doubles a heavy job's request, so a job killed for memory or time asks for more. Time
is capped at the cluster's partition limit (config ``cluster.max_runtime_min``): above it,
sbatch refuses the job or it pends forever, so a retry asks for the limit instead.
"""

from __future__ import annotations

__all__ = ["by_attempt", "runtime_by_attempt"]


def by_attempt(request: float, attempt: int) -> int:
    """``request`` on the ``attempt``-th try (1 for the first): doubled on each retry."""
    if attempt < 1:
        raise ValueError(f"attempt {attempt}: the first try is 1")
    return int(request * 2 ** (attempt - 1))


def runtime_by_attempt(minutes: float, attempt: int, limit: int | None = None) -> int:
    """A time request in minutes on the ``attempt``-th try, at most ``limit`` (None: no
    limit)."""
    asked = by_attempt(minutes, attempt)
    return asked if limit is None else min(asked, int(limit))

