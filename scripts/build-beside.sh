# Sourced by scripts/test.sh and scripts/evaluate.sh, to keep both cores busy: `start_build NAME ARGS...` runs
# `scripts/build.sh ARGS...` (the release build) in the background once the build started before it has ended
# (builds sharing a scratch folder go one at a time), its output in $build_logs/NAME.txt; `finish NAME` waits for it
# and shows its last line, or all of it if it failed; `timed COMMAND...` runs a step and says how long it took. A
# script that stops early stops its builds too.
declare -A builds
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
start_build() {
    mkdir -p "$build_logs"
    local before=${last_build:-}
    ( if [ -n "$before" ]; then while kill -0 "$before" 2>/dev/null; do sleep 1; done; fi
      exec scripts/build.sh "${@:2}" > "$build_logs/$1.txt" 2>&1 ) &
    builds[$1]=$!; last_build=$!
}
finish() {
    if ! wait "${builds[$1]}"; then cat "$build_logs/$1.txt" >&2; echo "the $1 build failed" >&2; exit 1; fi
    grep -v "warning:" "$build_logs/$1.txt" | tail -n 1 >&2
}
timed() { local start=$SECONDS name=${0##*/}; "$@"; echo "${name%.sh}: $* took $((SECONDS - start)) s" >&2; }
