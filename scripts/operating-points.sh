#!/usr/bin/env bash
# Operating points (docs/operating-points.md): constellation, Haitsma-Kalker, panako@dense, audfprint and
# Olaf each at three or four settings of a density-like parameter, side by side in one benchmark on the
# catalog, accuracy against index size and query CPU; then sub-frame time skew (fpbench sweep skew) for the
# same five and constellation without its query shifts, into FOLDER/skew. The reference: Reports/operating-points.
#   scripts/operating-points.sh [--out FOLDER]
# Without network, give the systems a local copy: OLAF_SOURCE=~/src/Olaf AUDFPRINT_SOURCE=~/src/audfprint.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Reports/latest/operating-points
if [ "${1:-}" = --out ]; then out=$2; fi
scripts/fetch-dataset.sh catalog
scripts/build.sh --product fpbench
Systems/olaf/install.sh
Systems/audfprint/install.sh
.build/release/fpbench sweep operating --dataset catalog --no-cache --system-state .fpbench-cache/systems \
    --point constellation.fanOut=1,3,10 --point haitsma-kalker.hop=32,64,128,256 \
    --point panako@dense.peakBinRadius=15,25,40 \
    --system Systems/audfprint/audfprint.json --point audfprint.density=10,20,60,180 \
    --system Systems/olaf/olaf.json --point olaf.filter_size_time=12,24,48 \
    --system Systems/olaf/olaf.json@over-the-air --point olaf@over-the-air.filter_size_time=12,24,48 \
    --point nafp-small.hopSeconds=0.25,0.5,1 \
    --out "$out"
.build/release/fpbench sweep skew --dataset catalog --system-state .fpbench-cache/systems \
    --algorithms constellation constellation@queryShifts=1 haitsma-kalker panako@dense \
    --system Systems/audfprint/audfprint.json --system Systems/olaf/olaf.json --out "$out/skew"
