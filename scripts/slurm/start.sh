#!/usr/bin/env bash
# A single-node SLURM on this machine, for the integration test (tests/test_slurm.py):
# installs Debian's slurmctld, slurmd, slurm-client and munge if missing (needs root), writes
# a cgroup-free slurm.conf for this host (MinJobAge 300, so squeue sees finished jobs; no
# accounting; the controller's state and slurmd's spool under $STATE, so that the jobs of an
# earlier, killed session are never recovered to hold the node), and starts munged, slurmctld
# and slurmd. Their pids go to $STATE/pids, read by scripts/slurm/stop.sh, which stops only
# what this script started; daemons of this test cluster left by a killed session are stopped.
# Recipe and pitfalls: ../shared/reference/snakemake-slurm.md §2.
set -euo pipefail
STATE=${1:?usage: start.sh STATE_DIR}
mkdir -p "$STATE"
STATE=$(realpath "$STATE")
: > "$STATE/pids"

packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
    [[ $(id -u) == 0 ]] || { echo "SLURM packages missing (${missing[*]}) and not root" >&2; exit 3; }
    (apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}") \
        > "$STATE/apt.log" 2>&1 || { echo "apt-get could not install ${missing[*]}" >&2; exit 3; }
fi

host=$(hostname -s)
# Declare more CPUs and memory than the machine has (config_overrides; no cgroups enforce
# either), so that the shipped profile's requests, a real node's, fit as they are (a group of
# 8 metrics jobs asks 8 CPUs and 8 x their memory) and several one-thread jobs run at once:
# the memory of profiles/slurm/partitions.yaml's CPU partition, 256000 MB, and 8 CPUs
# (SLURM_TEST_MEMORY_MB and SLURM_TEST_CPUS override them).
memory=${SLURM_TEST_MEMORY_MB:-256000}
cpus=${SLURM_TEST_CPUS:-8}
mkdir -p /etc/slurm /run/munge "$STATE/slurmctld" "$STATE/slurmd" /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=vlcomp
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=300
MpiDefault=none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# munge: Debian's postinst made the key; start a daemon unless one answers already
chown munge:munge /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
    sleep 1
    pgrep -u munge -x munged >> "$STATE/pids"
fi
munge -n | unmunge >/dev/null

# daemons of an earlier session's test cluster run on its state: stop them
running=$(scontrol show config 2>/dev/null || true)
if grep -Eq "^ClusterName += vlcomp$" <<<"$running" \
        && ! grep -Eq "^StateSaveLocation += $STATE/slurmctld$" <<<"$running"; then
    pkill -x slurmd || true
    pkill -x slurmctld || true
    for _ in $(seq 50); do pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break; sleep 0.2; done
fi

for daemon in slurmctld slurmd; do
    if ! pgrep -x "$daemon" >/dev/null; then
        "/usr/sbin/$daemon"
        for _ in $(seq 50); do [[ -s /run/$daemon.pid ]] && break; sleep 0.2; done
        cat "/run/$daemon.pid" >> "$STATE/pids"
    fi
done

for _ in $(seq 60); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    [[ $state == idle* || $state == mixed* || $state == alloc* ]] && break
    [[ $state == drain* || $state == down* ]] && scontrol update nodename="$host" state=resume || true
    sleep 1
done
sinfo -h -o %T | grep -Eq '^(idle|mixed|allocated)' \
    || { echo "the SLURM node did not come up: $(sinfo 2>&1)" >&2; exit 4; }
echo "SLURM up on $host: $(sinfo -h -o '%P %T %c CPUs %m MB')"
