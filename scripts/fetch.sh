#!/usr/bin/env bash
# Fetch every download a configuration needs (datasets, checkpoints, hub snapshots at their
# pinned commits), and check the manual ones, before the run: only the download rules run,
# here, on a host with network (a cluster's submit host). The jobs of the run then read
# resources/ and never download (compute nodes may have no internet).
#   bash scripts/fetch.sh --configfile config/paper.yaml           (more snakemake arguments)
#   .venv/bin/python -m vlcomp.plan --configfile config/paper.yaml --downloads   (the list)
# A download that fails does not stop the others (--keep-going); the closing lines list each
# failed one with its error and URL, and the last line says what to run next.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
snakemake="${SNAKEMAKE:-$root/.venv/bin/snakemake}"
python="${PYTHON:-$root/.venv/bin/python}"
output="$(mktemp "${TMPDIR:-/tmp}/vlcomp-fetch.XXXXXX")"
trap 'rm -f "$output"' EXIT
status=0
"$snakemake" -s "$root/Snakefile" --cores "${FETCH_JOBS:-4}" --keep-going "$@" \
    --until download_file download_hub_snapshot check_manual_download 2>&1 \
    | tee "$output" || status=${PIPESTATUS[0]}
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" \
    "$python" -m vlcomp.data.fetch_report "$output" "$status" "$@"
exit "$status"
