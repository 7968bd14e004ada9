#!/usr/bin/env bash
# The README's "Try it" walkthrough as a check: the commands of the README's own block (the first
# ```sh block after "## Try it"), run one by one against a fresh server, dev PLC and database, with
# what each user reads checked. The README and this test are one text: change the walkthrough there.
# The block's set-up lines (building, dev-plc, make run) are what scripts/fresh-server.sh does here;
# every `$C` command gets the fresh server's address, its /tmp/try folders a scratch folder, and a
# line commented `# Error: TEXT` must fail with TEXT. Needs DATABASE_URL (make test provides one)
# and the debug executables (swift build).
# `--suite NAME` runs it with every user on that MLS cipher suite (make test runs it again on
# MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519, the Catbird app's); `--sealed` in a conversation
# with sealed handshakes (`create --sealed`, docs/sealed-commits.md), with a self-update added;
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

mapfile -t lines < <(awk '/^## Try it/ { section = 1 } section && /^```sh$/ { inside = 1; next }
                           inside && /^```$/ { exit } inside { print }' README.md)
[ "${#lines[@]}" -gt 0 ] || { echo "FAILED: README.md has no \"## Try it\" block"; exit 1; }

. scripts/fresh-server.sh try
opts=(--server "http://127.0.0.1:$port" --quiet)
if [ -n "$mqtt" ]; then opts+=(--transport mqtt --mqtt "mqtt://127.0.0.1:$mqtt_port"); fi
# convos is an XRPC call: its check runs over XRPC whatever the transport.
xrpc_opts=(--server "http://127.0.0.1:$port" --quiet)

# The README's `$C`: the CLI with this run's server, transport, suite and handshake policy.
cli() {
  local command=$1; shift
  local extra=("${opts[@]}")
  case "$command" in
    init) if [ -n "$suite" ]; then extra+=(--suite "$suite"); fi ;;
    create) if [ -n "$sealed" ]; then extra+=(--sealed); fi ;;
  esac
  "$C" "$command" "$@" "${extra[@]}"
}

passed=0
expect() { # description, pattern, text
  if grep -qF -- "$2" <<<"$3"; then echo "ok: $1"; passed=$((passed + 1)); else echo "FAILED: $1"; echo "$3"; exit 1; fi
}

# What each step of the walkthrough must show, keyed by the command just run.
check() { # command, its output
  case "$1" in
    "CONVO=\$(cli create "*)
      if [ -n "$suite" ]; then
        expect "the conversation's suite is $suite" "$suite" "$("$C" convos --dir "$work/alice" --json "${xrpc_opts[@]}")"
      fi
      if [ -n "$sealed" ]; then
        expect "the conversation is sealed" '"handshake" : "sealed"' "$("$C" convos --dir "$work/alice" --json "${xrpc_opts[@]}")"
      fi
      ;;
    "cli read "*"/carol \"\$CONVO\"")
      expect "carol decrypts alice" "$ALICE: hello from alice" "$2"
      expect "carol decrypts bob" "$BOB: hi, bob here" "$2"
      if [ -n "$sealed" ]; then
        cli update --dir "$work/bob" "$CONVO" >/dev/null
        expect "carol follows bob's sealed self-update" "updated the group" "$(cli read --dir "$work/carol" "$CONVO")"
      fi
      ;;
    "cli read "*"/bob \"\$CONVO\"")
      expect "bob decrypts alice" "$ALICE: hello from alice" "$2"
      expect "bob sees the removal" "removed $CAROL" "$2"
      expect "bob decrypts after the removal" "$ALICE: just us now" "$2"
      ;;
  esac
}

set_up=0
for line in "${lines[@]}"; do
  command=${line%%  #*}                       # a comment starts after two spaces
  command=${command%"${command##*[![:space:]]}"}
  [ -n "$command" ] || continue
  case "$command" in
    *"swift build"*|*dev-plc*|*"make run"*) set_up=$((set_up + 1)); continue ;;
  esac
  command=${command//\/tmp\/try\//$work/}
  command=${command//http:\/\/127.0.0.1:2582/http://127.0.0.1:$plc_port}
  command=${command//\$C /cli }
  refusal=""
  [[ $line == *"# Error: "* ]] && refusal=${line##*# Error: }
  if [[ $command =~ ^[A-Z]+=\$\( ]]; then
    eval "$command"
    output=""
  elif [ -n "$refusal" ]; then
    if output=$(eval "$command" 2>&1); then echo "FAILED: succeeded, the README says it fails: $line"; exit 1; fi
    expect "refused as the README says: $refusal" "$refusal" "$output"
  else
    output=$(eval "$command" 2>&1) || { echo "FAILED: $line"; echo "$output"; exit 1; }
  fi
  check "$command" "$output"
done
[ "$set_up" -eq 3 ] || { echo "FAILED: expected the block's three set-up lines (build, dev-plc, make run), found $set_up"; exit 1; }
# Every check above ran: a walkthrough that lost a step fails here.
want=6
if [ -n "$suite" ]; then want=$((want + 1)); fi
if [ -n "$sealed" ]; then want=$((want + 2)); fi
[ "$passed" -eq "$want" ] || { echo "FAILED: $passed of $want checks ran: has the README's walkthrough lost a step?"; exit 1; }
echo "try-it${suite:+ on $suite}${sealed:+ (sealed)}${mqtt:+ over MQTT}: $passed passed, 0 failed"
