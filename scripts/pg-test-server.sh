#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and the bench.
#   scripts/pg-test-server.sh start   installs PostgreSQL from the Debian packages when missing,
#                                     initdb's a cluster in a temporary folder (owned by an
#                                     unprivileged user when run as root), starts it on a loopback
#                                     port, and prints `export PRECIS_TEST_PG_URL=...` (eval it).
#   scripts/pg-test-server.sh stop    stops that server and removes its folder.
# The folder is recorded in $PRECIS_PG_STATE (default /tmp/precis-pg-test.state).
set -euo pipefail
state="${PRECIS_PG_STATE:-/tmp/precis-pg-test.state}"
port="${PRECIS_PG_PORT:-54329}"

bindir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$found" ] || [ ! -x "$found/initdb" ]; then
    echo "pg-test-server: installing PostgreSQL from the Debian packages" >&2
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
    found="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  echo "$found"
}

# Runs a command as the cluster's owner: an unprivileged user when we are root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    bin="$(bindir)"
    owner=postgres
    if [ "$(id -u)" = 0 ] && ! id -u "$owner" >/dev/null 2>&1; then owner=nobody; fi
    dir="$(mktemp -d /tmp/precis-pg.XXXXXX)"
    if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U precis --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >&2 \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "$dir" >"$state"
    echo "export PRECIS_TEST_PG_URL=postgres://precis@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -f "$state" ] || exit 0
    dir="$(cat "$state")"
    bin="$(bindir)"
    owner="$(stat -c %U "$dir")"
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    rm -rf "$dir" "$state"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
