#!/usr/bin/env bash
# The chat contract (blue.catbird.chat.*) end to end through `catbird-mls chat`, on the server's
# default suite (X-Wing), against a fresh server, dev PLC and database: alice with two devices, bob
# and carol enroll; alice creates a group inviting bob and carol; bob accepts, alice fulfils, bob
# hears the Welcome on his event stream (watch) and joins from getPendingWelcomes; carol accepts,
# bob fulfils, carol joins; alice's phone asks for a leaf and carol adds it; messages both ways,
# every entry's signature verified by its reader; bob's phone joins through request-leaf and reads
# nothing from before it joined; a revoked device is refused. Every request, response, signed body
# and event is captured (CHAT_CAPTURE) and the capture must pass scripts/chat-checks.sh (lexrpc,
# libipld, cryptography). Each CLI run is a new process: the devices resume from their state files.
# Needs DATABASE_URL (make test provides one) and the debug executables (swift build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/fresh-server.sh chat
export CHAT_CAPTURE=$work/capture.jsonl
opts=(--server "http://127.0.0.1:$port" --quiet)

# `chat USER[:DEVICE] SUBCOMMAND ARGS…`: one device of one user (the device "default" unless named).
chat() {
  local user=${1%%:*} device=default
  [[ $1 == *:* ]] && device=${1#*:}
  shift
  "$C" chat "$@" --dir "$work/$user" --device "$device" "${opts[@]}"
}

passed=0
expect() { # description, text that must appear, output
  if grep -qF -- "$2" <<<"$3"; then echo "ok: $1"; passed=$((passed + 1)); else echo "FAILED: $1 (no \"$2\" in:)"; echo "$3"; exit 1; fi
}
refute() { # description, text that must not appear, output
  if grep -qF -- "$2" <<<"$3"; then echo "FAILED: $1 (\"$2\" in:)"; echo "$3"; exit 1; else echo "ok: $1"; passed=$((passed + 1)); fi
}
refused() { # description, error code, command…
  local description=$1 code=$2 output
  shift 2
  if output=$("$@" 2>&1); then echo "FAILED: $description succeeded"; echo "$output"; exit 1; fi
  expect "$description" "$code" "$output"
}

for user in alice bob carol; do
  "$C" init --dir "$work/$user" --plc "http://127.0.0.1:$plc_port" --quiet >"$work/$user.did"
done
ALICE=$(<"$work/alice.did") BOB=$(<"$work/bob.did") CAROL=$(<"$work/carol.did")

for device in alice alice:phone bob bob:phone carol; do
  expect "$device enrolls" "with 4 key packages" "$(chat "$device" enroll --packages 4)"
done
expect "alice sees her two devices" "2" "$(chat alice devices | grep -c ' active ')"

CONVO=$(chat alice create --invite "$BOB" "$CAROL" --title trip)

# bob accepts; his event stream is open before alice adds him, so the Welcome arrives on it.
expect "bob accepts" "open" "$(chat bob accept "$CONVO")"
# (Not --quiet: "watching" on stderr says the subscription is open.)
"$C" chat watch --until welcomeAvailableEvent --timeout 60 --dir "$work/bob" --server "http://127.0.0.1:$port" \
  >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
for _ in $(seq 1 200); do grep -q 'watching' "$work/watch.err" 2>/dev/null && break; sleep 0.1; done
expect "alice adds bob" "added $BOB" "$(chat alice fulfil)"
wait "$watch_pid" || { echo "FAILED: bob's watch"; cat "$work/watch.out" "$work/watch.err"; exit 1; }
expect "bob's stream announces his Welcome" "#welcomeAvailableEvent conversationId=$CONVO" "$(<"$work/watch.out")"
sed 's/^/  event: /' "$work/watch.out"
expect "bob joins from getPendingWelcomes" "joined $CONVO" "$(chat bob join)"

# carol the same, added by bob; her Welcome is found through getPendingWelcomes only.
expect "carol accepts" "open" "$(chat carol accept "$CONVO")"
expect "bob adds carol" "added $CAROL" "$(chat bob fulfil "$CONVO")"
expect "carol joins" "joined $CONVO" "$(chat carol join)"

# alice's phone asks for a leaf of its own and carol adds it.
expect "alice's phone asks for a leaf" "open" "$(chat alice:phone request-leaf "$CONVO")"
expect "carol adds alice's phone" "added $ALICE" "$(chat carol fulfil)"
expect "alice's phone joins" "joined $CONVO" "$(chat alice:phone join)"

# Messages both ways; each reader verifies every entry's signature before it decrypts.
expect "alice sends" "sent #" "$(chat alice send "$CONVO" "hello from alice")"
expect "bob sends" "sent #" "$(chat bob send "$CONVO" "hi alice, bob here")"
out=$(chat carol read "$CONVO")
expect "carol reads alice" "$ALICE: hello from alice" "$out"
expect "carol reads bob" "$BOB: hi alice, bob here" "$out"
out=$(chat alice:phone read "$CONVO")
expect "alice's phone reads alice" "$ALICE: hello from alice" "$out"
expect "alice's phone reads bob" "$BOB: hi alice, bob here" "$out"
expect "alice reads bob" "$BOB: hi alice, bob here" "$(chat alice read "$CONVO")"
expect "bob reads alice" "$ALICE: hello from alice" "$(chat bob read "$CONVO")"

# bob's phone joins through its own recovery request: nothing from before it joined.
expect "bob's phone asks for a leaf" "open" "$(chat bob:phone request-leaf "$CONVO")"
expect "alice's phone adds bob's phone" "added $BOB" "$(chat alice:phone fulfil "$CONVO")"
expect "bob's phone joins" "joined $CONVO" "$(chat bob:phone join)"
refute "bob's phone reads nothing from before it joined" "hello from alice" "$(chat bob:phone read "$CONVO")"
expect "carol sends" "sent #" "$(chat carol send "$CONVO" "welcome, bob's phone")"
out=$(chat bob:phone read "$CONVO")
expect "bob's phone reads carol" "$CAROL: welcome, bob's phone" "$out"
refute "bob's phone still reads nothing older" "hi alice" "$out"

# bob revokes his phone; it is refused from then on.
phone=$(chat bob:phone devices | awk '/this device/ { print $1 }')
expect "bob revokes his phone" "revoked $phone: revoked" "$(chat bob revoke "$phone")"
refused "the revoked phone cannot send" DeviceRevoked chat bob:phone send "$CONVO" "still here?"
refused "the revoked phone cannot list devices" DeviceRevoked chat bob:phone devices
expect "bob still sends" "sent #" "$(chat bob send "$CONVO" "just my laptop now")"
expect "carol reads bob" "$BOB: just my laptop now" "$(chat carol read "$CONVO")"

want=36
[ "$passed" -eq "$want" ] || { echo "FAILED: $passed of $want checks ran"; exit 1; }
# Every request and response above, every signed body and every event, checked by code not ours.
scripts/chat-checks.sh "$CHAT_CAPTURE"
echo "chat walkthrough: $passed passed, 0 failed; the capture passed the independent checks"
