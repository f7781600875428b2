"""Validate a workflow configuration against config/schema.yaml with messages naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml


class ConfigError(ValueError):
    """A configuration that does not match the schema."""


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = ["config", *(str(p) for p in error.absolute_path)]
    return ".".join(parts)


def validate_config(config: dict[str, Any], schema_path: str | Path) -> None:
    """Raise ConfigError listing every problem as ``config.a.b: message``."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [f"{_key_path(e)}: {e.message}" for e in errors]
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))
    _check_references(config)


def _check_references(config: dict[str, Any]) -> None:
    """Cross-key checks the schema cannot express."""
    for name, entry in config["models"].items():
        if entry["family"] == "checkpoint":
            if ("run" in entry) == ("path" in entry):
                raise ConfigError(f"config.models.{name}: give exactly one of 'run' or 'path'")
            if "run" in entry and entry["run"] not in config.get("train", {}):
                raise ConfigError(
                    f"config.models.{name}.run: no training run {entry['run']!r} under "
                    f"config.train (known: {sorted(config.get('train', {}))})"
                )
        if entry["family"] == "open_clip" and not {"arch", "pretrained"} <= set(entry):
            raise ConfigError(f"config.models.{name}: open_clip needs 'arch' and 'pretrained'")
    if "bivlc" in config["benchmarks"] and "sugarcrepe" not in config["benchmarks"]:
        raise ConfigError("config.benchmarks.bivlc: needs config.benchmarks.sugarcrepe")
