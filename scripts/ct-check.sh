#!/usr/bin/env bash
# Constant-time check of the native ML-KEM-768 and X-Wing (see docs/xwing.md): each operation runs
# under Valgrind's Memcheck with its secret inputs taken from never-written memory, so every branch,
# conditional move or address computed from a secret is reported. Two reports are expected and
# allowed, both on values that are not secret:
#   - SampleNTT's rejection loop (MLKEMSampling.swift) reads ρ, which is public (it is in ek), but
#     Memcheck sees it derived from the secret key-generation seed;
#   - X25519.sharedSecret's refusal of an all-zero result (RFC 7748 §6.1) reveals only that bit.
# Anything else fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh valgrind
log=$(swift build -c release --product ct-check 2>&1) || { echo "$log"; exit 1; }
failed=0
for op in shake mlkem-keygen mlkem-encaps mlkem-decaps mlkem-decaps-rejected xwing-encaps xwing-decaps; do
  report=$(valgrind --quiet --num-callers=8 .build/release/ct-check "$op" 2>&1 || true)
  # One block per Memcheck error: its "at"/"by" frames, joined on one line.
  blocks=$(awk '/^==[0-9]+== [A-Z]/ {if (b) print b; b=$0; next} /^==[0-9]+==    (at|by)/ {b=b" | "$0} END {if (b) print b}' <<<"$report")
  total=$(grep -c . <<<"$blocks" || true)
  others=$(awk '!((/MLKEMSampling\.swift/ && /sampleNTT/) || (/DiffieHellman\.swift/ && /X25519O12sharedSecret/))' <<<"$blocks")
  unexpected=$(grep -c . <<<"$others" || true)
  echo "$op: $total reports, $((total - unexpected)) on public data (ρ, the X25519 all-zero check), $unexpected unexpected"
  if [ "$unexpected" -gt 0 ]; then
    failed=1
    tr '|' '\n' <<<"$others" | head -40
  fi
done
[ "$failed" -eq 0 ] && echo "ct-check: no secret-dependent branch or address" || { echo "ct-check: FAILED"; exit 1; }
