"""`vlcomp.bench`: the reference loops score like vlcomp, and the counters and summaries
read DAG outputs right (no timing is asserted: speed is measured, not tested)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image

from vlcomp.bench import e2e, encodes, flops, itc
from vlcomp.bench.__main__ import main
from vlcomp.bench.report import format_table
from vlcomp.io import write_parquet
from vlcomp.models.world_clip import (
    DEFAULT_WORLD_CLIP,
    build_world_clip,
    world_tokenizer,
    world_transform,
)
from vlcomp.score.pairs import ImageRef

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30)]


@pytest.fixture(scope="module")
def parts() -> itc.ClipParts:
    torch.manual_seed(0)
    cfg = DEFAULT_WORLD_CLIP
    return itc.ClipParts("world", build_world_clip(cfg).eval(), world_transform(cfg),
                         world_tokenizer(cfg), int(cfg["embed_dim"]))


def write_images(folder: Path) -> dict[str, ImageRef]:
    refs = {}
    for k, colour in enumerate(COLOURS):
        path = folder / f"img{k}.png"
        Image.new("RGB", (64, 64), colour).save(path)
        refs[f"img{k}"] = ImageRef(str(path), (4.0, 4.0, 40.0, 40.0) if k == 3 else None)
    return refs


def choice_items(n_texts: int) -> pd.DataFrame:
    words = ["red", "green", "blue", "yellow", "square", "circle"]
    rows = []
    for k in range(10):
        texts = [f"a {words[(k + j) % 6]} {words[(k * j) % 6]}" for j in range(n_texts)]
        rows.append({"item_id": f"i{k}", "image_ids": [f"img{k % 4}"], "texts": texts,
                     "protocol": "i2t", "label": 0})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("n_texts", [2, 5])
def test_reference_loops_score_exactly_like_vlcomp(parts, tmp_path, n_texts):
    refs, items = write_images(tmp_path), choice_items(n_texts)
    ours = itc.vlcomp_path(parts, items, refs, batch_size=3)
    for loop in (itc.sugarcrepe_loop, itc.aro_loop):
        theirs = loop(parts, items, refs)
        assert [s.shape for s in theirs] == [(1, n_texts)] * len(items)
        agree = itc.agreement(theirs, ours)
        assert agree["max_abs_diff"] < 1e-5 and agree["same_choice"] == 1.0
    rows = itc.compare(parts, items, refs, ["sugarcrepe", "aro"])
    assert [r["baseline"] for r in rows] == ["sugarcrepe", "aro"]
    assert rows[0]["pairs"] == 10 * n_texts and rows[0]["images"] == 4
    assert all(r["speedup"] > 0 and r["max_abs_diff"] < 1e-5 for r in rows)


def test_aro_loop_refuses_mixed_shapes(parts, tmp_path):
    refs = write_images(tmp_path)
    items = pd.concat([choice_items(2).iloc[:2], choice_items(3).iloc[2:4]])
    with pytest.raises(ValueError, match="equal numbers of options"):
        itc.aro_loop(parts, items.reset_index(drop=True), refs)


def test_items_on_images_keeps_whole_images():
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(12)],
                          "image_ids": [[f"img{k % 6}"] for k in range(12)],
                          "texts": [["a", "b"]] * 12})
    kept = itc.items_on_images(items, 3, seed=0)
    images = {i for ids in kept.image_ids for i in ids}
    assert len(images) == 3 and len(kept) == 6  # both items of each sampled image
    assert kept.equals(itc.items_on_images(items, 3, seed=0))
    assert len(itc.items_on_images(items, 100, seed=0)) == 12


def fake_dag(tmp_path: Path) -> Path:
    """A DAG folder: two image sets (one file duplicated by content), a choice benchmark
    scored by a dual encoder and a pair scorer, embeddings, and logs with vision passes."""
    work = tmp_path / "work"
    images = work / "results" / "images"
    images.mkdir(parents=True)
    for k, colour in enumerate(COLOURS):
        Image.new("RGB", (8, 8), colour).save(images / f"a{k}.png")
    shutil.copy(images / "a0.png", images / "copy_of_a0.png")
    Image.new("RGB", (8, 8), (1, 2, 3)).save(images / "g0.png")
    sets = {"test": pd.DataFrame({"image_id": ["a0", "a1", "a2", "a3", "c0"],
                                  "path": [f"results/images/{n}.png" for n in
                                           ("a0", "a1", "a2", "a3", "copy_of_a0")]}),
            "gallery": pd.DataFrame({"image_id": ["g0"], "path": ["results/images/g0.png"]})}
    for name, table in sets.items():
        write_parquet(table, work / "results" / "imagesets" / f"{name}.parquet")
    bench = pd.DataFrame({"item_id": ["x", "y", "z"], "image_ids": [["a0"], ["a1"], ["a0"]],
                          "texts": [["p", "q"]] * 3, "protocol": ["i2t"] * 3})
    write_parquet(bench, work / "results" / "benchmarks" / "toy.parquet")
    for model in ("dual", "pairs"):
        write_parquet(bench[["item_id"]], work / "results" / "scores" / model / "toy.parquet")
    emb = work / "results" / "embeddings" / "dual" / "images"
    emb.mkdir(parents=True)
    for name, table in sets.items():
        np.save(emb / f"{name}.npy", np.zeros((len(table), 2), np.float32))
        (emb / f"{name}.ids.json").write_text(json.dumps(table.image_id.tolist()))
    # the pair scorer is a captioner: a retrieval gallery (g0; val: a2) and a text prior
    # over 2 null images and one training image (a3), for one benchmark
    np.savez(work / "results" / "scores" / "pairs" / "ret.npz",
             test_paths=np.array(["results/images/g0.png"]),
             val_paths=np.array(["results/images/a2.png"]))
    priors = work / "results" / "priors" / "pairs"
    priors.mkdir(parents=True)
    (priors / "prior_images.json").write_text(json.dumps(
        {"null": {"n": 2}, "train_paths": ["results/images/a3.png"]}))
    write_parquet(pd.DataFrame({"text": ["p", "q"]}), priors / "toy.parquet")
    logs = work / "logs"
    (logs / "embed").mkdir(parents=True)
    (logs / "score_pairs").mkdir(parents=True)
    (logs / "embed" / "dual.log").write_text(
        "INFO x\nINFO vision passes: 6 images through dual's vision tower in 2 calls\n")
    (logs / "score_pairs" / "pairs.log").write_text(
        "vision passes: 7 images through pairs's vision tower in 1 calls\n")
    (logs / "score_pairs" / "extra.log").write_text(
        "vision passes: 2 images through pairs's vision tower in 1 calls\n")
    return work


def test_encode_counts_compare_passes_with_distinct_images(tmp_path):
    work = fake_dag(tmp_path)
    assert encodes.vision_passes(work) == {
        "dual": {"embed/dual.log": 6},
        "pairs": {"score_pairs/extra.log": 2, "score_pairs/pairs.log": 7}}
    dual, pairs = encodes.encode_counts(work)
    # 6 files, but copy_of_a0 has a0's bytes: 5 distinct images, so 6 passes are one too many
    assert (dual["model"], dual["vision_passes"], dual["distinct_images"]) == ("dual", 6, 5)
    assert not dual["equal"] and dual["family"] == "dual encoder"
    # the reference re-encodes each item's image (3) and the gallery (1)
    assert dual["reference_passes"] == 4
    # choice images a0, a1; galleries g0, a2; prior image a3; 2 null images: 7 distinct
    assert (pairs["vision_passes"], pairs["distinct_images"], pairs["equal"]) == (9, 7, False)
    assert pairs["family"] == "pair scorer" and pairs["job_local_images"] == 2
    # items 3, galleries 2, the prior's 3 images for its one benchmark
    assert pairs["reference_passes"] == 8
    (work / "logs" / "score_pairs" / "extra.log").unlink()
    assert encodes.encode_counts(work)[1]["equal"]
    with pytest.raises(ValueError, match="no 'vision passes' lines"):
        encodes.encode_counts(tmp_path)


def test_flop_count_and_efficiency_of_a_known_tower():
    tower = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 4 * 4, 10))
    assert flops.vision_flops(tower, 4) == 2 * 48 * 10
    peak = flops.sgemm_peak(sizes=(64,), repeats=1)
    assert peak["peak_gflops"] > 0 and list(peak["gflops_by_size"]) == [64]
    rows = flops.encode_efficiency(tower, 4, [1, 4], peak["peak_gflops"], repeats=1,
                                   min_seconds=0)
    assert [r["batch_size"] for r in rows] == [1, 4]
    assert all(r["gflops"] > 0 and r["share_of_peak"] > 0 for r in rows)


def write_benchmark(path: Path, seconds: float, rss: float = 100.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\t"
                    f"cpu_time\n{seconds}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t{seconds / 2}\n")


def test_per_rule_wall_times_from_benchmark_files(tmp_path):
    bench = tmp_path / "benchmarks"
    write_benchmark(bench / "world.tsv", 10.0)
    write_benchmark(bench / "embed_model" / "a.tsv", 4.0, rss=300)
    write_benchmark(bench / "embed_model" / "b.tsv", 6.0)
    write_benchmark(bench / "score_and_metrics" / "a" / "x.tsv", 1.0)
    jobs = e2e.read_benchmarks(tmp_path)
    assert sorted(jobs.rule) == ["embed_model", "embed_model", "score_and_metrics", "world"]
    rows = e2e.per_rule(jobs)
    assert [r["rule"] for r in rows] == ["embed_model", "world", "score_and_metrics"]
    assert rows[0]["jobs"] == 2 and rows[0]["total_s"] == 10.0 and rows[0]["max_rss_mb"] == 300
    assert rows[0]["share"] == pytest.approx(10 / 21) and rows[0]["cpu_s"] == 5.0
    with pytest.raises(ValueError, match="no benchmark files"):
        e2e.read_benchmarks(tmp_path / "nothing")


def test_cli_prints_a_table_and_writes_json(tmp_path, capsys):
    write_benchmark(tmp_path / "benchmarks" / "world.tsv", 2.0)
    main(["--out", str(tmp_path / "out"), "e2e", "--workdir", str(tmp_path)])
    assert "| world | 1 |" in capsys.readouterr().out
    payload = json.loads((tmp_path / "out" / "e2e.json").read_text())
    assert payload["rows"][0]["rule"] == "world" and payload["machine"]["logical_cores"] >= 1
    assert format_table([{"a": 1234.5, "b": 0.01234, "c": None}], ["a", "b", "c"]).endswith(
        "| 1,234.5 | 0.0123 |  |")


def test_every_rule_with_a_log_writes_its_benchmark_under_its_name():
    rules = Path(__file__).resolve().parents[1] / "workflow" / "rules"
    directive = re.compile(r"^\s+(log|benchmark):\s*\n\s+f?\"([^\"]+)\"", re.MULTILINE)
    seen = 0
    for smk in rules.glob("*.smk"):
        # a `use rule A as B with:` block is rule B's (its overrides name B's files)
        for block in re.split(r"^\s*(?:use\s+)?rule ", smk.read_text(), flags=re.MULTILINE)[1:]:
            name = block.split(":", 1)[0].removesuffix(" with").split(" as ")[-1]
            found = dict(directive.findall(block))
            if "log" not in found or name == "download_file":  # cached: no benchmark file
                continue
            seen += 1
            assert found.get("benchmark", "").startswith(
                (f"benchmarks/{name}/", f"benchmarks/{name}.tsv")), f"{smk.name}: {name}"
    assert seen > 30


def test_attention_projections_are_counted():
    """A transformer block's flops include its attention projections (4·d² per token) and
    MLP (8·d² per token at width 4d): PyTorch's fused fast path would hide them all."""
    d, tokens = 16, 5

    class Tower(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = torch.nn.TransformerEncoderLayer(d, 2, 4 * d, dropout=0.0,
                                                          batch_first=True).eval()

        def forward(self, pixels):  # the pixels only set the batch size here
            return self.block(torch.ones(pixels.shape[0], tokens, d))

    assert flops.vision_flops(Tower(), 1) >= 2 * tokens * (4 * d * d + 8 * d * d)
    assert torch.backends.mha.get_fastpath_enabled()  # restored for timed runs
