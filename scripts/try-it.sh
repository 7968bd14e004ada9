#!/usr/bin/env bash
# The README's "Try it" walkthrough as a check: the same commands against a fresh server, dev PLC and
# database, asserting what each user reads. Needs DATABASE_URL (make test provides one) and the
# debug executables (swift build). `--suite NAME` runs it with every user on that MLS cipher suite
# (make test runs it again on MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519, the Catbird app's);
# `--sealed` on a conversation with sealed handshakes (`create --sealed`: every commit a PrivateMessage
# the service checks through its GroupInfo, docs/sealed-commits.md), with a self-update added.
# `--mqtt` runs every command over the service's MQTT listener (`--transport mqtt`, docs/mqtt.md).
set -euo pipefail
suite=""
sealed=""
mqtt=""
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) suite=${2:?--suite needs a name}; shift 2 ;;
    --sealed) sealed=--sealed; shift ;;
    --mqtt) mqtt=1; shift ;;
    *) echo "usage: $0 [--suite NAME] [--sealed] [--mqtt]" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/fresh-server.sh try
opts=(--server "http://127.0.0.1:$port" --quiet)
[ -n "$mqtt" ] && opts+=(--transport mqtt --mqtt "mqtt://127.0.0.1:$mqtt_port")
suite_opts=()
[ -n "$suite" ] && suite_opts=(--suite "$suite")

passed=0
expect() { # description, pattern, text
  if grep -qF -- "$2" <<<"$3"; then echo "ok: $1"; passed=$((passed + 1)); else echo "FAILED: $1"; echo "$3"; exit 1; fi
}

ALICE=$("$C" init --dir "$work/alice" --plc "http://127.0.0.1:$plc_port" "${suite_opts[@]}" "${opts[@]}")
BOB=$("$C" init --dir "$work/bob" --plc "http://127.0.0.1:$plc_port" "${suite_opts[@]}" "${opts[@]}")
CAROL=$("$C" init --dir "$work/carol" --plc "http://127.0.0.1:$plc_port" "${suite_opts[@]}" "${opts[@]}")
"$C" publish-key-packages --dir "$work/bob" --count 5 "${opts[@]}" >/dev/null
"$C" publish-key-packages --dir "$work/carol" --count 5 "${opts[@]}" >/dev/null
CONVO=$("$C" create --dir "$work/alice" --name Tea ${sealed:+"$sealed"} "$BOB" "${opts[@]}")
# convos is an XRPC call: its check runs over XRPC whatever the transport.
xrpc_opts=(--server "http://127.0.0.1:$port" --quiet)
[ -n "$suite" ] && expect "the conversation's suite is $suite" "$suite" "$("$C" convos --dir "$work/alice" --json "${xrpc_opts[@]}")"
[ -n "$sealed" ] && expect "the conversation is sealed" '"handshake" : "sealed"' "$("$C" convos --dir "$work/alice" --json "${xrpc_opts[@]}")"
"$C" join --dir "$work/bob" "$CONVO" "${opts[@]}" >/dev/null
"$C" invite --dir "$work/alice" "$CONVO" "$CAROL" "${opts[@]}" >/dev/null
"$C" join --dir "$work/carol" "$CONVO" "${opts[@]}" >/dev/null
"$C" send --dir "$work/alice" "$CONVO" "hello from alice" "${opts[@]}" >/dev/null
"$C" send --dir "$work/bob" "$CONVO" "hi, bob here" "${opts[@]}" >/dev/null
carol_read=$("$C" read --dir "$work/carol" "$CONVO" "${opts[@]}")
expect "carol decrypts alice" "$ALICE: hello from alice" "$carol_read"
expect "carol decrypts bob" "$BOB: hi, bob here" "$carol_read"
if [ -n "$sealed" ]; then
  "$C" update --dir "$work/bob" "$CONVO" "${opts[@]}" >/dev/null
  expect "carol follows bob's sealed self-update" "updated the group" "$("$C" read --dir "$work/carol" "$CONVO" "${opts[@]}")"
fi
"$C" remove --dir "$work/alice" "$CONVO" "$CAROL" "${opts[@]}" >/dev/null
"$C" send --dir "$work/alice" "$CONVO" "just us now" "${opts[@]}" >/dev/null
bob_read=$("$C" read --dir "$work/bob" "$CONVO" "${opts[@]}")
expect "bob decrypts alice" "$ALICE: hello from alice" "$bob_read"
expect "bob sees the removal" "removed $CAROL" "$bob_read"
expect "bob decrypts after the removal" "$ALICE: just us now" "$bob_read"
if carol_send=$("$C" send --dir "$work/carol" "$CONVO" "still here?" "${opts[@]}" 2>&1); then
  echo "FAILED: a removed member could send"; exit 1
fi
expect "carol is refused" "no longer a member" "$carol_send"
echo "try-it${suite:+ on $suite}${sealed:+ (sealed)}${mqtt:+ over MQTT}: $passed passed, 0 failed"
