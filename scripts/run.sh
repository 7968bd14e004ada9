#!/usr/bin/env bash
# `make run`: build release and start the service. Without DATABASE_URL, use (and if needed start)
# the repo's own PostgreSQL cluster in .data/pg; stop it on exit only if this script started it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
swift build -c release --product catbird-mls-server

started=""
if [ -z "${DATABASE_URL:-}" ]; then
  mkdir -p .data/pg && chmod 755 .data .data/pg
  if ! scripts/pg.sh url .data/pg >/dev/null 2>&1 || ! pg_isready -q -d "$(scripts/pg.sh url .data/pg)"; then
    started=.data/pg
  fi
  DATABASE_URL=$(scripts/pg.sh start .data/pg "${PG_PORT:-}")
  export DATABASE_URL
fi

server_pid=""
stop() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  [ -n "$started" ] && scripts/pg.sh stop "$started"
  exit 0
}
trap stop INT TERM
.build/release/catbird-mls-server "$@" &
server_pid=$!
wait "$server_pid" || true
server_pid=""
stop
