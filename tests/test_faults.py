"""Faults: a job that fails once is retried; a run killed mid-way (SIGKILL of Snakemake and of
a training job) completes on rerun with the same tables; a corrupt image or a truncated
Parquet input stops its rule with a message naming the file, and the rule's half-written
outputs are removed, so nothing downstream can read them.

All use the cut tiny config (tests.workflow_runs.cut_config) and compare with its
uninterrupted local run (the session fixture `cut_run`).
"""

from __future__ import annotations

import filecmp
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from .workflow_runs import REPO, SNAKEMAKE, run_env, snakemake

pytestmark = pytest.mark.slow


def tables(work: Path) -> list[str]:
    return sorted(str(p.relative_to(work / "results" / "tables"))
                  for p in (work / "results" / "tables").rglob("*.csv"))


def assert_same_tables(reference: Path, work: Path) -> None:
    names = tables(reference)
    assert len(names) >= 5 and names == tables(work)
    _, mismatch, errors = filecmp.cmpfiles(reference / "results" / "tables",
                                           work / "results" / "tables", names, shallow=False)
    assert not mismatch and not errors, f"tables differ from the uninterrupted run: {mismatch}"


def flaky_requests(log: str) -> dict[str, list[dict[str, int]]]:
    """The ``mem_mb`` and ``runtime`` requests of each start of the flaky model's embedding
    shards, by shard, from Snakemake's log."""
    out: dict[str, list[dict[str, int]]] = {}
    for shard, resources in re.findall(
            r"wildcards: model=flaky, shard=(\S+)\n\s+resources: (.*)", log):
        values = dict(part.split("=", 1) for part in resources.split(", "))
        out.setdefault(shard, []).append({k: int(values[k]) for k in ("mem_mb", "runtime")})
    return out


def test_a_job_that_fails_once_is_retried(cut_run):
    work, _, log = cut_run
    assert (work / "flaky_model.failed").exists()
    assert "transient fault injected" in log and "Trying to restart job" in log
    # the retry asks for more: twice the memory and time of the first attempt
    starts = flaky_requests(log)
    retried = [runs for runs in starts.values() if len(runs) == 2]
    assert len(starts) == 3 and len(retried) == 1, starts
    first, second = retried[0]
    assert second == {k: 2 * v for k, v in first.items()}
    # the retried model is world CLIP under another name: its scores are world CLIP's
    aro = pd.read_csv(work / "results" / "tables" / "aro" / "aro.csv", index_col=0)
    assert {"CLIP", "CLIP (retried)"} <= set(aro.index)
    pd.testing.assert_series_equal(aro.loc["CLIP"], aro.loc["CLIP (retried)"], check_names=False)


def processes_with_open(path: Path) -> list[int]:
    """Pids of processes holding `path` open (a job's log: its job_log)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) == str(path) for fd in (proc / "fd").iterdir()):
                pids.append(int(proc.name))
        except OSError:  # gone, or not ours to read
            continue
    return pids


def test_a_killed_run_completes_on_rerun_with_the_same_tables(cut_run, cut_config_file,
                                                              tmp_path):
    reference, _, _ = cut_run
    work = tmp_path
    cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(work),
           "--cores", "2", "--retries", "1", "--configfile", str(cut_config_file)]
    with open(tmp_path / "first.log", "w") as out:
        run = subprocess.Popen(cmd, cwd=work, stdout=out, stderr=out, env=run_env(),
                               start_new_session=True)
    # wait until pretraining is in its first epoch (of two), then kill it and Snakemake
    train_log = work / "logs" / "train" / "world_clip.log"
    deadline, trainer = time.monotonic() + 600, []
    while not trainer and time.monotonic() < deadline and run.poll() is None:
        text = train_log.read_text() if train_log.exists() else ""
        if "epoch 1/2" in text and "loss=" in text:
            trainer = processes_with_open(train_log)
        time.sleep(0.02)
    assert trainer, "pretraining was never caught running:\n" + (
        tmp_path / "first.log").read_text()[-3000:]
    os.kill(run.pid, signal.SIGKILL)
    for pid in trainer:
        os.kill(pid, signal.SIGKILL)
    os.killpg(run.pid, signal.SIGKILL)  # and whatever else it had running
    run.wait()
    checkpoint = work / "results" / "checkpoints" / "world_clip" / "model.pt"
    assert not checkpoint.exists(), "the killed training job had finished"
    world = work / "results" / "data" / "world" / "images.parquet"
    world_mtime = world.stat().st_mtime_ns

    refused = snakemake("--cores", "2", "--configfile", str(cut_config_file), cwd=work)
    assert refused.returncode != 0 and "lock" in refused.stderr.lower(), refused.stderr[-2000:]
    unlocked = snakemake("--unlock", "--configfile", str(cut_config_file), cwd=work)
    assert unlocked.returncode == 0, unlocked.stderr[-2000:]
    rerun = snakemake("--cores", "2", "--retries", "1", "--rerun-incomplete",
                      "--configfile", str(cut_config_file), cwd=work)
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    assert checkpoint.exists()
    assert world.stat().st_mtime_ns == world_mtime, "finished work was redone"
    assert_same_tables(reference, work)


def corrupt(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def leftovers(folder: Path) -> list[Path]:
    """Temporary files of atomic writes (".name.xxxx.ext") left under `folder`."""
    return [p for p in folder.rglob(".*") if p.is_file() and not p.name.startswith(".snakemake")]


def test_corrupt_inputs_stop_their_rule_naming_the_file(cut_config_file, tmp_path):
    work = tmp_path
    built = snakemake("results/data/world/images.parquet", "--cores", "2",
                      "--configfile", str(cut_config_file), cwd=work)
    assert built.returncode == 0, built.stderr[-3000:]
    images = pd.read_parquet(work / "results" / "data" / "world" / "images.parquet")
    bad_image = work / images[images.split == "test"].path.iloc[-1]  # the last crops' source
    corrupt(bad_image)
    captions = work / "results" / "data" / "world" / "captions.parquet"
    corrupt(captions)

    crops = snakemake("results/benchmarks/vg_relation.parquet", "--cores", "1",
                      "--configfile", str(cut_config_file), cwd=work)
    assert crops.returncode != 0
    assert f"cannot read image {bad_image.relative_to(work)}" in crops.stderr
    assert f"cannot read image {bad_image.relative_to(work)}" in (
        work / "logs" / "benchmarks" / "aro_vg.log").read_text()
    # aro_vg had written crops of the earlier scenes: Snakemake removed its outputs
    assert not (work / "results" / "images" / "vg_crops").exists()
    assert not list((work / "results" / "benchmarks").glob("vg_*.parquet"))

    queries = snakemake("results/benchmarks/world_retrieval/queries.parquet", "--cores", "1",
                        "--configfile", str(cut_config_file), cwd=work)
    assert queries.returncode != 0
    assert "cannot read Parquet file results/data/world/captions.parquet" in queries.stderr
    assert not (work / "results" / "benchmarks" / "world_retrieval").exists() or not list(
        (work / "results" / "benchmarks" / "world_retrieval").iterdir())
    assert not leftovers(work / "results")
    assert not (work / "results" / "tables").exists()
