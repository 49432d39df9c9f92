#!/usr/bin/env bash
# Fetches the small real-audio dataset the tests run on (Datasets/ci): the bird recordings inside
# the PyPI wheel of pykanto 0.1.8 (MIT licence), checked against their SHA-256. Idempotent and quick
# when everything is present. Only PyPI is contacted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
audio="$root/Datasets/ci/audio"
cache="$root/Datasets/cache"
wheel="pykanto-0.1.8-py3-none-any.whl"
wheel_sha256="44b0df060e83087950fd5b6780bbc3bc13f3122abdadb1cb7f979e641adc3077"

# name in Datasets/ci/audio | member of the wheel (checksums: Datasets/ci/SHA256SUMS)
files=(
  "finch-348.wav|pykanto/data/raw/BENGALESE_FINCH/bird_3/348.wav"
  "finch-363.wav|pykanto/data/raw/BENGALESE_FINCH/bird_3/363.wav"
  "petrel-XC663885.wav|pykanto/data/raw/STORM-PETREL/XC663885.wav"
  "petrel-XC46092.wav|pykanto/data/raw/STORM-PETREL/XC46092.wav"
)
sums="$root/Datasets/ci/SHA256SUMS"

if [ -f "$sums" ] && (cd "$audio" 2>/dev/null && sha256sum --quiet -c "$sums" >/dev/null 2>&1); then
    exit 0
fi

mkdir -p "$audio" "$cache"
if ! (cd "$cache" && echo "$wheel_sha256  $wheel" | sha256sum --quiet -c - >/dev/null 2>&1); then
    echo "fetch-test-data: downloading $wheel from PyPI" >&2
    for attempt in 1 2 3; do
        python3 -m pip download --quiet --no-deps "pykanto==0.1.8" -d "$cache" && break
        [ "$attempt" -eq 3 ] && { echo "fetch-test-data: pip download failed" >&2; exit 1; }
        sleep 5
    done
    (cd "$cache" && echo "$wheel_sha256  $wheel" | sha256sum --quiet -c -) || {
        echo "fetch-test-data: $cache/$wheel does not match its SHA-256" >&2; exit 1; }
fi

python3 - "$cache/$wheel" "$audio" "${files[@]}" <<'PY'
import sys, zipfile, os
wheel, out, *specs = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for spec in specs:
        name, member = spec.split("|")
        tmp = os.path.join(out, "." + name + ".part")
        with z.open(member) as src, open(tmp, "wb") as dst:
            dst.write(src.read())
        os.replace(tmp, os.path.join(out, name))
PY
(cd "$audio" && sha256sum --quiet -c "$sums") || { echo "fetch-test-data: extracted files do not match $sums" >&2; exit 1; }
