#!/usr/bin/env bash
# Set up, then run the whole workflow on the embedded default (config/config.yaml), and end
# in at most 30 lines: the claims' counts (per paper), the claims that do not hold, and where the
# results page (results/index.html), the report and the tables are.
# A second run rebuilds nothing. Extra arguments go to snakemake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/snakemake --cores all "$@"
mkdir -p logs
.venv/bin/snakemake --report results/report.html "$@" > logs/report.log 2>&1
echo
.venv/bin/python -m vlcomp.report.terminal --results results
