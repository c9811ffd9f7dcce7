"""What a `kubectl rbln` command writes to a terminal: its stdout and stderr on one pty.

Why: colour, progress lines and the wrapping of errors are decided by `isatty`, so a test of them
must run the command on a real pseudo-terminal, not a pipe (tests/robustness/test_terminal_escapes.py,
tests/cli/test_lang_everywhere.py)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def on_a_terminal(args: list[str], env: dict[str, str], seconds: float = 30) -> bytes:
    """The bytes `python -m kubectl_rbln ARGS` wrote to the terminal within `seconds`."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_rbln", *args], stdout=follower, stderr=follower, cwd=REPO, env=env
    )
    os.close(follower)
    chunks, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the pty's other end closed: the command ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    process.wait(timeout=5)
    os.close(leader)
    return b"".join(chunks)
