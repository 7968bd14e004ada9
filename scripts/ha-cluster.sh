#!/usr/bin/env bash
# A three-node PostgreSQL cluster under Patroni, with one etcd as its store, on loopback, for a data
# folder DIR (`HA=1 make run` uses .data/ha): the layout docs/operations.md describes, on one machine.
#   ha-cluster.sh start DIR        start whatever of it is not running (etcd, then every node that is
#                                  not; the first start bootstraps the cluster), wait until it is
#                                  whole (as status), print the service's DATABASE_URL
#   ha-cluster.sh stop DIR         stop the nodes (the primary last, so nothing fails over), then etcd
#   ha-cluster.sh status DIR       print each node's role, state, timeline and lag; exit 0 when the
#                                  cluster is whole (every node running, a synchronous standby)
#   ha-cluster.sh url DIR          print the DATABASE_URL: all three nodes, target_session_attrs=read-write
#   ha-cluster.sh primary DIR      print the primary's node name and PostgreSQL port
#   ha-cluster.sh kill-primary DIR SIGKILL the primary's node: its Patroni, postmaster and backends
#   ha-cluster.sh kill-postgres DIR  SIGKILL PostgreSQL only on the primary (its Patroni restarts it)
#   ha-cluster.sh kill-standby DIR SIGKILL the synchronous standby's node
#   ha-cluster.sh kill-node DIR NODE  SIGKILL node NODE (n1, n2 or n3) whatever its role
#   ha-cluster.sh where DIR        print the folder that holds the cluster's files
#   ha-cluster.sh check DIR        install what is missing; if it still cannot work here, say why, exit 1
#   ha-cluster.sh destroy DIR...   stop it and remove its files and DIR
#   ha-cluster.sh clean PREFIX     destroy every cluster whose DIR lies under PREFIX
# A killed node comes back with `start DIR` and rejoins as a standby (pg_rewind when its timeline
# forked). The kill commands print `<node> <role> <pids>` of what they killed.
#
# The Debian packages patroni, python3-etcd, etcd-server and etcd-client are installed when missing.
# python3-etcd is named although patroni depends on it or python3-pysyncobj: apt would otherwise be
# free to pick the latter, and Patroni would then find no client for etcd.
#
# Like scripts/pg.sh: as root the programs run as the `postgres` user (PostgreSQL refuses root),
# started with setpriv, which execs them, so the PID recorded is the program's own; the files live in
# postgres's home, in ~postgres/catbird-mls/ha-<first 16 hex digits of the SHA-256 of DIR's absolute
# path> (its `source` file names DIR), since postgres may not be able to enter DIR. As a normal user
# they run as that user with the files in DIR. Ports are free loopback ports picked at the first
# start and kept in the `ports` file. Only processes whose PIDs this script recorded, or that
# PostgreSQL recorded in a node's postmaster.pid, are ever signalled, each after checking that its
# command line names this cluster's files.
#
# The Patroni settings (docs/operations.md explains each): ttl 10, loop_wait 1, retry_timeout 4,
# synchronous_mode and synchronous_mode_strict on, pg_rewind on, replication slots off.
set -euo pipefail
usage="usage: ha-cluster.sh start|stop|status|url|primary|kill-primary|kill-postgres|kill-standby|kill-node|where|check|destroy|clean DIR"
cmd=${1:?$usage}
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
nodes="n1 n2 n3"
is_root() { [ "$(id -u)" -eq 0 ]; }
clusters=""
if is_root; then clusters=$(getent passwd postgres | cut -d: -f6 || true)/catbird-mls; fi

fail() { echo "ha-cluster.sh: $*" >&2; exit 1; }

# locate DIR: sets dir (absolute) and files (where the cluster's files live).
locate() {
  dir=$(realpath -m -- "$1")
  files=$dir
  if is_root; then files=$clusters/ha-$(printf '%s' "$dir" | sha256sum | cut -c1-16); fi
}

# Runs a command as the cluster's user: postgres as root, oneself otherwise. setpriv execs it.
as_user() {
  if is_root; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- env HOME="$files" "$@"
  else
    "$@"
  fi
}

packages() {
  local missing=0 pkg
  for pkg in patroni python3-etcd etcd-server etcd-client; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing=1
  done
  [ "$missing" -eq 0 ] || "$root/scripts/install-deps.sh" patroni python3-etcd etcd-server etcd-client >&2
}

check() {
  packages
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -x "${bindir:-}/initdb" ] || fail "PostgreSQL's server programs are not installed: run scripts/install-deps.sh"
  command -v patroni >/dev/null && command -v etcd >/dev/null || fail "patroni or etcd is missing after the install"
  if is_root; then
    getent passwd postgres >/dev/null || fail "there is no postgres user to run PostgreSQL as: install the postgresql package"
    runuser -u postgres -- mkdir -p "$clusters" 2>/dev/null \
      || fail "as root, the cluster runs as the postgres user with its files in $clusters, which that user cannot create"
  elif ! mkdir -p "$dir" 2>/dev/null || [ ! -w "$dir" ]; then
    fail "cannot create or write $dir for the cluster"
  fi
}

port() { sed -n "s/^$1=//p" "$files/ports"; }

url() {
  [ -f "$files/ports" ] || fail "no cluster has been started for $dir"
  local hosts="" node
  for node in $nodes; do hosts+="${hosts:+,}127.0.0.1:$(port "pg_$node")"; done
  echo "postgresql://postgres@$hosts/catbird?sslmode=disable&target_session_attrs=read-write"
}

# The PID recorded in FILE if that process still runs with PATTERN in its command line.
live_pid() { # file pattern
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$2" || return 1
  echo "$pid"
}

etcd_pid() { live_pid "$files/etcd.pid" "--data-dir $files/etcd"; }
patroni_pid() { live_pid "$files/$1/patroni.pid" "$files/$1/patroni.yml"; }
# The node's postmaster, as PostgreSQL recorded it (first line of postmaster.pid).
postmaster_pid() {
  local data=$files/$1/data pid
  [ -f "$data/postmaster.pid" ] || return 1
  pid=$(head -n 1 "$data/postmaster.pid")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$data" || return 1
  echo "$pid"
}

# Starts a program detached from the caller (its own session, stdin from /dev/null, no descriptor
# beyond stdio, output to LOG) and records its PID in PIDFILE. setsid and setpriv both exec, so $!
# is the program's own PID.
spawn() { # pidfile log command...
  local pidfile=$1 log=$2
  shift 2
  ( for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
    cd "$files"
    if is_root; then
      exec setsid setpriv --reuid=postgres --regid=postgres --init-groups -- env HOME="$files" "$@" </dev/null >>"$log" 2>&1
    fi
    exec setsid "$@" </dev/null >>"$log" 2>&1 ) &
  echo $! >"$pidfile"
}

pick_ports() {
  python3 - <<'EOF'
import socket
held = []
for name in ["etcd_client", "etcd_peer", "pg_n1", "pg_n2", "pg_n3", "api_n1", "api_n2", "api_n3"]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
    print(f"{name}={s.getsockname()[1]}")
EOF
}

write_config() { # node
  local node=$1 others
  cat <<EOF
# Written by scripts/ha-cluster.sh: one node of a three-node cluster on loopback (docs/operations.md).
scope: catbird
name: $node
log:
  dir: $files/$node
  file_num: 2
  file_size: 10000000
restapi:
  listen: 127.0.0.1:$(port "api_$node")
  connect_address: 127.0.0.1:$(port "api_$node")
etcd3:
  hosts: 127.0.0.1:$(port etcd_client)
bootstrap:
  dcs:
    # The leader key lives ttl seconds after the leader's last renewal, which it makes every
    # loop_wait seconds; a DCS or PostgreSQL call is retried for retry_timeout seconds before the
    # leader gives up its role (loop_wait + 2 × retry_timeout ≤ ttl).
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    # A commit returns only once a standby has flushed it, and only that standby may be promoted.
    synchronous_mode: true
    # With no standby attached the primary stops acknowledging commits instead of going on alone.
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      # Without slots: with them, a new primary creates the other standby's slot only after its
      # post-promotion checkpoint, and that standby (which strict mode needs before any commit
      # returns) cannot stream until then. wal_keep_size keeps the WAL a standby that was away needs.
      use_slots: false
      parameters:
        max_connections: 200
        wal_keep_size: 512MB
        wal_init_zero: off
        hot_standby: on
        # A standby retries streaming every second (5 s by default): after a promotion or a
        # restarted primary, commits wait for it.
        wal_retrieve_retry_interval: 1s
        # A peer that vanished without a reset is given up after 10 s (60 s by default): a
        # walsender to a dead standby would hold every commit until then.
        wal_sender_timeout: 10s
        wal_receiver_timeout: 10s
  initdb:
    - encoding: UTF8
    - no-locale
postgresql:
  listen: 127.0.0.1:$(port "pg_$node")
  connect_address: 127.0.0.1:$(port "pg_$node")
  data_dir: $files/$node/data
  bin_dir: $bindir
  pgpass: $files/$node/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: replicator
    rewind:
      username: postgres
  pg_hba:
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
  parameters:
    unix_socket_directories: ''
    logging_collector: on
    log_directory: $files/$node/pglog
    log_filename: postgresql.log
    log_rotation_size: 10MB
    log_truncate_on_rotation: on
EOF
}

# Patroni's REST API: the HTTP status of GET PATH on NODE (000 when it does not answer).
api_status() { # node path
  curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$(port "api_$1")$2" || true
}

node_with() { # path → the node whose API answers 200 to it
  local node
  for node in $nodes; do
    if [ "$(api_status "$node" "$1")" = 200 ]; then echo "$node"; return 0; fi
  done
  return 1
}

psql_primary() { # sql
  local node
  node=$(node_with /primary) || return 1
  as_user "$bindir/psql" -X -h 127.0.0.1 -p "$(port "pg_$node")" -U postgres -d postgres -tAc "$1"
}

wait_for() { # seconds description command...
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "ha-cluster.sh: no $what after $seconds s; the logs:" >&2
      tail -n 20 "$files"/etcd.log "$files"/n?/patroni.log "$files"/n?/patroni.out "$files"/n?/pglog/postgresql.log >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.5
  done
}

# Prints one line per node (role, state, timeline, replication lag, Patroni's PID) from each node's
# REST API; exit 0 when the cluster is whole: one primary, a synchronous standby, every node running
# on the primary's timeline, every standby streaming.
nodes_state() {
  local node args=()
  for node in $nodes; do args+=("$node" "$(port "api_$node")" "$(patroni_pid "$node" || echo -)"); done
  python3 - "${args[@]}" <<'PY'
import json, sys, urllib.request
rows = []
for node, port, pid in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/patroni", timeout=2) as r:
            s = json.load(r)
    except Exception:
        s = {}
    rows.append((node, s, pid))
primaries = [s for _, s, _ in rows if s.get("role") in ("master", "primary") and s.get("state") == "running"]
timeline = primaries[0].get("timeline") if len(primaries) == 1 else None
whole = timeline is not None and any(s.get("sync_standby") for _, s, _ in rows)
print("%-4s %-8s %-9s %-8s %-7s %s" % ("node", "role", "state", "timeline", "lag_MB", "patroni_pid"))
for node, s, pid in rows:
    role = "sync" if s.get("sync_standby") else {"master": "primary"}.get(s.get("role"), s.get("role", "-"))
    x = s.get("xlog", {})
    lag = "-"
    if "received_location" in x and "replayed_location" in x:
        lag = "%.1f" % (max(0, x["received_location"] - x["replayed_location"]) / 1048576)
    print("%-4s %-8s %-9s %-8s %-7s %s" % (node, role, s.get("state", "down"), s.get("timeline", "-"), lag, pid))
    if s.get("state") != "running" or s.get("timeline") != timeline:
        whole = False
    if s.get("role") == "replica" and s.get("replication_state", "streaming") != "streaming":
        whole = False
sys.exit(0 if whole else 1)
PY
}

whole() { nodes_state >/dev/null; }

start() {
  check
  if is_root; then
    runuser -u postgres -- mkdir -p "$files"
    mkdir -p "$dir"
    printf '%s\n' "$dir" >"$files/source"
  fi
  if [ ! -f "$files/ports" ]; then
    pick_ports >"$files/ports.new"
    mv "$files/ports.new" "$files/ports"
  fi
  local node
  if ! etcd_pid >/dev/null; then
    as_user mkdir -p "$files/etcd"
    spawn "$files/etcd.pid" "$files/etcd.log" etcd --name catbird --data-dir "$files/etcd" \
      --listen-client-urls "http://127.0.0.1:$(port etcd_client)" --advertise-client-urls "http://127.0.0.1:$(port etcd_client)" \
      --listen-peer-urls "http://127.0.0.1:$(port etcd_peer)" --initial-advertise-peer-urls "http://127.0.0.1:$(port etcd_peer)" \
      --initial-cluster "catbird=http://127.0.0.1:$(port etcd_peer)" --initial-cluster-state new --log-level warn
    wait_for 30 "etcd answering" curl -sf -m 2 "http://127.0.0.1:$(port etcd_client)/health"
  fi
  for node in $nodes; do
    patroni_pid "$node" >/dev/null && continue
    as_user mkdir -p "$files/$node/pglog"
    write_config "$node" | as_user tee "$files/$node/patroni.yml" >/dev/null
    spawn "$files/$node/patroni.pid" "$files/$node/patroni.out" patroni "$files/$node/patroni.yml"
  done
  wait_for 180 "primary" node_with /primary
  psql_primary "SELECT 1 FROM pg_database WHERE datname = 'catbird'" | grep -q 1 \
    || psql_primary "CREATE DATABASE catbird" >/dev/null
  wait_for 180 "whole cluster (every node running, a synchronous standby)" whole
  url
}

status() {
  [ -f "$files/ports" ] || { echo "no cluster has been started for $dir"; return 1; }
  local code=0
  nodes_state || code=$?
  echo "etcd: pid $(etcd_pid || echo -), 127.0.0.1:$(port etcd_client)"
  echo "DATABASE_URL=$(url)"
  return "$code"
}

# Signals PIDS with SIG; the caller checked they are ours.
signal() { # sig pids...
  local sig=$1
  shift
  [ $# -gt 0 ] && kill -s "$sig" "$@" 2>/dev/null || true
}

# The postmaster of NODE and its children (backends, WAL writer, walsender…).
postgres_pids() {
  local postmaster
  postmaster=$(postmaster_pid "$1") || return 0
  echo "$postmaster" $(pgrep -P "$postmaster" || true)
}

# SIGKILLs NODE's PostgreSQL (postmaster and children), and with `everything` its Patroni too, in
# one kill so that none outlives the others by more than the kernel's delivery; prints what it killed.
kill_node() { # node label everything|postgres
  local pids
  pids=$(postgres_pids "$1")
  if [ "$3" = everything ]; then pids="$(patroni_pid "$1" || true) $pids"; fi
  # shellcheck disable=SC2086
  signal KILL $pids
  echo "$1" "$2" $pids
}

kill_role() { # role path everything|postgres
  local node
  [ -f "$files/ports" ] || fail "no cluster has been started for $dir"
  node=$(node_with "$2") || fail "no node answers 200 on $2 (ha-cluster.sh status $dir)"
  kill_node "$node" "$1" "$3"
}

# Waits up to SECONDS for PIDS to end; false if some still run.
gone() { # seconds pids...
  local deadline=$((SECONDS + $1)) pid
  shift
  for pid in "$@"; do
    while [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
      [ "$SECONDS" -lt "$deadline" ] || return 1
      sleep 0.1
    done
  done
}

stop_node() { # node
  local pid postmaster
  if pid=$(patroni_pid "$1"); then
    # Patroni stops its PostgreSQL (fast shutdown) and then itself.
    signal TERM "$pid"
    gone 60 "$pid" || { signal KILL "$pid"; gone 10 "$pid" || true; }
  fi
  # A PostgreSQL whose Patroni was gone already.
  if postmaster=$(postmaster_pid "$1"); then
    signal INT "$postmaster"
    gone 30 "$postmaster" || { signal QUIT "$postmaster"; gone 10 "$postmaster" || signal KILL $(postgres_pids "$1"); }
  fi
  rm -f "$files/$1/patroni.pid"
}

stop() {
  [ -f "$files/ports" ] || return 0
  local primary node pid
  primary=$(node_with /primary || true)
  for node in $nodes; do [ "$node" = "$primary" ] || stop_node "$node"; done
  [ -z "$primary" ] || stop_node "$primary"
  if pid=$(etcd_pid); then
    signal TERM "$pid"
    gone 30 "$pid" || signal KILL "$pid"
  fi
  rm -f "$files/etcd.pid"
}

destroy() {
  stop
  rm -rf "$files" "$dir"
}

clean() { # prefix
  local prefix=$1 source
  if is_root && [ -d "$clusters" ]; then
    for source in "$clusters"/ha-*/source; do
      [ -f "$source" ] || continue
      case $(cat "$source") in
        "$prefix" | "$prefix"/*) locate "$(cat "$source")"; destroy ;;
      esac
    done
  else
    # As a normal user a cluster's files are its DIR: DIR/n1/patroni.yml marks one.
    while IFS= read -r source; do
      locate "$(dirname "$(dirname "$source")")"; destroy
    done < <(find "$prefix" -path '*/n1/patroni.yml' 2>/dev/null)
  fi
}

case "$cmd" in
  start) locate "$2"; cd /; start ;;
  stop) locate "$2"; cd /; stop ;;
  status) locate "$2"; cd /; status ;;
  url) locate "$2"; url ;;
  primary) locate "$2"; node=$(node_with /primary) || fail "no primary"; echo "$node $(port "pg_$node")" ;;
  kill-primary) locate "$2"; kill_role primary /primary everything ;;
  kill-postgres) locate "$2"; kill_role primary /primary postgres ;;
  kill-standby) locate "$2"; kill_role sync /sync everything ;;
  kill-node)
    locate "$2"
    case " $nodes " in *" ${3:-} "*) kill_node "$3" node everything ;; *) fail "kill-node DIR NODE: NODE is one of $nodes" ;; esac ;;
  where) locate "$2"; echo "$files" ;;
  check) locate "$2"; check ;;
  destroy) shift; for each in "$@"; do locate "$each"; (cd / && destroy); done ;;
  clean) prefix=$(realpath -m -- "$2"); cd /; clean "$prefix" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
