"""Processes this command started and gave up on: ended, not left running after it exits.

Why: the client runs a kubeconfig's `exec:` credential plugin with `subprocess` inside its loader and
keeps the process to itself. When the plugin does not answer by the deadline (a login waiting for a
browser that never opens), the command exits 3, and the plugin would live on as an orphan, holding a
terminal or a port. Linux lists a process's children in /proc; elsewhere there is nothing to read
and they are left as before (said in docs/exit-codes.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

GRACE = 0.5  # seconds a plugin has to end on SIGTERM before SIGKILL


def children() -> set[int]:
    """The pids of this process's children now (every thread's), empty where /proc does not say."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def end_children(before: set[int]) -> list[int]:
    """End every child started since `before` was taken: SIGTERM, then SIGKILL after GRACE. The pids
    signalled, in order. A child that already ended is skipped."""
    started = sorted(children() - before)
    for pid in started:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    alive = list(started)
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _running(pid)]
        if alive:
            time.sleep(0.02)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return started


def _running(pid: int) -> bool:
    """Not yet reaped and not a zombie (the client's thread may reap it once it ends)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
