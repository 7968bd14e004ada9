#!/usr/bin/env bash
# Regenerates the declared part of docs/configuration.md from the declarations of the variables
# (Sources/DeliveryService/Configuration): everything between its BEGIN and END markers is replaced by
# `catbird-mls-server --configuration-markdown`. ConfigurationTests fails until this has been run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build --product catbird-mls-server >/dev/null
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
.build/debug/catbird-mls-server --configuration-markdown >"$generated"
doc=docs/configuration.md
grep -q '^<!-- BEGIN generated' "$doc" && grep -q '^<!-- END generated' "$doc" || {
  echo "$doc: the BEGIN/END generated markers are missing" >&2; exit 1; }
awk -v generated="$generated" '
  /^<!-- BEGIN generated/ { print; print ""; while ((getline line < generated) > 0) print line; print ""; skipping = 1; next }
  /^<!-- END generated/ { skipping = 0 }
  !skipping { print }
' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
echo "$doc regenerated"
