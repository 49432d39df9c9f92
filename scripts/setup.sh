#!/usr/bin/env bash
# Installs the Debian packages FingerprintBench builds against. Idempotent: skips what is installed.
# Usage: scripts/setup.sh [extra-package ...]
set -euo pipefail

packages=(libfftw3-dev libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libsndfile1-dev libgsl-dev libsoxr-dev librubberband-dev libssl-dev libxxhash-dev libopenblas-serial-dev libfaiss-dev librsvg2-bin pkg-config python3 "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || true
# A concurrent apt run can hold the lock and make one attempt fail: try up to 3 times.
for attempt in 1 2 3; do
    if $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then exit 0; fi
    echo "setup: apt-get install failed (attempt $attempt of 3), retrying" >&2
    sleep $((attempt * 10))
done
echo "setup: could not install ${missing[*]}" >&2
exit 1
