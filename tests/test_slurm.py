"""The workflow through a real single-node SLURM (snakemake-executor-plugin-slurm and the
shipped profile), giving the same tables as a local run.

scripts/slurm/start.sh installs and starts SLURM (Debian packages, root); where it cannot,
the test is skipped with the reason. The daemons it started are stopped by pid afterwards.
The config is the tiny end-to-end one cut to the ARO/SugarCrepe/retrieval part (pretraining,
one fine-tuning run, 5 benchmarks, every table they feed; 32 jobs, ~45 s locally and ~225 s
through SLURM on this 2-core machine): every SLURM job pays a Snakemake start-up and status
polling, so the whole tiny DAG (207 jobs) would take most of CI's time.
"""

from __future__ import annotations

import filecmp
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from .conftest import REPO
from .workflow_runs import SNAKEMAKE, TINY, snakemake

START, STOP = REPO / "scripts" / "slurm" / "start.sh", REPO / "scripts" / "slurm" / "stop.sh"
# The node has 2 CPUs and ~24 GB: memory requests are scaled down for it.
SMALL_MEMORY = ["train_detectors", "trohn_img_negatives", "filter_generated", "embed_model",
                "embed_images", "train_clip", "score_pairs_and_metrics"]
TIMEOUT_S = 900  # SIGINT after this (the plugin can wait forever on an unknown job status)


def cut_config(path: Path) -> Path:
    """The tiny config with world CLIP, one CLIP-FT seed and the ARO-side benchmarks."""
    cfg = yaml.safe_load(TINY.read_text())
    cfg["benchmarks"] = {b: cfg["benchmarks"][b] for b in
                         ("vg_relation", "vg_attribution", "order", "sugarcrepe",
                          "world_retrieval")}
    cfg["train"] = {"world_clip": cfg["train"]["world_clip"],
                    "clip_ft": {**cfg["train"]["clip_ft"], "seeds": [0]}}
    cfg["models"] = {m: cfg["models"][m] for m in ("world_clip", "clip_ft")}
    for key in ("generation", "detectors", "hard_negatives"):
        cfg.pop(key, None)
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return cut_config(tmp_path_factory.mktemp("slurm-config") / "config.yaml")


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    state = tmp_path_factory.mktemp("slurm-state")
    started = subprocess.run(["bash", str(START), str(state)], capture_output=True, text=True,
                             timeout=600)
    if started.returncode == 3:
        pytest.skip(f"SLURM cannot be installed here: {started.stderr.strip()}")
    assert started.returncode == 0, started.stdout + started.stderr
    yield state
    subprocess.run(["bash", str(STOP), str(state)], check=False, timeout=60)


def timed(cmd: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S + 60)
    return result, time.perf_counter() - start


@pytest.fixture(scope="module")
def runs(slurm, config, tmp_path_factory):
    """(local folder, seconds), (SLURM folder, seconds, log) of the same config."""
    local = tmp_path_factory.mktemp("cut-local")
    start = time.perf_counter()
    result = snakemake("--cores", "2", "--configfile", str(config), cwd=local)
    local_s = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-4000:]
    work = tmp_path_factory.mktemp("cut-slurm")
    cmd = [
        "timeout", "-s", "INT", str(TIMEOUT_S), str(SNAKEMAKE), "-s", str(REPO / "Snakefile"),
        "--directory", str(work), "--configfile", str(config),
        # the shipped profile (executor, retries, job groups), with this cluster's values
        "--profile", str(REPO / "profiles" / "slurm"), "--jobs", "8",
        "--default-resources", "slurm_partition=debug", "mem_mb=1000", "runtime=30",
        "--set-resources", *(f"{rule}:mem_mb=4000" for rule in SMALL_MEMORY),
        "--slurm-init-seconds-before-status-checks", "2",
        "--slurm-status-command", "squeue",  # no accounting database here (MinJobAge 300)
    ]
    result, slurm_s = timed(cmd, work)
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    return (local, local_s), (work, slurm_s, result.stderr)


@pytest.mark.slow
def test_slurm_run_equals_the_local_run(runs):
    (local, local_s), (work, slurm_s, log) = runs
    print(f"same config: local {local_s:.0f} s, through SLURM {slurm_s:.0f} s")
    assert "has been submitted with SLURM jobid" in log
    ours, theirs = local / "results" / "tables", work / "results" / "tables"
    tables = sorted(str(p.relative_to(ours)) for p in ours.rglob("*.csv"))
    assert len(tables) >= 5
    assert tables == sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*.csv"))
    _, mismatch, errors = filecmp.cmpfiles(ours, theirs, tables, shallow=False)
    assert not mismatch and not errors, f"tables differ from the local run: {mismatch}"


@pytest.mark.slow
def test_small_jobs_are_bundled_and_rule_logs_survive(runs):
    """Metrics and tables go in groups; SLURM deletes its logs of successful jobs, and every
    rule's own log: file stays."""
    _, (work, _, log) = runs
    assert "group job" in log.lower() or "groupid" in log.lower()
    assert (work / "logs" / "train" / "world_clip.log").read_text().strip()
    assert not list(Path(work, "logs", "slurm").rglob("*.log"))
