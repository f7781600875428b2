"""The download lock file: size and sha256 of every file whose hash nobody published.

The first download of such a file records what arrived; every later download (a re-run, a
colleague's machine with the lock file committed, a cluster node) is compared with it, and a
change stops the job with an error naming the file and both hashes. The lock file lives outside
Snakemake's outputs (default ``downloads.lock.json`` in the working directory), so it survives
the deletion of a job's outputs before a re-run; commit it beside the configuration. Writers
take an exclusive ``flock`` on a sidecar file and replace the JSON atomically, so parallel
download jobs never lose each other's entries.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from vlcomp.io import atomic_path

DEFAULT_LOCK = "downloads.lock.json"


class LockMismatch(RuntimeError):
    """A download differs from the one recorded in the lock file."""


@dataclass(frozen=True)
class Locked:
    """A lock entry: the file's size and sha256, and the URL it first came from."""

    size: int
    sha256: str
    url: str = ""


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path.with_name(lock_path.name + ".flock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def read_lock(lock_path: str | os.PathLike) -> dict[str, Locked]:
    """Every entry of a lock file (none when it does not exist)."""
    path = Path(lock_path)
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {key: Locked(int(v["size"]), str(v["sha256"]), str(v.get("url", "")))
                for key, v in raw["files"].items()}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a vlcomp download lock file ({err}); fix or delete "
                         "it (every file without a published hash is then recorded anew)") from err


def check_or_record(lock_path: str | os.PathLike, key: str, found: Locked) -> str:
    """Compare ``found`` with the entry ``key`` (the path under ``resources/``) of the lock
    file: ``"recorded"`` when they agree, ``"new"`` after recording a first download.
    Raises `LockMismatch` naming the file and both hashes when they differ."""
    path = Path(lock_path)
    with _exclusive(path):
        entries = read_lock(path)
        known = entries.get(key)
        if known is not None:
            if (known.size, known.sha256) != (found.size, found.sha256):
                raise LockMismatch(
                    f"resources/{key}: sha256 {found.sha256} ({found.size} bytes) differs from "
                    f"{known.sha256} ({known.size} bytes) recorded in {path} at its first "
                    "download: the file changed at its source, or this copy is corrupt. "
                    f"Delete the file to download it again; to accept the new version, remove "
                    f"the entry {key!r} from {path}")
            return "recorded"
        entries[key] = found
        payload = {"comment": "size and sha256 of downloads without a published hash, "
                              "recorded at their first download (vlcomp.data.lockfile)",
                   "files": {k: {"size": v.size, "sha256": v.sha256, "url": v.url}
                             for k, v in sorted(entries.items())}}
        with atomic_path(path) as tmp:
            tmp.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return "new"
