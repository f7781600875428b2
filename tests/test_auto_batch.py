"""``embed.batch_size: auto`` / ``pair_batch_size: auto`` (`vlcomp.models.auto_batch`): the
batch fitted to measured memory, the CPU batch, the probes run through real scorers, and the
configuration keys around it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from vlcomp.models import auto_batch as ab
from vlcomp.models.base import DualEncoderScorer
from vlcomp.models.world_clip import (
    DEFAULT_WORLD_CLIP,
    build_world_clip,
    world_tokenizer,
    world_transform,
)

from .tiny_blip import save_tiny_blip

WORDS = ["a", "red", "blue", "square", "circle", "small", "metal", "cube", "left", "of"]


@pytest.fixture(scope="module")
def world_scorer() -> DualEncoderScorer:
    torch.manual_seed(0)
    model = build_world_clip(DEFAULT_WORLD_CLIP)
    return DualEncoderScorer("world", model, world_transform(DEFAULT_WORLD_CLIP),
                             world_tokenizer(DEFAULT_WORLD_CLIP), DEFAULT_WORLD_CLIP["embed_dim"])


@pytest.fixture(scope="module")
def blip_itm(tmp_path_factory):
    from transformers import BlipForImageTextRetrieval

    from vlcomp.models.registry import build_scorer

    path, _, _ = save_tiny_blip(tmp_path_factory.mktemp("blip"), BlipForImageTextRetrieval, WORDS)
    return build_scorer("blip", {"family": "hf_blip_itm", "model": str(path)})


def test_the_batch_is_the_largest_power_of_two_on_the_probes_memory_line():
    # 100 MB fixed + 2 MB an item: 2,048 items need 4,196 MB
    peaks = {8: 116.0, 32: 164.0}
    assert ab.fitted_batch(peaks, budget_mb=4200) == 2048
    assert ab.fitted_batch(peaks, budget_mb=4195) == 1024
    assert ab.fitted_batch(peaks, budget_mb=10**6) == ab.MAX_BATCH  # capped
    assert ab.fitted_batch(peaks, budget_mb=10**6, cap=300) == 256
    assert ab.fitted_batch(peaks, budget_mb=50) == 1  # nothing fits: one item at a time
    assert ab.fitted_batch({8: 40.0, 32: 40.0}, budget_mb=10) == ab.MAX_BATCH  # flat line
    with pytest.raises(ValueError, match="two probe batches"):
        ab.fitted_batch({8: 1.0}, budget_mb=10)


def test_an_integer_is_kept_auto_is_the_cpu_batch_off_cuda_and_anything_else_is_refused():
    never = lambda n: pytest.fail("no probe runs for an integer or on the CPU")  # noqa: E731
    assert ab.resolve_batch(96, "cuda", never, key="embed.batch_size").size == 96
    choice = ab.resolve_batch("auto", "cpu", never, key="embed.batch_size")
    assert (choice.size, choice.reason) == (ab.CPU_BATCH, "auto on cpu: the CPU batch")
    for bad in ("Auto", 0, -4, 2.5, True, None):
        with pytest.raises(ValueError, match=r"embed\.pair_batch_size: .* neither a positive"):
            ab.resolve_batch(bad, "cpu", never, key="embed.pair_batch_size")


def test_on_cuda_each_probe_size_runs_once_and_the_budget_bounds_the_batch():
    ran: list[int] = []

    def probe(n: int) -> None:
        ran.append(n)

    def peak(run, device):  # what the probe allocates: 100 MB + 3 MB an item
        run()
        return 100.0 + 3.0 * ran[-1]

    def budget(device):
        assert ran == [1], "the model is loaded (a first probe) before the budget is read"
        return 1000.0

    choice = ab.resolve_batch("auto", "cuda:0", probe, key="embed.batch_size", peak=peak,
                              budget=budget)
    assert ran == [1, *ab.PROBE_SIZES]
    assert choice.size == 256  # 100 + 3 * 256 = 868 <= 1,000 < 100 + 3 * 512
    assert "budget 1,000 MB" in choice.reason and "8: 124 MB" in choice.reason


def fake_cuda(calls: list[int]):
    """`resolve_batch`'s peak: runs the real probe on the CPU and charges 1 MB an item."""
    def peak(run, device):
        calls.append(1)
        out = run()
        assert out is not None
        return 10.0 + len(out) if hasattr(out, "__len__") else 10.0
    return peak


def test_the_image_probe_embeds_blank_pictures_through_each_scorer(world_scorer, blip_itm):
    for scorer in (world_scorer, blip_itm):
        for n in ab.PROBE_SIZES:
            out = ab.image_probe(scorer)(n)
            assert out.shape[0] == n and np.isfinite(out).all()
        calls: list[int] = []
        size = ab.job_batch(scorer, "auto", "images", "cuda", peak=fake_cuda(calls),
                            budget=lambda device: 10.0 + 600)
        assert (size, len(calls)) == (512, 2)  # 10 + 1 MB an item within 610 MB


def test_the_pair_probe_scores_long_captions_with_one_picture(blip_itm, world_scorer):
    probes = ab.pair_probes(blip_itm)
    assert len(probes) == 1  # ITM: score_pairs
    scores = probes[0](8)
    assert len(scores) == 8 and np.isfinite(np.asarray(scores)).all()
    said: list[str] = []
    size = ab.job_batch(blip_itm, "auto", "pairs", "cuda", peak=fake_cuda([]),
                        budget=lambda device: 10.0 + 100, say=said.append)
    assert size == 64 and said[0].startswith("embed.pair_batch_size: 64 (auto: probe peaks")
    assert ab.job_batch(blip_itm, 24, "pairs", "cpu", say=said.append) == 24
    assert said[-1] == "embed.pair_batch_size: 24 (configured)"
    with pytest.raises(ValueError, match="DualEncoderScorer has no pairs method"):
        ab.job_batch(world_scorer, "auto", "pairs", "cuda")
    with pytest.raises(ValueError, match="stage 'texts'"):
        ab.job_batch(world_scorer, "auto", "texts", "cpu")


def test_auto_on_the_cpu_embeds_exactly_as_the_cpu_batch(world_scorer, tmp_path):
    from PIL import Image

    from vlcomp.score.embeddings import embed_image_set

    paths = []
    for k in range(70):
        path = tmp_path / f"{k}.png"
        Image.new("RGB", (64, 64), (k, 255 - k, 3 * k % 256)).save(path)
        paths.append(str(path))
    rows = pd.DataFrame({"path": paths})
    size = ab.job_batch(world_scorer, "auto", "images", "cpu")
    assert size == ab.CPU_BATCH
    assert np.array_equal(embed_image_set(world_scorer, rows, batch_size=size),
                          embed_image_set(world_scorer, rows, batch_size=64))


def test_vision_batches_are_fixed_by_the_configuration():
    assert ab.vision_batch({"batch_size": 64}) == 64
    assert ab.vision_batch({"batch_size": "auto"}) == ab.AUTO_VISION_BATCH
    assert ab.vision_batch({"batch_size": "auto", "vision_batch": 32}) == 32
    assert ab.vision_batch({}) == ab.AUTO_VISION_BATCH
    with pytest.raises(ValueError, match=r"embed\.batch_size: 'x'"):
        ab.vision_batch({"batch_size": "x"})


def test_the_schema_takes_auto_and_names_a_bad_value():
    from pathlib import Path

    from vlcomp.config import ConfigError
    from vlcomp.config_checks import validate_config
    from vlcomp.config_defaults import SCHEMA
    from vlcomp.yaml_text import safe_load

    shipped = safe_load((Path(__file__).parents[1] / "config" / "config.yaml").read_text())

    def with_embed(**embed):
        return {**shipped, "embed": embed}

    validate_config(with_embed(batch_size="auto", pair_batch_size="auto", vision_batch=128),
                    SCHEMA)
    with pytest.raises(ConfigError, match=r"config\.embed\.batch_size: 'automatic'"):
        validate_config(with_embed(batch_size="automatic"), SCHEMA)
    with pytest.raises(ConfigError, match=r"config\.embed\.vision_batch: 'auto'"):
        validate_config(with_embed(vision_batch="auto"), SCHEMA)


def test_shards_of_an_auto_batch_cut_blocks_every_power_of_two_divides(world_scorer):
    from vlcomp.score.embedding_shards import image_unit

    for size in (1, 64, 512, ab.MAX_BATCH):
        unit = ab.block_batch("auto", size)
        assert image_unit(world_scorer, unit) % image_unit(world_scorer, size) == 0
    assert ab.block_batch(48, 48) == 48


def test_gpu_check_times_an_auto_batch_as_the_jobs_choose_it(blip_itm):
    """With ``auto`` batches (config/paper.yaml) gpu_check's rates run at the batch
    `job_batch` gives on the device (here the CPU's), one batch after a warm one."""
    from types import SimpleNamespace

    from vlcomp.bench.gpu_scoring import Workload, model_throughput

    blip_itm._load()  # gpu_check scores with a model (loading it) before timing it
    saved = SimpleNamespace(name="blip", entry={"family": "hf_blip_itm"}, depth=2, scale="base")
    rates = {"embed_batch": "auto", "pair_batch": "auto", "repeats": 4}
    rows = model_throughput(blip_itm, saved, "cpu", rates, Workload(0), per_image=4)
    assert {r["stage"] for r in rows} == {"embed", "pairs"}
    for row in rows:
        assert row["passed"] and row["batch_by"] == "auto", row
        assert row["batch_size"] == ab.CPU_BATCH and row["items"] == ab.CPU_BATCH, row
