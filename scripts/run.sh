#!/usr/bin/env bash
# `make run`: build release and start the service. Without DATABASE_URL it uses the checkout's own
# PostgreSQL cluster for .data/pg (`scripts/pg.sh where .data/pg` prints where its files are),
# starting it if it is not running. The cluster stays up while any `make run` of this checkout uses
# it; the last one to end stops it if a `make run` started it, however it ends: by itself, Ctrl-C,
# SIGTERM to make or to its whole process group, or its terminal closing. A cluster started by hand
# is left running. Two locks in .data/pg: start.lock lets one run at a time start or stop the
# cluster, and every run holds users.lock shared while it serves, so a run that can take it alone is
# the last one.
# With HA=1 the cluster is instead the three-node Patroni cluster of scripts/ha-cluster.sh for
# .data/ha, with the same rules; the service gets its multi-host URL, and
# `scripts/ha-cluster.sh kill-primary .data/ha` in another terminal shows a failover.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
db=""
cluster=scripts/pg.sh
if [ "${HA:-0}" = 1 ]; then cluster=scripts/ha-cluster.sh; fi
if [ -z "${DATABASE_URL:-}" ]; then
  db=.data/pg
  if [ "${HA:-0}" = 1 ]; then db=.data/ha; fi
  "$cluster" check "$db"
fi
swift build -c release --product catbird-mls-server

# The server has no default DID (unset, it refuses to start: tokens minted for a shared placeholder
# would be accepted by every service run that way). For local use without configuration, make run
# supplies the development one, the CLI's default audience; the server logs a warning with it.
if [ -z "${SERVICE_DID:-}" ]; then
  export SERVICE_DID=did:web:localhost
  echo "make run: SERVICE_DID is not set; serving as the development service DID $SERVICE_DID" >&2
fi

# The lock descriptors stay out of every child: a postmaster holding one would hold it forever.
pg() { "$cluster" "$@" 8>&- 9>&-; }

. scripts/lib/stop-job.sh

# On a signal, and when the server ends by itself: stop the server (one SIGTERM, its graceful
# shutdown, waited for to the end: this script ending first would send it a second SIGTERM through
# --pdeathsig below), then the cluster if this run is its last user and a `make run` started it.
stop() { # [the server's exit status]
  trap '' INT TERM HUP
  local status=${1:-0} server
  server=$(jobs -p)
  if [ -n "$server" ]; then stop_job "$server" && status=0 || status=$?; fi
  if [ -n "$db" ]; then
    flock -x 8
    flock -u 9
    if flock -x -n 9 && [ -f "$db/started-by-make-run" ]; then
      pg stop "$db"
      rm -f "$db/started-by-make-run"
    fi
  fi
  exit "$status"
}

if [ -n "$db" ]; then
  mkdir -p "$db"
  exec 8>>"$db/start.lock" 9>>"$db/users.lock"
fi
trap stop INT TERM HUP

if [ -n "$db" ]; then
  flock -x 8
  # Marked before the start, so a start cut short by a signal or an error is stopped too.
  pg status "$db" >/dev/null || touch "$db/started-by-make-run"
  DATABASE_URL=$(pg start "$db" "${PG_PORT:-}") || stop 1
  export DATABASE_URL
  if [ "${HA:-0}" = 1 ]; then
    echo "make run: on the Patroni cluster of $db ($DATABASE_URL); scripts/ha-cluster.sh status $db shows it," \
      "scripts/ha-cluster.sh kill-primary $db fails it over" >&2
  fi
  flock -s 9
  flock -u 8
fi

# The server runs in a session of its own, so a signal to make's process group reaches it once,
# from stop (make also passes SIGTERM on to this script: a server in the group would get two, and a
# second signal cuts its graceful shutdown short). If this script is killed outright, the kernel
# sends the server SIGTERM (PR_SET_PDEATHSIG).
setsid setpriv --pdeathsig TERM -- .build/release/catbird-mls-server "$@" 8>&- 9>&- &
status=0
wait $! || status=$?
stop "$status"
