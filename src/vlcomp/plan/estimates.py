"""A heavy job's expected items, hours, shards and per-shard resource requests.

`stage_job` is the one place these come from: the rules read their shard counts and their
``runtime`` / ``mem_mb`` requests from it, and the plan command (``python -m vlcomp.plan``)
its items and hours, so that what SLURM is asked for and what the plan prints agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from vlcomp.config import expand_models
from vlcomp.plan.costs import cost, model_scale
from vlcomp.plan.shards import stage_shards
from vlcomp.plan.sizes import embedding_items

# what a request adds to the estimate: model loading and start-up, and a safety factor
START_MINUTES = 10
SAFETY = 1.5
# host memory (MB) a job of a stage asks for, by model scale
MEMORY_MB = {("embed", "world"): 4000, ("embed", "base"): 16000, ("embed", "large"): 32000}


@dataclass(frozen=True)
class StageJob:
    """One heavy job of a stage, before sharding: its items, device and hours."""

    stage: str
    name: str
    items: int
    device: str
    hours: float
    shards: int
    mem_mb: int

    @property
    def shard_hours(self) -> float:
        """Estimated hours of each shard."""
        return self.hours / self.shards

    @property
    def runtime(self) -> int:
        """A shard's ``runtime`` request (minutes): its estimate with a safety factor, plus
        start-up."""
        return math.ceil(self.shard_hours * 60 * SAFETY) + START_MINUTES


def stage_job(config: dict[str, Any], stage: str, name: str,
              entry: dict[str, Any] | None = None) -> StageJob:
    """The job of ``stage`` (``embed``: a model's embedding job) for ``name`` (a model, whose
    expanded entry may be given)."""
    if stage != "embed":
        raise ValueError(f"no estimate for stage {stage!r}")
    entry = entry if entry is not None else expand_models(config)[name]
    scale = model_scale(entry, world="world" in config)
    images, texts = embedding_items(config)
    image_cost, text_cost = cost("embed_image", scale), cost("embed_text", scale)
    hours = (images * image_cost.seconds + texts * text_cost.seconds) / 3600
    return StageJob(stage, name, images + texts, image_cost.device, hours,
                    stage_shards(config, stage, name, hours), MEMORY_MB[(stage, scale)])
