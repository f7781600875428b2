"""Checksummed, atomic, retried downloads (http(s), file://, Google Drive) and extraction.

A file is fetched to a temporary name beside its destination and moved into place only when
complete and verified. With a published sha256 the file must match it; without one, the size
and sha256 of the first download recorded in ``{dest}.sha256.json`` (written in both cases)
are what every later check compares against, so a silently changed or truncated file is
caught.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from vlcomp.io import atomic_path

CHUNK = 1 << 20


class DownloadError(RuntimeError):
    """A download or a checksum failed; the message says what to do."""


def gdrive_url(file_id: str) -> str:
    """Direct-download URL of a public Google Drive file (large files included)."""
    return f"https://drive.usercontent.google.com/download?id={file_id}&export=download&confirm=t"


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def record_path(dest: str | Path) -> Path:
    dest = Path(dest)
    return dest.with_name(dest.name + ".sha256.json")


@dataclass(frozen=True)
class Checked:
    """What `verify` found: the file's size and sha256, and what it was compared with."""

    size: int
    sha256: str
    against: str  # "published" | "recorded" | "new"


def verify(dest: str | Path, sha256: str | None = None) -> Checked:
    """Check ``dest`` against the published sha256, else against its recorded one; record it
    when there is neither. Raises `DownloadError` naming the file on a mismatch."""
    dest = Path(dest)
    if not dest.is_file():
        raise DownloadError(f"{dest} is missing")
    size, digest = dest.stat().st_size, sha256_of(dest)
    record = record_path(dest)
    if sha256 is not None:
        if digest != sha256.lower():
            raise DownloadError(
                f"{dest}: sha256 {digest} does not match the published {sha256}; the file is "
                "corrupt or a different version: delete it and run the rule again")
        _write_record(record, size, digest)
        return Checked(size, digest, "published")
    if record.is_file():
        known = json.loads(record.read_text())
        if (known["size"], known["sha256"]) != (size, digest):
            raise DownloadError(
                f"{dest}: size/sha256 ({size}, {digest}) differ from those recorded at the first "
                f"download ({known['size']}, {known['sha256']}) in {record}; the file changed: "
                "delete both files to accept a new version")
        return Checked(size, digest, "recorded")
    _write_record(record, size, digest)
    return Checked(size, digest, "new")


def _write_record(record: Path, size: int, digest: str) -> None:
    if record.is_file():
        return
    with atomic_path(record) as tmp:
        tmp.write_text(json.dumps({"size": size, "sha256": digest}, sort_keys=True) + "\n")


def fetch(
    url: str, dest: str | Path, sha256: str | None = None, retries: int = 3,
    timeout: float = 60.0, backoff: float = 2.0,
) -> Checked:
    """Download ``url`` to ``dest`` (skipped when ``dest`` exists and verifies), atomically,
    with ``retries`` attempts and exponential backoff; then `verify`."""
    dest = Path(dest)
    if dest.is_file():
        return verify(dest, sha256)
    last: Exception | None = None
    for attempt in range(1, retries + 1):
        try:
            with atomic_path(dest) as tmp:
                with urllib.request.urlopen(url, timeout=timeout) as response, \
                        open(tmp, "wb") as out:
                    shutil.copyfileobj(response, out, CHUNK)
                if sha256 is not None and sha256_of(tmp) != sha256.lower():
                    raise DownloadError(f"{url}: downloaded file does not match sha256 {sha256}")
            return verify(dest, sha256)
        except (urllib.error.URLError, OSError, DownloadError) as err:
            last = err
            if attempt < retries:
                time.sleep(backoff ** (attempt - 1))
    raise DownloadError(
        f"could not download {url} to {dest} after {retries} attempts ({last}); check the "
        "network (and the URL in config/README.md), or place the file there by hand")


def extract_zip(archive: str | Path, dest_dir: str | Path) -> Path:
    """Unpack ``archive`` into ``dest_dir`` via a temporary folder renamed into place, so a
    failed extraction leaves nothing half-written."""
    archive, dest_dir = Path(archive), Path(dest_dir)
    if dest_dir.exists():
        return dest_dir
    tmp = dest_dir.with_name(f".{dest_dir.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                target = (tmp / member).resolve()
                if not str(target).startswith(str(tmp.resolve())):
                    raise DownloadError(f"{archive}: member {member!r} escapes the target folder")
            zf.extractall(tmp)
    except zipfile.BadZipFile as err:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DownloadError(f"{archive} is not a valid zip ({err}): delete it and download "
                            "again") from err
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    tmp.rename(dest_dir)
    return dest_dir


def check_manual_download(folder: str | Path, pattern: str, count: int, instructions: str) -> int:
    """Count the files matching ``pattern`` in a manually downloaded ``folder``; fewer than
    ``count`` is an error that says where the files come from and where they go."""
    folder = Path(folder)
    found = sum(1 for _ in folder.glob(pattern)) if folder.is_dir() else 0
    if found < count:
        raise DownloadError(f"{folder}: {found} files match {pattern!r}, expected {count}. "
                            f"This dataset cannot be downloaded automatically: {instructions}")
    return found
