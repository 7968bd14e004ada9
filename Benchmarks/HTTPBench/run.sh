#!/usr/bin/env bash
# Builds the HTTP module plus a trivial responder in release mode and runs wrk against it.
# Usage: Benchmarks/HTTPBench/run.sh [wrk args]   (default: -t2 -c64 -d10s)
# Server knobs (environment): PORT (18080), IO_THREADS, BLOCKING=1 (answer on the worker pool),
# BODY_SIZE (bytes of response body), REUSE_PORT=1 (one SO_REUSEPORT listener per I/O thread).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/http-bench
mkdir -p "$out"
swiftc -O -wmo -parse-as-library -module-name HTTPBench -I Sources/CSystem -I Sources/COpenSSL \
    $(find Sources/HTTP -name '*.swift') \
    Benchmarks/HTTPBench/HTTPBenchServer.swift -o "$out/http-bench-server"
command -v wrk >/dev/null || { echo "wrk not installed (apt-get install -y wrk)"; exit 1; }
PORT=${PORT:-18080} "$out/http-bench-server" & server=$!
trap 'kill $server' EXIT
sleep 1
wrk ${@:--t2 -c64 -d10s} "http://127.0.0.1:${PORT:-18080}/"
