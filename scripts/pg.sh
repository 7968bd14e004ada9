#!/usr/bin/env bash
# A private PostgreSQL cluster in a data folder: `pg.sh start DIR [PORT]` prints its DATABASE_URL,
# reusing the cluster if it already runs; `pg.sh stop DIR` stops it; `pg.sh crash DIR` stops it the way
# a crash would (immediate shutdown: no checkpoint, recovery from the WAL at the next start). PostgreSQL refuses to run as
# root, so as root its binaries run as the `postgres` user.
set -euo pipefail
cmd=${1:?usage: pg.sh start|stop|crash|url DIR [PORT]}
dir=$(mkdir -p "${2:?data folder}" && cd "$2" && pwd)
port=${3:-}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/initdb" ] || bindir=$(pg_config --bindir)

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() { echo "postgresql://postgres@127.0.0.1:$(cat "$dir/port")/catbird?sslmode=disable"; }

running() { [ -f "$dir/pgdata/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$dir/pgdata" status >/dev/null 2>&1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

case "$cmd" in
  start)
    if running; then url; exit 0; fi
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/pgdata/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/pgdata" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    [ -n "$port" ] || port=$(free_port)
    echo "$port" >"$dir/port"
    mkdir -p "$dir/sock" && { [ "$(id -u)" -ne 0 ] || chown postgres "$dir/sock"; }
    # The server outlives this script: it must not inherit the caller's descriptors beyond stdio,
    # or a caller waiting for them to close (a test's Process) would wait for the server to stop.
    ( for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
      exec </dev/null
      as_owner "$bindir/pg_ctl" -D "$dir/pgdata" -l "$dir/postgres.log" -w -t 60 start \
        -o "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=${PG_FSYNC:-on}" >/dev/null ) \
      || { tail -n 30 "$dir/postgres.log" >&2; exit 1; }
    as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname='catbird'" | grep -q 1 \
      || as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres catbird
    url
    ;;
  stop)
    running && as_owner "$bindir/pg_ctl" -D "$dir/pgdata" -m fast -w stop >/dev/null || true
    ;;
  crash)
    running && as_owner "$bindir/pg_ctl" -D "$dir/pgdata" -m immediate -w stop >/dev/null || true
    ;;
  url) url ;;
  *) echo "usage: pg.sh start|stop|crash|url DIR [PORT]" >&2; exit 2 ;;
esac
