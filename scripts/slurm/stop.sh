#!/usr/bin/env bash
# Stop the SLURM daemons that scripts/slurm/start.sh started (by pid, newest first).
set -uo pipefail
STATE=${1:?usage: stop.sh STATE_DIR}
[[ -f $STATE/pids ]] || exit 0
tac "$STATE/pids" | while read -r pid; do
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
done
for _ in $(seq 50); do
    alive=0
    while read -r pid; do [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && alive=1; done < "$STATE/pids"
    ((alive)) || break
    sleep 0.2
done
: > "$STATE/pids"
