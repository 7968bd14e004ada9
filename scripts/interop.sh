#!/usr/bin/env bash
# Interop with MLS clients that are not ours: AWS mls-rs (UniFFI Python bindings) and the pure-Python
# `rfc9420` drive the real server beside our `catbird-mls` CLI (Tests/Interop/README.md says what
# is run and which of rfc9420's mistakes the harness works around). A fresh server, dev PLC and
# database; needs DATABASE_URL (make test provides one) and the debug executables (swift build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=$(scripts/interop-venv.sh)
. scripts/fresh-server.sh interop

if ! "$python" "$root/Tests/Interop/interop.py" --server "http://127.0.0.1:$port" --plc "http://127.0.0.1:$plc_port" \
     --cli "$C" --work "$work"; then
  echo "interop: FAILED; the server's log:"; tail -n 50 "$work/server.log"
  exit 1
fi
