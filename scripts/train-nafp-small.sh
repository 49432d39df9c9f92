#!/usr/bin/env bash
# Trains nafp-small from nothing, as its weights were made (docs/learned.md): installs PyTorch from Debian,
# fetches the training music (Datasets/train-small, every file checked by SHA-256), builds fpbench, renders each
# track clean and four times degraded by fpbench's own stages at training-only seeds, trains for 10 epochs
# (the log, the checkpoints and the validation curve in runs/nafp-small/; times in docs/learned.md), and
# exports the weights (float16, batch norm folded) with their SHA-256.
# Usage: scripts/train-nafp-small.sh [OUT]   (default Sources/Fingerprinting/Chang2021NAFP/nafp-small.fpnn, where the build takes it from,
# its fixture then going to Algorithms/nafp-small/; any other OUT, a retrained model to run with --set nafp-small.weights=OUT, keeps its
# fixture beside it, OUT.fixture.json). New built-in weights need their SHA-256 pinned in NAFPSmall.swift and that README.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Sources/Fingerprinting/Chang2021NAFP/nafp-small.fpnn}"
scripts/setup.sh python3-torch python3-numpy
scripts/fetch-dataset.sh train-small
scripts/build.sh
# A copy of the binary: a rebuild while the renders run would replace the file they execute.
cp .build/release/fpbench .build/train-fpbench
/usr/bin/python3 scripts/train_nafp_small.py prepare --fpbench .build/train-fpbench
/usr/bin/python3 scripts/train_nafp_small.py train --out runs/nafp-small --epochs 10 --minutes 100
mkdir -p "$(dirname "$out")"
/usr/bin/python3 scripts/train_nafp_small.py export runs/nafp-small/checkpoint.pt "$out"
if [ "$out" = Sources/Fingerprinting/Chang2021NAFP/nafp-small.fpnn ]; then
    mv "$out.fixture.json" Algorithms/nafp-small/nafp-small.fpnn.fixture.json
fi
