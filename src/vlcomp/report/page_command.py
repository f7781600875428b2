"""``vlcomp report``: a finished run's results page (rule results_page, through Snakemake so
the configuration decides what it shows), its screenshots at 1920x1080 and 1280x800 (headless
Chromium), and the run's closing lines.

    vlcomp report [--configfile config/config.yaml] [--workdir .] [--no-screenshots]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from vlcomp.checkout import add_workflow_options, resolve_workflow_options

SIZES = ((1920, 1080), (1280, 800))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vlcomp report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", type=Path, default=None)
    add_workflow_options(parser, None)
    parser.add_argument("--workdir", type=Path, default=Path("."))
    parser.add_argument("--no-screenshots", action="store_true")
    args = parser.parse_args(argv)
    resolve_workflow_options(args, None)
    # only what is missing or older than its inputs: a finished run keeps its results
    command = [str(Path(sys.executable).with_name("snakemake")), "results/index.html",
               "-s", str(args.snakefile), "--directory", str(args.workdir), "--cores", "1",
               "--rerun-triggers", "mtime"]
    if args.configfile is not None:
        command += ["--configfile", str(args.configfile.resolve())]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        print(done.stderr[-3000:], file=sys.stderr)
        return done.returncode
    results = args.workdir / "results"
    page = results / "index.html"
    print(f"results page: {page}")
    if not args.no_screenshots:
        from vlcomp.report.screenshot import screenshot

        for width, height in SIZES:
            png = results / f"index_{width}x{height}.png"
            print(f"screenshot:   {screenshot(page, png, width, height, wait_ms=1500)}")
    from vlcomp.report.claim_verdicts import read_claims
    from vlcomp.report.terminal import terminal_summary

    print("\n".join(terminal_summary(read_claims(results / "claims.csv"), results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
