# Sourced by try-it.sh and interop.sh (after `root` is set): a fresh catbird-mls-server, dev PLC and
# database on loopback, all removed on exit. Needs DATABASE_URL and the debug executables (swift
# build). Sets C (the CLI), work (a scratch folder), port, mqtt_port (the MQTT listener) and
# plc_port. $1 names the database.
C=$root/.build/debug/catbird-mls
SERVER=$root/.build/debug/catbird-mls-server
work=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
plc_port=$(free_port); port=$(free_port); mqtt_port=$(free_port)
db="${1}_$(date +%s)_$$"
admin=${DATABASE_URL:?DATABASE_URL is required}
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
dburl=$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(u.urlunparse(p._replace(path="/"+sys.argv[2])))' "$admin" "$db")

"$C" dev-plc --folder "$work/plc" --port "$plc_port" >"$work/plc.log" 2>&1 & pids+=($!)
DATABASE_URL=$dburl SERVICE_DID=did:web:localhost PORT=$port MQTT_PORT=$mqtt_port PLC_URL=http://127.0.0.1:$plc_port DID_RESOLVER_ALLOW_PRIVATE=1 LOG_LEVEL=warning BLOB_DIR=$work/blobs \
  "$SERVER" >"$work/server.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/xrpc/_health" >/dev/null && break; sleep 0.1; done
