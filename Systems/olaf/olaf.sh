#!/bin/sh
# Runs Olaf with its index in STATE: Olaf reads its configuration from $HOME/.olaf/olaf_config.json, so
# HOME is STATE, and the configuration (written anew each call: the state folder may have moved since
# indexing) names STATE's database and cache. Every other setting is Olaf's default.
#   olaf.sh index STATE CATALOG_LIST      olaf store
#   olaf.sh query STATE QUERY...          olaf query (CSV on standard output)
set -eu
mode=$1 state=$(cd "$2" && pwd)
shift 2
mkdir -p "$state/.olaf/db" "$state/.olaf/cache"
printf '{"db_folder": "%s/.olaf/db/", "cache_folder": "%s/.olaf/cache/"}\n' "$state" "$state" > "$state/.olaf/config.$$"
mv "$state/.olaf/config.$$" "$state/.olaf/olaf_config.json"
export HOME="$state"
olaf=$(dirname "$0")/installed/bin/olaf
case $mode in
    index) exec "$olaf" store "$1" ;;
    query) exec "$olaf" query "$@" ;;
    *) echo "usage: olaf.sh index|query STATE ..." >&2; exit 64 ;;
esac
