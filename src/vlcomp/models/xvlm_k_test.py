"""X-VLM's ``k_test`` as ARO's wrapper takes it: from the retrieval YAML it downloads beside
the checkpoint (``sims.topk(k=self.config['k_test'])``), not from a constant. Torch-free: the
re-ranking candidate jobs check it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import yaml


def yaml_k_test(path: str | os.PathLike) -> int | None:
    """``k_test`` of an X-VLM retrieval YAML, None when it has none."""
    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: an X-VLM retrieval YAML is a mapping")
    value = data.get("k_test")
    return None if value is None else int(value)


def check_k_test(model: str, configured: int | Mapping[str, int], path: str | os.PathLike
                 ) -> None:
    """Stop when the k_test a job re-ranks with (one, or one per gallery) is not the YAML's:
    ARO's wrapper reads it from the YAML, so the configuration must say the same."""
    found = yaml_k_test(path)
    if found is None:
        return
    values = configured.values() if isinstance(configured, Mapping) else [configured]
    for k in values:
        if int(k) != found:
            raise ValueError(
                f"{model}: re-ranking with k_test {k} (config models.{model}.k_test), but its "
                f"retrieval YAML {path}, which ARO's X-VLM wrapper ranks with, says k_test "
                f"{found}: set models.{model}.k_test to {found}")
