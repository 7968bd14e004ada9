#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60) on its corpus.
#   scripts/fuzz.sh [mls|commit|http|websocket|jwt|json|xwing|mqtt|sealed|chat|push ...]    build and run the named targets (default: all)
#   scripts/fuzz.sh seed              regenerate Tests/Fuzz/corpus/mls from messages.json, and the
#                                     commit target's stored state and seeds (mls-mutants --fuzz-seeds)
# Libraries are built as static modules into fuzz-out/; the fuzzed module is instrumented with
# -sanitize=fuzzer. Crashes are written to fuzz-out/crashes/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=fuzz-out
seconds=${FUZZ_SECONDS:-60}
vectors=${MLS_TEST_VECTORS:-$root/../shared/mls-test-vectors}
mkdir -p "$out"

c_flags=(-package-name catbird_mls -I Sources/CSodium -I Sources/COpenSSL -I Sources/CLibPQ -I Sources/CSystem -I Sources/CNGHTTP2 -Xcc -I/usr/include/postgresql)
link_flags=(-L "$out" -lsodium -lssl -lcrypto -lpq -lnghttp2)

# build_module NAME SANITIZE_FLAGS... -- SOURCES...: a static library and its .swiftmodule in $out.
build_module() {
  local name=$1; shift
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  swiftc -O -parse-as-library -emit-library -static -emit-module -module-name "$name" \
    -emit-module-path "$out/$name.swiftmodule" -o "$out/lib$name.a" \
    -I "$out" "${c_flags[@]}" "${flags[@]}" "$@"
}

swift_sources() { find "$1" -name '*.swift' | sort; }

# build_mls_target NAME ENTRY: Primitives, MLS instrumented, and the entry point linked as fuzz-NAME.
build_mls_target() {
  echo "== building Primitives"
  mapfile -t primitives < <(swift_sources Sources/Primitives)
  build_module Primitives -- "${primitives[@]}"
  echo "== building MLS (instrumented)"
  mapfile -t mls < <(swift_sources Sources/MLS)
  build_module MLS -sanitize=fuzzer -- "${mls[@]}"
  echo "== linking fuzz-$1"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" "$2" \
    -o "$out/fuzz-$1" "${link_flags[@]}" -lMLS -lPrimitives
}

build_mls() { build_mls_target mls Tests/Fuzz/FuzzMLSCodec.swift; }

# The commit target: PublicGroup over a stored state (Tests/Fuzz/commit-state.bin).
build_commit() { build_mls_target commit Tests/Fuzz/FuzzCommit.swift; }
# SealedCommitVerifier over an honest sealed commit, with edited GroupInfos and trees.
build_sealed() { build_mls_target sealed Tests/Fuzz/FuzzSealedVerifier.swift; }

# build_http_instrumented: Basics, then HTTP instrumented.
build_http_instrumented() {
  echo "== building Basics"
  mapfile -t basics < <(swift_sources Sources/Basics)
  build_module Basics -- "${basics[@]}"
  echo "== building HTTP (instrumented)"
  mapfile -t http < <(swift_sources Sources/HTTP)
  build_module HTTP -sanitize=fuzzer -- "${http[@]}"
}

build_http() {
  build_http_instrumented
  echo "== linking fuzz-http"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" Tests/Fuzz/FuzzHTTPRequestParser.swift \
    -o "$out/fuzz-http" "${link_flags[@]}" -lHTTP -lBasics
}

build_jwt() {
  echo "== building Basics, Primitives, HTTP, Store"
  mapfile -t basics < <(swift_sources Sources/Basics)
  build_module Basics -- "${basics[@]}"
  mapfile -t primitives < <(swift_sources Sources/Primitives)
  build_module Primitives -- "${primitives[@]}"
  mapfile -t http < <(swift_sources Sources/HTTP)
  build_module HTTP -- "${http[@]}"
  mapfile -t store < <(swift_sources Sources/Store)
  build_module Store -- "${store[@]}"
  echo "== building ATProto (instrumented)"
  mapfile -t atproto < <(swift_sources Sources/ATProto)
  build_module ATProto -sanitize=fuzzer -- "${atproto[@]}"
  echo "== linking fuzz-jwt"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" Tests/Fuzz/FuzzJWT.swift \
    -o "$out/fuzz-jwt" "${link_flags[@]}" -lATProto -lStore -lHTTP -lPrimitives -lBasics
}

build_json() {
  echo "== building Basics, JSON (instrumented), Lexicon, Primitives, ChatProtocol, MLS, HTTP, HTTP2, Push, MQTT, MQTTServer, ATProto, Store, DeliveryStore"
  local module
  mapfile -t sources < <(swift_sources Sources/Basics)
  build_module Basics -- "${sources[@]}"
  # The strict parser and both decoding paths (Codable and the direct object reader) are what
  # this target exercises, so they are instrumented too.
  mapfile -t sources < <(swift_sources Sources/JSON)
  build_module JSON -sanitize=fuzzer -- "${sources[@]}"
  for module in Lexicon Primitives ChatProtocol MLS HTTP HTTP2 Push MQTT MQTTServer ATProto Store DeliveryStore; do
    mapfile -t sources < <(swift_sources "Sources/$module")
    build_module "$module" -- "${sources[@]}"
  done
  # The entry point decodes the methods' internal input types, so it is compiled into the
  # DeliveryService module itself.
  echo "== building fuzz-json (DeliveryService sources + entry point, instrumented)"
  mapfile -t service < <(swift_sources Sources/DeliveryService)
  swiftc -O -parse-as-library -sanitize=fuzzer -module-name DeliveryService -I "$out" "${c_flags[@]}" \
    "${service[@]}" Tests/Fuzz/FuzzJSONRequest.swift -o "$out/fuzz-json" \
    "${link_flags[@]}" -lDeliveryStore -lStore -lATProto -lMQTTServer -lMQTT -lPush -lHTTP2 -lHTTP -lMLS -lChatProtocol -lPrimitives -lLexicon -lJSON -lBasics
}

build_push() {
  echo "== building Basics, JSON, Primitives, HTTP, HTTP2"
  local module
  for module in Basics JSON Primitives HTTP HTTP2; do
    mapfile -t sources < <(swift_sources "Sources/$module")
    build_module "$module" -- "${sources[@]}"
  done
  # The answers' readers are internal to Push: the entry point is compiled into the module.
  echo "== building fuzz-push (Push sources + entry point, instrumented)"
  mapfile -t push < <(swift_sources Sources/Push)
  swiftc -O -parse-as-library -sanitize=fuzzer -module-name Push -I "$out" "${c_flags[@]}" \
    "${push[@]}" Tests/Fuzz/FuzzPushAnswers.swift -o "$out/fuzz-push" \
    "${link_flags[@]}" -lHTTP2 -lHTTP -lPrimitives -lJSON -lBasics
}

# The chat contract's parsers: DAG-CBOR, signed requests against the lexicons, event envelopes.
build_chat() {
  echo "== building Basics, JSON, Primitives, ChatProtocol (instrumented)"
  local module
  for module in Basics JSON Primitives; do
    mapfile -t sources < <(swift_sources "Sources/$module")
    build_module "$module" -- "${sources[@]}"
  done
  mapfile -t sources < <(swift_sources Sources/ChatProtocol)
  build_module ChatProtocol -sanitize=fuzzer -- "${sources[@]}"
  echo "== linking fuzz-chat"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" Tests/Fuzz/FuzzChat.swift \
    -o "$out/fuzz-chat" "${link_flags[@]}" -lChatProtocol -lPrimitives -lJSON -lBasics
}

build_xwing() {
  echo "== building Primitives (instrumented)"
  mapfile -t primitives < <(swift_sources Sources/Primitives)
  build_module Primitives -sanitize=fuzzer -- "${primitives[@]}"
  echo "== linking fuzz-xwing"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" Tests/Fuzz/FuzzXWing.swift \
    -o "$out/fuzz-xwing" "${link_flags[@]}" -lPrimitives
}

build_websocket() {
  build_http_instrumented
  echo "== linking fuzz-websocket"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" "${c_flags[@]}" Tests/Fuzz/FuzzWebSocketFrame.swift \
    -o "$out/fuzz-websocket" "${link_flags[@]}" -lHTTP -lBasics
}

build_mqtt() {
  echo "== building MQTT and Basics (instrumented)"
  mapfile -t mqtt < <(swift_sources Sources/MQTT)
  build_module MQTT -sanitize=fuzzer -- "${mqtt[@]}"
  mapfile -t basics < <(swift_sources Sources/Basics)
  build_module Basics -sanitize=fuzzer -- "${basics[@]}"
  echo "== linking fuzz-mqtt"
  swiftc -O -parse-as-library -sanitize=fuzzer -I "$out" Tests/Fuzz/FuzzMQTT.swift -o "$out/fuzz-mqtt" -L "$out" -lMQTT -lBasics
}

# run_target NAME: new inputs go to $out/corpus/NAME; the committed seeds are read, not written.
run_target() {
  local name=$1
  local seeds=Tests/Fuzz/corpus/$name
  mkdir -p "$out/corpus/$name" "$out/crashes/$name"
  local dirs=("$out/corpus/$name")
  [ -d "$seeds" ] && dirs+=("$seeds")
  echo "== fuzzing $name for ${seconds}s"
  "$out/fuzz-$name" "${dirs[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/crashes/$name/" -print_final_stats=1
}

seed_mls() {
  local dest=Tests/Fuzz/corpus/mls
  rm -rf "$dest" && mkdir -p "$dest"
  # Ten cases per cipher suite; proposal bodies get their type in front so they decode as Proposal.
  python3 - "$vectors/messages.json" "$dest" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))
types = {"add_proposal": 1, "update_proposal": 2, "remove_proposal": 3, "pre_shared_key_proposal": 4,
         "re_init_proposal": 5, "external_init_proposal": 6, "group_context_extensions_proposal": 7}
for index in list(range(0, 10)) + list(range(100, 110)) + list(range(200, 210)):
    for field, value in cases[index].items():
        data = bytes.fromhex(value)
        if field in types:
            data = types[field].to_bytes(2, "big") + data
        open(f"{sys.argv[2]}/{index:03d}-{field}", "wb").write(data)
PY
  echo "wrote $(ls "$dest" | wc -l) seeds to $dest ($(du -sh "$dest" | cut -f1))"
  swift build -c release --product mls-mutants
  .build/release/mls-mutants --fuzz-seeds Tests/Fuzz/commit-state.bin Tests/Fuzz/corpus/commit
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(mls commit http websocket jwt json xwing mqtt sealed chat push)
if [ "${targets[0]}" = seed ]; then seed_mls; exit 0; fi

status=0
for target in "${targets[@]}"; do
  case $target in
    mls) build_mls && run_target mls || status=1 ;;
    commit) build_commit && run_target commit || status=1 ;;
    sealed) build_sealed && run_target sealed || status=1 ;;
    http) build_http && run_target http || status=1 ;;
    jwt) build_jwt && run_target jwt || status=1 ;;
    json) build_json && run_target json || status=1 ;;
    websocket) build_websocket && run_target websocket || status=1 ;;
    xwing) build_xwing && run_target xwing || status=1 ;;
    mqtt) build_mqtt && run_target mqtt || status=1 ;;
    chat) build_chat && run_target chat || status=1 ;;
    push) build_push && run_target push || status=1 ;;
    *) echo "unknown fuzz target $target" >&2; exit 2 ;;
  esac
done
exit $status
