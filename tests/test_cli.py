"""``vlcomp``: one console command forwarding to the project's modules."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from vlcomp.cli import COMMANDS, main

from .conftest import REPO

VLCOMP = Path(sys.executable).with_name("vlcomp")


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("plan", "coverage", "report", "bench", "check-targets", "gpu-check"):
        assert f"\n  {name} " in out
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_forwards_to_a_module_main(name, capsys):
    module = importlib.import_module(COMMANDS[name][0])
    assert callable(module.main)
    with pytest.raises(SystemExit) as done:  # argparse's --help
        main([name, "--help"])
    assert done.value.code == 0 and "usage:" in capsys.readouterr().out


def test_the_installed_console_script_runs():
    done = subprocess.run([str(VLCOMP), "--help"], capture_output=True, text=True, check=False,
                          cwd=REPO)
    assert done.returncode == 0 and "check-targets" in done.stdout, done.stderr
    plan = subprocess.run([str(VLCOMP), "plan", "--help"], capture_output=True, text=True,
                          check=False, cwd=REPO)
    assert plan.returncode == 0 and "--configfile" in plan.stdout, plan.stderr
