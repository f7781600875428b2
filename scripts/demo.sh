#!/usr/bin/env bash
# Set up, then run the whole workflow on the embedded default (config/config.yaml).
# A second run rebuilds nothing. Extra arguments go to snakemake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/snakemake --cores all "$@"
echo
for table in results/tables/*/*.md; do echo "== $table"; cat "$table"; echo; done
for fig in results/figures/*.png; do echo "== figure: $fig"; done
