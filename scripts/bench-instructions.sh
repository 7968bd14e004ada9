#!/usr/bin/env bash
# Instructions per request on the server's request path, counted by Valgrind's callgrind: unlike
# req/s, the count does not depend on what else the machine runs, so it compares two builds on a
# busy box. User-space instructions only (the kernel's share of read/write/epoll/futex is not in
# it); all server threads together. One release server (built with the bench-only echo route) on
# its own PostgreSQL cluster; ds-bench prepares users, conversations and single-use tokens against
# it running natively, then the same server runs under callgrind and Benchmarks/instructions/drive.py
# sends an exact number of requests per workload (64 keep-alive connections, every answer awaited)
# between two counter dumps:
#   GET /xrpc/_health, POST 1 KB JSON echo (Benchmarks/wrk/echo.lua's body), sendMessage 1 KB in
#   16 conversations (a fresh ES256K token each, as `make bench` sends them), and the chat
#   contract's sendMessage in the same shape (ds-bench chat-prepare's devices and conversations;
#   its signed requests written by chat-load just before they are sent, since a chat token lives
#   60 s).
# Knobs: INSTR_REQUESTS (requests per workload, 2000), INSTR_CONNECTIONS (64), INSTR_KEEP=DIR
# (keep the callgrind dumps in DIR, for callgrind_annotate).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh valgrind
for product in catbird-mls-server ds-bench; do
  log=$(swift build -c release -Xswiftc -DBENCH_ROUTES --product "$product" 2>&1) || { echo "$log"; exit 1; }
done
bin=.build/release
requests=${INSTR_REQUESTS:-2000}
connections=${INSTR_CONNECTIONS:-64}
warmup=200

. scripts/lib/bench-workspace.sh instructions
plc_port=$(free_port)
port=$(free_port)
base="http://127.0.0.1:$port"
service_did="did:web:localhost"
$bin/ds-bench plc --port "$plc_port" --dir "$dir/plc" &
pids+=($!)
serve() { # command prefix…: starts the server and waits until it answers
  SERVICE_DID=$service_did PLC_URL="http://127.0.0.1:$plc_port" DID_RESOLVER_ALLOW_PRIVATE=1 LOG_LEVEL=warning \
    RATE_LIMIT_ENABLED=0 PORT=$port "$@" $bin/catbird-mls-server &
  server_pid=$!
  pids+=($server_pid)
  for _ in $(seq 1 600); do curl -sf "$base/xrpc/_health" >/dev/null && return; sleep 0.2; done
  echo "the server did not start"; exit 1
}
serve
$bin/ds-bench prepare --server "$base" --audience "$service_did" --plc-dir "$dir/plc" --out "$dir/load" \
  --send-requests $((requests + warmup)) --read-requests 1 --key-packages 1 | head -n 1 | sed 's/^/  /'
$bin/ds-bench chat-prepare --server "$base" --audience "$service_did" --plc-dir "$dir/plc" --state "$dir/chat-state" \
  | sed 's/^/  /'
kill "$server_pid" && wait "$server_pid" 2>/dev/null || true

# Valgrind 3.19 crashes on libdispatch's read-only sigsuspend mask (dispatchMain): the shim copies it.
cc -shared -fPIC -O2 -o "$dir/sigsuspend-shim.so" Benchmarks/instructions/sigsuspend-shim.c
serve env LD_PRELOAD="$dir/sigsuspend-shim.so" valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" --dump-instr=no
sed 's/^wrk.body = \[\[//; s/\]\]$//' Benchmarks/wrk/echo.lua | grep '^{' >"$dir/echo.json"
xrpc=/xrpc/blue.catbird.mls
drive() { python3 Benchmarks/instructions/drive.py "$port" "$connections" "$@" >/dev/null; }
drive get /xrpc/_health "$warmup"
drive post $xrpc.bench.echo "$dir/echo.json" "$warmup"
drive send $xrpc.sendMessage "$dir/load/send-spread.txt" "$dir/load/send-bodies.txt" "$warmup"
callgrind_control -z "$server_pid" >/dev/null
dumps=0
declare -A per_request
measure() { # name, drive arguments…: instructions per request between two dumps
  local name=$1 file total
  shift
  drive "$@"
  callgrind_control -d "$server_pid" >/dev/null
  dumps=$((dumps + 1))
  file="$dir/callgrind.out.$dumps"
  for _ in $(seq 1 50); do [ -s "$file" ] && grep -q '^totals:' "$file" && break; sleep 0.2; done
  total=$(awk '/^totals:/ {print $2}' "$file")
  per_request[$name]=$(awk -v t="$total" -v n="$requests" 'BEGIN {printf "%.0f", t / n}')
  awk -v name="$name" -v t="$total" -v n="$requests" 'BEGIN {printf "%-32s %9.0f instructions per request (%d requests)\n", name, t / n, n}'
  [ -z "${INSTR_KEEP:-}" ] || { mkdir -p "$INSTR_KEEP"; cp "$file" "$INSTR_KEEP/$(tr ' /' '__' <<<"$name").callgrind"; }
}
echo "== Server instructions per request (callgrind, user space, all threads; $connections connections)"
measure "GET /xrpc/_health" get /xrpc/_health "$requests"
measure "POST 1 KB JSON echo" post $xrpc.bench.echo "$dir/echo.json" "$requests"
measure "sendMessage 1 KB, 16 convos" send $xrpc.sendMessage "$dir/load/send-spread.txt" "$dir/load/send-bodies.txt" \
  "$requests" "$warmup"
# The chat requests are signed now, their tokens being good for 60 s; the warm-up (the first message
# of each device since the restart takes the path that reads its key) is left out of the count.
chat=/xrpc/blue.catbird.chat.sendMessage
$bin/ds-bench chat-load --server "$base" --audience "$service_did" --state "$dir/chat-state" --convos 16 \
  --requests $((requests + warmup)) --out "$dir/load/chat.txt" >/dev/null
drive publish $chat "$dir/load/chat.txt" "$warmup"
callgrind_control -z "$server_pid" >/dev/null
measure "chat sendMessage 1 KB, 16 convos" publish $chat "$dir/load/chat.txt" "$requests" "$warmup"
awk -v c="${per_request[chat sendMessage 1 KB, 16 convos]}" -v v="${per_request[sendMessage 1 KB, 16 convos]}" \
  'BEGIN {printf "chat sendMessage: %.2f× v1 sendMessage'"'"'s instructions per message\n", c / v}'
