#!/bin/sh
# Runs Dejavu with its database in STATE/postgres: a PostgreSQL server of its own, on a private socket
# folder (no TCP port), started for this call as a child of this script (so its CPU time and memory count
# as Dejavu's) and stopped when the call ends, whatever happens. As root, the server runs as the
# postgres user (PostgreSQL refuses root).
#   dejavu.sh index STATE CATALOG_LIST      fingerprint_file for each listed file
#   dejavu.sh query STATE QUERY...          recognize(FileRecognizer) for each query: JSON lines
set -eu
mode=$1 state=$(cd "$2" && pwd)
shift 2
here=$(cd "$(dirname "$0")" && pwd)
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
data=$state/postgres
owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi }
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$state"; then
    echo "dejavu.sh: PostgreSQL runs as the postgres user, which cannot reach $state: make the folders above it searchable (chmod o+x) or choose another --system-state" >&2
    exit 1
fi
if [ ! -d "$data" ]; then
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres "$data"
    owner "$bin/initdb" --pgdata="$data" --username=dejavu --auth=trust --encoding=UTF8 >/dev/null
fi
socket=$(mktemp -d /tmp/fpbench-dejavu-XXXXXX)
chmod 777 "$socket"
owner "$bin/postgres" -D "$data" -k "$socket" -c listen_addresses= -p 5432 >"$socket.log" 2>&1 &
server=$!
# pg_ctl signals the server itself (runuser, between us and it, would not pass a signal on).
stop() { owner "$bin/pg_ctl" stop -D "$data" -m fast -s 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$socket" "$socket.log"; }
trap stop EXIT
trap 'exit 143' INT TERM
tries=0
until "$bin/pg_isready" -q -h "$socket" -p 5432; do
    tries=$((tries + 1))
    [ $tries -gt 300 ] && { echo "PostgreSQL did not start:" >&2; cat "$socket.log" >&2; exit 1; }
    sleep 0.1
done
"$bin/psql" -q -h "$socket" -p 5432 -U dejavu -d postgres -tc "SELECT 1 FROM pg_database WHERE datname = 'dejavu'" | grep -q 1 \
    || "$bin/createdb" -h "$socket" -p 5432 -U dejavu dejavu
DEJAVU_SOCKET=$socket PYTHONPATH="$here/installed/source" "$here/installed/venv/bin/python" "$here/dejavu_driver.py" "$mode" "$state" "$@"
