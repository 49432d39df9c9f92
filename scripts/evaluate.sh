#!/usr/bin/env bash
# The main job: installs what is missing, builds the default dataset from Debian and PyPI packages,
# builds fpbench in release mode and runs the full thesis suite with every algorithm.
# The report lands in Reports/latest/ (summary.md, matrices/, results.json).
# Extra arguments go to `fpbench run` (for example --seed 7 or --algorithms afa-thesis waveprint).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fetch-dataset.sh default
swift build -c release --product fpbench
.build/release/fpbench run --dataset default --out Reports/latest "$@"
