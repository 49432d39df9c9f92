#!/usr/bin/env bash
# Submits a sharded benchmark to Slurm: N parts as one job array, then the merge, which runs only when
# every part succeeded (afterok). Prints the two job ids.
#   scripts/slurm/submit.sh SHARDS SHARED_FOLDER [benchmark options...]
#   scripts/slurm/submit.sh 16 /shared/fpbench-run --dataset catalog --lengths 2 10
# Build first (swift build -c release) on a filesystem the nodes share (or set FPBENCH to the binary);
# see README "Beyond one machine".
set -euo pipefail
cd "$(dirname "$0")/../.."
shards="${1:?number of shards}"; out="${2:?a folder every node sees}"; shift 2
mkdir -p "$out"
args="$*"
case "$args" in *,*) echo "submit.sh: benchmark options cannot contain commas (Slurm's --export separator)" >&2; exit 2;; esac
array=$(sbatch --parsable --array="0-$((shards - 1))" --output="$out/fpbench-part-%A_%a.log" \
    --export="ALL,FPBENCH_SHARDS=$shards,FPBENCH_OUT=$out,FPBENCH_ARGS=$args" scripts/slurm/benchmark.sbatch)
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" --kill-on-invalid-dep=yes --output="$out/fpbench-merge-%j.log" \
    --export="ALL,FPBENCH_SHARDS=$shards,FPBENCH_OUT=$out" scripts/slurm/merge.sbatch)
echo "${array%%;*} $merge"
