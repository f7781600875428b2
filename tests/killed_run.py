"""A run killed mid-way, then completed: the session's local run of the cut config.

``python -m tests.killed_run CONFIG WORK OBSERVED`` starts Snakemake on CONFIG in WORK, waits
until pretraining is in its first epoch, kills Snakemake and the training job (SIGKILL, as a
node failure or an out-of-memory kill would), tries a plain rerun (refused: the folder is
locked), unlocks it and reruns with ``--rerun-incomplete`` to the end. What it saw on the way
goes to OBSERVED (JSON, `observe`); the completing rerun's Snakemake log is this command's
stderr. So one run of the cut config serves both the tests of a killed run and those that
need a finished local run (tests/conftest.py `cut_run`), instead of two runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .workflow_runs import run_env, snakemake, snakemake_command

TRAIN_LOG = Path("logs", "train", "world_clip.log")
CHECKPOINT = Path("results", "checkpoints", "world_clip", "model.pt")
WORLD = Path("results", "data", "world", "images.parquet")


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


def kill_in_first_epoch(config: Path, work: Path, first_log: Path,
                        timeout_s: float = 600) -> bool:
    """Start the run, and SIGKILL it and its training job once pretraining logs a loss in
    its first epoch (of two); False if it was never caught training (the run is then left
    to finish)."""
    cmd = snakemake_command("--cores", "2", "--retries", "1", "--configfile", str(config),
                            cwd=work)
    with open(first_log, "w") as out:
        run = subprocess.Popen(cmd, cwd=work, stdout=out, stderr=out, env=run_env(),
                               start_new_session=True)
    train_log = work / TRAIN_LOG
    deadline, trainer = time.monotonic() + timeout_s, []
    while not trainer and time.monotonic() < deadline and run.poll() is None:
        text = train_log.read_text() if train_log.exists() else ""
        if "epoch 1/2" in text and "loss=" in text:
            trainer = processes_with_open(train_log)
        time.sleep(0.02)
    if not trainer:
        run.wait()
        return False
    os.kill(run.pid, signal.SIGKILL)
    for pid in trainer:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    os.killpg(run.pid, signal.SIGKILL)  # and whatever else it had running
    run.wait()
    return True


def observe(config: Path, work: Path) -> dict[str, object]:
    """Kill, refused rerun, unlock, completing rerun (its log to stderr): what each step
    showed."""
    first_log = work.with_name(work.name + ".first.log")
    seen: dict[str, object] = {"caught_training": kill_in_first_epoch(config, work, first_log),
                               "first_log": str(first_log)}
    seen["checkpoint_after_kill"] = (work / CHECKPOINT).exists()
    seen["world_mtime_ns"] = (work / WORLD).stat().st_mtime_ns if (work / WORLD).exists() \
        else None
    refused = snakemake("--cores", "2", "--configfile", str(config), cwd=work)
    seen["refused_rc"], seen["refused_log"] = refused.returncode, refused.stderr[-2000:]
    unlocked = snakemake("--unlock", "--configfile", str(config), cwd=work)
    seen["unlock_rc"], seen["unlock_log"] = unlocked.returncode, unlocked.stderr[-2000:]
    rerun = subprocess.run(
        snakemake_command("--cores", "2", "--retries", "1", "--rerun-incomplete",
                          "--configfile", str(config), cwd=work),
        cwd=work, env=run_env(), stdout=sys.stdout, stderr=sys.stderr)
    seen["rerun_rc"] = rerun.returncode
    return seen


def main(argv: list[str]) -> int:
    config, work, observed = (Path(a) for a in argv)
    seen = observe(config, work)
    observed.write_text(json.dumps(seen, indent=1))
    return int(seen["rerun_rc"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
