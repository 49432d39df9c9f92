#!/usr/bin/env bash
# The field's systems on the same table: installs each outside system of Systems/ (its own install.sh;
# one that cannot be installed here is said and left out), then runs the identification benchmark on the
# catalog (the same seed, queries, conditions and negatives as Reports/benchmark) with the reference's
# indexed algorithms, nafp-small and every installed system (Olaf also at its over-the-air setting), under the
# reference's fifteen conditions (its three rooms among them), then Chromaprint's fpcalc with our AcoustID-style index
# (Algorithms/chromaprint-fpcalc-indexed.json) and the runs below. The reference: Reports/benchmark-systems.
#   scripts/benchmark-systems.sh [--out FOLDER] [more fpbench benchmark options]
# Without network, give the systems built from source a local copy, for example
#   OLAF_SOURCE=~/src/Olaf AUDFPRINT_SOURCE=~/src/audfprint scripts/benchmark-systems.sh
# (Panako needs four: PANAKO_SOURCE TARSOSDSP_SOURCE JGABORATOR_SOURCE LMDBJAVA_SOURCE, see its install.sh.)
# Dejavu runs apart, on the 10 s queries only (the same seed gives the same queries and negatives),
# beside constellation: it answers about 2 queries a second (its PostgreSQL lookups), so all four lengths would add 40 minutes
# (SKIP_DEJAVU=1 leaves it out). Its index: about 17 min of CPU and 2.4 GB of PostgreSQL for 13 h.
set -euo pipefail
cd "$(dirname "$0")/.."
systems=${SYSTEMS:-olaf audfprint qfp panako}
out=Reports/latest/benchmark-systems
if [ "${1:-}" = --out ]; then out=$2; shift 2; fi
scripts/setup.sh libchromaprint-tools
scripts/fetch-dataset.sh catalog
scripts/build.sh --product fpbench
chosen=()
for s in $systems; do
    if Systems/$s/install.sh; then chosen+=(--system "Systems/$s/$s.json"); else echo "benchmark-systems: $s left out: its install failed (above)" >&2; fi
done
# Olaf twice: at its defaults and at its own over-the-air setting (olaf.json's variant).
variants() { for a in "$@"; do echo "$a"; if [ "$a" = Systems/olaf/olaf.json ]; then printf '%s\n' --system "$a@over-the-air"; fi; done; }
mapfile -t chosen < <(variants "${chosen[@]}")
# constellation through our own command line, so its query CPU is counted as the peers' is (Systems/fpbench).
export FPBENCH=$PWD/.build/release/fpbench
chosen+=(--system Systems/fpbench/fpbench.json)
.build/release/fpbench benchmark --dataset catalog "${chosen[@]}" \
    --algorithms constellation haitsma-kalker waveprint panako panako@dense quads nafp-small --out "$out" "$@"
# Runs on the same seed's queries, each beside constellation (whose rows equal the main run's): Chromaprint
# with our word index; Panako's release with its match filters off (a diagnostic variant, 10 s); Dejavu (10 s).
.build/release/fpbench benchmark --dataset catalog --external Algorithms/chromaprint-fpcalc-indexed.json \
    --algorithms constellation chromaprint --out "$out/chromaprint" "$@"
if [[ " $systems " == *" panako "* ]]; then
    .build/release/fpbench benchmark --dataset catalog --lengths 10 --algorithms constellation \
        --system Systems/panako/panako-release-unfiltered.json --out "$out/panako-unfiltered-10s" "$@"
fi
if [ -z "${SKIP_DEJAVU:-}" ]; then
    if Systems/dejavu/install.sh; then
        .build/release/fpbench benchmark --dataset catalog --lengths 10 --algorithms constellation --system Systems/dejavu/dejavu.json \
            --out "$out/dejavu-10s" "$@"
    else echo "benchmark-systems: dejavu left out: its install failed (above)" >&2; fi
fi
