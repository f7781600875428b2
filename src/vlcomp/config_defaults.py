"""The configuration's defaults, read from the schema: each key's ``default`` there is the one
place its default value is written (rules, the plan and the reference page read it). The schema
ships inside the package (``vlcomp/schema.yaml``); the checkout's config/schema.yaml links to it."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

from vlcomp.yaml_text import safe_load

SCHEMA = Path(__file__).resolve().with_name("schema.yaml")


@functools.cache
def load_schema(path: Path = SCHEMA) -> dict[str, Any]:
    return safe_load(Path(path).read_text())


def resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its local ``$ref`` (``#/$defs/...``) followed; keywords written beside
    the ``$ref`` (a use site's ``description``, ``default``) win over the definition's."""
    while "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"schema $ref {ref!r} is not local")
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def schema_node(path: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of the object at a dotted key path (``visualgptscore.null_images``); a
    KeyError names the first part the schema does not know."""
    schema = load_schema() if schema is None else schema
    node = schema
    for part in filter(None, path.split(".")):
        properties = resolve(node, schema).get("properties", {})
        if part not in properties:
            raise KeyError(f"config schema: no key {part!r} in {path!r}")
        node = properties[part]
    return resolve(node, schema)


def defaults(path: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The defaults of the keys of the object at ``path`` (those that have one)."""
    schema = load_schema() if schema is None else schema
    properties = schema_node(path, schema).get("properties", {})
    return {key: copy.deepcopy(spec["default"]) for key, spec in properties.items()
            if "default" in resolve(spec, schema)}


def section(config: dict[str, Any], path: str,
            schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The object at ``path`` of ``config`` over its schema defaults (empty when absent)."""
    value: Any = config
    for part in filter(None, path.split(".")):
        value = (value or {}).get(part) if isinstance(value, dict) else None
    return {**defaults(path, schema), **(value or {})}
