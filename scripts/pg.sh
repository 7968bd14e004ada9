#!/usr/bin/env bash
# A private PostgreSQL cluster for a data folder DIR (make run uses .data/pg):
#   pg.sh start DIR [PORT]  start it if it is not running (initdb on first use), print its DATABASE_URL
#   pg.sh stop DIR          stop it, with any of its processes a start killed half-way left behind
#   pg.sh crash DIR         stop it the way a crash would (immediate shutdown: no checkpoint, recovery
#                           from the WAL at the next start)
#   pg.sh status DIR        exit 0 when it is running
#   pg.sh url DIR           print its DATABASE_URL
#   pg.sh where DIR         print the folder that holds its files (pgdata, port, logs)
#   pg.sh check DIR         if it cannot work here, say why and what to do in one line and exit 1
#   pg.sh destroy DIR...    stop it and remove its files and DIR
#   pg.sh clean PREFIX      destroy every cluster whose DIR lies under PREFIX, wherever its files are
# Where the files live: a normal user runs PostgreSQL as itself, with the files in DIR. PostgreSQL
# refuses to run as root, so as root it runs as the `postgres` user, which may not be able to enter
# DIR (a checkout under /root, mode 0700): the files then live in postgres's home, in
# ~postgres/catbird-mls/<first 16 hex digits of the SHA-256 of DIR's absolute path>, so two folders
# never share a cluster; its `source` file names DIR. A cluster already initialised in DIR (by an
# earlier version of this script) stays there. Connections are TCP on 127.0.0.1 only: no Unix socket,
# whose path length (108 bytes) a deep checkout could exceed.
set -euo pipefail
usage="usage: pg.sh start|stop|crash|status|url|where|check|destroy|clean DIR [PORT]"
cmd=${1:?$usage}
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
[ -x "${bindir:-}/initdb" ] || bindir=$(pg_config --bindir 2>/dev/null || true)
is_root() { [ "$(id -u)" -eq 0 ]; }
clusters=""
if is_root; then clusters=$(getent passwd postgres | cut -d: -f6 || true)/catbird-mls; fi

fail() { echo "pg.sh: $*" >&2; exit 1; }

# locate DIR: sets dir (absolute, symlinks resolved), files (where the cluster's files live), pgdata.
locate() {
  dir=$(realpath -m -- "$1")
  files=$dir
  if is_root && [ ! -f "$dir/pgdata/PG_VERSION" ]; then
    files=$clusters/$(printf '%s' "$dir" | sha256sum | cut -c1-16)
  fi
  pgdata=$files/pgdata
}

# The cluster's owner: whoever owns pgdata; before initdb, postgres as root and oneself otherwise.
owner() {
  if [ -e "$pgdata" ]; then stat -c %U "$pgdata"; elif is_root; then echo postgres; else id -un; fi
}

as_owner() {
  local user
  user=$(owner)
  if [ "$user" = "$(id -un)" ]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

check() {
  [ -x "${bindir:-}/initdb" ] \
    || fail "PostgreSQL's server programs (initdb) are not installed: run scripts/install-deps.sh, or set DATABASE_URL to a server of your own"
  if is_root && [ "$files" != "$dir" ]; then
    getent passwd postgres >/dev/null \
      || fail "PostgreSQL will not run as root and there is no postgres user to run it: install the postgresql package (scripts/install-deps.sh), run as a normal user, or set DATABASE_URL"
    runuser -u postgres -- mkdir -p "$clusters" 2>/dev/null \
      || fail "as root, PostgreSQL runs as the postgres user with its data in $clusters, which that user cannot create: make postgres's home writable by it, run as a normal user, or set DATABASE_URL"
  elif ! mkdir -p "$dir" 2>/dev/null || [ ! -w "$dir" ]; then
    fail "cannot create or write $dir for the PostgreSQL cluster: run from a checkout you can write, or set DATABASE_URL"
  fi
}

url() {
  [ -f "$files/port" ] || fail "no cluster has been started for $dir"
  echo "postgresql://postgres@127.0.0.1:$(cat "$files/port")/catbird?sslmode=disable"
}

running() { [ -f "$pgdata/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start() { # [port]
  local port=${1:-}
  check
  if running; then url; return; fi
  if [ "$files" != "$dir" ]; then
    runuser -u postgres -- mkdir -p "$files"
    mkdir -p "$dir"
    printf '%s\n' "$dir" >"$files/source"
  fi
  if [ ! -f "$pgdata/PG_VERSION" ]; then
    as_owner "$bindir/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --no-locale >"$files/initdb.log" 2>&1 \
      || { cat "$files/initdb.log" >&2; exit 1; }
  fi
  [ -n "$port" ] || port=$(free_port)
  echo "$port" >"$files/port"
  # The server outlives this script: it must not inherit the caller's descriptors beyond stdio,
  # or a caller waiting for them to close (a test's Process) would wait for the server to stop.
  # wal_init_zero=off: a new 16 MB WAL segment is created without writing it full of zeros first.
  # Zero-filling it holds every commit for about 50 ms on this box, once per 16 MB of WAL (every
  # half second at 12k messages/s): that was the p99 of sendMessage into one conversation (docs/operations.md,
  # "PostgreSQL"). pgbench's anchor runs on the same cluster.
  ( for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
    exec </dev/null
    as_owner "$bindir/pg_ctl" -D "$pgdata" -l "$files/postgres.log" -w -t 60 start \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c fsync=${PG_FSYNC:-on} -c wal_init_zero=off" >/dev/null ) \
    || { tail -n 30 "$files/postgres.log" >&2; exit 1; }
  as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname='catbird'" | grep -q 1 \
    || as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres catbird
  url
}

# Processes of the owner started with this data folder (-D DIR): the postmaster, and before it
# exists the pg_ctl child and shell that exec it, or an initdb.
started_with_pgdata() {
  local pattern
  pattern="-D \"?$(printf '%s' "$pgdata" | sed 's/[][\\.*^$+?(){}|]/\\&/g')(\"| |\$)"
  pgrep -u "$(owner)" -f -- "$pattern" || true
}

stop() {
  if running; then as_owner "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null || true; fi
  # A start killed half-way (SIGTERM to its process group) can leave a postmaster that pg_ctl does not
  # know of yet. SIGINT is PostgreSQL's fast shutdown; it is sent again each round so a process
  # that ignored it before its exec into postgres gets it too; then immediate shutdown, then KILL.
  local round pids signal
  for round in $(seq 1 300); do
    pids=$(started_with_pgdata)
    [ -n "$pids" ] || return 0
    signal=INT
    [ "$round" -le 200 ] || signal=QUIT
    [ "$round" -le 280 ] || signal=KILL
    # shellcheck disable=SC2086
    kill -s "$signal" $pids 2>/dev/null || true
    sleep 0.1
  done
  fail "processes of $pgdata still run: $pids"
}

destroy() {
  stop
  rm -rf "$files" "$dir"
}

clean() { # prefix
  local prefix=$1 source
  # Clusters in place first: a folder may also have one in postgres's home, found on the second pass.
  while IFS= read -r source; do
    locate "$(dirname "$(dirname "$source")")"; destroy
  done < <(find "$prefix" -path '*/pgdata/PG_VERSION' 2>/dev/null)
  if is_root && [ -d "$clusters" ]; then
    for source in "$clusters"/*/source; do
      [ -f "$source" ] || continue
      case $(cat "$source") in
        "$prefix" | "$prefix"/*) locate "$(cat "$source")"; destroy ;;
      esac
    done
  fi
}

case "$cmd" in
  start) locate "$2"; cd /; start "${3:-}" ;;
  stop) locate "$2"; cd /; stop ;;
  crash) locate "$2"; cd /; if running; then as_owner "$bindir/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null || true; fi ;;
  status) locate "$2"; cd /; running ;;
  url) locate "$2"; url ;;
  where) locate "$2"; echo "$files" ;;
  check) locate "$2"; check ;;
  destroy) shift; for each in "$@"; do locate "$each"; (cd / && destroy); done ;;
  clean) prefix=$(realpath -m -- "$2"); cd /; clean "$prefix" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
