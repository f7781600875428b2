"""The session's run of `scripts/gpu_check.sh --device cpu` (tests/test_gpu_check.py): started
in the background like the workflow runs (tests/conftest.py), with a `sitecustomize` that
records which modules a GPU image lacks the check imported."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from .conftest import REPO
from .workflow_runs import StartedRun, start

# not on the GPU image (scripts/gpu_check.sh's header): gpu_check must never import them
ABSENT = ("snakemake", "spacy", "nltk", "gensim", "faiss", "diffusers", "datasets", "jsonschema")
SITECUSTOMIZE = textwrap.dedent("""\
    import atexit, json, os, sys

    def _report():
        absent = os.environ["GPU_CHECK_ABSENT"].split(",")
        found = sorted(m for m in sys.modules if m.split(".")[0] in absent)
        with open(os.environ["GPU_CHECK_IMPORTS"], "w") as fh:
            json.dump(found, fh)

    atexit.register(_report)
    """)


def start_cpu_check(folder: Path) -> StartedRun:
    """Start the check on the CPU in `folder`, its interpreter seeing only the
    `sitecustomize` on PYTHONPATH (the package as installed)."""
    (folder / "site").mkdir()
    (folder / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {"PYTHONPATH": str(folder / "site"), "GPU_CHECK_ABSENT": ",".join(ABSENT),
           "GPU_CHECK_IMPORTS": str(folder / "imports.json")}
    return start(["bash", str(REPO / "scripts" / "gpu_check.sh"), "--device", "cpu", "--out",
                  str(folder / "gpu_check.json")], folder, timeout=900, env=env)


def cpu_check_result(folder: Path, run: StartedRun) -> tuple[int, str, dict | None, list[str]]:
    """(return code, output, JSON, forbidden modules imported) of a finished check."""
    done = run.wait()
    out = folder / "gpu_check.json"
    report = json.loads(out.read_text()) if out.is_file() else None
    imports = json.loads((folder / "imports.json").read_text())
    return done.returncode, done.stdout + done.stderr, report, imports
