"""Local Snakemake calls skip the SLURM plugin's scontrol query (scripts/no_slurm)."""

from __future__ import annotations

import os
import subprocess

import pytest

from vlcomp.checkout import local_snakemake_env

from .conftest import REPO

SHIM = str(REPO / "scripts" / "no_slurm")


@pytest.mark.parametrize(("options", "shimmed"), [
    ((), True), (("--cores", "2", "-n"), True),
    (("--profile", "profiles/slurm"), False), (("--profile=profiles/slurm",), False),
    (("--executor", "slurm"), False), (("-e", "slurm"), False),
])
def test_the_shim_leads_path_unless_a_cluster_executor_is_named(options, shimmed):
    env = local_snakemake_env(REPO / "Snakefile", options)
    assert env["PATH"].split(os.pathsep)[0] == SHIM if shimmed else SHIM not in env["PATH"]


def test_the_shims_scontrol_fails_at_once():
    done = subprocess.run(["scontrol", "show", "config"], capture_output=True, timeout=5,
                          env={"PATH": SHIM + os.pathsep + os.environ["PATH"]}, check=False)
    assert done.returncode == 1 and not done.stdout
