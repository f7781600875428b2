"""`scripts/gpu_check.sh` (`vlcomp.bench.gpu_check`): the whole check on the CPU through the
script, its JSON, the imports a GPU machine lacks, and the comparison rules that make a
device's outputs fail."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from vlcomp.bench import gpu_compare as gc
from vlcomp.bench.gpu_check import batch_setting, paper_batches, settings_for
from vlcomp.bench.gpu_items import choice_items
from vlcomp.bench.gpu_scoring import compare_stage

from .conftest import REPO
from .gpu_check_run import cpu_check_result

EXPECTED = {("embed", "openai_clip"), ("embed", "blip_itm"), ("pairs", "blip_itm"),
            ("generative", "blip_caption"), ("pairs", "blip2_itm"), ("pairs", "blip2_vitl_itm"),
            ("generative", "blip2_flan_t5"), ("embed", "xvlm"), ("pairs", "xvlm"),
            ("embed", "flava"), ("pairs", "flava"), ("train", "openai_clip"),
            ("train_resume", "openai_clip"), ("probe", "linear_probe")}


@pytest.fixture(scope="module")
def cpu_check(started_runs):
    """The check run by the script on the CPU, started ahead of need (tests/conftest.py):
    (return code, output, JSON, forbidden modules imported)."""
    folder, run = started_runs.get("cpu_check")
    return cpu_check_result(folder, run)


def test_every_stage_runs_and_passes_on_the_cpu(cpu_check):
    code, output, report, _ = cpu_check
    assert code == 0, output[-3000:]
    assert report["passed"] is True and "PASSED" in output
    assert report["device"] == "cpu" and report["device_name"] and report["gpu_name"] is None
    assert {"torch", "transformers", "open_clip"} <= set(report["versions"])
    assert report["settings"]["quick"] is True  # the CPU always runs the small check
    stages = [r for r in report["stages"] if "precision" not in r]
    assert {(r["stage"], r["model"]) for r in stages} == EXPECTED
    drift = [r for r in report["stages"] if "precision" in r]  # measured, never judged
    assert {(r["stage"], r["model"]) for r in drift} == {("embed @bf16", "openai_clip")}
    for record in stages:
        assert record["passed"] is True and "error" not in record, record
        assert isinstance(record["warnings"], list) and record["seconds"] >= 0
        assert "tolerance" in record
    scored = [r for r in stages if r["stage"] in ("embed", "pairs", "generative", "probe")]
    for record in scored:
        assert record["max_abs_diff"] == 0  # the CPU is its own reference
        assert record["allowed_abs_diff"] >= record["tolerance"]["atol"]
        assert record["choices"]["agree"] == record["choices"]["items"] > 0
        assert record["spread"] > 0  # random weights still tell the captions apart
    kinds = {r["model"]: {x["kind"] for x in stages if x["model"] == r["model"]}
             for r in stages}
    assert kinds["blip_itm"] >= {"itm_logit", "itm_prob", "itm_plus_itc", "cosine"}
    assert kinds["openai_clip"] >= {"negclip", "trohn_text", "trohn_img", "cosine"}
    resumed = [r for r in stages if r["stage"] == "train_resume"]
    assert resumed and all(r["bitwise"] for r in resumed)
    assert all(r["update_norm"] > 0 for r in stages if r["stage"].startswith("train"))


def test_throughput_rows_and_tolerances_are_in_the_json(cpu_check):
    _, _, report, _ = cpu_check
    rows = report["throughput"]
    assert {r["kind"] for r in rows} >= {"embed_image", "embed_text", "pair", "log_likelihood",
                                         "train_negclip", "probe_iteration"}
    for row in rows:
        assert row["passed"] is True and row["items_per_s"] > 0 and row["batch_size"] > 0
        assert row["peak_gpu_mb"] is None  # no GPU memory on the CPU
    assert {r["depth"] for r in rows if r["model"] == "openai_clip"} == {"full"}
    assert set(report["tolerances"]) == {"scores", "probe", "train", "train_bf16",
                                         "train_resume"}
    # each scoring rate with its work and TFLOP/s (no peak to share on the CPU): ViT-B/32's
    # image tower is ~8.7 GFLOP an image (2 per multiply-add; CLIP's 4.4 "GFLOPs" are MACs)
    scoring = [r for r in rows if r["kind"] in ("embed_image", "embed_text", "pair",
                                                "log_likelihood")]
    # the flop counter cannot trace BLIP-2 FLAN-T5's generation: its rate has no work
    uncounted = {r["model"] for r in scoring if r["gflop_per_item"] is None}
    assert uncounted <= {"blip2_flan_t5"}, uncounted
    assert all(r["tflops"] > 0 for r in scoring if r["model"] not in uncounted)
    assert all(r["share_of_peak"] is None for r in scoring)
    clip = next(r for r in scoring if r["model"] == "openai_clip" and r["kind"] == "embed_image")
    assert 8.0 < clip["gflop_per_item"] < 9.5, clip["gflop_per_item"]
    # every family with a loader reads JPEG files through it too (worker processes), priced
    # as image embeddings: the slower of model time and the pipeline is the plan's
    # each model's outputs in bf16, fp16 and tf32 against the CPU's fp32: measured drift
    drift = [r for r in report["stages"] if str(r.get("stage", "")).startswith("embed @")
             and r["model"] == "openai_clip"]
    assert {r["precision"] for r in drift} == {"bf16"}  # the CPU: bf16 autocast, one model
    assert 0 < drift[0]["max_abs_diff"] < 0.05 and "keeps_choices" in drift[0]
    files = {r["model"]: r for r in rows if r["kind"] == "embed_image_files"}
    assert {"openai_clip", "blip_itm", "xvlm"} <= set(files), sorted(files)
    assert all(r["workers"] == 0 and r["items"] == 4 and r["cost_kinds"] == ["embed_image"]
               for r in files.values())


def test_a_rate_is_read_as_a_share_of_the_devices_dense_peak():
    from vlcomp.bench.device_peaks import device_peak
    from vlcomp.bench.gpu_scoring import achieved

    assert device_peak("NVIDIA H200") == 989.4 and device_peak("NVIDIA H200", "fp32") == 67.0
    assert device_peak("NVIDIA H100 PCIe") == 756.0
    assert device_peak("NVIDIA A100-SXM4-80GB", "tf32") == 156.0
    assert device_peak("Tesla V100-SXM2-16GB") is None
    # the H200 run's ViT-B/32 at 3,400 images/s in fp32 (8.73 GFLOP an image): ~30 TFLOP/s,
    # 3 % of the dense bf16 peak and 44 % of fp32's (without TF32)
    row = achieved(8.73, 3400.0, "NVIDIA H200")
    assert row["tflops"] == 29.682 and row["share_of_bf16_peak"] == 0.03
    assert row["share_of_peak"] == 0.443
    assert achieved(8.73, 3400.0, None)["share_of_peak"] is None


def test_nothing_absent_from_a_gpu_image_is_imported(cpu_check):
    _, _, _, imports = cpu_check
    assert imports == []


def test_a_perturbed_score_fails_and_a_rounding_difference_passes():
    cpu = np.array([1.0, -2.0, 0.5, 3.0])
    assert gc.compare_values(cpu, cpu, gc.SCORES)["passed"]
    rounded = cpu + 1e-4
    assert gc.compare_values(rounded, cpu, gc.SCORES)["passed"]
    off = cpu.copy()
    off[2] += 0.1
    result = gc.compare_values(off, cpu, gc.SCORES)
    assert not result["passed"]
    assert result["max_abs_diff"] == pytest.approx(0.1)
    assert result["allowed_abs_diff"] == pytest.approx(2e-3 + 1e-3 * 3.0)
    nan = cpu.copy()
    nan[0] = np.nan
    assert not gc.compare_values(nan, cpu, gc.SCORES)["passed"]
    assert not gc.compare_values(cpu[:3], cpu, gc.SCORES)["passed"]


def test_a_changed_choice_fails_unless_the_cpu_nearly_tied():
    cpu = [np.array([0.9, 0.1, 0.2]), np.array([0.500, 0.499, 0.0])]
    same = gc.compare_choices(cpu, cpu, 1e-3)
    assert same["passed"] and same["agree"] == 2
    tie = gc.compare_choices([cpu[0], np.array([0.499, 0.500, 0.0])], cpu, 1e-3)
    assert tie["passed"] and tie["near_ties"] == 1
    wrong = gc.compare_choices([np.array([0.1, 0.9, 0.2]), cpu[1]], cpu, 1e-3)
    assert not wrong["passed"] and wrong["disagreeing_items"] == [0]


def test_a_stage_with_one_shifted_pair_score_fails():
    items = choice_items(3, 4, seed=0, size=16)
    rng = np.random.default_rng(0)
    cpu = {"itm_logit": rng.normal(size=12)}
    assert all(r["passed"] for r in compare_stage("pairs", cpu, cpu, items))
    shifted = {"itm_logit": cpu["itm_logit"].copy()}
    shifted["itm_logit"][5] += 0.05
    (record,) = compare_stage("pairs", shifted, cpu, items)
    assert not record["passed"] and record["max_abs_diff"] == pytest.approx(0.05)
    embeddings = {"images": rng.normal(size=(3, 8)), "texts": rng.normal(size=(12, 8))}
    (cosine,) = compare_stage("embed", embeddings, embeddings, items)
    assert cosine["passed"] and cosine["min_row_cosine"] == pytest.approx(1.0)


def test_training_comparison_fails_on_a_different_update_or_loss():
    rng = np.random.default_rng(0)
    update = [rng.normal(size=(4, 3)) * 1e-5, rng.normal(size=7) * 1e-5]
    same = gc.update_difference(update, update)
    assert same["update_rel_diff"] == 0 and same["update_cosine"] == pytest.approx(1.0)
    assert gc.compare_training(2.0, 2.0, same, gc.TRAIN_FP32)["passed"]
    assert not gc.compare_training(2.1, 2.0, same, gc.TRAIN_FP32)["passed"]
    flipped = gc.update_difference([-u for u in update], update)
    assert flipped["update_cosine"] == pytest.approx(-1.0)
    assert not gc.compare_training(2.0, 2.0, flipped, gc.TRAIN_BF16)["passed"]
    nothing = gc.update_difference([0 * u for u in update], [0 * u for u in update])
    assert not gc.compare_training(2.0, 2.0, nothing, gc.TRAIN_FP32)["passed"]


def test_batch_sizes_come_from_the_paper_config():
    embed, pair, train = paper_batches(REPO / "config" / "paper.yaml")
    assert (embed, pair) == ("auto", "auto")  # sized on the device as the jobs size them
    assert train == {"clip": 400, "negclip": 256, "trohn_text": 200, "trohn_img": 200}
    gpu = settings_for("cuda", quick=False)
    assert (gpu.embed_batch, gpu.pair_batch, gpu.train_batches["negclip"]) == ("auto", "auto",
                                                                               256)
    assert gpu.full_depth == ("blip_itm", "blip_caption", "xvlm", "flava")
    cpu = settings_for("cpu", quick=False)
    assert cpu.quick and cpu.full_depth == () and cpu.embed_batch < 256
    with pytest.raises(ValueError, match=r"embed\.batch_size: 'big' is neither"):
        batch_setting({"batch_size": "big"}, "batch_size", 256)
    assert batch_setting({}, "pair_batch_size", 128) == 128


def test_xvlm_original_names_round_trip_through_the_loader():
    from vlcomp.bench.random_models import original_xvlm_state
    from vlcomp.models.xvlm_convert import convert_state_dict
    from vlcomp.models.xvlm_model import XVLM, read_xvlm_config

    from .tiny_xvlm import BERT, RETRIEVAL, SWIN

    config = read_xvlm_config(RETRIEVAL, vision_config=SWIN, text_config=BERT)
    model = XVLM(config)
    state = model.state_dict()
    original = original_xvlm_state(state)
    assert any(k.endswith("attn.qkv.weight") for k in original) and "temp" in original
    back = convert_state_dict(original, model)
    assert set(back) == set(state)
    assert all(np.array_equal(back[k].numpy(), state[k].numpy()) for k in state)


def test_offline_tokenizers_keep_bert_ids_and_t5_end_of_sequence(tmp_path):
    from vlcomp.bench.offline_tokenizers import BERT_SIZE, bert_tokenizer, t5_tokenizer

    bert = bert_tokenizer(tmp_path / "bert", extra=("[DEC]", "[ENC]"), bos_token="[DEC]")
    vocab = bert.get_vocab()
    assert len(vocab) == BERT_SIZE + 2 and vocab["[CLS]"] == 101 and vocab["[DEC]"] == BERT_SIZE
    ids = bert("A red dog").input_ids
    assert ids[0] == 101 and ids[-1] == 102 and vocab["[UNK]"] not in ids
    t5, t5_vocab = t5_tokenizer()
    assert t5("a red dog").input_ids[-1] == t5_vocab["</s>"]


def test_the_script_refuses_cuda_without_a_device():
    if sys.platform != "linux":
        pytest.skip("bash script")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    done = subprocess.run(["bash", str(REPO / "scripts" / "gpu_check.sh"), "--out", os.devnull],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "no CUDA device" in done.stderr


def test_the_summary_names_failures():
    from vlcomp.bench.gpu_check import summary

    report = {"device": "cuda", "device_name": "NVIDIA X", "passed": False, "wall_s": 1.0,
              "versions": {"torch": "t", "transformers": "x", "open_clip": "o"},
              "stages": [{"stage": "train", "model": "openai_clip", "kind": "negclip",
                          "passed": False, "error": "RuntimeError: not deterministic"},
                         {"stage": "pairs", "model": "blip_itm", "kind": "itm_logit",
                          "passed": True, "max_abs_diff": 1e-5, "allowed_abs_diff": 2e-3,
                          "choices": {"agree": 8, "items": 8}}],
              "throughput": [{"kind": "pair", "model": "blip_itm", "passed": True,
                              "items_per_s": 900.0, "peak_gpu_mb": 1234.5}]}
    text = summary(report)
    assert "FAIL" in text and "RuntimeError: not deterministic" in text
    assert "8/8" in text and text.rstrip().endswith("FAILED in 1.0 s")


def test_a_batch_sized_to_memory_doubles_while_the_measured_peak_fits(monkeypatch):
    import torch

    from vlcomp.bench.gpu_scoring import MEMORY_CAP, memory_batch

    assert memory_batch(256, [1400.0], "cpu", 0.5) == 256  # no GPU memory to size to
    assert memory_batch(256, [None], "cuda", 0.5) == 256  # no peak measured
    assert memory_batch(256, [1400.0], "cuda", 0.0) == 256  # not asked

    class Properties:
        total_memory = 140 * 2**30  # an H200's 140 GiB

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _: Properties())
    # 1.4 GB at 256 (open_clip ViT-B/32 on the H200): 70 GB allow 50x, so the cap, 4,096
    assert memory_batch(256, [1400.0, 900.0], "cuda", 0.5) == MEMORY_CAP
    # 20 GB at 128: 70 GB allow 3.5x, so 256
    assert memory_batch(128, [20 * 1024.0], "cuda", 0.5) == 256
