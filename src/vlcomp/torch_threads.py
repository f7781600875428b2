"""Torch's thread count for jobs that run models (kept out of `vlcomp.jobs`, which jobs
without torch import too)."""

from __future__ import annotations

import torch


def set_torch_threads(threads: int) -> None:
    """Fix torch's intra-op threads (results must not depend on ``--cores``)."""
    torch.set_num_threads(threads)
