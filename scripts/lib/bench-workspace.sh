# Sourced by scripts/bench.sh and scripts/bench-instructions.sh, from the checkout's root: a scratch
# folder `.data/$1-XXXXXX` (`dir`, with plc/ and load/), its own PostgreSQL cluster (DATABASE_URL),
# `pids` whose processes are stopped, and both removed, on exit; `free_port`.
mkdir -p .data
dir=$(mktemp -d "$PWD/.data/$1-XXXXXX")
mkdir "$dir/plc" "$dir/load"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  scripts/pg.sh destroy "$dir/pg"
  rm -rf "$dir"
}
trap cleanup EXIT
export DATABASE_URL=$(scripts/pg.sh start "$dir/pg")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
