"""The downloads a run reads (present, of their pinned size, and with ``--verify`` of their
pinned hash), the manual downloads, and the disk they still need."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from vlcomp.data.lockfile import DEFAULT_LOCK
from vlcomp.data.sources import manual_checks
from vlcomp.plan.downloads import Download, gigabytes, plan_downloads
from vlcomp.plan.dry_run import DryJob
from vlcomp.preflight import BLOCKER, MISSING, OK, Check


def manual_present(folder: str, workdir: Path) -> bool:
    """Whether a manual download's folder holds what its check asks for."""
    check, _ = manual_checks()[folder]
    return len(list((workdir / "resources" / folder).glob(check.pattern))) >= check.count


def hash_mismatches(files: list[Download], workdir: Path, lock: Path
                    ) -> tuple[list[str], dict[str, int]]:
    """Each fetched file hashed against its pin: the published sha256 or git blob id, else
    its lock file entry (read, never written). (mismatches, how many matched each way)."""
    from vlcomp.data.download import digests
    from vlcomp.data.lockfile import read_lock

    locked = read_lock(lock)
    wrong, matched = [], {"published": 0, "lock file": 0, "unrecorded": 0}
    for d in files:
        if d.kind != "file" or not d.present:
            continue
        size, sha256, blob = digests(workdir / d.target)
        entry = locked.get(d.target.removeprefix("resources/"))
        if d.sha256 or d.git_blob:
            pinned, found = (d.sha256, sha256) if d.sha256 else (d.git_blob, blob)
            ok, way = found == pinned.lower(), "published"
        elif entry is not None:
            ok, way = (size, sha256) == (entry.size, entry.sha256), "lock file"
        else:
            ok, way = True, "unrecorded"
        if ok:
            matched[way] += 1
        else:
            wrong.append(f"{d.target} (sha256 {sha256[:12]}…, not its {way} pin)")
    return wrong, matched


def download_checks(config: dict[str, Any], jobs: list[DryJob], workdir: Path,
                    fetch: str, free: int | None = None, verify: bool = False) -> list[Check]:
    """Downloads (fetched or still to fetch, with their bytes; a fetched file of another size
    than its pin; with ``verify``, every fetched file hashed against its pin), manual
    downloads, free disk. ``fetch``: the command that fetches them; ``free``: free bytes
    (None: measured)."""
    found = plan_downloads(config, jobs, workdir)
    files = [d for d in found if d.kind != "manual"]
    manual = [d for d in found if d.kind == "manual"]
    checks = []
    resized = [d for d in files if d.present and d.expected_size is not None
               and d.size != d.expected_size]
    if resized:
        named = "; ".join(f"{d.target} ({d.size:,} B, pinned {d.expected_size:,})"
                          for d in resized[:3])
        checks.append(Check("download sizes", BLOCKER, f"{len(resized)} fetched file(s) differ "
                            f"from their pinned size: {named}",
                            f"delete them and run {fetch} again"))
    if verify and files:
        lock = workdir / (config.get("downloads") or {}).get("lock", DEFAULT_LOCK)
        wrong, matched = hash_mismatches(files, workdir, lock)
        if wrong:
            checks.append(Check("download hashes", BLOCKER, f"{len(wrong)} fetched file(s) do "
                                f"not match their pins: {'; '.join(wrong[:3])}",
                                f"delete them and run {fetch} again"))
        else:
            ways = ", ".join(f"{n} {way}" for way, n in matched.items() if n)
            checks.append(Check("download hashes", OK, f"every fetched file matches its pin "
                                f"({ways or 'none fetched'})"))
    if files:
        todo = [d for d in files if not d.present]
        known = sum(d.size or 0 for d in todo)
        unknown = sum(d.size is None for d in todo)
        if todo:
            size = gigabytes(known) + (f" + {unknown} of unknown size" if unknown else "")
            checks.append(Check("downloads", MISSING, f"{len(todo)} of {len(files)} not fetched "
                                f"({size}), e.g. {todo[0].target}", fetch))
        else:
            checks.append(Check("downloads", OK, f"all {len(files)} fetched and checked against "
                                "their pins when fetched (--verify hashes them again)"))
        free = shutil.disk_usage(workdir).free if free is None else free
        need = int(known * 1.1)  # archives are unpacked beside themselves: a margin
        status = OK if free >= need else BLOCKER
        checks.append(Check("disk", status, f"{gigabytes(free)} free in {workdir}, "
                            f"{gigabytes(known)} still to download",
                            "free space, or run in a folder on a larger file system"))
    else:
        checks.append(Check("downloads", OK, "this configuration downloads nothing"))
    for d in manual:
        folder = d.target.removeprefix("resources/")
        if manual_present(folder, workdir):
            checks.append(Check(f"manual: {folder}", OK, f"{d.target} is in place"))
        else:
            _, how = manual_checks()[folder]
            checks.append(Check(f"manual: {folder}", BLOCKER, f"{d.target} is not in place "
                                "(no rule can fetch it: a licence form)", how or "see docs"))
    return checks
