"""Checksummed, atomic, retried downloads (http(s), file://, Google Drive) and extraction.

A file is fetched to a temporary name beside its destination and moved into place only when
complete and verified:

1. its content is what its name claims (`vlcomp.data.content`): an HTML page (Google Drive's
   quota or virus-scan notice), a truncated archive or an undecodable image is refused;
2. with a published sha256 (or a git blob id, for files of a pinned git commit) it must
   match it;
3. without one, the size and sha256 of the first download go to the lock file
   (`vlcomp.data.lockfile`), which is not a Snakemake output and so survives re-runs; every
   later download is compared with that record.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vlcomp.data.content import ContentError, check_content, kind_of
from vlcomp.data.lockfile import Locked, LockMismatch, check_or_record
from vlcomp.io import atomic_path

CHUNK = 1 << 20


class DownloadError(RuntimeError):
    """A download or a checksum failed; the message says what to do."""


def gdrive_url(file_id: str) -> str:
    """Direct-download URL of a public Google Drive file (large files included)."""
    return f"https://drive.usercontent.google.com/download?id={file_id}&export=download&confirm=t"


def digests(path: str | Path) -> tuple[int, str, str]:
    """A file's size, sha256 and git blob id (sha1 of ``blob {size}\\0`` + content)."""
    path = Path(path)
    size = path.stat().st_size
    sha256, blob = hashlib.sha256(), hashlib.sha1(f"blob {size}\0".encode())
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            sha256.update(block)
            blob.update(block)
    return size, sha256.hexdigest(), blob.hexdigest()


def sha256_of(path: str | Path) -> str:
    return digests(path)[1]


@dataclass(frozen=True)
class Expected:
    """What a download must be: its published sha256 or git blob id (either may be None),
    the content kind its name claims, and where a first download without either is recorded
    (``lock``: the lock file, ``key``: the file's path under ``resources/``)."""

    sha256: str | None = None
    git_blob: str | None = None
    kind: str | None = None
    lock: str | Path | None = None
    key: str = ""
    url: str = ""


@dataclass(frozen=True)
class Checked:
    """What `verify` found: the file's size and sha256, and what it was compared with."""

    size: int
    sha256: str
    against: str  # "published" | "git blob" | "recorded" | "new" | "unchecked"


def verify(dest: str | Path, expected: Expected | None = None, name: str | None = None
           ) -> Checked:
    """Check ``dest`` (shown as ``name``) for its content kind, then against the published
    sha256 or git blob id, else against (or into) the lock file. Raises `DownloadError`
    naming the file on any mismatch."""
    dest, expected = Path(dest), expected or Expected()
    name = name or str(dest)
    if not dest.is_file():
        raise DownloadError(f"{name} is missing")
    try:
        check_content(dest, expected.kind or kind_of(name), name)
    except ContentError as err:
        raise DownloadError(str(err)) from err
    size, sha256, blob = digests(dest)
    if expected.sha256 is not None:
        if sha256 != expected.sha256.lower():
            raise DownloadError(
                f"{name}: sha256 {sha256} does not match the published {expected.sha256}; the "
                "file is corrupt or a different version: delete it and run the rule again")
        return Checked(size, sha256, "published")
    if expected.git_blob is not None:
        if blob != expected.git_blob.lower():
            raise DownloadError(
                f"{name}: git blob id {blob} does not match {expected.git_blob}, the file at "
                "the pinned commit; the file is corrupt or a different version: delete it and "
                "run the rule again")
        return Checked(size, sha256, "git blob")
    if expected.lock is None:
        return Checked(size, sha256, "unchecked")
    try:
        against = check_or_record(expected.lock, expected.key or dest.name,
                                  Locked(size, sha256, expected.url))
    except LockMismatch as err:
        raise DownloadError(str(err)) from err
    return Checked(size, sha256, against)


def fetch(
    url: str, dest: str | Path, expected: Expected | None = None, retries: int = 3,
    timeout: float = 60.0, backoff: float = 2.0, headers: dict[str, str] | None = None,
) -> Checked:
    """Download ``url`` to ``dest`` (skipped when ``dest`` exists and verifies), atomically,
    with ``retries`` attempts and exponential backoff; then `verify`. A download that fails
    its content or checksum check never takes the destination's name. ``headers`` go with
    http(s) requests (a hub token)."""
    dest, expected = Path(dest), expected or Expected()
    if dest.is_file():
        return verify(dest, expected)
    last: Exception | None = None
    for attempt in range(1, retries + 1):
        try:
            with atomic_path(dest) as tmp:
                request = urllib.request.Request(url, headers=headers or {})
                with urllib.request.urlopen(request, timeout=timeout) as response, \
                        open(tmp, "wb") as out:
                    shutil.copyfileobj(response, out, CHUNK)
                checked = verify(tmp, expected, name=str(dest))
            return checked
        except (urllib.error.URLError, OSError, DownloadError) as err:
            last = err
            if attempt < retries:
                time.sleep(backoff ** (attempt - 1))
    raise DownloadError(
        f"could not download {url} to {dest} after {retries} attempts ({last}); check the "
        "network (and the URL in config/README.md), or place the file there by hand")


def extract_zip(archive: str | Path, dest_dir: str | Path) -> Path:
    """Unpack one zip (`extract_archives`)."""
    return extract_archives([archive], dest_dir)


def _unpack_into(archive: Path, tmp: Path) -> None:
    """One zip or tar(.gz) into ``tmp``; a member that would land outside it is an error."""
    if archive.name.endswith((".tar", ".tar.gz", ".tgz")):
        try:
            with tarfile.open(archive) as tf:
                tf.extractall(tmp, filter="data")  # refuses absolute paths, .., device files
        except tarfile.FilterError as err:
            raise DownloadError(f"{archive}: member escapes the target folder ({err})") from err
        except (tarfile.TarError, EOFError) as err:
            raise DownloadError(f"{archive} is not a valid tar archive ({err}): delete it and "
                                "download again") from err
        return
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                target = (tmp / member).resolve()
                if not str(target).startswith(str(tmp.resolve())):
                    raise DownloadError(f"{archive}: member {member!r} escapes the target folder")
            zf.extractall(tmp)
    except zipfile.BadZipFile as err:
        raise DownloadError(f"{archive} is not a valid zip ({err}): delete it and download "
                            "again") from err


def extract_archives(archives: Sequence[str | Path], dest_dir: str | Path) -> Path:
    """Unpack zips and tar(.gz) archives, in order, into ``dest_dir`` (Visual Genome's two
    image zips share one folder) via a temporary folder renamed into place, so a failed
    extraction leaves nothing half-written."""
    dest_dir = Path(dest_dir)
    if dest_dir.exists():
        return dest_dir
    tmp = dest_dir.with_name(f".{dest_dir.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for archive in archives:
            _unpack_into(Path(archive), tmp)
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
