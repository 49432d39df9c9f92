#!/usr/bin/env bash
# The test command: installs what is missing, fetches the small real-audio test dataset,
# builds once and runs the whole test suite once. Ends with the test runner's closing lines.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/fetch-dataset.sh ci
scripts/fetch-dataset.sh catalog-ci
swift build --build-tests
swift test --skip-build
