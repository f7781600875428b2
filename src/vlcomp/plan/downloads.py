"""What a configuration downloads before it runs: the dry run's jobs of the download rules
(local rules, on the host Snakemake runs on), each with its pin and its size where known.

    python -m vlcomp.plan --configfile config/paper.yaml --downloads

lists them; the plan's closing lines always give the count and the bytes. Sizes are known for
files whose size is recorded (`vlcomp.data.sources.RemoteFile.size`), hub snapshots whose
listing was read (`vlcomp.pins.KNOWN_BYTES`), and anything already fetched into
``resources/`` (its manifest, or the file); the rest is counted as of unknown size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlcomp.config import expand_models
from vlcomp.data.sources import remote_files
from vlcomp.models.hub import MANIFEST
from vlcomp.pins import config_pins
from vlcomp.plan.dry_run import DryJob

DOWNLOAD_RULES = ("download_file", "download_hub_snapshot", "check_manual_download")


@dataclass(frozen=True)
class Download:
    """One download job: its target, its kind (file, snapshot or manual), what pins it,
    its bytes (None: unknown) and whether it is already in place."""

    target: str
    kind: str
    pin: str
    size: int | None
    present: bool = False
    expected_size: int | None = None  # the pinned size (None: not published, or a mirror's)
    sha256: str | None = None
    git_blob: str | None = None


def _file_pin(remote: Any) -> str:
    if remote.sha256:
        return f"sha256 {remote.sha256[:12]}…"
    if remote.git_blob:
        return f"git blob {remote.git_blob[:12]}…"
    return "lock file (first download)"


def plan_downloads(config: dict[str, Any], jobs: list[DryJob], workdir: Path | None = None
                   ) -> list[Download]:
    """The download jobs of a dry run, described (``workdir``: where ``resources/`` is, to
    see what is already fetched)."""
    pins = config_pins(config, expand_models(config))
    checksums = (config.get("downloads") or {}).get("sha256")
    files = remote_files(checksums, pins.files)
    hub = {ref.folder: ref for ref in pins.hub}
    out: list[Download] = []
    for job in jobs:
        if job.rule not in DOWNLOAD_RULES:
            continue
        for target in job.output:
            local = (workdir / target) if workdir else None
            if job.rule == "download_file":
                remote = files.get(target.removeprefix("resources/"))
                size = remote.size if remote else None
                if local is not None and local.is_file():
                    size = local.stat().st_size
                key = target.removeprefix("resources/")
                expected = None if remote is None or key in (checksums or {}) else remote.size
                out.append(Download(target, "file", _file_pin(remote) if remote else "?", size,
                                    bool(local and local.is_file()), expected,
                                    remote.sha256 if remote else None,
                                    remote.git_blob if remote else None))
            elif job.rule == "download_hub_snapshot":
                ref = hub.get(target)
                pin = f"commit {ref.revision}" if ref and ref.revision else \
                    "lock file (main's commit at the first fetch)"
                present = bool(local and (local / MANIFEST).is_file())
                out.append(Download(target, "snapshot", pin, ref.size if ref else None, present))
            else:
                out.append(Download(target.removesuffix("/.vlcomp_checked"), "manual",
                                    "manual download (a licence form)", None))
    return out


def gigabytes(size: float) -> str:
    return f"{size / 1e9:,.1f} GB"


def format_downloads(downloads: list[Download], listing: bool = False) -> str:
    """The downloads' closing line (and, with ``listing``, one line per download)."""
    lines = []
    if listing:
        lines.append(f"{'download':72} {'size':>10}  pin")
        for d in sorted(downloads, key=lambda d: d.target):
            size = gigabytes(d.size) if d.size is not None else "?"
            lines.append(f"{d.target:72} {size:>10}  {d.pin}{' (present)' if d.present else ''}")
    count = {kind: sum(d.kind == kind for d in downloads)
             for kind in ("file", "snapshot", "manual")}
    fetched = [d for d in downloads if d.kind != "manual"]
    known = sum(d.size for d in fetched if d.size is not None)
    unknown = sum(d.size is None for d in fetched)
    files, snapshots, manual = count["file"], count["snapshot"], count["manual"]
    lines.append(f"downloads (local rules, where Snakemake runs): {files} files and {snapshots} "
                 f"hub snapshots, {gigabytes(known)} of known size + {unknown} of unknown size; "
                 f"{manual} manual downloads")
    return "\n".join(lines)
