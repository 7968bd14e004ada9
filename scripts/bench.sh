#!/usr/bin/env bash
# `make bench`: release figures on this box, next to the anchors the issues give. One server (built
# with the bench-only echo route) on its own PostgreSQL cluster (fsync on, as in production), a
# loopback PLC directory served by ds-bench, and every request rate measured by wrk -t2 -c64 -d10s.
# Sections: HTTP layer (issue 2), delivery service (issue 6), real-time events, PostgreSQL ceiling,
# MLS (issues 3, 5). Rate limits are off on the bench server (RATE_LIMIT_ENABLED=0): every request
# comes from 127.0.0.1 and a few DIDs, so the per-IP and per-DID buckets would answer 429 instead of
# measuring the service.
# Knobs: BENCH_SEND_REQUESTS (tokens per sendMessage run, 30000), BENCH_KEY_PACKAGES (25000),
# BENCH_EVENT_MESSAGES (messages of the steady events run, 500).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh wrk
for product in catbird-mls-server mls-bench ds-bench; do
  log=$(swift build -c release -Xswiftc -DBENCH_ROUTES --product "$product" 2>&1) || { echo "$log"; exit 1; }
done
bin=.build/release

mkdir -p .data
dir=$(mktemp -d "$root/.data/bench-XXXXXX")
mkdir "$dir/plc" "$dir/load"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  scripts/pg.sh destroy "$dir/pg"
  rm -rf "$dir"
}
trap cleanup EXIT
export DATABASE_URL=$(scripts/pg.sh start "$dir/pg")
pg_port=$(cat "$(scripts/pg.sh where "$dir/pg")/port")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
plc_port=$(free_port)
port=$(free_port)
base="http://127.0.0.1:$port"
service_did="did:web:localhost"
$bin/ds-bench plc --port "$plc_port" --dir "$dir/plc" &
pids+=($!)
SERVICE_DID=$service_did PLC_URL="http://127.0.0.1:$plc_port" DID_RESOLVER_ALLOW_PRIVATE=1 LOG_LEVEL=warning \
  RATE_LIMIT_ENABLED=0 PORT=$port $bin/catbird-mls-server &
server_pid=$!
pids+=($server_pid)
for _ in $(seq 1 100); do curl -sf "$base/xrpc/_health" >/dev/null && break; sleep 0.1; done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores before the runs)"

# wrk with the anchors' settings; prints its output's figures on one line: name, req/s, p50, p99,
# failures if any, then an optional anchor note.
load() { wrk -t2 -c64 -d10s --latency "$@"; }
summarise() { # name, wrk output, [anchor note]
  local rps p50 p99 bad
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$2")
  p50=$(awk '$1=="50%" {print $2}' <<<"$2")
  p99=$(awk '$1=="99%" {print $2}' <<<"$2")
  bad=$(awk '/Non-2xx/ {n+=$NF} /Socket errors/ {n+=1} END {print n+0}' <<<"$2")
  printf '%-30s %9s req/s   p50 %9s   p99 %9s' "$1" "$rps" "$p50" "$p99"
  [ "$bad" -gt 0 ] && printf '   (%s failed)' "$bad"
  [ -n "${3:-}" ] && printf '   %s' "$3"
  printf '\n'
  grep '^WARNING' <<<"$2" || true
}
versus() { # our req/s, anchor req/s → "1.23×"
  awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f×", a / b}'
}

echo "== HTTP layer (issue 2): wrk -t2 -c64 -d10s on loopback; anchors Hummingbird 2 / nginx, target ≥ 1.3× Hummingbird"
out=$(load "$base/xrpc/_health")
rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
summarise "GET /xrpc/_health" "$out" "| HB2 59k, nginx 126k: $(versus "$rps" 59000) HB2"
out=$(load -s Benchmarks/wrk/echo.lua "$base/xrpc/blue.catbird.mls.bench.echo")
rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
summarise "POST 1 KB JSON echo" "$out" "| HB2 38k, nginx 118k: $(versus "$rps" 38000) HB2"

echo
echo "== Delivery service (issue 6): 64 connections, each request with its own ES256K token and msgId, PostgreSQL fsync on"
$bin/ds-bench prepare --server "$base" --audience "$service_did" --plc-dir "$dir/plc" --out "$dir/load" \
  --send-requests "${BENCH_SEND_REQUESTS:-30000}" --key-packages "${BENCH_KEY_PACKAGES:-25000}" | sed 's/^/  /'
xrpc="$base/xrpc/blue.catbird.mls"
out=$(load -s Benchmarks/wrk/xrpc-data.lua "$xrpc.sendMessage" -- 2 send "$dir/load/send-spread.txt" "$dir/load/send-bodies.txt")
summarise "sendMessage 1 KB, 16 convos" "$out"
send_rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
out=$(load -s Benchmarks/wrk/xrpc-data.lua "$xrpc.sendMessage" -- 2 send "$dir/load/send-hot.txt" "$dir/load/send-bodies.txt")
summarise "sendMessage 1 KB, 1 convo" "$out" "(all 64 connections in one group: one row lock)"
out=$(load -s Benchmarks/wrk/xrpc-data.lua "$xrpc.publishKeyPackage" -- 2 publish "$dir/load/publish.txt")
summarise "publishKeyPackage" "$out"
$bin/ds-bench add-members --server "$base" --audience "$service_did" --plc-dir "$dir/plc" --adds 100 --rounds 5

echo
echo "== Real-time events: one convo, 200 subscribeConvoEvents sockets (40 members × 5, EVENTS_MAX_SOCKETS_PER_USER's default),"
echo "   sendMessage 1 KB from one more member on a fixed schedule; latency = send of the call → frame read by ds-bench"
events() { # extra ds-bench options
  $bin/ds-bench events --server "$base" --audience "$service_did" --plc-dir "$dir/plc" --server-pid "$server_pid" \
    --subscribers 200 --sockets-per-user 5 "$@"
}
events --messages "${BENCH_EVENT_MESSAGES:-500}" --rate 100
events --messages 2000 --rate 1000 --sender-threads 8 --label "events flat out, 200 sockets"

echo
echo "== PostgreSQL ceiling: pgbench on the same cluster, 64 clients, 10 s, one transaction per 1 KB insert"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/pgbench" ] || pgbin=$(dirname "$(command -v pgbench)")
psql_() { "$pgbin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -X -q "$@"; }
psql_ -d catbird -c "CREATE DATABASE pgbench_ceiling"
psql_ -d pgbench_ceiling <<'SQL'
CREATE SEQUENCE bench_seq;
CREATE TABLE bench_messages (
    convo_id   text NOT NULL,
    seq        bigint NOT NULL,
    msg_id     text NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (convo_id, seq),
    UNIQUE (convo_id, msg_id)
);
SQL
cat >"$dir/insert.sql" <<'SQL'
\set convo random(1, 16)
INSERT INTO bench_messages (convo_id, seq, msg_id, ciphertext)
VALUES ('convo-' || :convo, nextval('bench_seq'), md5(random()::text),
        convert_to(repeat(md5(random()::text), 32), 'UTF8'));
SQL
out=$(cd "$dir" && "$pgbin/pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -n -M prepared -c 64 -j 2 -T 10 \
  -f insert.sql -l --log-prefix=pgbench pgbench_ceiling 2>&1)
tps=$(awk '/^tps/ {print $3}' <<<"$out")
read -r p50 p99 < <(cat "$dir"/pgbench.* | awk '{print $3}' | sort -n \
  | awk '{v[NR]=$1} END {printf "%.2fms %.2fms\n", v[int(NR*0.5)]/1000, v[int(NR*0.99)]/1000}')
printf '%-30s %9.0f tx/s    p50 %9s   p99 %9s   | sendMessage (16 convos) / pgbench = %s\n' \
  "pgbench 1 KB insert" "$tps" "$p50" "$p99" "$(versus "$send_rps" "$tps")"

echo
echo "== MLS (issues 3 and 5): release, one core"
$bin/mls-bench crypto
# The group operations arrive with GroupBench.swift; until then mls-bench has no `group`.
if [ -f Benchmarks/MLSBench/GroupBench.swift ]; then $bin/mls-bench group; fi
# Suite 0x004D (X-Wing) next to suite 1's X25519 in one run (issue 16).
$bin/mls-bench xwing
echo
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores: on a shared box other processes compete for the CPU)"
