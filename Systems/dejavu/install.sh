#!/usr/bin/env bash
# Installs Dejavu (Will Drevo, https://github.com/worldveil/dejavu) at a pinned commit, unchanged, in a
# Python environment of its own, into Systems/dejavu/installed/, with PostgreSQL from Debian: its index is
# a database, which Systems/dejavu/dejavu.sh starts on a private socket and data folder for each call and
# stops after. PyPI's PyDejavu 0.1.3 is a 2015 fork for Python 2 with MySQL only, so it is not used.
# Dejavu's requirements.txt pins 2019 releases that do not build on Python 3.11; the newest releases that
# keep its numpy 1 API are used instead (numpy, scipy, matplotlib for mlab.specgram, pydub, psycopg2).
# PyAudio (microphone input only) is not installed: nothing here imports it.
#   Systems/dejavu/install.sh                        clones the pinned commit from GitHub
#   DEJAVU_SOURCE=DIR Systems/dejavu/install.sh      from a local copy (source folder or git repository)
set -euo pipefail
cd "$(dirname "$0")"
commit=e56a4a221ad204654a191d217f92aebf3f058b62   # master, 2020-06-02
# What it runs with (Debian): installed after its sources are fetched, and again when its build is already here.
packages=(ffmpeg python3-venv postgresql)
if grep -qs "$commit" installed/VERSION; then ../../scripts/setup.sh "${packages[@]}"; echo "dejavu: already installed ($(cat installed/VERSION))" >&2; exit 0; fi
source ../fetch-source.sh
# The code and its licence only (the repository also holds example MP3s).
fetch_source "${DEJAVU_SOURCE:-}" https://github.com/worldveil/dejavu "$commit" installed/source DEJAVU_SOURCE dejavu LICENSE.md
../../scripts/setup.sh "${packages[@]}"
[ -x installed/venv/bin/python ] || python3 -m venv installed/venv
installed/venv/bin/pip install -q numpy==1.26.4 scipy==1.15.3 matplotlib==3.8.4 pydub==0.25.1 psycopg2-binary==2.9.10
postgres=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
echo "dejavu commit $fetched_commit, PostgreSQL $("$postgres/postgres" --version | awk '{print $3}')" > installed/VERSION
echo "dejavu: installed $(cat installed/VERSION)" >&2
