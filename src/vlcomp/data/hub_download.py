"""Fetch a hub repository at a pinned commit into a local snapshot folder (`vlcomp.models.hub`).

The hub's API lists the repository's files at the commit with their git blob ids and, for
large (LFS) files, their sha256: ``GET {endpoint}/api/{models|datasets}/{repo}/revision/
{commit}?blobs=true``. Each file matching the reference's patterns is downloaded from
``{endpoint}[/datasets]/{repo}/resolve/{commit}/{path}`` through `vlcomp.data.download.fetch`
(retried, atomic, content-checked) and verified against the listing: LFS files by sha256,
the others by git blob id. The folder is written under a temporary name and renamed into
place with its manifest, so a failed fetch leaves nothing behind. Plain HTTP(S), so
``downloads.mirrors`` and ``file://`` folders serve it as they serve every other download; a
token in ``HF_TOKEN`` goes with the requests (gated repositories).
"""

from __future__ import annotations

import fnmatch
import json
import os
import urllib.parse
from pathlib import Path
from typing import Any

from vlcomp.data.download import DownloadError, Expected, fetch
from vlcomp.data.lockfile import locked_revision, record_revision
from vlcomp.data.sources import resolve_url
from vlcomp.io import atomic_folder
from vlcomp.models.hub import COMMIT, MANIFEST, HubRef

ENDPOINT = "https://huggingface.co"
WEIGHTS = (".safetensors", ".bin")


def api_url(ref: HubRef, revision: str, endpoint: str = ENDPOINT) -> str:
    """The listing of ``ref``'s files at ``revision``, with blob ids and LFS hashes."""
    return (f"{endpoint}/api/{ref.kind}s/{ref.repo}/revision/"
            f"{urllib.parse.quote(revision, safe='')}?blobs=true")


def file_url(ref: HubRef, revision: str, path: str, endpoint: str = ENDPOINT) -> str:
    """Where one file of ``ref`` at ``revision`` is served."""
    prefix = "datasets/" if ref.kind == "dataset" else ""
    return f"{endpoint}/{prefix}{ref.repo}/resolve/{revision}/{urllib.parse.quote(path)}"


def select_files(siblings: list[dict[str, Any]], patterns: tuple[str, ...]) -> list[dict]:
    """The listed files matching ``patterns``; of the weights, safetensors only where the
    repository has them (transformers then never reads the ``.bin`` copies)."""
    chosen = [s for s in siblings
              if any(fnmatch.fnmatch(s["rfilename"], p) for p in patterns)]
    if any(s["rfilename"].endswith(".safetensors") for s in chosen):
        chosen = [s for s in chosen if not s["rfilename"].endswith(".bin")]
    return sorted(chosen, key=lambda s: s["rfilename"])


def _headers() -> dict[str, str]:
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else {}


def _listing(ref: HubRef, revision: str, folder: Path, mirrors: dict[str, str] | None,
             retries: int) -> dict[str, Any]:
    """The hub's listing of ``ref`` at ``revision`` (fetched into ``folder``, then read)."""
    target = folder / ".listing.json"
    url = resolve_url(api_url(ref, revision), mirrors)
    fetch(url, target, Expected(kind="json"), retries=retries, headers=_headers())
    try:
        listing = json.loads(target.read_text(encoding="utf-8"))
        listing["siblings"], listing["sha"]  # required keys
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise DownloadError(f"{url}: not a hub listing of {ref.repo} ({err})") from err
    finally:
        target.unlink(missing_ok=True)
    return listing


def resolve_revision(ref: HubRef, lock: str | Path | None, mirrors: dict[str, str] | None,
                     retries: int, scratch: Path) -> str:
    """The commit to fetch: the configured one, else the one the lock file recorded at the
    first fetch, else the commit ``main`` points to now (recorded in the lock file)."""
    if ref.revision is not None:
        return ref.revision
    if lock is not None:
        known = locked_revision(lock, ref.key)
        if known is not None:
            return known
    commit = str(_listing(ref, "main", scratch, mirrors, retries)["sha"])
    if not COMMIT.fullmatch(commit):
        raise DownloadError(f"{ref.repo}: the hub answered commit {commit!r} for main")
    if lock is not None:
        record_revision(lock, ref.key, commit)
    return commit


def fetch_snapshot(ref: HubRef, dest: str | Path, mirrors: dict[str, str] | None = None,
                   lock: str | Path | None = None, retries: int = 3) -> dict[str, Any]:
    """Fetch ``ref`` into ``dest`` (module docstring) and return its manifest. Raises
    `DownloadError` naming the file, or both commits when the hub serves another one."""
    with atomic_folder(dest) as tmp:
        revision = resolve_revision(ref, lock, mirrors, retries, tmp)
        listing = _listing(ref, revision, tmp, mirrors, retries)
        if listing["sha"] != revision:
            raise DownloadError(f"{ref.repo}: the hub serves commit {listing['sha']} where "
                                f"{revision} was pinned ({ref.where or 'configuration'})")
        chosen = select_files(listing["siblings"], ref.patterns)
        if not chosen:
            raise DownloadError(f"{ref.repo} at {revision}: no file matches {list(ref.patterns)}")
        files = {}
        for sibling in chosen:
            name = sibling["rfilename"]
            lfs = sibling.get("lfs") or {}
            expected = Expected(sha256=lfs.get("sha256"),
                                git_blob=None if lfs else sibling.get("blobId"))
            url = resolve_url(file_url(ref, revision, name), mirrors)
            checked = fetch(url, tmp / name, expected, retries=retries, headers=_headers())
            files[name] = {"size": checked.size, "sha256": checked.sha256}
        manifest = {"repo": ref.repo, "kind": ref.kind, "revision": revision,
                    "patterns": list(ref.patterns), "files": files}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                                    encoding="utf-8")
    return manifest
