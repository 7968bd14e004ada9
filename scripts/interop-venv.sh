#!/usr/bin/env bash
# The Python environment of the interop run: a virtual environment in .data/venv (git-ignored) with
# the pinned packages of Tests/Interop/requirements.txt. Reinstalls only when that file changed.
# Prints the environment's python. `interop-venv.sh REQUIREMENTS VENV` does the same for another set
# (scripts/chat-checks.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${2:-${INTEROP_VENV:-$root/.data/venv}}
requirements=${1:-$root/Tests/Interop/requirements.txt}
stamp=$venv/.requirements.sha256
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "interop: installing $(grep -cv '^#' "$requirements") pinned PyPI packages of $(basename "$requirements") into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2
  echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
