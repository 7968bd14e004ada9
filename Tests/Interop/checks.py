"""The run of an interop script: every check prints one `ok:` line; the first failure ends the run."""
from __future__ import annotations

import time
import traceback
from typing import Callable


class Run:
    def __init__(self):
        self.passed = 0

    def ok(self, text: str) -> None:
        self.passed += 1
        print(f"ok: {text}", flush=True)

    def expect(self, condition: bool, text: str) -> None:
        if not condition:
            raise AssertionError(text)
        self.ok(text)


def run_checks(name: str, body: Callable[[Run], None]) -> int:
    """Runs `body` and prints the tally under `name`; the exit status (1 on any failure)."""
    run = Run()
    started = time.monotonic()
    try:
        body(run)
    except Exception:
        traceback.print_exc()
        print(f"FAILED after {run.passed} checks")
        print(f"{name}: {run.passed} passed, 1 failed")
        return 1
    print(f"{name}: {run.passed} passed, 0 failed ({time.monotonic() - started:.1f} s)")
    return 0
