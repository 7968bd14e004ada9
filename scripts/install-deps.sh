#!/usr/bin/env bash
# Installs the system packages the build and the tests need, only when something is missing.
set -euo pipefail
need=()
for pkg in libsodium-dev libpq-dev libssl-dev libnghttp2-dev postgresql pkg-config curl python3 openssl mosquitto-clients "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
echo "installing: ${need[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
