"""Running the workflow from tests and benchmarks: the snakemake command (run, or started in
the background), the tiny end-to-end config, a cut of it, and the command that runs a config
through a local SLURM."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
TINY = REPO / "tests" / "data" / "tiny_config.yaml"
SLURM_START = REPO / "scripts" / "slurm" / "start.sh"
SLURM_STOP = REPO / "scripts" / "slurm" / "stop.sh"
NO_SLURM = REPO / "scripts" / "no_slurm"
SBATCH_SHIM = REPO / "tests" / "sbatch_log"
# What a user of this cluster changes in the shipped profiles/slurm (the CHANGE placeholders
# and the status command its comments name), as (file, shipped text, this cluster's text)
CLUSTER_NAMES = [
    # no accounts without an accounting database: the line is deleted, as its comment says
    ("config.yaml", "  slurm_account: myproject   # CHANGE (or delete where accounts are not"
                    " used)\n", ""),
    # sacct needs slurmdbd; squeue sees finished jobs for MinJobAge = 300 s (start.sh)
    ("config.yaml", "slurm-status-command: sacct\n", "slurm-status-command: squeue\n"),
    # the one partition, `debug`, takes the CPU partition's place; there is no GPU partition
    ("partitions.yaml", "  cpu:                      # CHANGE: your CPU partition\n",
     "  debug:\n"),
]


def cluster_profile(dest: Path) -> Path:
    """profiles/slurm as shipped, with only the names of this single-node SLURM
    (`CLUSTER_NAMES`) and its GPU partition removed (the cluster has none), in ``dest``."""
    import shutil

    shutil.copytree(REPO / "profiles" / "slurm", dest)
    for name, shipped, ours in CLUSTER_NAMES:
        text = (dest / name).read_text()
        assert text.count(shipped) == 1, f"profiles/slurm/{name} no longer has {shipped!r}"
        (dest / name).write_text(text.replace(shipped, ours))
    partitions = dest / "partitions.yaml"
    text = partitions.read_text()
    gpu = text.index("  gpu:                      # CHANGE: your GPU partition\n")
    partitions.write_text(text[:gpu])
    assert set(yaml.safe_load(partitions.read_text())["partitions"]) == {"debug"}
    return dest


def snakemake(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run Snakemake on this checkout's Snakefile with `cwd` as working folder."""
    return subprocess.run(snakemake_command(*args, cwd=cwd), cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=run_env())


def vlcomp(*args: str, cwd: Path, timeout: float = 900,
           env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess:
    """Run the ``vlcomp`` command (its module, with this interpreter) in ``cwd``, as
    workflow runs are run (`run_env`; ``env`` adds to it, or with None values removes)."""
    environment = run_env()
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return subprocess.run([sys.executable, "-m", "vlcomp.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=environment)


def snakemake_command(*args: str, cwd: Path) -> list[str]:
    return [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(cwd), *args]


@dataclass
class StartedRun:
    """A command started in the background (`start`), its output going to files beside its
    folder; `wait` gives its `subprocess.CompletedProcess` and the seconds it ran."""

    process: subprocess.Popen
    out: Path
    err: Path
    deadline: float
    started: float
    seconds: float | None = None

    def wait(self) -> subprocess.CompletedProcess:
        if self.seconds is None:
            try:
                self.process.wait(timeout=max(1.0, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise
            self.seconds = time.monotonic() - self.started  # at most the wait's lateness
        return subprocess.CompletedProcess(self.process.args, self.process.returncode,
                                           self.out.read_text(), self.err.read_text())

    def stop(self) -> None:
        """Kill it if it still runs (an interrupted session)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start(cmd: list[str], cwd: Path, timeout: float, slurm: bool = False,
          env: dict[str, str] | None = None) -> StartedRun:
    """Start `cmd` in `cwd` without waiting (stdout and stderr to ``cwd.name + .out/.err``
    beside `cwd`): the workflow runs of the test session overlap each other and the unit
    tests on the 2-core CI machines. ``env`` adds to (or, with None values, removes from)
    the run's environment."""
    out, err = cwd.with_name(cwd.name + ".out"), cwd.with_name(cwd.name + ".err")
    environment = run_env(slurm)
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    with open(out, "w") as o, open(err, "w") as e:
        process = subprocess.Popen(cmd, cwd=cwd, stdout=o, stderr=e, env=environment)
    now = time.monotonic()
    return StartedRun(process, out, err, now + timeout, now)


def run_env(slurm: bool = False) -> dict[str, str]:
    """The environment of workflow runs: the checkout on PYTHONPATH, so that jobs can import
    test models (tests.flaky_model) as a user's own package; for runs without SLURM, a
    `scontrol` that fails at once (scripts/no_slurm) ahead on PATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    if not slurm:
        env["PATH"] = os.pathsep.join([str(NO_SLURM), env.get("PATH", "")])
    return env


def sbatch_logged(env: dict[str, str], log: Path) -> dict[str, str]:
    """``env`` with an ``sbatch`` ahead on PATH that writes each call's arguments, one line
    each, to ``log`` and then submits through the real one (tests/sbatch_log)."""
    return {**env, "PATH": os.pathsep.join([str(SBATCH_SHIM), env.get("PATH", "")]),
            "VLCOMP_SBATCH_LOG": str(log)}


def offline_home(root: Path) -> dict[str, str | None]:
    """The environment of a compute node without network, under ``root``: a home that
    nothing can be written under (``home``, a file, not a folder: unwritable even for root,
    who ignores permission bits), the hub's and torch's caches inside it (so unusable), the
    hub libraries offline, and only Snakemake's own source cache elsewhere
    (``XDG_CACHE_HOME``: ``cache/``, which the test then finds holding nothing else)."""
    root.mkdir(parents=True, exist_ok=True)
    home = root / "home"
    home.write_text("")
    (root / "cache").mkdir(exist_ok=True)
    return {"HOME": str(home), "HF_HOME": str(home / "huggingface"),
            "TORCH_HOME": str(home / "torch"), "XDG_CACHE_HOME": str(root / "cache"),
            "HF_HUB_CACHE": None, "TRANSFORMERS_CACHE": None, "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def cut_config(path: Path) -> Path:
    """The tiny config cut to pretraining world CLIP and three benchmarks (VG-Relation,
    VG-Attribution, SugarCrepe, retrieval) with every table they feed, plus a model that
    fails once (tests.flaky_model): runs of it need retries."""
    cfg = yaml.safe_load(TINY.read_text())
    cfg["benchmarks"] = {b: cfg["benchmarks"][b] for b in
                         ("vg_relation", "vg_attribution", "sugarcrepe", "world_retrieval")}
    cfg["train"] = {"world_clip": cfg["train"]["world_clip"]}
    cfg["models"] = {"world_clip": cfg["models"]["world_clip"]}
    for key in ("generation", "detectors", "hard_negatives", "classification"):
        cfg.pop(key, None)
    # world CLIP again, as a user's own model whose first attempt fails (retries must save it),
    # its embeddings in 3 shards: the first shard to start fails once
    cfg["models"]["flaky"] = {
        "family": "python", "factory": "tests.flaky_model:build", "label": "CLIP (retried)",
        "files": ["results/checkpoints/world_clip/model.pt"],
        "options": {"marker": "flaky_model.failed"},
    }
    cfg["shards"] = {"counts": {"embed": {"flaky": 3}}}
    path.write_text(yaml.safe_dump(cfg))
    return path


def slurm_command(config: Path, work: Path, profile: Path, timeout_s: int) -> list[str]:
    """Snakemake through ``profile`` (``cluster_profile``: the shipped one with this cluster's
    names) on the single-node SLURM of scripts/slurm/start.sh, under a timeout that sends
    SIGINT (the plugin can wait forever on a job status it cannot read). Its requests
    (resources, groups, partitions, retries, jobs) are the profile's and the rules' own."""
    return [
        "timeout", "-s", "INT", str(timeout_s), str(SNAKEMAKE), "-s", str(REPO / "Snakefile"),
        "--directory", str(work), "--configfile", str(config), "--profile", str(profile),
        # poll often: jobs here take seconds (a real cluster keeps the defaults, 40 s and 10 s)
        "--slurm-init-seconds-before-status-checks", "2", "--seconds-between-status-checks", "2",
    ]
