"""The workflow through a real single-node SLURM (snakemake-executor-plugin-slurm and the
shipped profile), giving the same tables as a local run.

The profile runs as shipped: only the names a user of this cluster changes are substituted
(tests.workflow_runs.CLUSTER_NAMES: its one partition `debug` for the CPU partition, no GPU
partition, no account, `squeue` for `sacct` without an accounting database); every request
(resources, groups, partition choice, retries, jobs) is the profile's and the rules' own. The
command line adds only faster status polling (2 s; jobs here take seconds).

scripts/slurm/start.sh installs and starts SLURM (Debian packages, root); where it cannot,
the test is skipped with the reason. The daemons it started are stopped by pid at the
session's end.
The config is the tiny end-to-end one cut to the ARO/SugarCrepe/retrieval part (pretraining,
4 benchmarks, a model that fails once, every table they feed): every
SLURM job pays a Snakemake start-up and status polling, so the whole tiny DAG would take
most of CI's time (scripts/bench_slurm.py measures it).
"""

from __future__ import annotations

import filecmp
import re
import shutil
from pathlib import Path

import pytest
import yaml


@pytest.fixture(scope="module")
def runs(slurm_run, cut_run):
    """(local folder, seconds), (SLURM folder, seconds, log) of the same config (both runs
    start with the session: tests/conftest.py)."""
    local, local_s, _ = cut_run
    return (local, local_s), slurm_run


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
    kept = list(Path(work, "logs", "slurm").rglob("*.log"))
    # only the failed first attempt of one of the flaky model's embedding shards keeps its
    # SLURM log
    assert len(kept) == 1 and "rule_embed_model_shard" in str(kept[0]), kept


@pytest.mark.slow
def test_a_job_that_fails_once_is_retried_through_slurm(runs):
    """The flaky model's embeddings run in 3 shards (tests.workflow_runs.cut_config); the
    shard that starts first fails, the profile's `retries: 1` resubmits it alone, and the
    joined embeddings are world CLIP's, byte for byte."""
    _, (work, _, log) = runs
    assert (work / "flaky_model.failed").exists()
    assert log.count("Trying to restart job") == 1
    assert log.count("Error in rule embed_model_shard") == 1
    assert len(re.findall(r"wildcards: model=flaky, shard=\d-of-3", log)) >= 3
    ours = work / "results" / "embeddings"
    for npy in (ours / "world_clip").rglob("*.npy"):
        twin = ours / "flaky" / npy.relative_to(ours / "world_clip")
        assert twin.read_bytes() == npy.read_bytes(), twin


@pytest.mark.slow
def test_the_shipped_profile_books_no_gpu_for_the_default_configuration(runs):
    """The default configuration's jobs (no GPU) through profiles/slurm with only this
    cluster's names changed: the plugin sends every submission to the CPU partition (`debug`,
    from partitions.yaml), none asks for a GPU, and the requests are the rules' and the
    profile's own (a metrics group: the profile's `cores: 8` CPUs)."""
    _, (work, _, log) = runs
    calls = work.with_name(work.name + ".sbatch").read_text().splitlines()
    assert len(calls) == log.count("has been submitted with SLURM jobid") >= 10
    for call in calls:
        assert " -p debug" in call, call
        assert "--gpus" not in call and "gres" not in call, call
        assert re.search(r" -t \d+", call) and re.search(r" --mem \d+", call), call
    grouped = [c for c in calls if "--cpus-per-task=8" in c or "--cpus-per-task 8" in c]
    assert grouped, "no group job asked for the profile's 8 cores"


def _preflight(*args: str, cwd: Path):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "vlcomp.cli", "preflight", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_preflight_names_the_shipped_profiles_placeholders_on_this_cluster(slurm_run,
                                                                           tmp_path):
    """The paper configuration against the shipped profile on this single-node SLURM (one
    partition, `debug`, no GPUs, no accounting database): the placeholders line names the
    partition file's `cpu` and `gpu`, which this cluster lacks; with the names changed the
    default configuration has no blocker, and the paper's GPU jobs have no GPU partition."""
    from .conftest import REPO

    profile = REPO / "profiles" / "slurm"
    shipped = _preflight("--configfile", str(REPO / "config" / "paper.yaml"), "--profile",
                         str(profile), cwd=tmp_path)
    out = shipped.stdout
    assert shipped.returncode == 1, out + shipped.stderr
    print(out)
    assert "  ok       cluster" in out and "partitions: debug*" in out
    placeholders = next(line for line in out.splitlines() if " placeholders " in line)
    assert placeholders.split("  placeholders", 1)[1].strip() == (
        "still to change (the cluster has no such name): partitions.yaml: partition 'cpu'; "
        "partitions.yaml: partition 'gpu'")
    assert "  missing  account" in out  # sacctmgr needs slurmdbd: not known, not a blocker
    # the names changed as a user would: the CPU partition is debug, no GPU partition
    mine = tmp_path / "slurm"
    shutil.copytree(profile, mine)
    parts = yaml.safe_load((mine / "partitions.yaml").read_text())
    parts["partitions"] = {"debug": parts["partitions"]["cpu"]}
    (mine / "partitions.yaml").write_text(yaml.safe_dump(parts))
    default = _preflight("--profile", str(mine), cwd=tmp_path)
    assert default.returncode == 0, default.stdout + default.stderr
    assert "no job asks for a GPU" in default.stdout
    paper = _preflight("--configfile", str(REPO / "config" / "paper.yaml"), "--profile",
                       str(mine), cwd=tmp_path)
    gpu = next(line for line in paper.stdout.splitlines() if "GPU routing" in line)
    assert " blocker " in gpu and "→ debug" in gpu
