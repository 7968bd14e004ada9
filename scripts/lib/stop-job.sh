# Sourced by scripts/run.sh (and by scripts/tests/stop-job.sh, its test).

# stop_job PID: send this shell's background job PID one SIGTERM and return once it has ended, with
# its exit status.
#
# One `wait` is not enough in a trap. bash (5.2, and 5.3 alike) records a trapped signal that arrives
# while `wait` is the last builtin it ran (wait_signal_received), and only a `wait` returning clears
# that record. When a second SIGTERM comes in after the first has cut the script's `wait` short but
# before the trap starts (make passes its SIGTERM on to its child some tens of microseconds after a
# SIGTERM to the whole process group has reached both), both run one trap, and the record left behind
# makes the trap's own `wait` return 143 at once, the job still running. So: while `wait` says the
# job was interrupted (status above 128) and the process is still there (running, or ended and not
# yet reaped), wait again. A job already gone (reaped, or never ours) ends the loop whatever `wait`
# said, so it never spins.
stop_job() {
  local status
  kill -TERM "$1" 2>/dev/null || true
  while :; do
    wait "$1" && status=0 || status=$?
    if [ "$status" -le 128 ] || ! kill -0 "$1" 2>/dev/null; then return "$status"; fi
  done
}
