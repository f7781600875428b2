#!/usr/bin/env bash
# Set up, then run the checks: ruff, snakefmt, snakemake --lint and the pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check src tests workflow/scripts
.venv/bin/snakefmt --check Snakefile workflow/rules
.venv/bin/snakemake --lint
.venv/bin/pytest "$@"
