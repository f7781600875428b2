"""A job's memory and time requests on each try.

A retry doubles a heavy job's request, so a job killed for memory or time asks for more. Time
is capped at the cluster's partition limit (config ``cluster.max_runtime_min``): above it,
sbatch refuses the job or it pends forever, so a retry asks for the limit instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["by_attempt", "doubling_rules", "runtime_by_attempt"]


def by_attempt(request: float, attempt: int) -> int:
    """``request`` on the ``attempt``-th try (1 for the first): doubled on each retry."""
    if attempt < 1:
        raise ValueError(f"attempt {attempt}: the first try is 1")
    return int(request * 2 ** (attempt - 1))


def runtime_by_attempt(minutes: float, attempt: int, limit: int | None = None) -> int:
    """A time request in minutes on the ``attempt``-th try, at most ``limit`` (None: no
    limit)."""
    asked = by_attempt(minutes, attempt)
    return asked if limit is None else min(asked, int(limit))


_RULE = re.compile(r"^\s*(?:rule|checkpoint) (\w+):", re.MULTILINE)


def doubling_rules(rule_files: Iterable[Path]) -> set[str]:
    """The rules whose time request doubles on a retry (``runtime_by_attempt``)."""
    found: set[str] = set()
    for path in rule_files:
        text = Path(path).read_text()
        heads = list(_RULE.finditer(text))
        if not heads:
            continue
        for head, after in zip(heads, [*heads[1:], None], strict=True):
            block = text[head.end():after.start() if after else len(text)]
            if "runtime_by_attempt(" in block:
                found.add(head.group(1))
    return found
