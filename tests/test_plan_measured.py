"""`vlcomp.plan.measured`: per-item costs read from a GPU's gpu_check JSON, and the plan
command's ``--measured`` / ``--gpu-kind``: measured costs replace the estimates only for the
GPU kind they were measured on, and the jobs they price say so."""

from __future__ import annotations

import json

import pytest
import yaml

from vlcomp.plan.__main__ import cost_basis, gpu_costs, plan_rows
from vlcomp.plan.costs import COSTS, cost, measured_costs, traced_costs
from vlcomp.plan.dry_run import parse_dry_run
from vlcomp.plan.measured import costs_of_report, gpu_matches, read_measured

from .conftest import REPO

A100 = "NVIDIA A100-SXM4-80GB"
DRY_RUN = """\
rule embed_model_shard:
    wildcards: model=m, shard=0-of-1
    threads: 2
    resources: tmpdir=<TBD>, gpu=1, mem_mb=16000, runtime=70
"""


def row(kind, cost_kinds, model, seconds, **extra):
    return {"kind": kind, "cost_kinds": cost_kinds, "model": model, "device": "cuda",
            "depth": "full", "scale": "base", "passed": True, "batch_size": 256,
            "seconds_per_item": seconds, "items_per_s": 1 / seconds, **extra}


def report(gpu=A100, quick=False):
    return {"gpu_name": gpu, "device": "cuda", "settings": {"quick": quick}, "throughput": [
        row("embed_image", ["embed_image"], "openai_clip", 0.0004),
        row("embed_text", ["embed_text"], "openai_clip", 0.0001),
        row("pair", ["pair"], "blip_itm", 0.0002),
        row("log_likelihood", ["pair", "retrieval_pair"], "blip_caption", 0.0003),
        row("train_negclip", ["train_negclip"], "openai_clip", 0.004),
        # not usable: cut depth, another scale, failed, on the CPU
        row("pair", ["pair"], "flava", 0.0001, depth="cut: 2 of 12 image layers"),
        row("pair", ["pair"], "blip2_itm", 0.01, scale="large"),
        row("embed_text", ["embed_text"], "openai_clip", 0.5, passed=False),
        row("embed_image", ["embed_image"], "openai_clip", 0.9, device="cpu"),
        row("probe_iteration", [], "linear_probe", 1e-6),
    ]}


def test_measured_costs_come_from_full_base_rows_labelled_with_the_gpu():
    found = costs_of_report(report(), "gpu_check.json")
    assert found.gpu == A100
    assert set(found.costs) == {("embed_image", "base"), ("embed_text", "base"),
                                ("pair", "base"), ("retrieval_pair", "base")}
    # model steps on in-memory images: the published end-to-end training time stays
    assert found.kept == ("train_negclip",)
    assert all(key in COSTS for key in found.costs)  # the estimates' own keys
    pair = found.costs[("pair", "base")]
    assert pair.seconds == 0.0003  # the slower of BLIP's ITM and captioner
    assert pair.measured and pair.device == "gpu"
    assert A100 in pair.source and "blip_caption" in pair.source
    assert found.costs[("embed_text", "base")].seconds == 0.0001


def test_quick_or_cpu_reports_are_refused(tmp_path):
    with pytest.raises(ValueError, match="--quick"):
        costs_of_report(report(quick=True))
    with pytest.raises(ValueError, match="not measured on a GPU"):
        costs_of_report({**report(), "gpu_name": None, "device": "cpu"})
    path = tmp_path / "broken.json"
    path.write_text("{")
    with pytest.raises(ValueError, match="not a readable"):
        read_measured(path)


def test_gpu_kinds_match_whole_names():
    assert gpu_matches(A100, "A100") and gpu_matches(A100, "a100")
    assert gpu_matches("NVIDIA H100 80GB HBM3", "H100")
    assert not gpu_matches(A100, "H100")
    assert not gpu_matches("NVIDIA A100-SXM4-80GB", "A10")
    assert not gpu_matches("NVIDIA A10", "A100")
    assert not gpu_matches(A100, "")


def test_measured_costs_replace_estimates_only_inside_the_block():
    estimate = cost("embed_image", "base")
    found = costs_of_report(report())
    with measured_costs(found.costs), traced_costs() as used:
        assert cost("embed_image", "base").seconds == 0.0004
        assert cost("embed_image", "large") == COSTS[("embed_image", "large")]
    assert cost("embed_image", "base") == estimate and not estimate.measured
    assert cost_basis(used) == "measured+estimate"
    assert cost_basis(used[:1]) == "measured" and cost_basis(used[1:]) == "estimate"


def test_plan_rows_say_which_jobs_are_priced_by_measurements(tmp_path):
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["models"] = {"m": {"family": "open_clip", "arch": "ViT-B-32"}}
    jobs = parse_dry_run(DRY_RUN)
    (estimated,) = plan_rows(config, jobs)
    assert estimated["basis"] == "estimate"
    path = tmp_path / "gpu_check.json"
    path.write_text(json.dumps(report()))
    costs, note = gpu_costs(path, "A100")
    assert A100 in note and "embed_image/base" in note
    assert "estimates kept for train_negclip" in note
    with measured_costs(costs):
        (measured,) = plan_rows(config, jobs)
    assert measured["basis"] == "measured"  # images and texts both measured
    assert measured["gpu_h"] < estimated["gpu_h"]  # 0.4 ms an image, not the 2 ms estimate


def test_a_rule_with_measured_and_estimated_jobs_says_both():
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["models"] = {"b": {"family": "open_clip", "arch": "ViT-B-32"},
                        "l": {"family": "open_clip", "arch": "ViT-L-14"}}
    jobs = [*parse_dry_run(DRY_RUN.replace("model=m", "model=b")),  # base: measured
            *parse_dry_run(DRY_RUN.replace("model=m", "model=l"))]  # ViT-L: estimated
    with measured_costs(costs_of_report(report()).costs):
        (both,) = plan_rows(config, jobs)
    assert both["jobs"] == 2 and both["basis"] == "measured+estimate"


def test_a_gpu_of_another_kind_keeps_the_estimates(tmp_path):
    path = tmp_path / "gpu_check.json"
    path.write_text(json.dumps(report(gpu="NVIDIA H100 80GB HBM3")))
    costs, note = gpu_costs(path, "A100")
    assert costs == {} and "not on --gpu-kind A100" in note
    assert "keeping the estimates" in note
    costs, note = gpu_costs(path, "H100")
    assert costs and "H100" in note
    assert gpu_costs(None, "A100") == ({}, None)
    assert "estimates are for an A100" in gpu_costs(None, "H100")[1]
