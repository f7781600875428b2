"""``vlcomp preflight``: everything a run needs, checked before it starts.

One line per check (``ok``, ``missing``: something to do that the run survives or a rule
fetches; ``blocker``: a job would fail or never start), with its fix; the command exits 1 on
a blocker. `software` checks what the jobs import and run, `files` the downloads and the disk,
`device` the GPU and its driver, `profile` a SLURM profile against the cluster (`slurm`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["BLOCKER", "MISSING", "OK", "Check", "format_checks"]

OK, MISSING, BLOCKER = "ok", "missing", "blocker"


@dataclass(frozen=True)
class Check:
    """One check: what was checked, its status, what was found and (unless ok) the fix."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def lines(self, width: int) -> list[str]:
        out = [f"  {self.status:<8} {self.name:<{width}}  {self.detail}"]
        if self.fix and self.status != OK:
            out.append(f"  {'':<8} {'':<{width}}  fix: {self.fix}")
        return out


def format_checks(checks: Iterable[Check]) -> str:
    """The checks, one (or two, with the fix) lines each, and a closing count."""
    checks = list(checks)
    width = max((len(c.name) for c in checks), default=0)
    lines = [line for c in checks for line in c.lines(width)]
    counts = {s: sum(c.status == s for c in checks) for s in (OK, MISSING, BLOCKER)}
    lines.append(f"preflight: {len(checks)} checks: {counts[OK]} ok, {counts[MISSING]} missing, "
                 f"{counts[BLOCKER]} blocker(s)")
    return "\n".join(lines)
