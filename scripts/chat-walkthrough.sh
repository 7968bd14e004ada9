#!/usr/bin/env bash
# The chat contract (blue.catbird.chat.*) end to end through `catbird-mls chat`, on the server's
# default suite (X-Wing), against a fresh server, dev PLC and database: alice with two devices, bob
# and carol enroll; alice creates a group inviting bob and carol; bob accepts, alice fulfils, bob
# hears the Welcome on his event stream (watch) and joins from getPendingWelcomes; carol accepts,
# bob fulfils, carol joins; alice's phone asks for a leaf and carol adds it; messages both ways,
# every entry's signature verified by its reader; bob's phone joins through request-leaf and reads
# nothing from before it joined; alice sends a photo in two steps, which members decrypt and dave
# (no member, later a member who joined after it) cannot fetch; carol's stream sees bob typing, and
# the log holds no trace of it; a revoked device is refused. Then the conversation's life: bob
# removes his revoked phone's leaf; alice promotes bob, who renames the group and sets its avatar
# (every member decrypts the new title and image), invites dave and promotes him; carol asks to leave (heard on alice's stream),
# withdraws, asks again and alice's device removes her; alice's phone has its leaf replaced; dave
# asks for a reset, bob activates it and every other device recovers, messages both ways after; bob
# and dave leave and alice closes the group; a direct conversation closed by the side that did not
# create it. Refused operations are refused with their codes. Every request, response, signed body
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

for user in alice bob carol dave; do
  "$C" init --dir "$work/$user" --plc "http://127.0.0.1:$plc_port" --quiet >"$work/$user.did"
done
ALICE=$(<"$work/alice.did") BOB=$(<"$work/bob.did") CAROL=$(<"$work/carol.did") DAVE=$(<"$work/dave.did")

for device in alice alice:phone bob bob:phone carol dave; do
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

# A photo in two steps (prepareBlobUpload, uploadBlob, then sendMessage binding it): members fetch
# and decrypt it (bob's phone too: it joined before the photo); dave, no member, is refused, and
# still is once he joined after it (below).
head -c 300000 /dev/urandom >"$work/photo.png"
out=$(chat alice send-image "$CONVO" "$work/photo.png" --mime-type image/png --width 640 --height 480 --text "the view")
expect "alice sends a photo" "with blob " "$out"
BLOB=${out##* }
mkdir -p "$work/carol-photos" "$work/phone-photos"
out=$(chat carol read "$CONVO" --save "$work/carol-photos")
expect "carol reads the photo's message" "$ALICE: the view [image/png 640x480, blob $BLOB]" "$out"
expect "carol decrypts the photo" "saved $work/carol-photos/$BLOB" "$out"
cmp -s "$work/photo.png" "$work/carol-photos/$BLOB" && expect "carol's copy is alice's photo" "same" "same" \
  || expect "carol's copy is alice's photo" "same" "differs"
refused "dave, no member, cannot fetch it" BlobNotFound chat dave get-blob "$BLOB"
expect "bob's phone reads the photo" "blob $BLOB" "$(chat bob:phone read "$CONVO" --save "$work/phone-photos")"

# Typing: carol's stream sees bob typing, live; the log holds no trace of it.
before=$(chat carol entries "$CONVO")
"$C" chat watch --until typingEvent --timeout 60 --dir "$work/carol" --server "http://127.0.0.1:$port" \
  >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
for _ in $(seq 1 200); do grep -q 'watching' "$work/watch.err" 2>/dev/null && break; sleep 0.1; done
expect "bob types" "typing true until" "$(chat bob typing "$CONVO")"
wait "$watch_pid" || { echo "FAILED: carol's watch"; cat "$work/watch.out" "$work/watch.err"; exit 1; }
expect "carol's stream shows bob typing" "actorDid=$BOB conversationId=$CONVO" "$(grep -F "#typingEvent" "$work/watch.out" | grep -F isTyping=true)"
sed 's/^/  event: /' "$work/watch.out"
expect "bob stops typing" "typing false until" "$(chat bob typing "$CONVO" --stop)"
after=$(chat carol entries "$CONVO")
[ "$before" = "$after" ] && expect "typing is never an entry" "same" "same" || expect "typing is never an entry" "same" "$after"
refute "no typing entry in getEntries" "typing" "$after"

# bob revokes his phone; it is refused from then on.
phone=$(chat bob:phone devices | awk '/this device/ { print $1 }')
expect "bob revokes his phone" "revoked $phone: revoked" "$(chat bob revoke "$phone")"
refused "the revoked phone cannot send" DeviceRevoked chat bob:phone send "$CONVO" "still here?"
refused "the revoked phone cannot list devices" DeviceRevoked chat bob:phone devices
expect "bob still sends" "sent #" "$(chat bob send "$CONVO" "just my laptop now")"
expect "carol reads bob" "$BOB: just my laptop now" "$(chat carol read "$CONVO")"

# bob removes the revoked phone's leaf (a commit with a Remove): he keeps one leaf.
expect "bob removes his revoked phone's leaf" "removed $phone from $CONVO" "$(chat bob remove-device "$CONVO" "$phone")"
out=$(chat alice state "$CONVO")
refute "the phone holds no leaf" "$phone" "$out"
expect "bob keeps one leaf" "participant $BOB member active 1 leaves" "$out"

# Roles: only an admin changes them; the one active admin cannot leave; alice promotes bob.
refused "carol cannot promote herself" AdminRequired chat carol promote "$CONVO" "$CAROL"
refused "alice, the one admin, cannot leave" LastAdminRequired chat alice leave "$CONVO"
expect "alice promotes bob" "promoted $BOB" "$(chat alice promote "$CONVO" "$BOB")"
expect "carol sees bob an admin" "participant $BOB admin active" "$(chat carol state "$CONVO")"

# bob renames the group; the others decrypt the new title from its metadata entry.
refused "carol cannot rename the group" AdminRequired chat carol rename "$CONVO" "carol's trip"
expect "bob renames the group" "renamed $CONVO: summer trip" "$(chat bob rename "$CONVO" summer trip)"
expect "carol reads the new title" "title summer trip" "$(chat carol state "$CONVO")"
head -c 5000 /dev/urandom >"$work/avatar.png"
expect "bob sets the group's avatar" "avatar of $CONVO set: 5000 bytes" "$(chat bob set-avatar "$CONVO" "$work/avatar.png")"
expect "carol decrypts the avatar" "avatar: 5000 bytes" "$(chat carol avatar "$CONVO" --out "$work/carol-avatar.png")"
cmp -s "$work/avatar.png" "$work/carol-avatar.png" && expect "carol's avatar is bob's" "same" "same" \
  || expect "carol's avatar is bob's" "same" "differs"
expect "alice's phone reads the new title" "title summer trip" "$(chat alice:phone state "$CONVO")"

# bob invites dave; dave accepts, carol adds him, he reads the title; bob promotes him.
expect "bob invites dave" "invited $DAVE" "$(chat bob invite "$CONVO" "$DAVE")"
expect "dave accepts" "open" "$(chat dave accept "$CONVO")"
expect "carol adds dave" "added $DAVE" "$(chat carol fulfil "$CONVO")"
expect "dave joins" "joined $CONVO" "$(chat dave join)"
expect "dave reads the title" "title summer trip" "$(chat dave state "$CONVO")"
refused "dave, who joined after the photo, cannot fetch it" BlobNotFound chat dave get-blob "$BLOB"
expect "bob promotes dave" "promoted $DAVE" "$(chat bob promote "$CONVO" "$DAVE")"

# carol leaves: she asks, withdraws, asks again (alice's stream hears it); alice's device removes her.
expect "carol asks to leave" "leave requested" "$(chat carol leave "$CONVO")"
refused "a second leave request is refused" LeaveAlreadyPending chat carol leave "$CONVO"
expect "carol withdraws it" "cancelled" "$(chat carol cancel-leave "$CONVO")"
"$C" chat watch --until leaveRequestEvent --timeout 60 --dir "$work/alice" --server "http://127.0.0.1:$port" \
  >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
for _ in $(seq 1 200); do grep -q 'watching' "$work/watch.err" 2>/dev/null && break; sleep 0.1; done
expect "carol asks again" "leave requested" "$(chat carol leave "$CONVO")"
wait "$watch_pid" || { echo "FAILED: alice's watch"; cat "$work/watch.out" "$work/watch.err"; exit 1; }
expect "alice's stream announces carol's request" "#leaveRequestEvent conversationId=$CONVO" "$(<"$work/watch.out")"
sed 's/^/  event: /' "$work/watch.out"
expect "dave sends" "sent #" "$(chat dave send "$CONVO" "bye carol")"
expect "alice's device removes carol" "removed $CAROL from $CONVO" "$(chat alice fulfil-leave "$CONVO")"
out=$(chat carol read "$CONVO")
expect "carol reads dave's goodbye" "$DAVE: bye carol" "$out"
expect "carol's device sees its removal" "this device: removed at #" "$out"
refused "carol no longer sends" "removed at #" chat carol send "$CONVO" "wait for me"
expect "carol's inventory holds a removal tombstone" "$CONVO removed at #" "$(chat carol list)"
refute "carol is no participant" "participant $CAROL" "$(chat alice state "$CONVO")"
expect "bob sends" "sent #" "$(chat bob send "$CONVO" "carol has left")"
expect "dave reads bob" "$BOB: carol has left" "$(chat dave read "$CONVO")"

# alice's phone asks for a new leaf in place of its own; dave's device commits Remove + Add.
expect "alice's phone asks to replace its leaf" "open" "$(chat alice:phone request-leaf "$CONVO" --replace)"
expect "dave replaces the phone's leaf" "added $ALICE" "$(chat dave fulfil "$CONVO")"
expect "alice's phone joins with its new leaf" "joined $CONVO" "$(chat alice:phone join)"
expect "alice sends" "sent #" "$(chat alice send "$CONVO" "phone, are you back?")"
expect "alice's phone reads alice" "$ALICE: phone, are you back?" "$(chat alice:phone read "$CONVO")"

# dave asks for a reset; bob, an admin, activates it: a new generation holding bob's leaf only.
expect "dave asks for a reset" "reset requested" "$(chat dave request-reset "$CONVO" --reason epochDivergence)"
refused "a second reset request is refused" ResetAlreadyPending chat alice request-reset "$CONVO"
expect "bob sees the request" "reset request" "$(chat bob state "$CONVO")"
expect "bob activates the reset" "reset $CONVO: generation 1" "$(chat bob activate-reset "$CONVO")"
expect "the new generation holds one leaf" "1" "$(chat bob state "$CONVO" | grep -c '^leaf ')"
# Every other device reads to the reset, asks for a leaf, is added by bob and joins.
for device in alice alice:phone dave; do
  expect "$device reads up to the reset" "this device: reset at #" "$(chat "$device" read "$CONVO")"
  expect "$device asks for a leaf again" "open" "$(chat "$device" request-leaf "$CONVO")"
  expect "bob adds $device" "added" "$(chat bob fulfil "$CONVO")"
  expect "$device joins generation 1" "joined $CONVO" "$(chat "$device" join)"
done
out=$(chat dave state "$CONVO")
expect "generation 1 holds four leaves" "4" "$(grep -c '^leaf ' <<<"$out")"
expect "the title survives the reset" "title summer trip" "$out"
expect "the avatar survives the reset" "avatar: 5000 bytes" "$(chat dave avatar "$CONVO")"
expect "bob sends in generation 1" "sent #" "$(chat bob send "$CONVO" "fresh start")"
expect "alice sends in generation 1" "sent #" "$(chat alice send "$CONVO" "works again")"
out=$(chat dave read "$CONVO")
expect "dave reads bob" "$BOB: fresh start" "$out"
expect "dave reads alice" "$ALICE: works again" "$out"
expect "bob reads alice" "$ALICE: works again" "$(chat bob read "$CONVO")"
expect "alice's phone reads bob" "$BOB: fresh start" "$(chat alice:phone read "$CONVO")"

# The group closes once its one participant is an admin: dave and bob leave first.
refused "the group cannot close while others take part" ConversationCloseNotAllowed chat alice close "$CONVO"
expect "dave asks to leave" "leave requested" "$(chat dave leave "$CONVO")"
expect "alice removes dave" "removed $DAVE" "$(chat alice fulfil-leave "$CONVO")"
expect "bob asks to leave" "leave requested" "$(chat bob leave "$CONVO")"
expect "alice's phone removes bob" "removed $BOB" "$(chat alice:phone fulfil-leave "$CONVO")"
expect "alice closes the group" "closed $CONVO at #" "$(chat alice close "$CONVO")"
expect "alice's phone reads the close" "this device: closed at #" "$(chat alice:phone read "$CONVO")"
refused "alice's phone no longer sends" "closed at #" chat alice:phone send "$CONVO" "hello?"
expect "alice's phone's inventory holds the close" "$CONVO closed at #" "$(chat alice:phone list)"

# A direct conversation, closed by dave, who did not create it.
DIRECT=$(chat alice create --direct --invite "$DAVE" --title "just us")
expect "dave accepts the direct conversation" "open" "$(chat dave accept "$DIRECT")"
expect "alice adds dave" "added $DAVE" "$(chat alice fulfil "$DIRECT")"
expect "dave joins" "joined $DIRECT" "$(chat dave join)"
refused "a direct conversation is not left" DirectParticipantMutationForbidden chat dave leave "$DIRECT"
expect "alice sends to dave" "sent #" "$(chat alice send "$DIRECT" "just us now")"
expect "dave reads alice" "$ALICE: just us now" "$(chat dave read "$DIRECT")"
expect "dave closes it" "closed $DIRECT at #" "$(chat dave close "$DIRECT")"
expect "alice reads the close" "this device: closed at #" "$(chat alice read "$DIRECT")"
expect "alice's inventory: closed by dave" "$DIRECT closed at #" "$(chat alice list | grep -F "by $DAVE")"

want=132
[ "$passed" -eq "$want" ] || { echo "FAILED: $passed of $want checks ran"; exit 1; }
# Every request and response above, every signed body and every event, checked by code not ours.
scripts/chat-checks.sh "$CHAT_CAPTURE"
echo "chat walkthrough: $passed passed, 0 failed; the capture passed the independent checks"
