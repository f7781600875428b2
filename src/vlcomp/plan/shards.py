"""How many shards each heavy job gets: fixed in config (``shards.counts``), or enough that no
shard runs longer than ``shards.max_job_hours`` by the job's estimated hours."""

from __future__ import annotations

import math
from typing import Any

DEFAULT_MAX_JOB_HOURS = 6.0
STAGES = ("embed", "generate", "retrieval", "llm_negatives", "train", "pairs", "rerank",
          "robustness_rerank")


def max_job_hours(config: dict[str, Any]) -> float:
    """The longest job an estimated shard count aims at (``shards.max_job_hours``)."""
    return float(config.get("shards", {}).get("max_job_hours", DEFAULT_MAX_JOB_HOURS))


def configured_count(config: dict[str, Any], stage: str, name: str) -> int | None:
    """The shard count config fixes for one job of a stage (a number for the whole stage, or
    one per name), or None."""
    if stage not in STAGES:
        raise ValueError(f"unknown sharded stage {stage!r} (one of {STAGES})")
    counts = config.get("shards", {}).get("counts", {}).get(stage)
    if isinstance(counts, dict):
        return counts.get(name)
    return counts


def stage_shards(config: dict[str, Any], stage: str, name: str, job_hours: float) -> int:
    """Shards of one job of a stage: config's count, else ``ceil(job_hours /
    max_job_hours)`` (at least 1)."""
    fixed = configured_count(config, stage, name)
    if fixed is not None:
        return int(fixed)
    return max(1, math.ceil(job_hours / max_job_hours(config)))
