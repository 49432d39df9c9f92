#!/usr/bin/env bash
# Installs audfprint (Dan Ellis, https://github.com/dpwe/audfprint) at a pinned commit, unchanged, in a
# Python environment of its own with its requirements pinned from PyPI, into Systems/audfprint/installed/.
# PyPI's audfprint2 is a rewrite by other authors (typed, restructured), not this code, so it is not used.
# audfprint decodes with ffmpeg (Debian).
#   Systems/audfprint/install.sh                          clones the pinned commit from GitHub
#   AUDFPRINT_SOURCE=DIR Systems/audfprint/install.sh     from a local copy (source folder or git repository)
set -euo pipefail
cd "$(dirname "$0")"
commit=cb03ba99feafd41b8874307f0f4e808a6ce34362   # master, 2019-09-23 (audfprint.py --version: 20150406)
# What it runs with (Debian): installed after its sources are fetched, and again when its build is already here.
packages=(ffmpeg python3-venv)
if grep -qs "$commit" installed/VERSION; then ../../scripts/setup.sh "${packages[@]}"; echo "audfprint: already installed ($(cat installed/VERSION))" >&2; exit 0; fi
source ../fetch-source.sh
fetch_source "${AUDFPRINT_SOURCE:-}" https://github.com/dpwe/audfprint "$commit" installed/source AUDFPRINT_SOURCE
../../scripts/setup.sh "${packages[@]}"
[ -x installed/venv/bin/python ] || python3 -m venv installed/venv
# audfprint's requirements.txt (numpy, scipy, docopt, joblib, psutil), at the versions it was measured with here.
installed/venv/bin/pip install -q numpy==2.4.6 scipy==1.17.1 docopt==0.6.2 joblib==1.6.0 psutil==7.2.2
echo "audfprint commit $fetched_commit" > installed/VERSION
echo "audfprint: installed $(cat installed/VERSION)" >&2
