"""A job imports what it uses: a workflow script that runs no model never imports torch as it
starts (directly, through vlcomp's modules, or through spaCy, whose thinc imports it), so a
table, metric or download job starts in about a CPU-second where torch alone costs 3–4 on a
slow host. Module-level imports are followed statically (those inside functions are lazy and
run only where needed), and one script is checked in a fresh interpreter too."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

SCRIPTS = REPO / "workflow" / "scripts"
SRC = REPO / "src"
# third-party packages that import torch as they load
TORCH_ROOTS = {"torch", "torchvision", "open_clip", "spacy", "thinc", "diffusers", "timm"}
# scripts that load, train or convert a model (or spaCy's pipeline), or gather what needs torch
MODEL_SCRIPTS = {
    "bison_altered_benchmark", "bison_benchmark", "class_embeddings", "classification_metrics",
    "convert_blip", "embed_images", "embed_model", "embed_model_shard", "filter_generated",
    "generate_captions", "granularity_statistics", "llm_prior", "negclip_negatives",
    "null_sampling_prior", "perturb_order", "perturb_texts", "rerank_shard",
    "retrieval_null_prior", "robustness_rerank_shard", "score_generative_choice_gather",
    "score_generative_choice_shard", "score_generative_retrieval_shard", "score_pair_model",
    "train_captioner", "train_clip", "train_detectors", "trohn_img_negatives",
}


def top_level_imports(path: Path) -> list[str]:
    """Modules a file imports as it loads (module level, inside ``if`` / ``try`` / ``with``
    too, but not under ``if TYPE_CHECKING``); ``from a import b`` gives ``a`` and ``a.b``."""
    found: list[str] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append(node.module)
                found.extend(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With):
                visit(node.body)

    visit(ast.parse(path.read_text()).body)
    return found


def vlcomp_file(name: str) -> Path | None:
    """The source file of a vlcomp module (a package's ``__init__.py``), None for others."""
    if name != "vlcomp" and not name.startswith("vlcomp."):
        return None
    base = SRC.joinpath(*name.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def torch_chain(path: Path, seen: set[Path] | None = None) -> list[str] | None:
    """The import chain from ``path`` to a module that imports torch, or None."""
    seen = set() if seen is None else seen
    if path in seen:
        return None
    seen.add(path)
    for name in top_level_imports(path):
        if name.split(".")[0] in TORCH_ROOTS:
            return [name]
        parts = name.split(".")
        # importing vlcomp.a.b loads vlcomp, vlcomp.a and vlcomp.a.b
        for k in range(1, len(parts) + 1):
            module = ".".join(parts[:k])
            source = vlcomp_file(module)
            if source is not None and source != path:
                chain = torch_chain(source, seen)
                if chain is not None:
                    return [module, *chain]
    return None


SCRIPT_NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_a_script_imports_torch_only_if_it_runs_a_model(script):
    chain = torch_chain(SCRIPTS / f"{script}.py")
    if script in MODEL_SCRIPTS:
        assert chain is not None, f"{script} imports no torch: take it off MODEL_SCRIPTS"
    else:
        assert chain is None, f"{script}.py runs no model but imports torch: {' -> '.join(chain)}"


def test_every_listed_model_script_exists():
    assert not MODEL_SCRIPTS - set(SCRIPT_NAMES), MODEL_SCRIPTS - set(SCRIPT_NAMES)


def test_the_static_reading_agrees_with_an_interpreter():
    """generate_candidates (the world's renderer: no torch) and pair_metrics load without
    torch in a fresh interpreter; classification_metrics' imports load it."""
    code = ("import ast, sys\n"
            "for name in sys.argv[1:]:\n"
            "    tree = ast.parse(open(name).read())\n"
            "    body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]\n"
            "    exec(compile(ast.Module(body, []), name, 'exec'))\n"
            "    print(name.rsplit('/', 1)[-1], 'torch' in sys.modules)\n")
    names = [str(SCRIPTS / f"{s}.py") for s in ("generate_candidates", "pair_metrics",
                                                 "classification_metrics")]
    out = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:3] == ["generate_candidates.py False", "pair_metrics.py False",
                       "classification_metrics.py True"], out
