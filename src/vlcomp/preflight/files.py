"""The downloads a run reads (present and of their pinned size), the manual downloads, and
the disk they still need."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from vlcomp.data.sources import manual_checks
from vlcomp.plan.downloads import gigabytes, plan_downloads
from vlcomp.plan.dry_run import DryJob
from vlcomp.preflight import BLOCKER, MISSING, OK, Check


def manual_present(folder: str, workdir: Path) -> bool:
    """Whether a manual download's folder holds what its check asks for."""
    check, _ = manual_checks()[folder]
    return len(list((workdir / "resources" / folder).glob(check.pattern))) >= check.count


def download_checks(config: dict[str, Any], jobs: list[DryJob], workdir: Path,
                    fetch: str, free: int | None = None) -> list[Check]:
    """Downloads (fetched or still to fetch, with their bytes), manual downloads, free disk.
    ``fetch``: the command that fetches them; ``free``: free bytes (None: measured)."""
    found = plan_downloads(config, jobs, workdir)
    files = [d for d in found if d.kind != "manual"]
    manual = [d for d in found if d.kind == "manual"]
    checks = []
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
                                "their pins when fetched"))
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
