"""Mixed precision (`compute.autocast`) applies to CUDA jobs only."""

from __future__ import annotations

import contextlib

import pytest
import torch

from vlcomp.jobs import THREAD_VARIABLES, single_threaded_libraries
from vlcomp.models.precision import autocast


def test_cpu_jobs_stay_float32_and_cuda_jobs_autocast():
    for mode in ("none", "fp16", "bf16"):
        assert isinstance(autocast("cpu", mode), contextlib.nullcontext)
    assert isinstance(autocast("cuda", "none"), contextlib.nullcontext)
    with pytest.warns(UserWarning) if not torch.cuda.is_available() else contextlib.nullcontext():
        context = autocast("cuda:0", "bf16")
    assert isinstance(context, torch.autocast) and context.fast_dtype == torch.bfloat16
    with pytest.raises(ValueError, match=r"compute\.autocast: 'fp8'"):
        autocast("cuda", "fp8")


def test_jobs_start_single_threaded(monkeypatch):
    for variable in THREAD_VARIABLES:
        monkeypatch.setenv(variable, "8")
    single_threaded_libraries()
    import os

    assert all(os.environ[v] == "1" for v in THREAD_VARIABLES)
