"""``vlcomp``: the project's commands in one, each forwarding to its module.

    vlcomp plan --configfile config/paper.yaml   # jobs, GPU/CPU hours, shards, downloads
    vlcomp evaluate MODEL.yaml [--papers aro]    # one's own model beside every evaluated one
    vlcomp coverage --configfile FILE            # published cells a configuration reproduces
    vlcomp report                                # results page, screenshots, closing lines
    vlcomp bench itc                             # vlcomp against the papers' reference code
    vlcomp check-targets                         # two fresh runs: time, identical tables
    vlcomp gpu-check --device cuda               # every GPU code path against the CPU
    vlcomp preflight --configfile FILE [--profile profiles/slurm] [--device cuda]

``vlcomp COMMAND --help`` shows a command's options.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

# command -> (module with main(argv), what it does)
COMMANDS = {
    "plan": ("vlcomp.plan.__main__", "a configuration's jobs, GPU/CPU hours, shards and "
             "downloads (python -m vlcomp.plan)"),
    "evaluate": ("vlcomp.evaluate.__main__", "one's own models through the papers' benchmarks, "
                 "beside the models a results folder has evaluated (docs/own-model.md)"),
    "coverage": ("vlcomp.report.coverage", "which published numbers a configuration "
                 "reproduces (python -m vlcomp.report.coverage)"),
    "report": ("vlcomp.report.page_command", "a finished run's results page "
               "(results/index.html), its screenshots and closing lines"),
    "bench": ("vlcomp.bench.__main__", "vlcomp against the papers' reference procedures "
              "(python -m vlcomp.bench)"),
    "check-targets": ("vlcomp.check_targets", "two fresh runs of a configuration: wall time "
                      "and byte-identical tables"),
    "gpu-check": ("vlcomp.bench.gpu_check", "every GPU code path on the device against the "
                  "CPU (scripts/gpu_check.sh)"),
    "preflight": ("vlcomp.preflight.__main__", "everything a run needs, checked before it "
                  "starts: software, downloads, disk, GPU driver, a SLURM profile"),
}


def usage() -> str:
    """``vlcomp --help``: the module docstring and every command."""
    width = max(len(c) for c in COMMANDS)
    lines = [__doc__.strip(), "", "commands:"]
    lines += [f"  {name:<{width}}  {about}" for name, (_, about) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"vlcomp: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    result = module.main(rest)
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
