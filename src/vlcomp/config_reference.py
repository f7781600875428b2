"""The configuration reference, config/README.md, rendered from config/schema.yaml.

Each key is described once, in the schema (``description``, ``default``; a section's heading
is its ``title``); this module turns the schema into the reference page: one section per
top-level key, in schema order, with its prose and a table of the keys under it. Keys a map's
entries share show as ``<name>.key``; a ``patternProperties`` key shows as its node's
``title`` (``{dataset}_order``); the keys of a ``$defs`` block that several keys use are
listed once, under the def's ``title`` (``<set>.backend``). Only documentation keywords are
read, so the page never changes what the schema accepts.

    python -m vlcomp.config_reference          # write config/README.md
    python -m vlcomp.config_reference --check  # exit 1 if config/README.md is out of date
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from vlcomp.checkout import workflow_root
from vlcomp.config_defaults import SCHEMA, resolve

README = workflow_root() / "config" / "README.md"  # an installed package: ./config/README.md
COMMAND = "python -m vlcomp.config_reference"

Schema = dict[str, Any]
SHORT = {"integer": "int", "string": "str", "boolean": "bool"}  # type names as YAML users say


@dataclass(frozen=True)
class Row:
    """One key of a section's table: its dotted path inside the section and its cells."""

    path: str
    type: str
    default: str
    description: str


def _ref_parts(ref: str) -> list[str]:
    if not ref.startswith("#/"):
        raise ValueError(f"schema $ref {ref!r} is not local")
    return ref[2:].split("/")


def _direct_defs(node: Schema) -> list[str]:
    """Names of the ``$defs`` a property's node refers to itself (``$ref``, ``allOf``)."""
    refs = [node["$ref"]] if "$ref" in node else []
    refs += [part["$ref"] for part in node.get("allOf", []) if "$ref" in part]
    return [_ref_parts(ref)[-1] for ref in refs]


def _properties(node: Schema) -> Iterator[tuple[str, Schema]]:
    """The named keys of an object node, ``properties`` and ``patternProperties`` in the order
    the schema writes them; a pattern shows as its node's ``title`` (``{dataset}_order``)."""
    for keyword in node:
        if keyword == "properties":
            yield from node["properties"].items()
        elif keyword == "patternProperties":
            for pattern, child in node["patternProperties"].items():
                yield child.get("title", pattern), child


def _shared_defs(schema: Schema) -> dict[str, str]:
    """Object ``$defs`` that several properties use, with the placeholder their keys are
    shown under, once, in place of the property's name: the def's ``title``, else its name
    (``<set>.backend`` for ``bivlc.backend`` and ``trohn_img.backend``)."""
    counts: Counter[str] = Counter()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "patternProperties"):
                    for child in value.values():
                        counts.update(_direct_defs(child))
                if key not in ("if", "then", "else", "not"):
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    defs = schema.get("$defs", {})
    return {name: f"<{defs[name].get('title', name)}>" for name, n in counts.items()
            if n > 1 and "properties" in defs[name]}


def _bounds(node: Schema) -> str:
    low, high = node.get("minimum"), node.get("maximum")
    xlow, xhigh = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    if (low is not None or xlow is not None) and (high is not None or xhigh is not None):
        left, right = ("[", low) if low is not None else ("(", xlow)
        top, close = (high, "]") if high is not None else (xhigh, ")")
        return f" in {left}{right}, {top}{close}"
    if low is not None:
        return f" ≥ {low}"
    if xlow is not None:
        return f" > {xlow}"
    if high is not None:
        return f" ≤ {high}"
    return f" < {xhigh}" if xhigh is not None else ""


def value_text(value: Any) -> str:
    """A value as YAML reads it back, written inline (``null``, ``[a, b]``, ``1.0e-06``)."""
    if isinstance(value, float):
        text = f"{value:g}"  # short, with the dot YAML needs to read a float (1.0e+06, 1.0)
        mantissa, e, exponent = text.partition("e")
        return (mantissa if "." in mantissa else mantissa + ".0") + (e + exponent)
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1000)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def type_text(node: Schema, schema: Schema) -> str:
    """A node's type in a few words: ``int ≥ 1``, ``a | b`` (an enum), ``list of str``,
    ``{name: number}`` (a map), ``mapping`` (an object with named keys)."""
    node = resolve(node, schema)
    if "const" in node:
        return value_text(node["const"])
    if "enum" in node:
        return " | ".join(value_text(v) for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(type_text(branch, schema) for branch in node[key])
    if "allOf" in node:
        merged: Schema = {}
        for part in node["allOf"]:
            merged.update(resolve(part, schema))
        return type_text({**merged, **{k: v for k, v in node.items() if k != "allOf"}},
                         schema)
    types = node.get("type", [])
    types = types if isinstance(types, list) else [types]
    words: list[str] = []
    for kind in types or ["object" if "properties" in node else "any"]:
        if kind == "array":
            items = node.get("items")
            words.append(f"list of {type_text(items, schema)}" if items else "list")
        elif kind == "object":
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) and not node.get("properties"):
                words.append(f"{{name: {type_text(extra, schema)}}}")
            else:
                words.append("mapping")
        elif kind in ("integer", "number"):
            words.append(SHORT.get(kind, kind) + _bounds(node))
        else:
            words.append(SHORT.get(kind, kind))
    return " or ".join(words)


def sentence(text: str) -> str:
    """A description as the page prints it: capitalised, ending in a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def section_rows(node: Schema, schema: Schema) -> list[Row]:
    """The table of one top-level section: every key under it, depth first in schema order.
    Map entries (``additionalProperties``) show as ``<name>.key``, the keys of a list's
    entries under the list's key, the branches of ``oneOf`` / ``anyOf`` / ``allOf`` merged."""
    rows: dict[str, Row] = {}
    shared = _shared_defs(schema)
    done: set[str] = set()

    def walk(node: Schema, prefix: str) -> None:
        node = resolve(node, schema)
        later: list[tuple[Schema, str]] = []
        for key, child in _properties(node):
            path = prefix + key
            spec = resolve(child, schema)
            rows.setdefault(path, Row(path, type_text(child, schema),
                                      f"`{value_text(spec['default'])}`"
                                      if "default" in spec else "",
                                      sentence(spec.get("description", ""))))
            common = [name for name in _direct_defs(child) if name in shared]
            if not common:
                walk(spec, path + ".")
            elif common[0] not in done:  # a shared block: its keys once, after its users
                done.add(common[0])
                later.append((spec, f"{prefix}{shared[common[0]]}."))
        for spec, shared_prefix in later:
            walk(spec, shared_prefix)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            walk(extra, prefix + "<name>.")
        for key in ("oneOf", "anyOf", "allOf"):
            for branch in node.get(key, []):
                walk(branch, prefix)
        if isinstance(node.get("items"), dict):
            walk(node["items"], prefix)

    walk(node, "")
    return list(rows.values())


def render(schema: Schema) -> str:
    """The reference page of ``schema``: its title and description, the note that the page
    is generated, then one section per top-level key."""
    blocks = ", ".join(f"`{name}`" for name in _shared_defs(schema).values())
    shared = f" ({blocks})" if blocks else ""
    parts = [
        f"# {schema['title']}",
        f"Generated from `config/schema.yaml` by `{COMMAND}`: edit the schema, not this page "
        "(a test checks that they agree). Keys are dotted paths inside their section: `<name>` "
        "stands for a name you choose, and a block that several keys share is listed once, "
        f"under its own name{shared}. Types, bounds and defaults are the schema's; a default "
        "that depends on other keys is in the description.",
        sentence(schema["description"]),
    ]
    for name, node in schema["properties"].items():
        spec = resolve(node, schema)
        title = spec.get("title")
        parts.append(f"## `{name}`" + (f" — {title}" if title else ""))
        if spec.get("description"):
            parts.append(sentence(spec["description"]))
        rows = section_rows(spec, schema)
        if rows:
            parts.append("\n".join(
                ["| key | type | default | description |", "|---|---|---|---|"]
                + [f"| `{_cell(r.path)}` | {_cell(r.type)} | {_cell(r.default)} | "
                   f"{_cell(r.description)} |" for r in rows]))
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write config/README.md from config/schema.yaml, or with ``--check`` say whether the
    committed page is the generated one (exit status 1 and a diff when it is not)."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if config/README.md differs")
    parser.add_argument("--schema", type=Path, default=SCHEMA)
    parser.add_argument("--output", type=Path, default=README)
    args = parser.parse_args(argv)
    text = render(yaml.safe_load(args.schema.read_text()))
    if not args.check:
        args.output.write_text(text)
        return 0
    current = args.output.read_text() if args.output.is_file() else ""
    if current == text:
        return 0
    diff = difflib.unified_diff(current.splitlines(), text.splitlines(),
                                f"{args.output} (committed)", f"{args.output} (generated)",
                                lineterm="", n=1)
    lines = list(diff)
    print(f"{args.output} is out of date; run `{COMMAND}`:", file=sys.stderr)
    print("\n".join(lines[:60] + ([f"... ({len(lines) - 60} more lines)"]
                                  if len(lines) > 60 else [])), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
