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
