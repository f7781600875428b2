"""Deterministic torch on CPU and CUDA: cuBLAS's workspace variable before any model runs,
and the three modes of compute.deterministic, restored afterwards."""

from __future__ import annotations

import os

import pytest
import torch

from vlcomp.determinism import deterministic_torch
from vlcomp.jobs import CUBLAS_WORKSPACE, cuda_determinism_environment


def test_cublas_workspace_is_set_unless_chosen(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    cuda_determinism_environment()
    assert CUBLAS_WORKSPACE == ":4096:8"
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")
    with deterministic_torch(1):
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"


@pytest.mark.parametrize(("mode", "enabled", "warn_only", "benchmark"), [
    ("strict", True, False, False), ("warn", True, True, False), ("off", False, False, True)])
def test_modes_set_torch_and_restore_it(mode, enabled, warn_only, benchmark):
    before = (torch.are_deterministic_algorithms_enabled(),
              torch.is_deterministic_algorithms_warn_only_enabled(),
              torch.backends.cudnn.benchmark, torch.get_num_threads())
    with deterministic_torch(1, mode):
        assert torch.are_deterministic_algorithms_enabled() is enabled
        assert torch.is_deterministic_algorithms_warn_only_enabled() is warn_only
        assert torch.backends.cudnn.benchmark is benchmark
        assert torch.get_num_threads() == 1
    assert (torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.backends.cudnn.benchmark, torch.get_num_threads()) == before


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match=r"compute\.deterministic: 'fast' is not one of"), \
            deterministic_torch(1, "fast"):
        pass
