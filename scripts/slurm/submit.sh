#!/usr/bin/env bash
# Submits a sharded benchmark to Slurm: N parts as one job array, then the merge, which runs only when
# every part succeeded (afterok). Prints the job ids.
#   scripts/slurm/submit.sh SHARDS SHARED_FOLDER [--catalog-shards M] [benchmark options...]
#   scripts/slurm/submit.sh 16 /shared/fpbench-run --dataset catalog --lengths 2 10
#   scripts/slurm/submit.sh 2 /shared/fpbench-run --catalog-shards 4 --dataset catalog
# With --catalog-shards M the catalog is split too, so no part holds the whole index: stage one (M
# tasks) counts each slice's keys into SHARED_FOLDER/keys, stage two (M x SHARDS tasks, after stage
# one) answers each query shard with each slice, and the merge (after stage two) ranks the slices'
# candidates as the whole catalog does. Prints the three job ids.
# Build first (scripts/build.sh) on a filesystem the nodes share (or set FPBENCH to the binary);
# see docs/slurm.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
shards="${1:?number of shards}"; out="${2:?a folder every node sees}"; shift 2
slices=""
if [ "${1:-}" = "--catalog-shards" ]; then slices="${2:?--catalog-shards needs a number of slices}"; shift 2; fi
mkdir -p "$out"
args="$*"
case "$args" in *,*) echo "submit.sh: benchmark options cannot contain commas (Slurm's --export separator)" >&2; exit 2;; esac
export_common="ALL,FPBENCH_SHARDS=$shards,FPBENCH_OUT=$out,FPBENCH_CATALOG_SHARDS=$slices"
after=()
parts=$shards
if [ -n "$slices" ]; then
    keys=$(sbatch --parsable --array="0-$((slices - 1))" --output="$out/fpbench-keys-%A_%a.log" \
        --export="$export_common,FPBENCH_STAGE=count-keys,FPBENCH_ARGS=$args" scripts/slurm/benchmark.sbatch)
    after=(--dependency="afterok:${keys%%;*}" --kill-on-invalid-dep=yes)
    parts=$((shards * slices))
    echo -n "${keys%%;*} "
fi
array=$(sbatch --parsable "${after[@]}" --array="0-$((parts - 1))" --output="$out/fpbench-part-%A_%a.log" \
    --export="$export_common,FPBENCH_ARGS=$args" scripts/slurm/benchmark.sbatch)
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" --kill-on-invalid-dep=yes --output="$out/fpbench-merge-%j.log" \
    --export="$export_common" scripts/slurm/merge.sbatch)
echo "${array%%;*} $merge"
