#!/usr/bin/env bash
# The test command: installs what is missing, fetches the small real-audio test datasets, checks that the
# default dataset's renders depend on nothing outside their manifest (scripts/test_renders.py), builds once and
# runs the whole test suite once. Ends with the test runner's closing lines.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh fluidsynth timidity
scripts/fetch-dataset.sh ci
scripts/fetch-dataset.sh catalog-ci
python3 scripts/test_renders.py
swift build --build-tests
swift test --skip-build
