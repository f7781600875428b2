"""The precision a model job runs in on CUDA, per model and stage: ``fp32``, ``tf32`` (fp32
storage, TensorFloat-32 matrix products), ``bf16`` or ``fp16`` (autocast).

A model entry's ``precision`` (one for all stages, or ``{embed, pairs, generative}``) wins;
else a global ``compute.autocast`` of fp16 / bf16 (every model job); else the precision the
reference implementation of the family states (`REFERENCE_PRECISION`, each with the line
that states it); else fp32. CPU jobs always run fp32, so the embedded default stays bitwise
reproducible. The drift each choice costs is measured on a GPU by ``scripts/gpu_check.sh``
(its ``precision`` records) and listed in docs/fidelity.md.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from vlcomp.precision_choice import (
    GLOBAL,
    PRECISIONS,
    REFERENCE_PRECISION,
    STAGES,
    job_precision,
)

__all__ = [
    "PRECISIONS",
    "REFERENCE_PRECISION",
    "STAGES",
    "autocast",
    "job_precision",
    "job_scorer",
    "precision_context",
    "use_for_this_job",
]

DTYPES = {"fp32": None, "tf32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def precision_context(device: str, precision: str = "fp32", cpu: bool = False) -> Any:
    """The context a job runs its model in: autocast for bf16 / fp16, TensorFloat-32 matrix
    products for tf32, nothing for fp32; on the CPU nothing (unless ``cpu``: autocast there
    too, for measuring a precision's drift on a machine without a GPU)."""
    if precision == "none":
        precision = "fp32"
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: one of {PRECISIONS}")
    on_cuda = str(device).startswith("cuda")
    if not on_cuda and not cpu:
        return contextlib.nullcontext()
    if precision == "tf32":
        return _tf32() if on_cuda else contextlib.nullcontext()
    dtype = DTYPES[precision]
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast("cuda" if on_cuda else "cpu", dtype=dtype)


@contextlib.contextmanager
def _tf32() -> Any:
    """TensorFloat-32 matrix products and convolutions, restored on exit."""
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


def autocast(device: str, mode: str = "none") -> Any:
    """``torch.autocast`` for a CUDA device and mode fp16/bf16; a no-op context otherwise
    (``compute.autocast``'s values)."""
    if mode not in GLOBAL:
        raise ValueError(f"compute.autocast: {mode!r} is not one of {sorted(GLOBAL)}")
    return precision_context(device, mode)


def use_for_this_job(device: str, mode: str = "none") -> None:
    """Enter the job's precision (`precision_context`; ``compute.autocast``'s ``none`` is
    fp32) for the rest of this process (a job script runs one job, then exits; autocast
    state is per thread, and the scoring runs on this one)."""
    precision_context(device, mode).__enter__()


def job_scorer(model: str, entry: dict, device: str, threads: int, mode: str = "fp32"):
    """A model job's scorer: torch on the job's ``threads``, precision ``mode`` for the rest
    of the job (`use_for_this_job`), the model built from its registry entry."""
    from vlcomp.models.registry import build_scorer
    from vlcomp.torch_threads import set_torch_threads

    set_torch_threads(threads)
    use_for_this_job(device, mode)
    return build_scorer(model, entry, device)
