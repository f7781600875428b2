"""The closing lines of ``scripts/fetch.sh``: which downloads failed and from where, then what
to run next.

``fetch.sh`` runs every download job with ``--keep-going`` and hands this module Snakemake's
output: each failed job's block (``Error in rule download_file:`` with its ``output:`` and
``log:``) gives the file, and the last line of the job's log (the error, which names the URL
it tried) says from where and why.

    python -m vlcomp.data.fetch_report SNAKEMAKE_OUTPUT STATUS [fetch.sh's arguments]
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FailedJob", "failed_jobs", "last_error", "report"]

_ERROR = re.compile(r"^Error in rule (\S+):\s*$")
_FIELD = re.compile(r"^\s+(output|log|wildcards): (.*)$")


@dataclass(frozen=True)
class FailedJob:
    """One download job that failed: its rule, its outputs and its log file."""

    rule: str
    output: str
    log: str


def failed_jobs(output: str) -> list[FailedJob]:
    """The failed jobs named in Snakemake's output, each once, in order."""
    found: dict[tuple[str, str], FailedJob] = {}
    lines = output.splitlines()
    for i, line in enumerate(lines):
        error = _ERROR.match(line)
        if not error:
            continue
        fields: dict[str, str] = {}
        for following in lines[i + 1:]:
            field = _FIELD.match(following)
            if not field:
                if following.strip() and not following.startswith((" ", "\t")):
                    break
                continue
            fields.setdefault(field.group(1), field.group(2))
        log = fields.get("log", "").split(" (check log file")[0].strip()
        job = FailedJob(error.group(1), fields.get("output", "").strip(), log)
        found.setdefault((job.rule, job.output), job)
    return list(found.values())


def last_error(log: str | Path) -> str:
    """The error a job's log ends with (its exception's message), or why there is none."""
    path = Path(log)
    if not str(log) or not path.is_file():
        return f"no log at {log}" if str(log) else "no log"
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines()
             if line.strip()]
    if not lines:
        return f"{log} is empty"
    last = lines[-1]
    exception = re.match(r"^[\w.]+(Error|Exception|Exit)\w*: (.*)$", last)
    return exception.group(2) if exception else last


def report(output: str, status: int, arguments: list[str]) -> str:
    """The closing lines: each failed download with its error, or that all are in place; the
    last line is what to run next."""
    again = " ".join(["bash scripts/fetch.sh", *map(shlex.quote, arguments)])
    configs = [a for i, a in enumerate(arguments) if i and arguments[i - 1] == "--configfile"]
    preflight = "vlcomp preflight" + "".join(f" --configfile {shlex.quote(c)}" for c in configs)
    # a job that failed and then succeeded on its retry has its output
    failed = [job for job in failed_jobs(output)
              if not (job.output and Path(job.output.split(", ")[0]).exists())]
    if status == 0:
        return f"fetch: every download is in place. Next: {preflight}"
    if not failed:
        return (f"fetch: Snakemake stopped (exit {status}) before any download ran; its "
                f"message is above. Fix it, then: {again}")
    lines = [f"fetch: {len(failed)} download(s) failed (the others are in place and kept):"]
    for job in failed:
        lines.append(f"  {job.output or job.rule}: {last_error(job.log)}"
                     + (f" [log: {job.log}]" if job.log else ""))
    lines.append(f"Fix them (network, a mirror in downloads.mirrors, or the file placed by "
                 f"hand), then again: {again}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.data.fetch_report",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path, help="Snakemake's output (stdout and stderr)")
    parser.add_argument("status", type=int, help="Snakemake's exit status")
    parser.add_argument("arguments", nargs=argparse.REMAINDER,
                        help="the arguments fetch.sh was given")
    args = parser.parse_args(argv)
    print(report(args.output.read_text(errors="replace"), args.status, args.arguments))


if __name__ == "__main__":
    main()
