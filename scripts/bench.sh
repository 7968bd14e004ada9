#!/usr/bin/env bash
# `make bench`: release build, a private PostgreSQL, the server on loopback, then wrk
# (-t2 -c64 -d10s, the settings of the anchors in the README) on GET _health and a 1 KB JSON POST.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh wrk
swift build -c release -Xswiftc -DBENCH_ROUTES --product catbird-mls-server
swift build -c release -Xswiftc -DBENCH_ROUTES --product mls-bench

dir=$(mktemp -d "$root/.data/bench-XXXXXX" 2>/dev/null || { mkdir -p .data; mktemp -d "$root/.data/bench-XXXXXX"; })
chmod 755 "$dir"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  scripts/pg.sh stop "$dir"; rm -rf "$dir"
}
trap cleanup EXIT
export DATABASE_URL=$(scripts/pg.sh start "$dir")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LOG_LEVEL=warning PORT=$port .build/release/catbird-mls-server &
server_pid=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/xrpc/_health" >/dev/null && break; sleep 0.1; done

summarise() { # name, wrk output
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$2")
  p50=$(awk '$1=="50%" {print $2}' <<<"$2")
  p99=$(awk '$1=="99%" {print $2}' <<<"$2")
  printf '%-28s %10s req/s   p50 %8s   p99 %8s\n' "$1" "$rps" "$p50" "$p99"
}
echo "HTTP (wrk -t2 -c64 -d10s, loopback, release):"
out=$(wrk -t2 -c64 -d10s --latency "http://127.0.0.1:$port/xrpc/_health")
summarise "GET /xrpc/_health" "$out"
out=$(wrk -t2 -c64 -d10s --latency -s Benchmarks/wrk/echo.lua "http://127.0.0.1:$port/xrpc/blue.catbird.mls.bench.echo")
summarise "POST 1 KB JSON echo" "$out"

echo
echo "MLS (release, one core):"
.build/release/mls-bench
