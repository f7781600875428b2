"""Deterministic torch on CPU and CUDA (the trainers, `vlcomp.bench.gpu_check`).

cuBLAS picks its reduction order per workspace unless ``CUBLAS_WORKSPACE_CONFIG`` is set
before its first call; with ``torch.use_deterministic_algorithms(True)`` torch then raises at
the first CUDA matrix product. The Snakefile sets the variable for every job
(`vlcomp.jobs.cuda_determinism_environment`) and `deterministic_torch` sets it again before a
model runs, so a trainer started outside the workflow works too. ``mode`` chooses the
trade-off (``compute.deterministic``; docs/cluster.md):

- ``strict``: deterministic kernels only; an op that has none raises (the default: two runs
  of one configuration give the same weights on one device);
- ``warn``: deterministic kernels where torch has them, a warning naming any op without one;
- ``off``: torch's fastest kernels (cuDNN autotuning included); runs may differ in the last
  bits, and the differences grow over training.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from vlcomp.jobs import cuda_determinism_environment

MODES = ("strict", "warn", "off")


@contextmanager
def deterministic_torch(threads: int, mode: str = "strict") -> Iterator[None]:
    """Fix the thread count and the determinism ``mode`` (module docstring); restore both
    afterwards."""
    if mode not in MODES:
        raise ValueError(f"compute.deterministic: {mode!r} is not one of {', '.join(MODES)}")
    cuda_determinism_environment()
    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    old_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    old_fill = torch.utils.deterministic.fill_uninitialized_memory
    old_benchmark = torch.backends.cudnn.benchmark
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(mode != "off", warn_only=mode == "warn")
    torch.backends.cudnn.benchmark = mode == "off"
    # NaN-filling fresh buffers is a debugging aid (~10% slower conv backward on CPU)
    torch.utils.deterministic.fill_uninitialized_memory = False
    try:
        yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_det, warn_only=old_warn)
        torch.backends.cudnn.benchmark = old_benchmark
        torch.utils.deterministic.fill_uninitialized_memory = old_fill
