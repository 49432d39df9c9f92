#!/bin/sh
# fpbench's own command line run as an outside system (Systems/fpbench/fpbench.json): the binary FPBENCH
# names, or this checkout's release build. `fpbench.sh --version` adds the commit of the checkout the binary
# lies in (and "with changes" when its tracked files differ from it), so the peer table's version names the
# code measured and a new commit indexes the catalog afresh.
bin=${FPBENCH:-$(dirname "$0")/../../.build/release/fpbench}
if [ "${1:-}" = "--version" ] && [ -x "$bin" ]; then
    folder=$(dirname "$bin")
    commit=$(git -C "$folder" rev-parse --short=12 HEAD 2>/dev/null) || { echo "$("$bin" --version) (built outside a git checkout)"; exit 0; }
    changes=$(git -C "$folder" status --porcelain --untracked-files=no 2>/dev/null)
    echo "$("$bin" --version) (commit $commit${changes:+ with changes})"
    exit 0
fi
exec "$bin" "$@"
