#!/usr/bin/env bash
# A real test of the real scheduler: starts a one-node Slurm cluster on this machine (Debian's slurm-wlm
# and munge; a generated slurm.conf naming this host and its cores), submits a 4-part benchmark on the
# catalog-ci dataset and its merge through submit.sh, then the same with the catalog split in 2 slices
# (key counts, parts and merge as dependent job arrays), waits, checks that each merged results.json
# and tables equal an unsharded run's byte for byte, and stops the daemons it started, by process id.
#   scripts/slurm/local-cluster.sh            (as root, on Debian; about a minute)
# Exit status 77: this machine cannot run it (not root, not Debian, packages unavailable); the reason
# is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "local-cluster: skipped: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (it installs packages and runs slurmctld, slurmd and munged)"
[ -f /etc/debian_version ] || skip "needs Debian (slurm-wlm and munge from apt)"
export FPBENCH="${FPBENCH:-.build/release/fpbench}"   # the jobs run this build (the tests pass their debug one)
[ -x "$FPBENCH" ] || skip "build first: scripts/build.sh"
scripts/fetch-dataset.sh catalog-ci

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    installed=0
    for attempt in 1 2 3; do
        if apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1; then installed=1; break; fi
        apt-get update -qq >/dev/null 2>&1 || true
        sleep $((attempt * 5))
    done
    [ "$installed" -eq 1 ] || skip "apt-get install slurm-wlm munge failed three times"
fi

work=$(mktemp -d /tmp/fpbench-slurm-XXXXXX)
started=()
our_munged=false
cleanup() {
    # munged by the pid it wrote, read now: on a loaded machine it can write it after the wait below gives up,
    # and the runuser wrapper does not pass the signal on.
    if $our_munged; then started+=("$(cat /run/munge/munged.pid 2>/dev/null)"); fi
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    # A daemon that inherited a blocked SIGTERM never sees it: after 10 s it is killed outright.
    for _ in $(seq 100); do
        alive=false
        for pid in "${started[@]}"; do kill -0 "$pid" 2>/dev/null && alive=true; done
        $alive || break
        sleep 0.1
    done
    for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true   # every background child of this script, the runuser wrapper included
}
trap cleanup EXIT

# munge: a key, and munged as user munge unless one already runs (then it is not ours to stop).
if ! pgrep -x munged >/dev/null; then
    [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
    chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
    mkdir -p /run/munge /var/log/munge /var/lib/munge; chown munge:munge /run/munge /var/log/munge /var/lib/munge
    rm -f /run/munge/munged.pid   # a killed munged's, stale: the wait below must see ours
    runuser -u munge -- /usr/sbin/munged --foreground >/dev/null 2>&1 &
    our_munged=true
    for _ in $(seq 300); do [ -S /run/munge/munge.socket.2 ] && [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
fi

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=fpbench-local
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >/dev/null 2>&1 &
started+=($!)
slurmd -D -f "$SLURM_CONF" >/dev/null 2>&1 &
started+=($!)
for _ in $(seq 100); do sinfo -h -o %T 2>/dev/null | grep -qE "idle|mixed" && break; sleep 0.2; done
sinfo -h -o %T 2>/dev/null | grep -qE "idle|mixed" || { tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2; echo "local-cluster: the node never came up" >&2; exit 1; }
echo "local-cluster: one-node cluster up ($host, $cpus cores)" >&2

args="--dataset catalog-ci --lengths 2 5 --queries 8 --negatives 8 --algorithms constellation haitsma-kalker"
read -r array merge < <(scripts/slurm/submit.sh 4 "$work/run" $args)
echo "local-cluster: submitted parts $array (array of 4) and merge $merge" >&2
for _ in $(seq 1200); do   # at most 10 minutes
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 0.5
done
[ -f "$work/run/merged/results.json" ] || { tail -n 5 "$work"/run/fpbench-*.log >&2 2>/dev/null || true; echo "local-cluster: the merge wrote nothing" >&2; exit 1; }

# The same benchmark, unsharded, on this machine: the merged tables must be its, byte for byte.
# shellcheck disable=SC2086
"$FPBENCH" benchmark $args --cache "$work/run/cache" --out "$work/whole" >/dev/null 2>&1
for file in results.json answers.csv metrics.csv; do
    cmp "$work/whole/$file" "$work/run/merged/$file" || { echo "local-cluster: merged $file differs from the unsharded run's" >&2; exit 1; }
done
echo "local-cluster: 4 parts merged by Slurm equal the unsharded run (results.json, answers.csv, metrics.csv)" >&2

# The catalog split too: 2 slices x 2 query shards, stage one, stage two and the merge as dependent arrays.
read -r keys array merge < <(scripts/slurm/submit.sh 2 "$work/sliced" --catalog-shards 2 $args)
echo "local-cluster: submitted key counts $keys (array of 2), parts $array (array of 4) and merge $merge" >&2
for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$keys,$array,$merge" 2>/dev/null)" ] && break
    sleep 0.5
done
[ -f "$work/sliced/merged/results.json" ] || { tail -n 5 "$work"/sliced/fpbench-*.log >&2 2>/dev/null || true; echo "local-cluster: the sliced merge wrote nothing" >&2; exit 1; }
for file in results.json answers.csv metrics.csv; do
    cmp "$work/whole/$file" "$work/sliced/merged/$file" || { echo "local-cluster: merged $file of the sliced catalog differs from the unsharded run's" >&2; exit 1; }
done
echo "local-cluster: 2 catalog slices x 2 query shards merged by Slurm equal the unsharded run (results.json, answers.csv, metrics.csv)" >&2
rm -rf "$work"
