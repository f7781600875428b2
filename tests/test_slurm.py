"""The workflow through a real single-node SLURM (snakemake-executor-plugin-slurm and the
shipped profile), giving the same tables as a local run.

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
from pathlib import Path

import pytest


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
