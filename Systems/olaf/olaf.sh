#!/bin/sh
# Runs Olaf with its index in STATE: Olaf reads its configuration from $HOME/.olaf/olaf_config.json, so
# HOME is STATE, and the configuration (written anew each call: the state folder may have moved since
# indexing) names STATE's database and cache, and the settings fpbench passes (olaf.json's "settings", as
# OLAF_FILTER_SIZE_TIME, OLAF_FILTER_SIZE_FREQUENCY, OLAF_MAX_EVENT_POINT_USAGES, OLAF_NUMBER_OF_EPS_PER_FP:
# whole numbers, checked by fpbench); every setting not given is Olaf's default.
#   olaf.sh index STATE CATALOG_LIST      olaf store
#   olaf.sh query STATE QUERY...          olaf query (CSV on standard output)
set -eu
mode=$1 state=$(cd "$2" && pwd)
shift 2
mkdir -p "$state/.olaf/db" "$state/.olaf/cache"
settings=""
for pair in filter_size_time:OLAF_FILTER_SIZE_TIME filter_size_frequency:OLAF_FILTER_SIZE_FREQUENCY max_event_point_usages:OLAF_MAX_EVENT_POINT_USAGES \
            number_of_eps_per_fp:OLAF_NUMBER_OF_EPS_PER_FP; do
    value=$(printenv "${pair#*:}" || true)
    case $value in
        '') ;;
        *[!0-9]*) echo "olaf.sh: ${pair#*:} must be a whole number, got '$value'" >&2; exit 64 ;;
        *) settings="$settings, \"${pair%%:*}\": $value" ;;
    esac
done
printf '{"db_folder": "%s/.olaf/db/", "cache_folder": "%s/.olaf/cache/"%s}\n' "$state" "$state" "$settings" > "$state/.olaf/config.$$"
mv "$state/.olaf/config.$$" "$state/.olaf/olaf_config.json"
export HOME="$state"
olaf=$(dirname "$0")/installed/bin/olaf
case $mode in
    index) exec "$olaf" store "$1" ;;
    query) exec "$olaf" query "$@" ;;
    *) echo "usage: olaf.sh index|query STATE ..." >&2; exit 64 ;;
esac
