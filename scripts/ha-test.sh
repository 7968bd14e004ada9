#!/usr/bin/env bash
# The high-availability test of `make test` (docs/operations.md, "High availability"): the service
# on a three-node Patroni cluster (scripts/ha-cluster.sh), two service nodes, sendMessage load from
# several clients through both, WebSocket subscribers on both, and one failure at a time:
#   kill-primary   SIGKILL the primary's node (Patroni, postmaster, backends); then the old primary
#                  rejoins as a standby (ha-cluster.sh start: pg_rewind, streaming again)
#   kill-postgres  SIGKILL PostgreSQL only on the primary (its Patroni restarts it)
#   kill-standby   SIGKILL the synchronous standby's node
#   black-hole     the primary's port DROPped by iptables (nothing answers, not even a reset: a
#                  machine that vanished) and its node killed behind that; the rule is removed after
# For each, `ds-bench failover` checks: every acknowledged message stored with its seq and bytes
# (read back through getMessages), no seq twice, every subscriber received each acknowledged message
# exactly once, a racing pair of commits straddling the failure got one 200 and one 409, a 2xx again
# within 15 s, no call longer than 30 s (15 s for the black hole), no 5xx but 503 (each with
# Retry-After), and both nodes' /xrpc/_health saying 503 `unavailable` while there was no primary
# and 200 `primary` otherwise. Then each node's
# /xrpc/_health names `primary` and its /metrics counted the pool's and the listener's reconnects.
# Last, sendMessage/s with synchronous replication and on a single PostgreSQL, in the same run.
#
# Everything runs in a network namespace of its own (ip netns; root, or sudo), with its own
# loopback: the iptables rule lives and dies there, and no port or rule of the machine is touched.
# Needs the debug executables (`swift build`); installs patroni, etcd and iptables when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# HA_TEST_BUILD=release runs release executables instead (swift build -c release for both products);
# HA_TEST_ONLY="black-hole …" runs only the failures named (for working on one).
build=${HA_TEST_BUILD:-debug}
server=$root/.build/$build/catbird-mls-server
bench=$root/.build/$build/ds-bench

# --black-hole DIR / --open-hole DIR: the black-hole failure and its end, run by ds-bench inside
# the namespace.
if [ "${1:-}" = --black-hole ]; then
  read -r node port < <(scripts/ha-cluster.sh primary "$2")
  iptables -I INPUT -p tcp --dport "$port" -j DROP
  iptables -I INPUT -p tcp --sport "$port" -j DROP
  echo "$port" >"$2.black-hole"
  echo "127.0.0.1:$port ($node, the primary) black-holed, then killed: $(scripts/ha-cluster.sh kill-node "$2" "$node")"
  exit 0
fi
if [ "${1:-}" = --open-hole ]; then
  port=$(cat "$2.black-hole")
  iptables -D INPUT -p tcp --dport "$port" -j DROP
  iptables -D INPUT -p tcp --sport "$port" -j DROP
  rm -f "$2.black-hole"
  exit 0
fi

if [ "${1:-}" != --inside ]; then
  [ "$(id -u)" -eq 0 ] || exec sudo -E "$0" "$@"
  for binary in "$server" "$bench"; do
    [ -x "$binary" ] || { echo "ha-test: $binary is missing: run swift build first" >&2; exit 1; }
  done
  scripts/install-deps.sh iptables iproute2
  mkdir -p .data
  scripts/ha-cluster.sh check .data/ha-test
  ns=catbird-ha-$$
  ip netns add "$ns"
  status=0
  ip netns exec "$ns" "$0" --inside || status=$?
  ip netns delete "$ns"
  exit "$status"
fi

ip link set lo up
work=$(mktemp -d "$root/.data/ha-test-XXXXXX")
mkdir "$work/plc"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  scripts/ha-cluster.sh destroy "$work/ha" || true
  scripts/pg.sh destroy "$work/pg" || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
fail() { echo "ha-test: FAILED: $*"; for log in "$work"/node*.log; do echo "--- $log"; tail -n 20 "$log"; done; exit 1; }

echo "ha-test: starting etcd and three Patroni nodes"
clock=$SECONDS
url=$(scripts/ha-cluster.sh start "$work/ha")
echo "ha-test: cluster whole in $((SECONDS - clock)) s: $url"
plc_port=$(free_port)
"$bench" plc --port "$plc_port" --dir "$work/plc" >"$work/plc.log" 2>&1 &
pids+=($!)

# start_node NAME DATABASE_URL: a service node on a free port; sets node_url.
start_node() {
  local port
  port=$(free_port)
  SERVICE_DID=did:web:localhost HOST=127.0.0.1 PORT=$port DATABASE_URL=$2 PLC_URL=http://127.0.0.1:$plc_port \
    DID_RESOLVER_ALLOW_PRIVATE=1 RATE_LIMIT_ENABLED=0 MAX_CONNECTIONS_PER_IP=0 LOG_LEVEL=warning \
    BLOB_DIR="$work/blobs-$1" MIGRATIONS_DIR="$root/migrations" "$server" >"$work/$1.log" 2>&1 &
  pids+=($!)
  node_url=http://127.0.0.1:$port
  for _ in $(seq 1 300); do
    [ "$(curl -s -m 2 "$node_url/xrpc/_health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("database"))' 2>/dev/null)" = primary ] && return 0
    sleep 0.1
  done
  fail "$1 did not report a primary in /xrpc/_health"
}
start_node node1 "$url"
node1=$node_url
start_node node2 "$url"
node2=$node_url

figures=()
# scenario NAME COMMAND [ds-bench failover options]: one failure under load.
scenario() {
  local name=$1 command=$2 output
  shift 2
  case " ${HA_TEST_ONLY:-$name} " in *" $name "*) ;; *) return 1 ;; esac
  echo "ha-test: $name"
  if ! output=$("$bench" failover --servers "$node1,$node2" --audience did:web:localhost --plc-dir "$work/plc" \
                  --label "$name" --kill "$command" "$@" 2>&1); then
    echo "$output"
    fail "$name"
  fi
  echo "$output" | grep -v '^first2xx'
  figures+=("$name: first 2xx $(echo "$output" | awk '/^first2xx/ {print $3}') s after the failure")
}
whole_again() { # what
  local clock=$SECONDS
  scripts/ha-cluster.sh start "$work/ha" >/dev/null || fail "the cluster did not become whole again after $1"
  echo "ha-test: whole again after $1 in $((SECONDS - clock)) s"
  scripts/ha-cluster.sh status "$work/ha" | sed 's/^/  /'
}

if scenario kill-primary "scripts/ha-cluster.sh kill-primary $work/ha"; then
  old_primary=$({ scripts/ha-cluster.sh status "$work/ha" || true; } | awk '$3 == "down" {print $1}' | head -n 1)
  whole_again "kill-primary (the old primary $old_primary rejoins)"
  scripts/ha-cluster.sh status "$work/ha" \
    | awk -v n="$old_primary" '$1 == n && ($2 == "replica" || $2 == "sync") && $3 == "running" {found=1} END {exit !found}' \
    || fail "the old primary $old_primary did not rejoin as a standby"
  figures+=("kill-primary: the old primary $old_primary rejoined as a standby")
fi

if scenario kill-postgres "scripts/ha-cluster.sh kill-postgres $work/ha"; then whole_again kill-postgres; fi

if scenario kill-standby "scripts/ha-cluster.sh kill-standby $work/ha" --no-outage 1; then whole_again kill-standby; fi

# A host that answers nothing is left within 15 s: no call waits longer than that.
if scenario black-hole "$root/scripts/ha-test.sh --black-hole $work/ha" --hang-limit 15; then
  "$root/scripts/ha-test.sh" --open-hole "$work/ha"
  whole_again black-hole
fi

# Each node: _health names the primary; /metrics counted reconnects of the pool and the listener
# (after a failure that took the primary away: all but kill-standby).
for node in "$node1" "$node2"; do
  [ "${HA_TEST_ONLY:-all}" != kill-standby ] || break
  health=$(curl -s -m 5 "$node/xrpc/_health")
  [ "$(echo "$health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("database"))')" = primary ] \
    || fail "$node/xrpc/_health after the failures: $health"
  metrics=$(curl -s -m 5 "$node/metrics")
  for connection in pool listener; do
    count=$(echo "$metrics" | awk -v c="$connection" '$1 == "catbird_mls_db_reconnects_total{connection=\"" c "\"}" {print $2}')
    [ "${count:-0}" -ge 1 ] || fail "$node/metrics counted no $connection reconnect: $(echo "$metrics" | grep '^catbird_mls_db')"
  done
  figures+=("$node: $(echo "$metrics" | awk '/^catbird_mls_db_reconnects_total/ {printf "%s %s  ", $1, $2}')")
done

# sendMessage/s: every commit waiting for the synchronous standby, against a single PostgreSQL
# (fsync on); same server build, same load, in turns (three of each), so both meet the same box.
single=$(PG_FSYNC=on scripts/pg.sh start "$work/pg")
start_node single "$single"
single_node=$node_url
declare -A rates=()
for round in 1 2 3; do
  for side in "sync:$node1" "single:$single_node"; do
    rate=$("$bench" send-rate --server "${side#*:}" --audience did:web:localhost --plc-dir "$work/plc" --seconds 4) \
      || fail "send-rate (${side%%:*}): $rate"
    rates[${side%%:*}]+="$(echo "$rate" | awk '{for (i = 1; i < NF; i++) if ($(i + 1) == "sendMessage/s") print $i}') "
  done
done
# The median of three and the range.
summary() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {printf "%d (%d–%d)", v[2], v[1], v[3]}'; }
median() { echo "$1" | tr ' ' '\n' | grep . | sort -n | sed -n 2p; }
rate_line="sendMessage/s, 16 closed-loop clients, three 4 s runs of each in turns ($build build): synchronous replication"
rate_line+=" $(summary "${rates[sync]}"), single PostgreSQL $(summary "${rates[single]}"):"
rate_line+=" $(awk -v a="$(median "${rates[sync]}")" -v b="$(median "${rates[single]}")" 'BEGIN {printf "%.2f×", a / b}')"

echo "ha-test: passed"
for figure in "${figures[@]}"; do echo "  $figure"; done
echo "  $rate_line"
