"""Every environment is locked fully and the locks agree: requirements-lock.txt (the .venv),
each envs/<name>.yaml's pip section (its envs/<name>.in and all they need), and the CUDA 12
variants; the .venv the tests run in is exactly the lock (scripts/setup.sh builds it so)."""

from __future__ import annotations

import importlib.metadata
import tomllib

import pytest
from packaging.utils import canonicalize_name

from vlcomp import envlock

from .conftest import REPO

LOCK = envlock.parse_pins((REPO / envlock.VENV_LOCK).read_text().splitlines(), envlock.VENV_LOCK)
ENV_NAMES = sorted(p.stem for p in (REPO / "envs").glob("*.in"))
RELOCK = "run scripts/lock.sh (it rewrites every lock from pyproject.toml and envs/*.in)"


def requires(name: str) -> list[str] | None:
    """Requires-Dist of the installed distribution ``name`` (the .venv holds the lock's)."""
    return importlib.metadata.requires(name)


def test_every_locked_environment_has_its_top_level_list():
    assert sorted(envlock.LOCKED_ENVS) == ENV_NAMES
    assert {p.name for p in (REPO / "envs").glob("*.yaml")} == {
        *(f"{n}.yaml" for n in envlock.LOCKED_ENVS),
        *(f"{n}-cuda12.yaml" for n in envlock.CUDA12_ENVS)}


def test_the_venv_lock_pins_every_package_with_its_hashes():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for dep in (*project["dependencies"], *project["optional-dependencies"]["dev"]):
        name, _, version = dep.partition("==")
        pin = LOCK.get(canonicalize_name(name))
        assert pin is not None and pin.version == version, f"{dep}: lock has {pin}; {RELOCK}"
    assert all(pin.hashes for pin in LOCK.values()), [n for n, p in LOCK.items() if not p.hashes]
    # the lock is closed: everything pyproject's pins need on the target, and nothing more
    wanted = envlock.closure(envlock.pyproject_requirements(REPO), requires)
    assert wanted == set(LOCK), (sorted(wanted - set(LOCK)), sorted(set(LOCK) - wanted), RELOCK)


def test_the_venv_is_the_lock():
    """The interpreter the tests run in has each locked package at its locked version."""
    wrong = envlock.installed_differences(LOCK)
    assert not wrong, f"installed vs locked: {wrong}; run scripts/setup.sh"


@pytest.mark.parametrize("env", ENV_NAMES)
def test_each_environment_is_its_top_level_list_locked_at_the_venvs_versions(env):
    text = (REPO / "envs" / f"{env}.yaml").read_text()
    pins = envlock.parse_pins(envlock.pip_section(text), f"envs/{env}.yaml")
    top = envlock.top_level(REPO / "envs" / f"{env}.in")
    for requirement in top:
        name, _, version = requirement.partition("==")
        assert version and LOCK[canonicalize_name(name)].version == version, \
            f"envs/{env}.in: {requirement} is not the .venv's version"
    # the same line as the .venv's lock, hashes included, for exactly what the list needs
    assert {n: p.line for n, p in pins.items()} == {n: LOCK[n].line for n in pins}, RELOCK
    wanted = envlock.closure(top, requires)
    assert wanted == set(pins), (sorted(wanted - set(pins)), sorted(set(pins) - wanted), RELOCK)


@pytest.mark.parametrize("env", envlock.CUDA12_ENVS)
def test_the_cuda12_environments_follow_their_cuda13_ones(env):
    base = (REPO / "envs" / f"{env}.yaml").read_text()
    text = (REPO / "envs" / f"{env}-cuda12.yaml").read_text()
    assert text == envlock.cuda12_env_text(base, env), RELOCK
    lines = envlock.pip_section(text)
    assert lines[0] == "--extra-index-url https://download.pytorch.org/whl/cu128"
    assert "torch==2.14.1+cu128" in lines and "torchvision==0.29.1+cu128" in lines
    assert not [line for line in lines if line.startswith(("nvidia-", "cuda-"))]
    # every other package as in the CUDA 13 environment
    base_pins = envlock.parse_pins(envlock.pip_section(base), env)
    assert {line.split("==")[0] for line in lines[1:]} == {
        n for n in base_pins if not envlock.CUDA_RUNTIME.match(n)}


def wheel(filename: str, digest: str, **extra) -> dict:
    return {"filename": filename, "hashes": {"sha256": digest * 64}, **extra}


def test_only_files_the_target_can_install_are_hashed():
    files = [wheel("numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", "a"),
             wheel("numpy-2.4.6-cp311-cp311-macosx_14_0_arm64.whl", "b"),
             wheel("numpy-2.4.6-cp312-cp312-manylinux_2_28_x86_64.whl", "c"),
             wheel("numpy-2.4.6-cp311-cp311-manylinux_2_28_aarch64.whl", "d"),
             wheel("numpy-2.4.6-cp311-cp311-musllinux_1_2_x86_64.whl", "e"),
             wheel("numpy-2.4.5-cp311-cp311-manylinux_2_28_x86_64.whl", "f"),
             wheel("numpy-2.4.6-cp311-cp311-manylinux_2_34_x86_64.whl", "0"),  # glibc > 2.28
             wheel("numpy-2.4.6-cp311-cp311-manylinux2014_x86_64.whl", "1", yanked="bad"),
             wheel("numpy-2.4.6.tar.gz", "2")]
    assert envlock.installable_hashes(files, "numpy", "2.4.6") == ("a" * 64,)
    # pure-Python wheels and abi3 ones count; without any wheel, the source archive
    assert envlock.installable_hashes([wheel("typo-0.1.7-py3-none-any.whl", "3")], "typo",
                                      "0.1.7") == ("3" * 64,)
    assert envlock.installable_hashes([wheel("x-1.0-cp39-abi3-manylinux_2_17_x86_64.whl", "4")],
                                      "x", "1.0") == ("4" * 64,)
    assert envlock.installable_hashes(files[1:], "numpy", "2.4.6") == ("2" * 64,)
    with pytest.raises(LookupError, match=r"numpy==2\.4\.6: no wheel for CPython 3\.11"):
        envlock.installable_hashes(files[1:5], "numpy", "2.4.6")


def test_a_bad_lock_line_is_named_with_its_file_and_line():
    with pytest.raises(ValueError, match=r"envs/x\.yaml:2: 'numpy>=2' is not `name==version`"):
        envlock.parse_pins(["# c", "numpy>=2"], "envs/x.yaml")
    with pytest.raises(ValueError, match="lock:2: numpy is pinned twice"):
        envlock.parse_pins(["numpy==2.4.6", "NumPy==2.4.6"], "lock")


def test_markers_and_extras_are_followed_for_the_target():
    metadata = {"a": ['b>=1', 'c; sys_platform == "win32"', 'd; extra == "fast"',
                      'e; python_version < "3.10"'],
                "b": [], "d": ['b'], "f": ['a[fast]']}
    assert envlock.closure(["a"], metadata.get) == {"a", "b"}
    assert envlock.closure(["f"], metadata.get) == {"a", "b", "d", "f"}
