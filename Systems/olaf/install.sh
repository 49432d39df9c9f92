#!/usr/bin/env bash
# Builds Olaf (Joren Six, https://github.com/JorenSix/Olaf) at a pinned commit, unchanged, with Zig from
# PyPI (ziglang), into Systems/olaf/installed/. Olaf decodes with ffmpeg (Debian).
#   Systems/olaf/install.sh                      clones the pinned commit from GitHub
#   OLAF_SOURCE=DIR Systems/olaf/install.sh      from a local copy (source folder or git repository)
set -euo pipefail
cd "$(dirname "$0")"
commit=e5d89fba1b4ed9f5c8bd38ea3cdce799a6a67222   # Olaf main, 2026-05-20
zig=0.15.2                                        # Olaf's .zigversion at that commit
# What it runs with (Debian): installed after its sources are fetched, and again when its build is already here.
packages=(ffmpeg python3-venv)
if grep -qs "$commit" installed/VERSION; then ../../scripts/setup.sh "${packages[@]}"; echo "olaf: already installed ($(cat installed/VERSION))" >&2; exit 0; fi
source ../fetch-source.sh
fetch_source "${OLAF_SOURCE:-}" https://github.com/JorenSix/Olaf "$commit" installed/source OLAF_SOURCE
../../scripts/setup.sh "${packages[@]}"
mkdir -p installed/bin
[ -x installed/zig/bin/python ] || python3 -m venv installed/zig
installed/zig/bin/pip install -q "ziglang==$zig"
(cd installed/source && ../zig/bin/python -m ziglang build -Doptimize=ReleaseFast)
cp installed/source/zig-out/bin/olaf installed/bin/olaf
echo "olaf commit $fetched_commit, zig $zig, ReleaseFast" > installed/VERSION
echo "olaf: installed $(cat installed/VERSION)" >&2
