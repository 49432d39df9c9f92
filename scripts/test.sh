#!/usr/bin/env bash
# The test command: installs what is missing (ffmpeg makes the decoding tests' files of every format; fpcalc is the external command tested;
# pyroomacoustics, from PyPI, checks the room model; Debian's PyTorch runs the learned fingerprint's training smoke test; Debian's TeX
# compiles the LaTeX tables; perf splits a process's time against its floor), fetches the small real-audio test datasets, checks that the
# default dataset's renders depend on nothing outside their manifest (scripts/test_renders.py), builds once,
# runs every outside system that installs here on catalog-ci (scripts/test_systems.py) and runs the whole
# test suite once. Ends with the test runner's closing lines.
# The code under test is built in release mode, as every figure the tool reports is measured (the golden
# fingerprints and the reference runs are the same bits under -Onone and -O): the tests run six times faster than
# a debug build's. The test module itself is compiled unoptimised (Package.swift). Their own build folder
# (.build-tests) keeps `scripts/build.sh` from rebuilding.
# Two cores are kept busy: the builds (the tool, then the tests) start once their own packages are in and run beside
# the steps that wait on the network or use one core (the tests' packages, the datasets, pyroomacoustics; the
# build's modules compile one after another), and the outside systems and the parameter campaign run beside each
# other and what is left of the tests' build. Each step says how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
build=(--scratch-path .build-tests -Xswiftc -enable-testing)  # scripts/build.sh adds the release flags
build_logs=.build-tests/logs
source scripts/build-beside.sh

timed scripts/setup.sh  # what the build needs; the tests' own packages install beside it
SECONDS=0
start_build tool "${build[@]}" --product fpbench
# The steps beside the tests' build run a copy of the tool, its resources beside it, made as soon as it is built and
# before that build starts: the tests' build links .build-tests/release/fpbench anew, and a program run while it
# is being written fails ("Text file busy").
tool=.build-tests/tool
( while kill -0 "${builds[tool]}" 2>/dev/null; do sleep 1; done
  rm -rf "$tool" && mkdir -p "$tool" && cp -rp .build-tests/release/fpbench .build-tests/release/*.resources "$tool/" ) &
copy=$!; last_build=$copy
start_build tests "${build[@]}" --build-tests  # as soon as the tool is built, beside the steps below
timed scripts/setup.sh fluidsynth timidity chromium ffmpeg libchromaprint-tools python3-torch python3-numpy texlive-latex-recommended poppler-utils python3-pandas python3-matplotlib linux-perf
timed scripts/fetch-dataset.sh ci
timed scripts/fetch-dataset.sh catalog-ci
timed scripts/install-pyroomacoustics.sh  # the reference the room model is tested against (RoomModelTests)
timed python3 scripts/test_manifests.py
timed python3 scripts/test_imports.py
timed python3 scripts/test_renders.py
timed /usr/bin/python3 scripts/test_pandas_docs.py
timed python3 scripts/peer_tables.py --check  # docs/systems.md's and the README's peer tables are the committed run's
# The learned fingerprint's training script, one batch on generated audio (CI never trains; docs/learned.md).
timed /usr/bin/python3 scripts/train_nafp_small.py smoke
finish tool
wait "$copy" || { echo "test: the tool could not be copied to $tool" >&2; exit 1; }
echo "test: fpbench built after $SECONDS s" >&2
fpbench="$PWD/$tool/fpbench"
# Each outside system of Systems/ that installs here (Debian, PyPI) run on catalog-ci; the others are skipped with the
# reason. Beside the parameter campaign: it waits on the network as much as it computes.
timed python3 scripts/test_systems.py "$fpbench" &
systems=$!
# Every --set of every algorithm and every stage field with hostile values: each call ends by itself, within
# 5 minutes and 2 GB, with an answer or a one-line reason (issue 58).
timed python3 scripts/parameter_campaign.py "$fpbench" --stages
wait "$systems" || { echo "test: scripts/test_systems.py failed" >&2; exit 1; }
finish tests
echo "test: the tests built after $SECONDS s" >&2
swift test -c release "${build[@]}" --skip-build
