#!/usr/bin/env bash
# `make test`: every test against a throwaway PostgreSQL, then the RFC 9420 vector suites from a
# release build (debug-built crypto is too slow for the large vector files).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh

started=""
cleanup() {
  if [ -n "$started" ]; then scripts/pg.sh stop "$started"; rm -rf "$started"; fi
}
trap cleanup EXIT
if [ -z "${DATABASE_URL:-}" ]; then
  mkdir -p .data
  started=$(mktemp -d "$root/.data/test-XXXXXX")
  chmod 755 "$started"
  DATABASE_URL=$(PG_FSYNC=off scripts/pg.sh start "$started")
fi
export DATABASE_URL
export MLS_TEST_VECTORS="${MLS_TEST_VECTORS:-$root/../shared/mls-test-vectors}"

swift build --build-tests
# A failed test fails the run: nothing is rerun.
swift test --skip-build --disable-swift-testing ${TEST_FILTER:+--filter "$TEST_FILTER"}

# The README's "Try it" commands, run for real.
scripts/try-it.sh

# Every RFC 9420 vector file, all cipher suites, from a release build.
swift build -c release --product mls-vectors
.build/release/mls-vectors "$MLS_TEST_VECTORS"
