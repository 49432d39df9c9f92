#!/usr/bin/env bash
# Installs qfp (quad-based fingerprinting after Sonnleitner & Widmer 2016; PyPI qfp 0.2.0 with two disclosed one-line
# fixes of IndexErrors, patch_qfp.py) in a
# Python environment of its own, into Systems/qfp/installed/. qfp declares Python < 3.11 and unpinned
# numpy/scipy ranges whose newest releases need Python 3.12; Debian 12 has 3.11, so it is installed with
# --ignore-requires-python and the newest numpy and scipy that still fit its ranges and this Python.
# qfp decodes with pydub, which calls ffmpeg (Debian).
set -euo pipefail
cd "$(dirname "$0")"
version="qfp 0.2.0 (PyPI) + 2 fixes (patch_qfp.py), numpy 1.26.4, scipy 1.15.3"
# The packages it runs with, also when its build is already here (a machine's packages can change).
../../scripts/setup.sh ffmpeg python3-venv
if grep -qsF "$version" installed/VERSION; then echo "qfp: already installed ($version)" >&2; exit 0; fi
[ -x installed/venv/bin/python ] || python3 -m venv installed/venv
installed/venv/bin/pip install -q --ignore-requires-python qfp==0.2.0 numpy==1.26.4 scipy==1.15.3 bitstring==3.1.9 pydub==0.25.1
installed/venv/bin/python patch_qfp.py "$(installed/venv/bin/python -c "import os, qfp; print(os.path.dirname(qfp.__file__))")"
installed/venv/bin/python -c "import qfp"
echo "$version" > installed/VERSION
echo "qfp: installed $(cat installed/VERSION)" >&2
