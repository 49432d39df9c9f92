#!/bin/sh
# fpbench's own command line run as an outside system (Systems/fpbench/fpbench.json): the binary FPBENCH
# names, or this checkout's release build.
exec "${FPBENCH:-$(dirname "$0")/../../.build/release/fpbench}" "$@"
