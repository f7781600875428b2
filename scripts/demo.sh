#!/usr/bin/env bash
# Set up, then run the whole workflow on the embedded default (config/config.yaml), and end
# in at most 30 lines: the claims' counts (per paper), the claims that do not hold, where the
# results page (results/index.html), the report and the tables are, and what the run cost
# (CPU-seconds of Snakemake and its jobs, the jobs' own seconds from benchmarks/).
# A second run rebuilds nothing. Extra arguments go to snakemake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# A local run needs no SLURM; where slurm-client is installed with no controller running,
# Snakemake's SLURM plugin waits 10 s on `scontrol` as each call starts (scripts/no_slurm).
case " $* " in
    *" --profile"* | *" --executor"* | *" -e "*) ;;
    *) export PATH="$PWD/scripts/no_slurm:$PATH" ;;
esac
# user + system seconds of this shell's finished children (Snakemake and, through it, its
# jobs): bash's `times`, run in this shell (a subshell would see none), second line
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
children_cpu() {
    tail -n 1 "$stamp" | awk '{ for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } printf "%.1f", s }'
}
times > "$stamp"
before=$(children_cpu)
.venv/bin/snakemake --cores all "$@"
mkdir -p logs
.venv/bin/snakemake --report results/report.html "$@" > logs/report.log 2>&1
times > "$stamp"
cpu=$(awk -v a="$(children_cpu)" -v b="$before" 'BEGIN { printf "%.1f", a - b }')
echo
.venv/bin/python -m vlcomp.report.terminal --results results --cpu-seconds "$cpu" \
    --workdir .
