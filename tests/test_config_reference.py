"""The configuration reference (config/README.md) is generated from config/schema.yaml, which
describes every key once; the shipped configurations use only described keys."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from vlcomp.config import resolve_extends
from vlcomp.config_reference import README, SCHEMA, main, render, resolve, section_rows

from .conftest import REPO

CONFIGS = ["config/config.yaml", "config/paper.yaml", "config/evaluate.yaml",
           "config/three_seeds.yaml",
           "tests/data/tiny_config.yaml"]
NOT_DOCUMENTATION = ("if", "then", "else", "not", "propertyNames")  # constraints, not keys


def schema() -> dict[str, Any]:
    return yaml.safe_load(SCHEMA.read_text())


def test_committed_reference_is_generated_from_the_schema():
    assert README.read_text() == render(schema()), \
        "config/README.md is out of date: run `python -m vlcomp.config_reference`"


def key_nodes(node: Any, pointer: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every named key of the schema (``properties`` and ``patternProperties``, in sections,
    map entries, list items, ``oneOf`` branches and ``$defs`` alike), with its pointer."""
    if isinstance(node, dict):
        for keyword, value in node.items():
            if keyword in NOT_DOCUMENTATION:
                continue
            if keyword in ("properties", "patternProperties", "$defs"):
                for name, child in value.items():
                    if keyword != "$defs":
                        yield f"{pointer}/{keyword}/{name}", child
                    yield from key_nodes(child, f"{pointer}/{keyword}/{name}")
            else:
                yield from key_nodes(value, f"{pointer}/{keyword}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from key_nodes(value, f"{pointer}/{i}")


def test_every_key_of_the_schema_is_described():
    full = schema()
    nodes = dict(key_nodes(full))
    assert len(nodes) > 350
    bare = [pointer for pointer, node in nodes.items()
            if not str(resolve(node, full).get("description", "")).strip()]
    assert not bare, f"{len(bare)} keys without a description: {bare}"
    for name, node in full["properties"].items():  # a section's prose heads its table
        assert resolve(node, full).get("description"), name
    # every described key is on the page
    rows = {r.path for node in full["properties"].values()
            for r in section_rows(resolve(node, full), full)}
    assert len(rows) > 300


def described_keys(value: Any, node: dict[str, Any], full: dict[str, Any], path: str,
                   problems: list[str]) -> int:
    """Walk a configuration beside its schema; a key the schema does not describe (or does not
    know) is a problem. Returns the number of keys checked."""
    node = resolve(node, full)
    branches = [node, *(resolve(b, full) for k in ("oneOf", "anyOf", "allOf")
                        for b in node.get(k, []))]
    checked = 0
    if isinstance(value, dict):
        for key, sub in value.items():
            child, entry = None, False
            for branch in branches:
                patterns = branch.get("patternProperties", {})
                child = branch.get("properties", {}).get(key) or next(
                    (p for pattern, p in patterns.items() if re.search(pattern, key)), None)
                if child is None and isinstance(branch.get("additionalProperties"), dict):
                    child, entry = branch["additionalProperties"], True
                if child is not None:
                    break
            if child is None:
                problems.append(f"{path}{key}: not in the schema")
                continue
            if not entry and not resolve(child, full).get("description"):
                problems.append(f"{path}{key}: no description")
            checked += 1
            checked += described_keys(sub, child, full, f"{path}{key}.", problems)
    elif isinstance(value, list):
        items = next((b["items"] for b in branches if isinstance(b.get("items"), dict)), None)
        for i, item in enumerate(value if items else []):
            checked += described_keys(item, items, full, f"{path}{i}.", problems)
    return checked


@pytest.mark.parametrize("name", CONFIGS)
def test_shipped_configs_use_described_keys(name):
    path = REPO / name
    config = resolve_extends(yaml.safe_load(path.read_text()), [path.parent])
    problems: list[str] = []
    assert described_keys(config, schema(), schema(), "", problems) > 50
    assert not problems, problems


SMALL: dict[str, Any] = {
    "title": "Keys",
    "description": "what the page is",
    "$defs": {
        "seed": {"type": "integer", "minimum": 0, "description": "a seed"},
        "block": {"type": "object", "properties": {
            "x": {"type": "string", "description": "an x"}}},
    },
    "properties": {
        "runs": {
            "type": "object", "title": "one per run", "description": "runs by name",
            "additionalProperties": {"type": "object", "properties": {
                "seed": {"$ref": "#/$defs/seed", "default": 0},
                "mode": {"type": "string", "enum": ["a", "b"], "default": "a",
                         "description": "the mode | or not"},
                "tags": {"type": "array", "items": {"type": "string"},
                         "default": ["x", "y"], "description": "tags"}}}},
        "two": {
            "type": "object", "description": "two blocks",
            "properties": {
                "p": {"$ref": "#/$defs/block", "description": "first"},
                "q": {"allOf": [{"$ref": "#/$defs/block"}], "description": "second"},
                "n": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                      "description": "n"},
                "share": {"type": "array", "description": "shares",
                          "items": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}},
                "map": {"type": "object", "additionalProperties": {"type": "boolean"},
                        "description": "flags by name"}},
            "patternProperties": {
                "^[a-z]+_x$": {"type": "object", "title": "{d}_x", "description": "per d",
                               "properties": {"k": {"type": "boolean", "description": "k"}}}}},
    },
}


def test_renderer_types_defaults_refs_and_maps():
    page = render(SMALL)
    lines = page.splitlines()
    assert lines[0] == "# Keys"
    assert "python -m vlcomp.config_reference" in lines[2]
    assert "What the page is." in lines
    assert "## `runs` — one per run" in lines and "## `two`" in lines
    assert "Runs by name." in lines
    rows = [line for line in lines if line.startswith("| `")]
    assert rows == [
        "| `<name>.seed` | int ≥ 0 | `0` | A seed. |",
        "| `<name>.mode` | a \\| b | `a` | The mode \\| or not. |",
        "| `<name>.tags` | list of str | `[x, y]` | Tags. |",
        "| `p` | mapping |  | First. |",
        "| `q` | mapping |  | Second. |",
        "| `n` | int ≥ 1 or null |  | N. |",
        "| `share` | list of number in (0, 1] |  | Shares. |",
        "| `map` | {name: bool} |  | Flags by name. |",
        "| `{d}_x` | mapping |  | Per d. |",
        "| `{d}_x.k` | bool |  | K. |",
        "| `<block>.x` | str |  | An x. |",  # a block two keys share: once, by its name
    ]
    assert lines.count("| key | type | default | description |") == 2


def test_check_says_whether_the_page_is_current(tmp_path, capsys):
    schema_file, page = tmp_path / "schema.yaml", tmp_path / "README.md"
    schema_file.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    args = ["--schema", str(schema_file), "--output", str(page)]
    assert main([*args, "--check"]) == 1
    assert main(args) == 0
    assert page.read_text() == render(SMALL)
    assert main([*args, "--check"]) == 0
    page.write_text(page.read_text().replace("A seed.", "A seed, edited by hand."))
    assert main([*args, "--check"]) == 1
    message = capsys.readouterr().err
    assert "out of date" in message and "-| `<name>.seed` | int ≥ 0 | `0` | A seed, edited" \
        in message
