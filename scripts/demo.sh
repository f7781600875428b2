#!/usr/bin/env bash
# Set up, then run the whole workflow on the embedded default (config/config.yaml), and print
# what to read first: the summary, then where the tables and the report are.
# A second run rebuilds nothing. Extra arguments go to snakemake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/snakemake --cores all "$@"
mkdir -p logs
.venv/bin/snakemake --report results/report.html "$@" > logs/report.log 2>&1
echo
cat results/summary.md
echo
echo "Every paper table (with its _ci and _vs_published companions): results/tables/*/"
echo "Every table and figure, grouped by paper: results/report.html"
