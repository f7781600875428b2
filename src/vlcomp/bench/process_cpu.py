"""Where a command's CPU goes, process by process: each Python process it starts (Snakemake and
every job's script) records its own user + system seconds as it exits.

    python -m vlcomp.bench.process_cpu [--out FILE.tsv] [--top N] -- COMMAND ...

A ``sitecustomize`` put first on ``PYTHONPATH`` (a temporary folder; the command and its
children inherit it) appends one line per exiting interpreter: pid, name, its own CPU
seconds. Names are script file names, Snakemake's copies of a
rule's script (``tmpab12cd.train_clip.py``) read as the script (``train_clip.py``), and the
Snakemake process itself as ``snakemake``. The summary, per name: processes, CPU seconds, their
mean, and the share of the command's CPU (user + system of the command and everything it
waited for); a process killed before it could exit, or not Python (a shell, a download), has
no line, and the rest of the total says how much that was.

Unlike the ``benchmark:`` files (sampled by Snakemake every 0.5 s, then 30 s, so a short job's
CPU is mostly missed), these are exact; and they show Snakemake's own process, which no
benchmark file has.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

SITECUSTOMIZE = '''\
import atexit, os, resource, sys


def _vlcomp_process_cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    path = sys.argv[0] if sys.argv and sys.argv[0] else "-c"
    name = os.path.basename(path)
    if name == "__main__.py":  # python -m package: the package's name
        name = os.path.basename(os.path.dirname(path))
    try:
        with open(os.environ["VLCOMP_PROCESS_CPU"], "a") as out:
            out.write(f"{os.getpid()}\\t{name}\\t{own.ru_utime + own.ru_stime:.3f}\\n")
    except OSError:
        pass


if os.environ.get("VLCOMP_PROCESS_CPU"):
    atexit.register(_vlcomp_process_cpu)
'''
SNAKEMAKE_SCRIPT = re.compile(r"^tmp[^.]+\.(.+)$")  # Snakemake's copy of a rule's script


@dataclass(frozen=True)
class ProcessCpu:
    """One exited interpreter: its pid, name and own CPU seconds."""

    pid: int
    name: str
    cpu_s: float


def process_name(recorded: str) -> str:
    """The name a process is summed under: the recorded script name (its file name, or the
    package of ``python -m``), Snakemake's temporary copy of a rule's script as the script."""
    return SNAKEMAKE_SCRIPT.sub(r"\1", recorded)


def read_records(path: Path) -> list[ProcessCpu]:
    """The lines the interpreters wrote (`SITECUSTOMIZE`); an empty list if none did."""
    if not path.is_file():
        return []
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path}:{n}: expected 3 tab-separated fields, got {line!r}")
        pid, name, own = fields
        out.append(ProcessCpu(int(pid), process_name(name), float(own)))
    return out


def summarise(records: list[ProcessCpu], total_cpu_s: float) -> list[dict[str, object]]:
    """Per name: processes, CPU seconds, mean, share of ``total_cpu_s``; the largest first,
    then a row for the CPU no record accounts for."""
    groups: dict[str, list[float]] = defaultdict(list)
    for record in records:
        groups[record.name].append(record.cpu_s)
    rows: list[dict[str, object]] = [
        {"name": name, "processes": len(cpu), "cpu_s": round(sum(cpu), 1),
         "mean_s": round(sum(cpu) / len(cpu), 2),
         "share": round(sum(cpu) / total_cpu_s, 4) if total_cpu_s else None}
        for name, cpu in groups.items()]
    rows.sort(key=lambda row: -float(row["cpu_s"]))
    rest = total_cpu_s - sum(r.cpu_s for r in records)
    rows.append({"name": "(no record: non-Python processes, killed ones)", "processes": None,
                 "cpu_s": round(rest, 1), "mean_s": None,
                 "share": round(rest / total_cpu_s, 4) if total_cpu_s else None})
    return rows


def run_measured(command: list[str], records: Path) -> tuple[int, float]:
    """Run ``command`` with the recording ``sitecustomize``; (exit code, CPU seconds of it
    and everything it waited for)."""
    with tempfile.TemporaryDirectory(prefix="process-cpu-") as site:
        Path(site, "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = {**os.environ, "VLCOMP_PROCESS_CPU": str(records.resolve()),
               "PYTHONPATH": os.pathsep.join(p for p in (site, os.environ.get("PYTHONPATH"))
                                             if p)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        code = subprocess.run(command, env=env, check=False).returncode
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return code, cpu


def markdown(rows: list[dict[str, object]], top: int) -> str:
    """The summary as a Markdown table (the ``top`` names, the rest in one row)."""
    named, unrecorded = rows[:-1], rows[-1]
    shown, others = named[:top], named[top:]
    if others:
        cpu = sum(float(r["cpu_s"]) for r in others)
        share = sum(float(r["share"] or 0) for r in others)
        shown = [*shown, {"name": f"{len(others)} other names",
                          "processes": sum(int(r["processes"]) for r in others),
                          "cpu_s": round(cpu, 1), "mean_s": None, "share": round(share, 4)}]
    lines = ["| process | count | CPU s | mean s | share |", "|---|---|---|---|---|"]
    for row in [*shown, unrecorded]:
        share = "" if row["share"] is None else f"{100 * float(row['share']):.1f} %"
        lines.append(f"| {row['name']} | {row['processes'] or ''} | {row['cpu_s']} | "
                     f"{'' if row['mean_s'] is None else row['mean_s']} | {share} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="keep the per-process lines here (TSV; default: a temporary file)")
    parser.add_argument("--top", type=int, default=25, help="names shown (default 25)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    with tempfile.TemporaryDirectory(prefix="process-cpu-out-") as scratch:
        records = args.out or Path(scratch, "processes.tsv")
        if records.exists():
            records.unlink()
        code, cpu = run_measured(command, records)
        found = read_records(records)
    print(f"\n{len(found)} Python processes recorded; the command used {cpu:,.1f} CPU "
          f"seconds (user + system, its children included); exit code {code}\n",
          file=sys.stderr)
    print(markdown(summarise(found, cpu), args.top))
    return code


if __name__ == "__main__":
    sys.exit(main())
