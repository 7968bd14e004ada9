#!/usr/bin/env bash
# `make run` from a checkout in a directory only its owner can enter (issue 20: a clone under /root,
# mode 0700, where the postgres user that PostgreSQL runs as under root cannot go). This checkout
# (HEAD plus its uncommitted changes) is cloned into a fresh 0700 directory, and there:
#   1. `make run` builds and serves /xrpc/_health; as root its cluster lives where pg.sh says,
#      outside the private directory, owned by postgres;
#   2. a second `make run` reuses that cluster (same postmaster); SIGTERM to its process group
#      leaves the cluster and the first run serving;
#   3. SIGTERM to the first run's process group: no process of the cluster is left;
#   4. a second start works; Ctrl-C (SIGINT to the process group) stops it and its cluster;
#   5. two runs, and the one that started the cluster gets SIGTERM (to make alone): the cluster
#      stays for the other, which, stopped in turn, stops it;
#   6. as root, the same clone handed to a throwaway unprivileged user whose home is the private
#      directory: PostgreSQL runs as that user with its data in .data/pg, and SIGTERM to the process
#      group leaves nothing running;
#   7. `make clean` removes every cluster of the clone, wherever it lives.
# Every run is a process group of its own, as a terminal or a service manager starts it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
unset DATABASE_URL PORT PG_PORT
home=$(mktemp -d)
clone=$home/repo
# SwiftPM keeps lock files in TMPDIR, named after the build folder: inside the private directory they
# go with it, and pass to the unprivileged user with the rest.
export TMPDIR=$home/tmp
mkdir "$TMPDIR"
user=""
pids=()
passed=0

fail() { echo "FAILED: $*"; ps -eo pid,pgid,user,args | grep -F -e "$home" -e "${pgdata:-$home}" || true; exit 1; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -x "$clone/scripts/pg.sh" ]; then "$clone/scripts/pg.sh" clean "$clone/.data" || true; fi
  if [ -n "$user" ]; then userdel "$user" 2>/dev/null || true; fi
  rm -rf "$home"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

[ "$(stat -c %a "$home")" = 700 ] || fail "mktemp -d made $home with mode $(stat -c %a "$home"), not 700"
git clone -q --no-checkout "$root" "$clone"
git -C "$clone" checkout -q --detach "$(git -C "$root" rev-parse HEAD)"
if ! git -C "$root" diff --quiet HEAD; then git -C "$root" diff --binary HEAD | git -C "$clone" apply; fi
(cd "$root" && git ls-files -z --others --exclude-standard | xargs -0r cp --parents -t "$clone")

# start NAME PORT [USER]: `make run` in the clone, in a session (so a process group) of its own, with
# every signal's default action, as from a terminal (a background job of a script, this one included,
# starts with SIGINT ignored); sets pid.
start() {
  local as=() home_dir=$HOME
  [ -z "${3:-}" ] || { as=(setpriv --reuid="$3" --regid="$3" --init-groups); home_dir=$home; }
  setsid "${as[@]}" env --default-signal HOME="$home_dir" LOG_LEVEL=info PORT="$2" \
    make -C "$clone" run >"$home/$1.log" 2>&1 &
  pid=$!
  pids+=("$pid")
}
# serving NAME PID PORT: wait until it answers /xrpc/_health (the first run builds the server first).
serving() {
  local i
  for i in $(seq 1 7200); do
    curl -sf "http://127.0.0.1:$3/xrpc/_health" >/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { tail -n 30 "$home/$1.log"; fail "$1: make run ended before serving"; }
    sleep 0.5
  done
  tail -n 30 "$home/$1.log"; fail "$1: no answer on /xrpc/_health after an hour"
}
# ended NAME PID: make has exited (it waits for scripts/run.sh, which waits for its clean-up), and
# the server shut down gracefully.
ended() {
  local i
  for i in $(seq 1 3000); do kill -0 "$2" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$2" 2>/dev/null && fail "$1: make still runs ten minutes after the signal"
  { wait "$2" || true; } 2>/dev/null
  # The server hears of the stop once, so its graceful shutdown runs to the end.
  grep -q '"msg":"signal received"' "$home/$1.log" && ! grep -q 'second signal' "$home/$1.log" \
    || { tail -n 20 "$home/$1.log"; fail "$1: the server did not get exactly one signal"; }
}
postmaster() { head -n 1 "$pgdata/postmaster.pid" 2>/dev/null || true; }
# Processes of the cluster: working in its data folder (the postmaster and every backend) or started
# with it on their command line (pg_ctl, or a postmaster before its chdir).
cluster_processes() {
  { find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$pgdata" -printf '%h\n' 2>/dev/null | cut -d/ -f3
    pgrep -f -- "$pgdata" || true; } | sort -u
}
none_left() { # what was stopped
  local left
  left=$(cluster_processes)
  [ -z "$left" ] || { ps -o pid,user,args -p "$(echo $left | tr ' ' ,)"; fail "$1: processes of $pgdata still run"; }
  ! pg_isready -q -h 127.0.0.1 -p "$pg_port" || fail "$1: PostgreSQL still answers on port $pg_port"
  ok "$1: no process of the cluster is left"
}

# 1. First run, from scratch.
port_a=$(free_port); port_b=$(free_port)
start a "$port_a"; a=$pid
serving a "$a" "$port_a"
ok "make run serves from a clone in a 0700 directory ($home)"
files=$("$clone/scripts/pg.sh" where "$clone/.data/pg")
pgdata=$files/pgdata
pg_port=$(cat "$files/port")
pm=$(postmaster)
[ -n "$pm" ] && kill -0 "$pm" || fail "no postmaster for $pgdata"
if [ "$(id -u)" -eq 0 ]; then
  ! runuser -u postgres -- test -x "$home" || fail "postgres can enter $home: the test proves nothing"
  expected=$(getent passwd postgres | cut -d: -f6)/catbird-mls/$(printf '%s' "$(realpath "$clone/.data/pg")" | sha256sum | cut -c1-16)
  [ "$files" = "$expected" ] || fail "the cluster is in $files, not $expected"
  [ "$(stat -c %U "$pgdata")" = postgres ] && [ "$(ps -o user= -p "$pm")" = postgres ] \
    || fail "the cluster in $files is not postgres's"
  ok "as root the cluster lives in $files, run by postgres"
else
  [ "$files" = "$(realpath "$clone/.data/pg")" ] && [ "$(ps -o user= -p "$pm")" = "$(id -un)" ] \
    || fail "the cluster is not in $clone/.data/pg run by $(id -un)"
  ok "as $(id -un) the cluster lives in $files, run by $(id -un)"
fi

# 2. A second run reuses the cluster and leaves it running.
start b "$port_b"; b=$pid
serving b "$b" "$port_b"
[ "$(postmaster)" = "$pm" ] || fail "the second run started another postmaster ($(postmaster), not $pm)"
kill -TERM -- "-$b"; ended b "$b"
kill -0 "$pm" 2>/dev/null && [ "$(postmaster)" = "$pm" ] || fail "stopping the second run stopped the cluster"
curl -sf "http://127.0.0.1:$port_a/xrpc/_health" >/dev/null || fail "stopping the second run stopped the first"
ok "a second make run reuses the cluster, and leaves it running when stopped"

# 3. SIGTERM to the first run's process group.
kill -TERM -- "-$a"; ended a "$a"
none_left "SIGTERM to the process group"

# 4. A second start, stopped by Ctrl-C.
start c "$port_a"; c=$pid
serving c "$c" "$port_a"
[ -n "$(postmaster)" ] && [ "$(postmaster)" != "$pm" ] || fail "the second start did not start the cluster again"
ok "a second start works"
kill -INT -- "-$c"; ended c "$c"
none_left "Ctrl-C (SIGINT to the process group)"

# 5. The run that started the cluster ends first (SIGTERM to make alone); the last one stops it.
start d "$port_a"; d=$pid
serving d "$d" "$port_a"
pm=$(postmaster)
start e "$port_b"; e=$pid
serving e "$e" "$port_b"
kill -TERM "$d"; ended d "$d"
kill -0 "$pm" 2>/dev/null && curl -sf "http://127.0.0.1:$port_b/xrpc/_health" >/dev/null \
  || fail "the first run stopped the cluster under the second"
ok "SIGTERM to make: the run stops, the cluster stays for the other run"
kill -TERM -- "-$e"; ended e "$e"
none_left "the last run to end"

# 6. A normal user whose home is the private directory.
clusters=("$files")
if [ "$(id -u)" -eq 0 ]; then
  user=cbtest$$
  useradd --no-create-home --home-dir "$home" --shell /usr/sbin/nologin --user-group "$user"
  chown -R "$user:$user" "$home"
  start u "$port_a" "$user"; u=$pid
  serving u "$u" "$port_a"
  files=$(realpath "$clone/.data/pg"); pgdata=$files/pgdata; pg_port=$(cat "$files/port"); pm=$(postmaster)
  [ -n "$pm" ] && [ "$(ps -o user= -p "$pm")" = "$user" ] && [ "$(stat -c %U "$pgdata")" = "$user" ] \
    || fail "as $user, the cluster is not in $files run by $user"
  ok "as a normal user PostgreSQL runs as that user, data in $files"
  kill -TERM -- "-$u"; ended u "$u"
  none_left "SIGTERM to the normal user's process group"
  clusters+=("$files")
else
  echo "not tested: the root path (PostgreSQL as postgres, data outside the checkout) needs root"
fi

# 7. make clean, wherever the clusters live.
make -C "$clone" -s clean >/dev/null
for each in "${clusters[@]}"; do [ ! -e "$each" ] || fail "make clean left $each"; done
ok "make clean removes the cluster(s): ${clusters[*]}"
echo "run-from-private-home: $passed passed, 0 failed"
