"""Faults: a job that fails once is retried; a run killed mid-way (SIGKILL of Snakemake and of
a training job) completes on rerun with the same tables; a corrupt image or a truncated
Parquet input stops its rule with a message naming the file, and the rule's half-written
outputs are removed, so nothing downstream can read them.

All use the cut tiny config (tests.workflow_runs.cut_config): the session's local run of
it (the fixture `cut_run`) is the killed run, completed by its rerun (tests.killed_run), and
compares with a run nothing interrupted (the SLURM run where SLURM runs here).
"""

from __future__ import annotations

import filecmp
import re
from pathlib import Path

import pandas as pd
import pytest

from .workflow_runs import snakemake

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


def test_a_killed_run_completes_on_rerun_with_the_same_tables(cut_run, cut_run_killed,
                                                              uninterrupted_cut_run):
    """The session's local run of the cut config (tests.killed_run): Snakemake and the
    training job SIGKILLed in pretraining's first epoch; a plain rerun is refused (locked);
    after --unlock, --rerun-incomplete completes without redoing finished work, and its
    tables equal those of a run nothing interrupted."""
    work, _, _ = cut_run
    seen = cut_run_killed
    assert seen["caught_training"], "pretraining was never caught running:\n" + Path(
        seen["first_log"]).read_text()[-3000:]
    assert not seen["checkpoint_after_kill"], "the killed training job had finished"
    assert seen["refused_rc"] != 0 and "lock" in seen["refused_log"].lower(), \
        seen["refused_log"]
    assert seen["unlock_rc"] == 0, seen["unlock_log"]
    assert seen["rerun_rc"] == 0
    checkpoint = work / "results" / "checkpoints" / "world_clip" / "model.pt"
    assert checkpoint.exists()
    world = work / "results" / "data" / "world" / "images.parquet"
    assert world.stat().st_mtime_ns == seen["world_mtime_ns"], "finished work was redone"
    assert_same_tables(uninterrupted_cut_run, work)


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
