#!/usr/bin/env bash
# The test command: installs what is missing (ffmpeg makes the decoding tests' files of every format; fpcalc is the external command tested;
# pyroomacoustics, from PyPI, checks the room model; Debian's PyTorch runs the learned fingerprint's training smoke test), fetches the small real-audio test datasets, checks that the
# default dataset's renders depend on nothing outside their manifest (scripts/test_renders.py), builds once,
# runs every outside system that installs here on catalog-ci (scripts/test_systems.py) and runs the whole
# test suite once. Ends with the test runner's closing lines.
# The tests run in release mode, as every figure the tool reports is measured (the golden fingerprints and the
# reference runs are the same bits under -Onone and -O): the tests run six times faster than a debug build's
# for a build two minutes longer. Their own build folder (.build-tests) keeps `swift build -c release` from rebuilding.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh fluidsynth timidity chromium ffmpeg libchromaprint-tools python3-torch python3-numpy
scripts/fetch-dataset.sh ci
scripts/fetch-dataset.sh catalog-ci
scripts/install-pyroomacoustics.sh  # the reference the room model is tested against (RoomModelTests)
python3 scripts/test_manifests.py
python3 scripts/test_renders.py
# The learned fingerprint's training script, one batch on generated audio (CI never trains; docs/learned.md).
/usr/bin/python3 scripts/train_nafp_small.py smoke
build=(-c release --scratch-path .build-tests -Xswiftc -enable-testing)
swift build "${build[@]}" --build-tests
# Each outside system of Systems/ that installs here (Debian, PyPI) run on catalog-ci; the others are skipped with the reason.
python3 scripts/test_systems.py "$(swift build "${build[@]}" --show-bin-path)/fpbench"
# Every --set of every algorithm and every stage field with hostile values: each call ends by itself, within
# 5 minutes and 2 GB, with an answer or a one-line reason (issue 58).
python3 scripts/parameter_campaign.py "$(swift build "${build[@]}" --show-bin-path)/fpbench" --stages
swift test "${build[@]}" --skip-build
