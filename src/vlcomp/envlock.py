"""Full locks of the project's Python environments: every package, transitive ones included,
pinned to one version with the SHA-256 of the files pip may install for it.

One resolution, several files (``scripts/lock.sh`` writes them all):

- ``requirements-lock.txt``: the ``.venv`` (pyproject.toml's dependencies and its ``dev`` extra);
  ``scripts/setup.sh`` installs exactly it (``--require-hashes --no-deps``);
- ``envs/<name>.yaml``: each rule environment's pip section, resolved from ``envs/<name>.in``
  (its top-level packages) within the ``.venv``'s versions, so a job runs on the versions the
  tests ran on; ``snakemake --sdm conda`` and the image (``workflow/Dockerfile``) build from them;
- ``envs/<name>-cuda12.yaml``: the torch environments on PyTorch's CUDA 12 wheels (config
  ``compute.torch_cuda: "12.8"``) for nodes whose driver predates CUDA 13.

The target is the clusters': CPython 3.11 on x86-64 Linux (glibc >= 2.28, as torch's wheels
need). Hashes are those PyPI lists for files that target can install: compatible wheels, or
the source archive where a version has none.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
VENV_LOCK = "requirements-lock.txt"
INDEX = "https://pypi.org/simple"
PYTHON = (3, 11)
# manylinux tags from glibc 2.28 (RHEL 8, torch's floor) down, and their legacy aliases
PLATFORMS = ([f"manylinux_2_{minor}_x86_64" for minor in range(28, 4, -1)]
             + ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64",
                "linux_x86_64"])
# PyTorch's CUDA 12 wheels (not on PyPI): the build for drivers >= 525 (CUDA minor-version
# compatibility); vlcomp.preflight.device suggests it when the driver is too old for CUDA 13
CUDA12_BUILD = "cu128"
CUDA12_INDEX = f"https://download.pytorch.org/whl/{CUDA12_BUILD}"
# packages of torch's CUDA 13 runtime, which the CUDA 12 wheels replace with their own
CUDA_RUNTIME = re.compile(r"^(nvidia-|cuda-)")
# the builds of torch and torchvision that carry the CUDA version in their local label
TORCH_BUILDS = ("torch", "torchvision")
LOCKED_ENVS = ("core", "diffusion", "nlp", "torch")
CUDA12_ENVS = ("diffusion", "torch")
PIN_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})*)$")


@dataclass(frozen=True)
class Pin:
    """One package at one version, with the hashes of the files it may be installed from."""

    name: str
    version: str
    hashes: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        return " ".join([f"{self.name}=={self.version}",
                         *(f"--hash=sha256:{h}" for h in self.hashes)])


def parse_pins(lines: Iterable[str], source: str) -> dict[str, Pin]:
    """The pins of a requirements text (``name==version [--hash=sha256:...]`` per line; blank
    lines, comments and ``--`` options skipped), by canonical name."""
    pins: dict[str, Pin] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "--")):
            continue
        match = PIN_LINE.match(line)
        if match is None:
            raise ValueError(f"{source}:{number}: {raw.strip()!r} is not `name==version` "
                             "with optional --hash=sha256:... options")
        name = canonicalize_name(match.group(1))
        if name in pins:
            raise ValueError(f"{source}:{number}: {name} is pinned twice")
        hashes = tuple(re.findall(r"sha256:([0-9a-f]{64})", match.group(3)))
        pins[name] = Pin(name, match.group(2), hashes)
    return pins


def installed_differences(pins: dict[str, Pin]) -> dict[str, tuple[str | None, str]]:
    """The pins this Python does not hold at their version: name → (installed or None,
    locked)."""
    import importlib.metadata

    found: dict[str, tuple[str | None, str]] = {}
    for name, pin in pins.items():
        try:
            have: str | None = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have != pin.version:
            found[name] = (have, pin.version)
    return found


def target_tags() -> frozenset[Tag]:
    """The wheel tags CPython 3.11 on x86-64 Linux accepts."""
    return frozenset([*cpython_tags(PYTHON, platforms=PLATFORMS),
                      *compatible_tags(PYTHON, "cp311", platforms=PLATFORMS)])


def installable_hashes(files: list[dict], name: str, version: str) -> tuple[str, ...]:
    """The SHA-256 of the files of ``name==version`` (PyPI's JSON simple API entries) that the
    target can install: its compatible wheels, else its source archive."""
    tags, wheels, sdists = target_tags(), [], []
    want = Version(version)
    for entry in files:
        filename, digest = entry["filename"], entry.get("hashes", {}).get("sha256")
        if not digest or entry.get("yanked"):
            continue
        try:
            if filename.endswith(".whl"):
                wheel_name, wheel_version, _, wheel_tags = parse_wheel_filename(filename)
                if (canonicalize_name(wheel_name) == name and wheel_version == want
                        and wheel_tags & tags):
                    wheels.append(digest)
            else:
                sdist_name, sdist_version = parse_sdist_filename(filename)
                if canonicalize_name(sdist_name) == name and sdist_version == want:
                    sdists.append(digest)
        except ValueError:  # a file name outside the standard forms (old uploads)
            continue
    chosen = wheels or sdists
    if not chosen:
        raise LookupError(f"{name}=={version}: no wheel for CPython 3.11 on x86-64 Linux and "
                          f"no source archive on {INDEX}")
    return tuple(sorted(chosen))


def index_files(name: str, index: str = INDEX) -> list[dict]:
    """The files the package index lists for ``name`` (PEP 691 JSON)."""
    request = urllib.request.Request(f"{index}/{name}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.load(answer)["files"]


def with_hashes(pins: dict[str, str],
                files: Callable[[str], list[dict]] = index_files) -> dict[str, Pin]:
    """Each ``name: version`` with the hashes of its installable files."""
    return {name: Pin(name, version, installable_hashes(files(name), name, version))
            for name, version in sorted(pins.items())}


def target_environment(extra: str = "") -> dict[str, str]:
    """Marker variables of the target (CPython 3.11 on x86-64 Linux)."""
    from packaging.markers import default_environment

    return {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.7",
            "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
            "os_name": "posix", "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "extra": extra}


def closure(requirements: Iterable[str],
            requires: Callable[[str], list[str] | None]) -> set[str]:
    """The names of every package ``requirements`` need on the target, following ``requires``
    (a distribution's Requires-Dist lines) with markers and extras evaluated."""
    from packaging.requirements import Requirement

    seen: set[tuple[str, str]] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        requirement, extra = todo.pop()
        marker = requirement.marker
        if marker is not None and not marker.evaluate(target_environment(extra)):
            continue
        name = canonicalize_name(requirement.name)
        for wanted in ("", *sorted(requirement.extras)):
            if (name, wanted) in seen:
                continue
            seen.add((name, wanted))
            todo.extend((Requirement(line), wanted) for line in requires(name) or [])
    return {name for name, _ in seen}


def cuda12_pins(pins: dict[str, Pin]) -> list[str]:
    """A torch environment's pip lines on PyTorch's CUDA 12 wheels: torch and torchvision of
    the ``+cu128`` build from PyTorch's index, torch's CUDA 13 runtime dropped (the CUDA 12
    wheels pin their own), every other package at its locked version. Without hashes: pip
    checks hashes all or none, and this project's build machine cannot reach PyTorch's index
    to read theirs (docs/cluster.md)."""
    lines = [f"--extra-index-url {CUDA12_INDEX}"]
    for name, pin in sorted(pins.items()):
        if CUDA_RUNTIME.match(name):
            continue
        version = f"{pin.version}+{CUDA12_BUILD}" if name in TORCH_BUILDS else pin.version
        lines.append(f"{name}=={version}")
    return lines


def replace_pip_section(text: str, lines: list[str], source: str) -> str:
    """An environment file's text with its pip list (everything after ``- pip:``, which must
    end the file) replaced by ``lines``."""
    head, marker, _ = text.partition("\n  - pip:\n")
    if not marker:
        raise ValueError(f"{source}: no `  - pip:` section at the end of its dependencies")
    return head + marker + "".join(f"      - {line}\n" for line in lines)


def pip_section(text: str) -> list[str]:
    """The pip lines of an environment file's text."""
    _, marker, tail = text.partition("\n  - pip:\n")
    return [line.strip()[2:] for line in tail.splitlines() if line.strip().startswith("- ")] \
        if marker else []


def cuda12_env_text(text: str, name: str) -> str:
    """``envs/<name>-cuda12.yaml`` from ``envs/<name>.yaml``: the same file under a header that
    says what differs, with the CUDA 12 pip lines."""
    pins = parse_pins(pip_section(text), f"envs/{name}.yaml")
    body = text[text.index("channels:"):]
    header = (f"# envs/{name}.yaml on PyTorch's CUDA 12 wheels ({CUDA12_BUILD}), for nodes whose "
              "NVIDIA driver\n# predates CUDA 13 (< 580; these need >= 525): config "
              "`compute.torch_cuda: \"12.8\"`.\n# Written by scripts/lock.sh from "
              f"envs/{name}.yaml; versions as there, hashes absent (vlcomp.envlock).\n")
    return replace_pip_section(header + body, cuda12_pins(pins), f"envs/{name}-cuda12.yaml")


def top_level(path: Path) -> list[str]:
    """The requirement lines of an ``.in`` file."""
    return [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()
            if line.split("#", 1)[0].strip()]


def pyproject_requirements(repo: Path) -> list[str]:
    """pyproject.toml's dependencies and its ``dev`` extra."""
    import tomllib

    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["dev"]]


def resolve(requirements: list[str], constraints: dict[str, str], uv: str) -> dict[str, str]:
    """``name: version`` of every package ``requirements`` need on the target, resolved by uv
    within ``constraints`` (pinned versions that a requirement does not name itself)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        wanted, fixed = Path(tmp, "requirements.in"), Path(tmp, "constraints.txt")
        wanted.write_text("\n".join(requirements) + "\n")
        named = {canonicalize_name(re.split(r"[=<>!~\[ ;]", r, maxsplit=1)[0])
                 for r in requirements}
        fixed.write_text("".join(f"{n}=={v}\n" for n, v in constraints.items()
                                 if n not in named))
        done = subprocess.run(
            [uv, "pip", "compile", str(wanted), "--constraint", str(fixed), "--python-version",
             "3.11", "--python-platform", "x86_64-manylinux_2_28", "--no-annotate",
             "--no-header", "--index-url", INDEX, "--quiet"],
            capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"uv pip compile failed:\n{done.stderr}")
    return {pin.name: pin.version for pin in parse_pins(done.stdout.splitlines(), "uv")
            .values()}


def lock(repo: Path = REPO, uv: str = "uv") -> list[Path]:
    """Write every lock of the checkout at ``repo``; returns the files written."""
    lock_path = repo / VENV_LOCK
    previous = ({name: pin.version for name, pin in
                 parse_pins(lock_path.read_text().splitlines(), VENV_LOCK).items()}
                if lock_path.exists() else {})
    venv = with_hashes(resolve(pyproject_requirements(repo), previous, uv))
    versions = {name: pin.version for name, pin in venv.items()}
    lock_path.write_text(
        "# The .venv, fully locked (scripts/lock.sh; scripts/setup.sh installs exactly this):\n"
        "# pyproject.toml's dependencies and dev extra, every transitive package, for CPython\n"
        "# 3.11 on x86-64 Linux, with the SHA-256 of each file pip may install.\n"
        + "".join(f"{pin.line}\n" for pin in venv.values()))
    written = [lock_path]
    for name in LOCKED_ENVS:
        env = repo / "envs" / f"{name}.yaml"
        pins = resolve(top_level(repo / "envs" / f"{name}.in"), versions, uv)
        drift = {n: v for n, v in pins.items() if versions.get(n) != v}
        if drift:
            raise RuntimeError(f"envs/{name}.in resolves outside the .venv's versions: {drift}")
        lines = [venv[n].line for n in sorted(pins)]
        env.write_text(replace_pip_section(env.read_text(), lines, f"envs/{name}.yaml"))
        written.append(env)
    for name in CUDA12_ENVS:
        target = repo / "envs" / f"{name}-cuda12.yaml"
        target.write_text(cuda12_env_text((repo / "envs" / f"{name}.yaml").read_text(), name))
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m vlcomp.envlock", description=__doc__)
    parser.add_argument("--uv", default=str(Path(sys.executable).with_name("uv")),
                        help="the uv executable that resolves (default: the .venv's)")
    args = parser.parse_args(argv)
    for path in lock(REPO, args.uv):
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
