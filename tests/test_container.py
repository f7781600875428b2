"""workflow/Dockerfile is what ``snakemake --containerize`` writes for the rules' conda
environments (envs/*.yaml): an image for ``--sdm conda apptainer`` (docs/cluster.md).

Regenerate it after changing an environment, from the checkout:

    snakemake --containerize > workflow/Dockerfile      # with conda on PATH
    python tests/test_container.py                      # without conda (answers as linux-64)
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "workflow" / "Dockerfile"
REGENERATE = ("workflow/Dockerfile is not what `snakemake --containerize` writes for envs/*.yaml;"
              " regenerate it: `snakemake --containerize > workflow/Dockerfile` (conda on PATH)"
              " or `python tests/test_container.py`")
# Snakemake asks conda its platform (to look for envs/NAME.<platform>.pin.txt) and version
# before it hashes an environment; this stand-in answers as conda on linux-64, the image's
# platform, so the output does not depend on whether or which conda is installed.
FAKE_CONDA = """#!/bin/sh
case "$*" in
  "info --json") echo '{"platform": "linux-64", "conda_prefix": "/nonexistent/conda"}' ;;
  "--version") echo "conda 24.7.1" ;;
  "config --get channel_priority --json") echo '{"get": {"channel_priority": "strict"}}' ;;
  *) echo "stand-in conda: $*" >&2; exit 1 ;;
esac
"""


def containerize(bin_dir: Path, *args: str) -> str:
    """The text of ``snakemake --containerize [args]`` run in the checkout, with `FAKE_CONDA`
    as conda (written to ``bin_dir``)."""
    conda = bin_dir / "conda"
    conda.write_text(FAKE_CONDA)
    conda.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([sys.executable, "-m", "snakemake", "--containerize", *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_dockerfile_is_the_containerized_workflow(tmp_path):
    assert DOCKERFILE.read_text() == containerize(tmp_path), REGENERATE


def test_dockerfile_holds_every_environment():
    """Without Snakemake: each env file is copied in and shown whole, and the image's label
    is the SHA-256 of the env files in path order (what --containerize hashes)."""
    text = DOCKERFILE.read_text()
    # the default configuration's environments (compute.torch_cuda "13.0": no -cuda12 file)
    envs = sorted(p for p in (REPO / "envs").glob("*.yaml") if "cuda12" not in p.name)
    assert [p.name for p in envs] == ["core.yaml", "diffusion.yaml", "nlp.yaml", "torch.yaml"]
    for env in envs:
        assert re.search(rf"^COPY envs/{env.name} /conda-envs/\w+/environment.yaml$", text,
                         re.M), f"{env.name}: {REGENERATE}"
        shown = "\n".join(f"#   {line}" for line in env.read_text().strip().split("\n"))
        assert shown in text, f"{env.name}: {REGENERATE}"
    digest = hashlib.sha256(b"".join(env.read_bytes() for env in envs)).hexdigest()
    assert f'conda_env_hash="{digest}"' in text, REGENERATE


def test_one_key_moves_the_torch_rules_to_cuda12_wheels(tmp_path):
    """compute.torch_cuda: "12.8" gives the torch rules envs/*-cuda12.yaml (PyTorch's CUDA 12
    wheels) and leaves the others as they are."""
    config = tmp_path / "cuda12.yaml"
    config.write_text('compute: {torch_cuda: "12.8"}\n')
    text = containerize(tmp_path, "--configfile", "config/config.yaml", str(config))
    copied = set(re.findall(r"^COPY envs/(\S+) ", text, re.M))
    assert copied == {"core.yaml", "nlp.yaml", "torch-cuda12.yaml", "diffusion-cuda12.yaml"}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as bin_dir:
        DOCKERFILE.write_text(containerize(Path(bin_dir)))
    print(f"wrote {DOCKERFILE.relative_to(REPO)}")
