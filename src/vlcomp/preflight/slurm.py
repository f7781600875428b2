"""What the cluster says about itself: partitions (sinfo) and the user's accounts
(sacctmgr)."""

from __future__ import annotations

import getpass
import re
import shutil
import subprocess
from dataclasses import dataclass

__all__ = ["ClusterPartition", "accounts", "parse_sinfo", "partitions", "time_limit_min"]


@dataclass(frozen=True)
class ClusterPartition:
    """One partition as sinfo shows it: name, default or not, time limit (None: unlimited),
    whether its nodes have GPUs."""

    name: str
    default: bool
    limit_min: float | None
    gpus: bool


def time_limit_min(text: str) -> float | None:
    """sinfo's TIMELIMIT in minutes (``[days-]hours:minutes:seconds``, ``minutes:seconds``,
    ``minutes``); None for ``infinite``/``UNLIMITED``."""
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "n/a", ""):
        return None
    days = 0
    if "-" in text:
        head, text = text.split("-", 1)
        days = int(head)
    parts = [int(p) for p in text.split(":")]
    if len(parts) == 3:
        hours, minutes, seconds = parts
    elif len(parts) == 2:
        hours, (minutes, seconds) = 0, parts
    else:
        hours, minutes, seconds = 0, parts[0], 0
    return days * 1440 + hours * 60 + minutes + seconds / 60


def parse_sinfo(text: str) -> dict[str, ClusterPartition]:
    """``sinfo -h -o '%P|%l|%G'`` lines (one per partition and node kind) by partition."""
    out: dict[str, ClusterPartition] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, limit, gres = [*line.split("|"), "", ""][:3]
        default = name.endswith("*")
        name = name.rstrip("*")
        gpus = bool(re.search(r"\bgpu\b", gres))
        known = out.get(name)
        out[name] = ClusterPartition(name, default or bool(known and known.default),
                                     time_limit_min(limit), gpus or bool(known and known.gpus))
    return out


def partitions() -> tuple[dict[str, ClusterPartition] | None, str]:
    """The cluster's partitions, or None and why not."""
    sinfo = shutil.which("sinfo")
    if sinfo is None:
        return None, "no sinfo on PATH (not a SLURM host)"
    done = subprocess.run([sinfo, "-h", "-o", "%P|%l|%G"], capture_output=True, text=True,
                          timeout=60, check=False)
    if done.returncode:
        return None, f"sinfo failed: {(done.stderr or done.stdout).strip()[:200]}"
    return parse_sinfo(done.stdout), ""


def accounts(user: str | None = None) -> tuple[set[str] | None, str]:
    """The accounts the user may charge (sacctmgr), or None and why they are unknown."""
    sacctmgr = shutil.which("sacctmgr")
    if sacctmgr is None:
        return None, "no sacctmgr on PATH"
    done = subprocess.run([sacctmgr, "-n", "-P", "show", "associations",
                           f"user={user or getpass.getuser()}", "format=account"],
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode:
        return None, f"sacctmgr failed: {(done.stderr or done.stdout).strip()[:200]}"
    return {line.strip() for line in done.stdout.splitlines() if line.strip()}, ""
