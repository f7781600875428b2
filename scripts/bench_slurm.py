"""Wall time of a config run locally and through a real single-node SLURM on this machine
(scripts/slurm/start.sh, the shipped profiles/slurm with this cluster's names), and whether
their tables are equal.

    .venv/bin/python scripts/bench_slurm.py [--config tests/data/tiny_config.yaml]
        [--cut] [--keep DIR]

Starts SLURM (root, Debian packages), stops what it started at the end.
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.workflow_runs import (  # noqa: E402
    SLURM_START,
    SLURM_STOP,
    TINY,
    cluster_profile,
    cut_config,
    run_env,
    slurm_command,
    snakemake,
)


def tables_equal(a: Path, b: Path) -> tuple[int, list[str]]:
    """(number of tables, those that differ or are missing) under results/tables."""
    ours = sorted(str(p.relative_to(a)) for p in a.rglob("*.csv"))
    theirs = sorted(str(p.relative_to(b)) for p in b.rglob("*.csv"))
    _, mismatch, errors = filecmp.cmpfiles(a, b, ours, shallow=False)
    return len(ours), sorted(set(mismatch + errors) | set(ours).symmetric_difference(theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", type=Path, default=TINY)
    parser.add_argument("--cut", action="store_true", help="the cut config of tests/test_slurm.py")
    parser.add_argument("--timeout", type=int, default=3600)
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-slurm-"))
    root.mkdir(parents=True, exist_ok=True)
    config = cut_config(root / "cut.yaml") if args.cut else args.config.resolve()
    local, cluster, state = root / "local", root / "slurm", root / "slurm-state"
    for d in (local, cluster):
        d.mkdir(exist_ok=True)

    start = time.perf_counter()
    result = snakemake("--cores", "2", "--retries", "1", "--configfile", str(config), cwd=local,
                       timeout=args.timeout)
    local_s = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"local run failed:\n{result.stderr[-3000:]}")
    jobs = result.stderr.count("localrule ") + result.stderr.count("\nrule ")
    print(f"local:  {local_s:7.0f} s  ({jobs} jobs, --cores 2)", flush=True)

    started = subprocess.run(["bash", str(SLURM_START), str(state)], capture_output=True,
                             text=True)
    if started.returncode:
        sys.exit(f"SLURM did not start: {started.stderr}")
    try:
        start = time.perf_counter()
        profile = cluster_profile(root / "profile" / "slurm")
        result = subprocess.run(slurm_command(config, cluster, profile, args.timeout),
                                cwd=cluster, capture_output=True, text=True,
                                env=run_env(slurm=True))
        slurm_s = time.perf_counter() - start
    finally:
        subprocess.run(["bash", str(SLURM_STOP), str(state)], check=False)
    (root / "slurm.log").write_text(result.stderr)
    if result.returncode:
        sys.exit(f"SLURM run failed (log: {root / 'slurm.log'}):\n{result.stderr[-3000:]}")
    submissions = result.stderr.count("has been submitted with SLURM jobid")
    print(f"SLURM:  {slurm_s:7.0f} s  ({submissions} sbatch submissions, the shipped profile)")
    n, differ = tables_equal(local / "results" / "tables", cluster / "results" / "tables")
    print(f"tables: {n} local, " + ("all byte-equal" if not differ else f"differ: {differ}"))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
