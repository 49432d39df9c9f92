#!/bin/sh
# Nothing to fetch: fpbench.json runs the fpbench this checkout builds (scripts/build.sh --product fpbench),
# or the one FPBENCH names; this checks that it is there.
set -eu
bin=${FPBENCH:-$(dirname "$0")/../../.build/release/fpbench}
[ -x "$bin" ] || { echo "fpbench: $bin is not built: scripts/build.sh --product fpbench (or FPBENCH=PATH)" >&2; exit 1; }
echo "fpbench: $("$bin" --version) at $bin" >&2
