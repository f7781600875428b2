"""Where the workflow's files are: the git checkout the package runs from (``src/vlcomp``
beside a ``Snakefile``), else, for an installed package, the current folder."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

# Options that send a Snakemake call's jobs to a cluster executor (SLURM)
EXECUTOR_OPTIONS = ("--profile", "--executor", "-e", "--workflow-profile")


def checkout() -> Path | None:
    """The checkout this module lies in, or None when the package is installed elsewhere."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "Snakefile").is_file() and (root / "src" / "vlcomp").is_dir() else None


def workflow_root() -> Path:
    """The checkout, else the current folder (an installed package run beside a workflow)."""
    return checkout() or Path.cwd()


def workflow_file(relative: str, option: str) -> Path:
    """``relative`` under `workflow_root`; SystemExit naming ``option`` when it is not there."""
    path = workflow_root() / relative
    if not path.exists():
        where = "" if checkout() else " (vlcomp is installed, not run from its checkout)"
        raise SystemExit(f"no {relative} in {workflow_root()}{where}: pass {option} PATH, e.g. "
                         f"{option} CHECKOUT/{relative}, or run from the workflow's folder")
    return path


def add_workflow_options(parser: argparse.ArgumentParser, config_option: str | None) -> None:
    """A command's ``--snakefile`` and (when named) its config option, both defaulting to the
    workflow's own files; `resolve_workflow_options` fills the defaults in after parsing."""
    if config_option is not None:
        parser.add_argument(config_option, type=Path,
                            help="default: config/config.yaml of the checkout (installed: of ./)")
    parser.add_argument("--snakefile", type=Path,
                        help="default: the checkout's Snakefile (installed: ./Snakefile)")


def resolve_workflow_options(args: argparse.Namespace, config_option: str | None) -> None:
    """The options `add_workflow_options` added, the unset ones found by `workflow_file`."""
    args.snakefile = args.snakefile or workflow_file("Snakefile", "--snakefile")
    if config_option is not None:
        dest = config_option.lstrip("-").replace("-", "_")
        setattr(args, dest, getattr(args, dest) or workflow_file("config/config.yaml",
                                                                 config_option))


def local_snakemake_env(snakefile: Path, options: Sequence[str] = ()) -> dict[str, str]:
    """The environment of a Snakemake call that submits nothing to SLURM (a dry run, or a
    run whose ``options`` name no profile or executor): the workflow's ``scripts/no_slurm``
    first on PATH. Snakemake's SLURM plugin asks ``scontrol`` for a help text as every call
    starts; where slurm-client is installed with no controller running, that waits 10 s."""
    env = dict(os.environ)
    shim = snakefile.resolve().parent / "scripts" / "no_slurm"
    named = any(o == flag or o.startswith(flag + "=") for o in options
                for flag in EXECUTOR_OPTIONS)
    if shim.is_dir() and not named:
        env["PATH"] = os.pathsep.join([str(shim), env.get("PATH", "")])
    return env
