"""What a finished run says in the terminal (``scripts/demo.sh`` ends with it), in at most
30 lines: the claims' counts (per paper), the claims that do not hold, where the results
page, the report and the tables are, and what the run cost (its CPU-seconds, as the caller
measured them, and its jobs' seconds from their ``benchmark:`` files).

    python -m vlcomp.report.terminal [--results results] [--lines 30]
        [--cpu-seconds S] [--workdir .]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from vlcomp.report.claim_verdicts import CLAIM, SANITY, paper_counts, read_claims, verdict_counts
from vlcomp.report.findings_text import not_holding

WIDTH = 110


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def claim_line(r: object) -> str:
    """``  - claim (paper · where): k of n findings hold``, at most `WIDTH` characters."""
    tail = f" ({r.paper}): {r.held} of {r.run} findings hold"
    if r.holds == "most":
        tail += ", needs most"
    return "  - " + _short(str(r.claim), WIDTH - 4 - len(tail)) + tail


def count_lines(claims: pd.DataFrame) -> list[str]:
    """The counts: all claims, per paper, the sanity checks."""
    family = claims[claims.kind == CLAIM]
    holds, fails, not_run = verdict_counts(family)
    head = (f"vlcomp: of the papers' {len(family)} claims, {holds} hold, {fails} do not, "
            f"{not_run} were not run ({verdict_counts(family, 'verdict_holm')[0]} hold after "
            "Holm's adjustment within each paper).")
    per_paper = "; ".join(f"{r.paper} {r.hold}/{r._4}/{r._5}"
                          for r in paper_counts(claims).itertuples())
    sanity = claims[claims.kind == SANITY]
    s_holds, s_fails, _ = verdict_counts(sanity)
    lines = [head, f"  per paper (hold / do not / not run): {per_paper}"]
    if len(sanity):
        lines.append(f"  sanity checks: {s_holds} of {s_holds + s_fails} run pass"
                     + (" — a failing one is a defect of the run" if s_fails else ""))
    return lines


def cost_line(cpu_seconds: float | None, workdir: Path) -> str:
    """``Cost: N CPU-seconds …, M job-seconds in J jobs`` from the run in ``workdir`` (its
    ``benchmarks/`` files, `vlcomp.bench.e2e.read_benchmarks`; the CPU part where
    measured)."""
    from vlcomp.bench.e2e import read_benchmarks

    try:
        jobs = read_benchmarks(workdir)
    except ValueError:  # no benchmark files yet
        jobs = pd.DataFrame({"s": []})
    cpu = (f"{cpu_seconds:,.0f} CPU-seconds (user + system of Snakemake and its jobs), "
           if cpu_seconds is not None else "")
    return (f"Cost: {cpu}{jobs.s.sum():,.0f} job-seconds in {len(jobs)} jobs "
            f"({workdir / 'benchmarks'}/)")


def terminal_summary(claims: pd.DataFrame, results: Path, max_lines: int = 30,
                     cost: str | None = None) -> list[str]:
    """The closing lines of a run (at most ``max_lines``), ending with ``cost`` if given."""
    head = count_lines(claims)
    tail = ["", f"Results page (claims, paper tables, items): {results / 'index.html'}",
            f"Snakemake report:                          {results / 'report.html'}",
            f"Claims, findings and their tests:          {results / 'findings.md'}",
            f"Paper tables (with _ci, _vs_published):    {results / 'tables'}/"]
    if cost:
        tail.append(cost)
    failing, _ = not_holding(claims)
    room = max_lines - len(head) - len(tail) - 1
    lines = [f"Claims that do not hold ({len(failing)}):"] if len(failing) else []
    rows = [claim_line(r) for r in failing.itertuples()]
    if len(rows) > room:
        more = f"  … and {len(failing) - room + 1} more in {results / 'findings.md'}"
        rows = [*rows[:room - 1], more]
    return head + lines + rows + tail


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.report.terminal", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--lines", type=int, default=30)
    parser.add_argument("--cpu-seconds", type=float, default=None,
                        help="the run's user + system CPU-seconds, as measured by the caller")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="the run's folder (its benchmarks/); with it, the closing lines "
                             "end with the run's cost")
    args = parser.parse_args(argv)
    claims = read_claims(args.results / "claims.csv")
    cost = cost_line(args.cpu_seconds, args.workdir) if args.workdir is not None else None
    print("\n".join(terminal_summary(claims, args.results, args.lines, cost)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
