"""Where the workflow's files are: the git checkout the package runs from (``src/vlcomp``
beside a ``Snakefile``), else, for an installed package, the current folder."""

from __future__ import annotations

import argparse
from pathlib import Path


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
