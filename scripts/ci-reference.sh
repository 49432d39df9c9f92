#!/usr/bin/env bash
# The small reference run that CI checks byte for byte (ReferenceRunTests): the thesis suite on the `ci`
# dataset and the identification benchmark on `catalog-ci` (every built-in algorithm; a condition of each
# degradation kind), keeping the files that hold every score. A change that moves a number fails the
# test until this is run again and what moved committed, with the reason:
#   scripts/ci-reference.sh Reports/ci-reference
# FPBENCH names the binary (default .build/release/fpbench; the tests pass the one built with them).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/ci-reference.sh OUT-FOLDER}
fpbench=${FPBENCH:-.build/release/fpbench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The dataset has no impulse response: test 4 runs without its room (marked † in the tables).
"$fpbench" run --dataset ci --missing-recordings leave-out --no-cache --quiet --out "$work/suite"
# Only the dataset's own recordings (it has no babble or room): nothing from a dataset CI does not fetch.
"$fpbench" benchmark --dataset catalog-ci --queries 6 --negatives 24 --lengths 2 5 --no-cache --quiet --missing-recordings leave-out \
    --conditions clean white-0dB speed-1.05 tempo-0.9 pitch-up \
    --algorithms constellation haitsma-kalker waveprint panako panako@dense quads nafp-small --out "$work/benchmark"
mkdir -p "$out/suite" "$out/benchmark"
cp "$work/suite/summary.md" "$work/suite/results.csv" "$out/suite/"
cp "$work/benchmark/metrics.csv" "$work/benchmark/answers.csv" "$out/benchmark/"
rm -rf "$out/suite/tables" "$out/benchmark/tables"
cp -r "$work/suite/tables" "$out/suite/"
cp -r "$work/benchmark/tables" "$out/benchmark/"
