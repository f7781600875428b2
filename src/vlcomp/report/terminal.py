"""What a finished run says in the terminal (``scripts/demo.sh`` ends with it), in at most
30 lines: the findings' counts, the claims that do not hold with their effects, and where
the results page, the report and the tables are.

    python -m vlcomp.report.terminal [--results results] [--lines 30]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from vlcomp.report.findings import not_holding, read_findings
from vlcomp.report.page_findings import finding_counts

WIDTH = 110


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def claim_line(r: object) -> str:
    """``  - claim (paper · benchmark): a − b effect [low, high], test``, at most `WIDTH`
    characters."""
    effect = f"{r.effect:+.1f} [{r.ci_low:+.1f}, {r.ci_high:+.1f}]"
    where = f"{r.paper} · {r.benchmark}" if r.benchmark else str(r.paper)
    tail = f" ({where}): {effect}, {r.test}"
    return "  - " + _short(str(r.claim), WIDTH - 4 - len(tail)) + tail


def terminal_summary(findings: pd.DataFrame, results: Path, max_lines: int = 30) -> list[str]:
    """The closing lines of a run (at most ``max_lines``)."""
    counts = finding_counts(findings)
    head = [f"vlcomp: {counts['holds']} findings hold, {counts['fails']} do not, "
            f"{counts['not_run']} were not run ({counts['holm']} of {counts['run']} hold after "
            "Holm's adjustment)."]
    tail = ["", f"Results page (findings, paper tables, items): {results / 'index.html'}",
            f"Snakemake report:                            {results / 'report.html'}",
            f"Findings and their tests:                    {results / 'findings.md'}",
            f"Paper tables (with _ci, _vs_published):      {results / 'tables'}/"]
    failing, _ = not_holding(findings)
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
    args = parser.parse_args(argv)
    findings = read_findings(args.results / "findings.csv")
    print("\n".join(terminal_summary(findings, args.results, args.lines)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
