#!/usr/bin/env bash
# scripts/lib/stop-job.sh, as scripts/run.sh uses it: a script run by make stops its job from a trap
# on SIGTERM to make's whole process group, and returns only once the job has ended, run after run.
# Make passes the SIGTERM on to the script some tens of microseconds after the group got it; when
# that second SIGTERM lands just before the trap starts, bash's `wait` in the trap returns at once
# (see the library). A single `wait` returned early in about one run in ten here, and in the real
# `make run` the server then got a second SIGTERM from --pdeathsig as the script ended (issue 20's
# test, step 2). STOP_JOB_RUNS sets how many runs (default 150).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${STOP_JOB_RUNS:-150}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The script make runs: run.sh's structure, with a job that takes a few milliseconds to end after
# SIGTERM in place of the server (a session of its own, so only stop_job signals it).
cat >"$work/stopper.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
. "$root/scripts/lib/stop-job.sh"
stop() {
  trap '' INT TERM HUP
  local status=0 job
  job=\$(jobs -p)
  stop_job "\$job" || status=\$?
  if kill -0 "\$job" 2>/dev/null; then echo "stop_job returned while the job still ran"; else echo ended; fi >"\$1"
  exit "\$status"
}
trap 'stop "\$1"' INT TERM HUP
setsid bash -c 'trap "exit 0" TERM; while :; do sleep 0.005; done' &
: >"\$1.ready"
wait \$! || true
echo "the job ended by itself" >"\$1"
EOF
chmod +x "$work/stopper.sh"
printf 'all:\n\t@%s $(OUT)\n' "$work/stopper.sh" >"$work/Makefile"

failed=0
for i in $(seq 1 "$runs"); do
  out=$work/out.$i
  setsid make -s -f "$work/Makefile" OUT="$out" >/dev/null 2>&1 &
  make_pid=$!
  for _ in $(seq 1 1000); do [ -e "$out.ready" ] && break; sleep 0.01; done
  [ -e "$out.ready" ] || { echo "FAILED: run $i: the script never started its job"; exit 1; }
  kill -TERM -- "-$make_pid"
  wait "$make_pid" 2>/dev/null || true
  result=$(cat "$out" 2>/dev/null || echo "the script left no result")
  [ "$result" = ended ] || { echo "run $i: $result"; failed=$((failed + 1)); }
done
[ "$failed" -eq 0 ] || { echo "FAILED: stop-job: $failed of $runs runs"; exit 1; }
echo "stop-job: $runs runs, the job had ended every time stop_job returned"
