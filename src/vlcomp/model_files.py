"""The files and folders a model entry names, and the researcher's own that are missing.

A model reads hub snapshots and open_clip tags (pinned downloads, `vlcomp.pins`), files under
``resources/`` (downloads and manual downloads, made or checked by their rules), files under
``results/`` (what the workflow trains) and files of one's own. Only the last have no rule
behind them: one that does not exist is an error of the configuration, raised before a run
plans anything, whether or not earlier results exist (a finished folder would otherwise keep
its tables and leave the model out without a word).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vlcomp.models.hub import is_hub_id
from vlcomp.models.open_clip_weights import is_tag

__all__ = ["MODEL_FILE_KEYS", "WORKFLOW_FOLDERS", "missing_own_files", "named_files"]

# entry keys that may name a file or folder a model reads
MODEL_FILE_KEYS = ("path", "pretrained", "config", "vision_config", "text_config", "lm_head",
                   "model", "tokenizer")
# folders whose files rules make: downloads and manual checks, the workflow's outputs
WORKFLOW_FOLDERS = ("resources/", "results/")


def named_files(name: str, entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(key, value)`` of every entry key that names a local file or folder rather than a hub
    repository or an open_clip tag; ``key`` as ``models.<name>.<key>``. A ``python`` model's
    ``files`` are listed too."""
    found = []
    for key in MODEL_FILE_KEYS:
        value = entry.get(key)
        if not value or not isinstance(value, str | Path):
            continue
        value = str(value)
        if key == "pretrained" and entry.get("family") == "open_clip":
            if is_tag(value):
                continue
        elif is_hub_id(value):
            continue
        found.append((f"models.{name}.{key}", value))
    if entry.get("family") == "python":
        found += [(f"models.{name}.files[{i}]", str(f))
                  for i, f in enumerate(entry.get("files") or [])]
    return found


def missing_own_files(models: Mapping[str, Mapping[str, Any]],
                      workdir: str | Path = ".") -> list[str]:
    """One line per file of one's own that a model entry names and that does not exist
    (relative paths start at ``workdir``, the run's working folder): ``models.<name>.<key>:
    no such file: <value>``. Entries trained or converted here name no such file."""
    problems = []
    for name, entry in models.items():
        if "run" in entry or "convert" in entry:
            continue
        for key, value in named_files(name, entry):
            if value.startswith(WORKFLOW_FOLDERS):
                continue
            path = Path(value).expanduser()
            where = path if path.is_absolute() else Path(workdir) / path
            if not where.exists():
                looked = "" if path.is_absolute() else (
                    f" (looked for {where.resolve()}: a relative path starts at the run's "
                    "working folder)")
                problems.append(f"{key}: no such file: {value}{looked}")
    return problems
