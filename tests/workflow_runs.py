"""Running the workflow from tests: the snakemake command, the tiny end-to-end config."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import REPO

SNAKEMAKE = Path(sys.executable).with_name("snakemake")
TINY = REPO / "tests" / "data" / "tiny_config.yaml"


def snakemake(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(cwd), *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
