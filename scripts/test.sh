#!/usr/bin/env bash
# `make test`: every test against a throwaway PostgreSQL, then the RFC 9420 vector suites from a
# release build (debug-built crypto is too slow for the large vector files).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/fetch-test-data.sh   # known-answer files for ML-KEM, X-Wing, SHA-3 (checksums pinned)

started=""
cleanup() {
  if [ -n "$started" ]; then scripts/pg.sh destroy "$started"; fi
}
trap cleanup EXIT
if [ -z "${DATABASE_URL:-}" ]; then
  mkdir -p .data
  started=$(mktemp -d "$root/.data/test-XXXXXX")
  DATABASE_URL=$(PG_FSYNC=off scripts/pg.sh start "$started")
fi
export DATABASE_URL
export MLS_TEST_VECTORS="${MLS_TEST_VECTORS:-$root/../shared/mls-test-vectors}"

# The push stand-ins' Python (h2, http_ece, py_vapid; Tests/PushStandIns): the interop environment.
export PUSH_STANDIN_PYTHON="${PUSH_STANDIN_PYTHON:-$(scripts/interop-venv.sh)}"

swift build --build-tests
# A failed test fails the run: nothing is rerun.
swift test --skip-build --disable-swift-testing ${TEST_FILTER:+--filter "$TEST_FILTER"}

# The README's "Try it" block, read from README.md and run for real (one text: the test is the README).
scripts/try-it.sh
scripts/try-it.sh --suite MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519
scripts/try-it.sh --sealed
# The same walkthrough over the service's MQTT listener (catbird-mls --transport mqtt, docs/mqtt.md).
scripts/try-it.sh --mqtt
scripts/try-it.sh --mqtt --sealed

# Interop: AWS mls-rs and rfc9420 users beside ours on the real server (Tests/Interop/README.md).
scripts/interop.sh
# The MQTT listener with third-party clients: paho-mqtt and mosquitto_pub/sub (Tests/Interop/README.md).
scripts/mqtt-interop.sh
# The chat contract's independent checker (lexrpc, libipld, cryptography) against hand-made lines.
scripts/chat-checks.sh --self-test
# The chat contract end to end through `catbird-mls chat` on X-Wing; the checker above on its capture.
scripts/chat-walkthrough.sh
# High availability: two service nodes on a three-node Patroni cluster under load while its primary,
# the primary's PostgreSQL, its synchronous standby and (black-holed) its whole host fail in turn
# (docs/operations.md, "High availability").
scripts/ha-test.sh

# Every RFC 9420 vector file, all cipher suites, from a release build.
swift build -c release --product mls-vectors
.build/release/mls-vectors "$MLS_TEST_VECTORS"

# ML-KEM-768, X-Wing, HPKE over X-Wing and SHA-3/SHAKE known answers; a missing file fails.
swift build -c release --product crypto-vectors
.build/release/crypto-vectors .data/test-data
# No secret-dependent branch or address in ML-KEM/X-Wing, under Valgrind (docs/xwing.md).
scripts/ct-check.sh

# The differential proof (docs/validation.md): valid commits of suites 1-3 altered field by field;
# PublicGroup must accept each exactly when every member processes it. Fails on any disagreement.
swift build -c release --product mls-mutants
.build/release/mls-mutants --quiet

# `make run` from a clone in a directory only its owner can enter (issue 20).
scripts/tests/run-from-private-home.sh
# The trap's stop of the server returns only once the server has ended, even when make passes the
# group's SIGTERM on a second time (scripts/lib/stop-job.sh).
scripts/tests/stop-job.sh
