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


def test_a_jobs_precision_is_its_entrys_then_the_global_then_the_references():
    from vlcomp.precision_choice import REFERENCE_PRECISION, job_precision

    blip2_t5 = {"family": "hf_blip2_lm"}
    assert job_precision(blip2_t5, "generative") == "bf16"  # LAVIS holds FLAN-T5 in bf16
    assert job_precision({"family": "hf_blip2_itm"}, "pairs") == "fp16"  # t2v_metrics' autocast
    assert job_precision({"family": "open_clip"}, "embed") == "fp32"
    assert job_precision({"family": "open_clip"}, "embed", {"autocast": "bf16"}) == "bf16"
    assert job_precision(blip2_t5, "generative", {"autocast": "fp16"}) == "fp16"
    own = {"family": "hf_blip_itm", "precision": {"pairs": "tf32"}}
    assert job_precision(own, "pairs", {"autocast": "fp16"}) == "tf32"
    assert job_precision(own, "embed") == "fp32"
    assert job_precision({"family": "hf_blip2_lm", "precision": "fp32"}, "generative") == "fp32"
    with pytest.raises(ValueError, match=r"models\.m\.precision: 'fp8'"):
        job_precision({"family": "open_clip", "precision": "fp8", "group": "m"}, "embed")
    with pytest.raises(ValueError, match="precision stage 'train'"):
        job_precision(blip2_t5, "train")
    assert all(why for _, why in REFERENCE_PRECISION.values())  # each with its source


def test_a_precision_context_applies_on_cuda_and_on_the_cpu_only_when_asked():
    from vlcomp.models.precision import precision_context

    for precision in ("fp32", "tf32", "bf16", "fp16", "none"):
        assert isinstance(precision_context("cpu", precision), contextlib.nullcontext)
    with precision_context("cpu", "bf16", cpu=True):
        product = torch.ones(4, 4) @ torch.ones(4, 4)
    assert product.dtype == torch.bfloat16
    with pytest.raises(ValueError, match="precision 'int8'"):
        precision_context("cuda", "int8")


def test_the_workflow_passes_each_jobs_precision(tmp_path):
    """The rules read each job's precision from its model (CPU: none)."""
    from vlcomp.config import read_config

    from .conftest import REPO

    rules = "\n".join(p.read_text() for p in (REPO / "workflow" / "rules").glob("*.smk"))
    assert 'COMPUTE["autocast"]' not in rules
    assert rules.count('autocast=model_precision("') == 14
    config = read_config(REPO / "config" / "paper.yaml", REPO / "Snakefile")
    from vlcomp.precision_choice import job_precision

    assert job_precision(config["models"]["blip2_vitl_flant5"], "generative",
                         config["compute"]) == "bf16"
