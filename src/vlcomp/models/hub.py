"""Hugging Face Hub repositories as pinned local snapshots under ``resources/``.

A configuration names hub models (and datasets) by id and ``revision`` (a 40-character
commit). Rule ``download_hub_snapshot`` (a localrule: it runs where the network is,
`vlcomp.data.hub_download`) lays the repository's files at that commit into
``resources/models/hub/{owner}/{name}/`` (datasets: ``resources/datasets/hub/...``) with a
manifest, ``.vlcomp_snapshot.json``: the commit and each file's size and sha256. Jobs never
download: every loader asks `local_pretrained` for the folder to read, which checks the
manifest against the configured revision and the files against their sizes, and, with the
offline variables the workflow sets (``HF_HUB_OFFLINE=1``), refuses a hub id that has no
snapshot, naming the folder it expected.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlcomp.jobs import OFFLINE_VARIABLES

MANIFEST = ".vlcomp_snapshot.json"
ROOTS = {"model": "resources/models/hub", "dataset": "resources/datasets/hub"}
COMMIT = re.compile(r"[0-9a-f]{40}")
# "owner/name" or a legacy id without owner ("bert-base-uncased"); never a path
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?")
# the files a transformers model loads (weights: safetensors, else the .bin files)
MODEL_FILES = ("*.json", "*.txt", "*.model", "*.safetensors", "*.bin", "*.tiktoken")


class SnapshotError(RuntimeError):
    """A snapshot is missing, incomplete, or of another revision; the message says which
    file and what to run."""


@dataclass(frozen=True)
class HubRef:
    """One hub repository a configuration uses: its id, the pinned commit (None: the
    download lock file pins it at the first fetch), model or dataset, the file patterns
    fetched (fnmatch over the repository's paths), the bytes they hold where known, and the
    configuration key that names it."""

    repo: str
    revision: str | None = None
    kind: str = "model"
    patterns: tuple[str, ...] = MODEL_FILES
    size: int | None = None
    where: str = ""

    @property
    def folder(self) -> str:
        return snapshot_folder(self.repo, self.kind)

    @property
    def key(self) -> str:
        """The lock file's key of the repository (``hub/models/{repo}``)."""
        return f"hub/{self.kind}s/{self.repo}"


# a value ending like a file (a checkpoint, a config) names a file, never a repository
FILE_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors", ".ckpt", ".th", ".pkl", ".npz",
                 ".json", ".yaml", ".yml")


def is_hub_id(value: Any) -> bool:
    """Whether ``value`` names a hub repository rather than a local file or folder."""
    if not isinstance(value, str) or not _HUB_ID.fullmatch(value):
        return False
    if value.lower().endswith(FILE_SUFFIXES):
        return False
    return not value.startswith(("resources/", "results/")) and not os.path.exists(value)


def snapshot_folder(repo: str, kind: str = "model") -> str:
    """Where the snapshot of ``repo`` lives, relative to the workflow's working folder."""
    if kind not in ROOTS:
        raise ValueError(f"hub kind {kind!r} is not one of {sorted(ROOTS)}")
    return f"{ROOTS[kind]}/{repo}"


def offline() -> bool:
    """Whether the environment forbids hub downloads (the workflow's jobs do)."""
    return any(os.environ.get(v, "").lower() in ("1", "true", "yes", "on")
               for v in OFFLINE_VARIABLES)


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """A snapshot's manifest (``repo``, ``revision``, ``files``: path -> size, sha256)."""
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        manifest["files"], manifest["revision"]  # required keys
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise SnapshotError(f"{path}: not a snapshot manifest ({err}); delete {folder} and "
                            "fetch it again (snakemake ... --until download_hub_snapshot)") from err
    return manifest


def check_snapshot(folder: str | os.PathLike, revision: str | None = None) -> dict[str, Any]:
    """Check a snapshot: its manifest's commit is ``revision`` (when pinned) and every file
    it lists is there with its size. Raises `SnapshotError` naming the file, or both
    revisions."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if revision is not None and manifest["revision"] != revision:
        raise SnapshotError(
            f"{folder} holds revision {manifest['revision']}, but the configuration pins "
            f"{revision}: fetch it again (delete the folder, then run the download rules on a "
            "host with network)")
    for name, info in manifest["files"].items():
        path = folder / name
        if not path.is_file():
            raise SnapshotError(f"{path} is missing from the snapshot of {manifest.get('repo')} "
                                f"at {manifest['revision']}: delete {folder} and fetch it again")
        if path.stat().st_size != int(info["size"]):
            raise SnapshotError(f"{path}: {path.stat().st_size} bytes, the snapshot recorded "
                                f"{info['size']}: the file changed; delete {folder} and fetch it "
                                "again")
    return manifest


def local_pretrained(model_id: str, revision: str | None = None, kind: str = "model") -> str:
    """The path to load ``model_id`` from: itself when it is a local path; its checked
    snapshot when one was fetched; else, offline, a `SnapshotError` naming the missing
    folder, and online (a library user outside the workflow) the hub id itself."""
    if not is_hub_id(model_id):
        return model_id
    folder = snapshot_folder(model_id, kind)
    if os.path.isdir(folder):
        check_snapshot(folder, revision)
        return folder
    if offline():
        pin = f" at revision {revision}" if revision else ""
        raise SnapshotError(
            f"{kind} {model_id}{pin} is not materialised: {folder}/ is missing and this job "
            "may not download (HF_HUB_OFFLINE). Fetch every download of the configuration "
            "first, where the network is reachable: bash scripts/fetch.sh --configfile ...")
    return model_id


def check_revision(value: Any, where: str) -> str | None:
    """A configured revision: None, or a 40-character lowercase commit (a branch or tag
    moves; it pins nothing)."""
    if value is None:
        return None
    if not isinstance(value, str) or not COMMIT.fullmatch(value):
        raise ValueError(f"{where}: revision {value!r} is not a 40-character commit id; a "
                         "branch or tag can move, so pin the commit (the hub page's "
                         "'History' lists them)")
    return value


def pretrained_source(model_id: str, revision: str | None = None,
                      kind: str = "model") -> tuple[str, str | None]:
    """``(path or id, revision)`` for ``from_pretrained``: a local snapshot (`local_pretrained`)
    drops the revision, which names a hub commit, not a folder."""
    source = local_pretrained(model_id, revision, kind)
    return source, (revision if source == model_id and is_hub_id(model_id) else None)
