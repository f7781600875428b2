"""Shared fixtures: a small world configuration and its scenes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from vlcomp.world.config import WorldConfig

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def world_cfg() -> WorldConfig:
    return WorldConfig(splits={"train": 40, "val": 10, "test": 60})


@pytest.fixture(scope="session")
def world_dir(tmp_path_factory: pytest.TempPathFactory, world_cfg: WorldConfig) -> Path:
    """The small world built once per session: images/, images.parquet, captions.parquet,
    scenes.jsonl."""
    from vlcomp.data.world import build_world

    d = tmp_path_factory.mktemp("world")
    build_world(world_cfg, d / "images", d / "images.parquet", d / "captions.parquet",
                d / "scenes.jsonl")
    return d


# The session's workflow runs are processes that their fixtures wait for. The SLURM run starts
# in the background when the first test starts (`started_runs`): it mostly waits on status
# checks, so it overlaps the unit tests almost for free. The local runs (`AHEAD`) start one at
# a time, in the order the session's tests first need them: each when a test first needs it
# or, ahead of need, at a test's start when no other local run is going (`SessionRuns.advance`).
# Started all at once they oversubscribed the 2 cores (the suite 755 -> 848 s on a fast host);
# alone, each kept the cores ~1.8 busy while the unit tests between them kept ~1.0 busy (the
# suite averaged 1.63 of 2 cores on the slow AMD host): one run beside the unit tests fills them.
EARLY_RUNS = ("slurm_run",)
AHEAD = ("cut_run", "cpu_check", "real_run", "tiny_run")
SLURM_TIMEOUT_S = 900  # SIGINT after this (the plugin can wait forever on an unknown status)


@pytest.fixture(scope="session")
def cut_config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny config cut to its ARO side (tests.workflow_runs.cut_config)."""
    from .workflow_runs import cut_config

    return cut_config(tmp_path_factory.mktemp("cut-config") / "config.yaml")


class SessionRuns:
    """The session's background runs, started on request (`get`), stopped at its end."""

    def __init__(self, factory: pytest.TempPathFactory, cut_config: Path,
                 ahead: Sequence[str] = ()) -> None:
        self.factory, self.cut_config = factory, cut_config
        self.ahead = tuple(ahead)  # local runs to start ahead of need, in this order
        self.runs: dict[str, object] = {}
        self.slurm_state: Path | None = None

    def start(self, name: str) -> None:
        """Start the run of fixture `name` unless started; a failure to start is kept for
        that fixture to raise."""
        if name not in self.runs:
            try:
                self.runs[name] = getattr(self, f"_start_{name}")()
            except Exception as error:
                self.runs[name] = error

    def advance(self) -> None:
        """Start the next of `ahead` not yet started, unless a local run is going."""
        if any(run.process.poll() is None for name in self.runs if name not in EARLY_RUNS
               for run in self._processes(name)):
            return
        following = next((n for n in self.ahead if n not in self.runs), None)
        if following is not None:
            self.start(following)

    def _processes(self, name: str) -> list:
        """The `StartedRun`s of run `name` (none if it failed to start or is a reason to
        skip)."""
        from .workflow_runs import StartedRun

        found = self.runs.get(name)
        return [part for part in (found if isinstance(found, tuple) else ())
                if isinstance(part, StartedRun)]

    def get(self, name: str):
        """The started run of fixture `name` (started now if it was not)."""
        self.start(name)
        found = self.runs[name]
        if isinstance(found, Exception):
            raise found
        return found

    def _start_local(self, folder: str, config: Path, timeout: float):
        """A local run of ``config`` in a new folder: (folder, started run)."""
        from .workflow_runs import snakemake_command, start

        work = self.factory.mktemp(folder)
        # --retries 1 as the shipped profiles: a light job once died of SIGABRT at
        # interpreter exit ("terminate called without an active exception") after writing
        # its outputs, under a loaded machine
        return work, start(snakemake_command("--cores", "2", "--retries", "1", "--configfile",
                                             str(config), cwd=work), work, timeout=timeout)

    def _start_tiny_run(self):
        from .workflow_runs import TINY

        return self._start_local("tiny", TINY, timeout=1800)

    def _start_cut_run(self):
        """Killed in pretraining's first epoch, then rerun to the end (tests.killed_run)."""
        import sys

        from .workflow_runs import start

        work = self.factory.mktemp("cut-local")
        observed = work.with_name(work.name + ".killed.json")
        return work, observed, start([sys.executable, "-m", "tests.killed_run",
                                      str(self.cut_config), str(work), str(observed)],
                                     work, timeout=1200)

    def _start_uninterrupted_cut_run(self):
        return self._start_local("cut-uninterrupted", self.cut_config, timeout=900)

    def _start_cpu_check(self):
        from .gpu_check_run import start_cpu_check

        folder = self.factory.mktemp("gpu_check")
        return folder, start_cpu_check(folder)

    def _start_real_run(self):
        """Fetched from the mirror, then run as on a node without network: an empty,
        read-only home and the hub libraries offline (every model comes from resources/)."""
        from .paper_run import prepare_paper_run
        from .workflow_runs import offline_home, snakemake_command, start

        root = self.factory.mktemp("real")
        config = prepare_paper_run(root)
        work = root / "work"
        work.mkdir()
        return work, config, start(snakemake_command("--cores", "2", "--retries", "1",
                                                     "--configfile", str(config), cwd=work),
                                   work, timeout=1800, env=offline_home(root / "node"))

    def _start_slurm_run(self):
        """scripts/slurm/start.sh installs and starts a single-node SLURM (root, Debian);
        where it cannot, the run is the reason to skip."""
        import subprocess

        from .workflow_runs import (
            SLURM_START,
            cluster_profile,
            run_env,
            sbatch_logged,
            slurm_command,
            start,
        )

        self.slurm_state = self.factory.mktemp("slurm-state")
        started = subprocess.run(["bash", str(SLURM_START), str(self.slurm_state)],
                                 capture_output=True, text=True, timeout=600)
        if started.returncode == 3:
            return f"SLURM cannot be installed here: {started.stderr.strip()}"
        assert started.returncode == 0, started.stdout + started.stderr
        work = self.factory.mktemp("cut-slurm")
        profile = cluster_profile(self.factory.mktemp("profile") / "slurm")
        env = sbatch_logged(run_env(slurm=True), work.with_name(work.name + ".sbatch"))
        return work, start(slurm_command(self.cut_config, work, profile, SLURM_TIMEOUT_S),
                           work, timeout=SLURM_TIMEOUT_S + 60, slurm=True, env=env)

    def stop(self) -> None:
        import subprocess

        from .workflow_runs import SLURM_STOP

        for name in self.runs:
            for run in self._processes(name):
                run.stop()
        if self.slurm_state is not None:
            subprocess.run(["bash", str(SLURM_STOP), str(self.slurm_state)], check=False,
                           timeout=60)


@pytest.fixture(scope="session", autouse=True)
def started_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 cut_config_file: Path):
    """Starts, before the first test, the early runs (`EARLY_RUNS`) the session's tests
    need; the local ones (`AHEAD`) start when first needed or ahead of need (`runs_ahead`)."""
    needed = [n for item in request.session.items for n in getattr(item, "fixturenames", ())]
    runs = SessionRuns(tmp_path_factory, cut_config_file,
                       ahead=sorted(set(needed) & set(AHEAD), key=needed.index))
    for name in EARLY_RUNS:
        if name in needed:
            runs.start(name)
    yield runs
    runs.stop()


@pytest.fixture(autouse=True)
def runs_ahead(started_runs: SessionRuns) -> None:
    """At each test's start, the next local run the session needs, if none is going."""
    started_runs.advance()


@pytest.fixture(scope="session")
def tiny_run(started_runs: SessionRuns) -> Path:
    """The tiny end-to-end config run locally once per session (its folder)."""
    work, run = started_runs.get("tiny_run")
    result = run.wait()
    assert result.returncode == 0, result.stderr[-4000:]
    return work


@pytest.fixture(scope="session")
def cut_run(started_runs: SessionRuns) -> tuple[Path, float, str]:
    """The cut config run locally once per session, killed in pretraining and rerun to the
    end (tests.killed_run; its flaky model's retry happens in the rerun): (folder, seconds of
    both, the completing rerun's Snakemake log)."""
    work, _, run = started_runs.get("cut_run")
    result = run.wait()
    assert result.returncode == 0, result.stderr[-4000:]
    return work, run.seconds, result.stderr


@pytest.fixture(scope="session")
def cut_run_killed(cut_run, started_runs: SessionRuns) -> dict[str, object]:
    """What `cut_run` showed between its kill and its completing rerun (tests.killed_run)."""
    import json

    _, observed, _ = started_runs.get("cut_run")
    return json.loads(observed.read_text())


@pytest.fixture(scope="session")
def uninterrupted_cut_run(request: pytest.FixtureRequest, started_runs: SessionRuns) -> Path:
    """A run of the cut config that nothing interrupted (its folder): the SLURM run where
    SLURM runs here, else a local run started for it."""
    found = started_runs.get("slurm_run")
    if not isinstance(found, str):
        return request.getfixturevalue("slurm_run")[0]
    work, run = started_runs.get("uninterrupted_cut_run")
    result = run.wait()
    assert result.returncode == 0, result.stderr[-4000:]
    return work


@pytest.fixture(scope="session")
def real_run(started_runs: SessionRuns) -> tuple[Path, Path]:
    """config/paper.yaml on the real-format mirror with tiny models (tests/paper_run.py):
    (folder, configuration file)."""
    work, config, run = started_runs.get("real_run")
    result = run.wait()
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    return work, config


@pytest.fixture(scope="session")
def slurm_run(started_runs: SessionRuns) -> tuple[Path, float, str]:
    """The cut config through the shipped SLURM profile on a single-node SLURM: (folder,
    seconds, Snakemake's log); skipped where SLURM cannot be installed."""
    found = started_runs.get("slurm_run")
    if isinstance(found, str):
        pytest.skip(found)
    work, run = found
    result = run.wait()
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:] + slurm_state()
    return work, run.seconds, result.stderr


def slurm_state() -> str:
    """What the local SLURM says of its node and jobs, and its controller log's tail, for the
    message of a failed SLURM run."""
    import subprocess

    said = [subprocess.run(cmd, capture_output=True, text=True, check=False)
            for cmd in (["sinfo"], ["squeue", "-t", "all"],
                        ["tail", "-n", "30", "/var/log/slurm/slurmctld.log"])]
    return "\n\nSLURM:\n" + "\n".join(r.stdout + r.stderr for r in said)
