#!/usr/bin/env bash
# The Relay protocol over MQTT with third-party clients (Tests/Interop/README.md, "MQTT"): Eclipse
# Paho (paho-mqtt, in .data/venv) and mosquitto_pub / mosquitto_sub (Debian mosquitto-clients) carry
# rfc9420 and AWS mls-rs users' messages through the service's MQTT listener, beside XRPC. A fresh
# server, dev PLC and database; needs DATABASE_URL (make test provides one) and the debug executables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
python=$(scripts/interop-venv.sh)
. scripts/fresh-server.sh mqtt_interop

if ! "$python" "$root/Tests/Interop/mqtt_interop.py" --server "http://127.0.0.1:$port" --plc "http://127.0.0.1:$plc_port" \
     --mqtt-port "$mqtt_port"; then
  echo "mqtt interop: FAILED; the server's log:"; tail -n 50 "$work/server.log"
  exit 1
fi
