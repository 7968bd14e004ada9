#!/usr/bin/env bash
# The chat contract's independent checks (Tests/Interop/README.md): every line of a capture file
# written by the chat walkthrough, against lexicon/chat/ with lexrpc, libipld and cryptography.
#   scripts/chat-checks.sh CAPTURE_FILE    check a capture (JSON Lines)
#   scripts/chat-checks.sh --self-test     check the checker with hand-made lines
# The pinned PyPI packages of Tests/Interop/chat-requirements.txt live in .data/chat-venv (git-ignored).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=$("$root/scripts/interop-venv.sh" "$root/Tests/Interop/chat-requirements.txt" "$root/.data/chat-venv")
exec "$python" "$root/Tests/Interop/chat_checks.py" --lexicons "$root/lexicon/chat" "$@"
