#!/usr/bin/env bash
# The main job: installs what is missing, builds the default dataset from Debian and PyPI packages,
# builds fpbench in release mode and runs the full thesis suite with every built-in algorithm and
# Chromaprint's fpcalc (an external command, Debian's libchromaprint-tools).
# The report lands in Reports/latest/ (summary.md, matrices/, results.json).
# Extra arguments go to `fpbench run` (for example --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh libchromaprint-tools
scripts/fetch-dataset.sh default
swift build -c release --product fpbench
.build/release/fpbench run --dataset default --external Algorithms/chromaprint-fpcalc.json --out Reports/latest "$@"
