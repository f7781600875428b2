"""The jobs of a Snakemake dry run (``snakemake -n``), read from its printed job blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER = re.compile(r"^(?:local)?rule (\w+):\s*$")


@dataclass
class DryJob:
    """One job of a dry run: its rule, wildcards, threads and resource requests."""

    rule: str
    wildcards: dict[str, str] = field(default_factory=dict)
    threads: int = 1
    resources: dict[str, str] = field(default_factory=dict)
    input: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)
    local: bool = False  # a local rule: runs where Snakemake runs, never as a cluster job

    @property
    def gpus(self) -> int:
        """GPUs the job asks for (``gpu`` resource)."""
        return int(self.resources.get("gpu", 0) or 0)

    @property
    def runtime_min(self) -> float:
        """The job's ``runtime`` request in minutes (0 when it makes none)."""
        return float(self.resources.get("runtime", 0) or 0)


def _pairs(text: str) -> dict[str, str]:
    """``a=1, b=x`` as a dict (values keep their text)."""
    out = {}
    for part in text.split(", "):
        key, _, value = part.partition("=")
        if key.strip():
            out[key.strip()] = value.strip()
    return out


def parse_dry_run(text: str) -> list[DryJob]:
    """Every job block of a dry run's output, in order."""
    jobs: list[DryJob] = []
    current: DryJob | None = None
    for line in text.splitlines():
        found = HEADER.match(line)
        if found:
            current = DryJob(found.group(1), local=line.startswith("localrule"))
            jobs.append(current)
            continue
        if not line.startswith("    "):
            if line.strip():  # a line of its own ends the block
                current = None
            continue
        if current is None:
            continue
        key, _, value = line.strip().partition(": ")
        if key == "wildcards":
            current.wildcards = _pairs(value)
        elif key == "threads":
            current.threads = int(value)
        elif key in ("input", "output"):
            setattr(current, key, [o.strip() for o in value.split(", ") if o.strip()])
        elif key == "resources":
            current.resources = _pairs(value)
    return jobs
