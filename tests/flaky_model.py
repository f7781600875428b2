"""A model of one's own (family `python`) whose first build fails, as a job hit by a transient
fault would (a busy GPU, a file-system hiccup): the retry tests' model. Later builds load the
checkpoint named in `files`, so its scores are world CLIP's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlcomp.models.registry import build_checkpoint_scorer


def build(name: str, entry: dict[str, Any], device: str = "cpu") -> Any:
    marker = Path(entry["options"]["marker"])
    if not marker.exists():
        marker.write_text("the first attempt failed on purpose\n")
        raise RuntimeError(f"model {name!r}: transient fault injected (first attempt)")
    return build_checkpoint_scorer(name, {"path": entry["files"][0]}, device)
