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


def _read_sections(path: Path) -> tuple[dict[str, Locked], dict[str, str]]:
    """A lock file's files and hub revisions (none when it does not exist)."""
    if not path.is_file():
        return {}, {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        files = {key: Locked(int(v["size"]), str(v["sha256"]), str(v.get("url", "")))
                 for key, v in raw["files"].items()}
        revisions = {str(k): str(v) for k, v in raw.get("revisions", {}).items()}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
        raise ValueError(f"{path}: not a vlcomp download lock file ({err}); fix or delete "
                         "it (every file without a published hash is then recorded anew)") from err
    return files, revisions


def _write_sections(path: Path, files: dict[str, Locked], revisions: dict[str, str]) -> None:
    payload = {"comment": "size and sha256 of downloads without a published hash, and the "
                          "commits of hub repositories without a configured revision, "
                          "recorded at their first download (vlcomp.data.lockfile)",
               "files": {k: {"size": v.size, "sha256": v.sha256, "url": v.url}
                         for k, v in sorted(files.items())}}
    if revisions:
        payload["revisions"] = dict(sorted(revisions.items()))
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def read_lock(lock_path: str | os.PathLike) -> dict[str, Locked]:
    """Every file entry of a lock file (none when it does not exist)."""
    return _read_sections(Path(lock_path))[0]


def locked_revision(lock_path: str | os.PathLike, key: str) -> str | None:
    """The commit recorded for a hub repository (``hub/models/{repo}``), if any."""
    return _read_sections(Path(lock_path))[1].get(key)


def check_or_record(lock_path: str | os.PathLike, key: str, found: Locked) -> str:
    """Compare ``found`` with the entry ``key`` (the path under ``resources/``) of the lock
    file: ``"recorded"`` when they agree, ``"new"`` after recording a first download.
    Raises `LockMismatch` naming the file and both hashes when they differ."""
    path = Path(lock_path)
    with _exclusive(path):
        entries, revisions = _read_sections(path)
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
        _write_sections(path, entries, revisions)
        return "new"


def record_revision(lock_path: str | os.PathLike, key: str, revision: str) -> str:
    """Record the commit a hub repository resolved to at its first fetch (``"new"``), or
    check it against the one recorded (``"recorded"``); a different one raises
    `LockMismatch` naming both."""
    path = Path(lock_path)
    with _exclusive(path):
        entries, revisions = _read_sections(path)
        known = revisions.get(key)
        if known is not None:
            if known != revision:
                raise LockMismatch(
                    f"{key}: revision {revision} differs from {known} recorded in {path} at its "
                    f"first fetch; to move to the new commit, remove the entry {key!r} from "
                    f"{path} (or pin a revision in the configuration)")
            return "recorded"
        revisions[key] = revision
        _write_sections(path, entries, revisions)
        return "new"
