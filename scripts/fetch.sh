#!/usr/bin/env bash
# Fetch every download a configuration needs (datasets, checkpoints, hub snapshots at their
# pinned commits), and check the manual ones, before the run: only the download rules run,
# here, on a host with network (a cluster's submit host). The jobs of the run then read
# resources/ and never download (compute nodes may have no internet).
#   bash scripts/fetch.sh --configfile config/paper.yaml           (more snakemake arguments)
#   .venv/bin/python -m vlcomp.plan --configfile config/paper.yaml --downloads   (the list)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
snakemake="${SNAKEMAKE:-$root/.venv/bin/snakemake}"
exec "$snakemake" -s "$root/Snakefile" --cores "${FETCH_JOBS:-4}" \
    --until download_file download_hub_snapshot check_manual_download "$@"
