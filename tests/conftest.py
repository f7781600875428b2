"""Shared fixtures: a small world configuration and its scenes."""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny end-to-end config run locally once per session (its folder)."""
    from .workflow_runs import TINY, snakemake

    work = tmp_path_factory.mktemp("tiny")
    # ~255 jobs: about 10 minutes on a slow 2-core machine, so the limit leaves room for one
    # twice as slow
    result = snakemake("--cores", "2", "--configfile", str(TINY), cwd=work, timeout=1800)
    assert result.returncode == 0, result.stderr[-4000:]
    return work


@pytest.fixture(scope="session")
def cut_config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny config cut to its ARO side (tests.workflow_runs.cut_config)."""
    from .workflow_runs import cut_config

    return cut_config(tmp_path_factory.mktemp("cut-config") / "config.yaml")


@pytest.fixture(scope="session")
def cut_run(tmp_path_factory: pytest.TempPathFactory,
            cut_config_file: Path) -> tuple[Path, float, str]:
    """The cut config run locally, uninterrupted but for its flaky model's retry, once per
    session: (folder, seconds, Snakemake's log)."""
    import time

    from .workflow_runs import snakemake

    work = tmp_path_factory.mktemp("cut-local")
    start = time.perf_counter()
    result = snakemake("--cores", "2", "--retries", "1", "--configfile", str(cut_config_file),
                       cwd=work)
    assert result.returncode == 0, result.stderr[-4000:]
    return work, time.perf_counter() - start, result.stderr
