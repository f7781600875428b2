"""Where the workflow's files are: the git checkout the package runs from (``src/vlcomp``
beside a ``Snakefile``), else, for an installed package, the current folder."""

from __future__ import annotations

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
