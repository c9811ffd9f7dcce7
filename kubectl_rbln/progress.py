"""One progress line on stderr while long work runs: what is read or checked, and how far.

Why: reading a 5,000-node cluster or checking thousands of Pods takes seconds, and a silent
terminal looks hung (issue 16). The line appears only on a terminal, only once the work has run
past `DELAY` seconds, is redrawn at most every `INTERVAL`, and is wiped before anything else is
printed. Never on a pipe, never with `-o json|yaml` (the CLI does not enable it there), so a script
reading our output never sees it. The words are catalog sentences (`progress-*`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import threading
import time
from typing import Any, TextIO

from kubectl_rbln.terminal import redraw_line

DELAY = 1.0  # seconds of work before the line appears (RBLN_PROGRESS_DELAY overrides, for tests)
INTERVAL = 0.1  # seconds between redraws


class Progress:
    """The line itself: `show` a catalog sentence (throttled), `done` wipes it."""

    def __init__(self, stream: TextIO, lang: str, delay: float = DELAY) -> None:
        self.stream = stream
        self.lang = lang
        self.start = time.monotonic()
        self.delay = delay
        self._next = self.start + delay
        self._drawn = False
        self._lock = threading.Lock()

    def show(self, key: str, values: dict[str, Any]) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        with self._lock:
            self._next = now + INTERVAL
            from kubectl_rbln.catalog import sentence  # noqa: PLC0415 - only once a line is drawn

            text = sentence(key, self.lang, **values)
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self._write(text[:width])
            self._drawn = True

    def done(self) -> None:
        """Wipe the line (if one was drawn) and wait `delay` again before the next phase draws."""
        with self._lock:
            if self._drawn:
                self._write("")
                self._drawn = False
            self._next = time.monotonic() + self.delay

    def _write(self, text: str) -> None:
        """The line redrawn: our own carriage return and erase-line, then `text` cleaned (a Pod or a
        node name can be in it), past the terminal writer that strips every other control."""
        with contextlib.suppress(OSError, ValueError):  # a closed terminal: never fail the command for it
            redraw_line(self.stream, text)


_active: Progress | None = None


def wanted(output: str, stdout: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """A progress line is drawn for table output when stderr is a terminal and stdout is no pipe."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if output not in ("table", "wide") or os.environ.get("TERM") == "dumb":
        return False
    try:
        if not stderr.isatty():
            return False
        return not stat.S_ISFIFO(os.fstat(stdout.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # no real file behind the stream
        return False


def enable(lang: str, stream: TextIO | None = None) -> None:
    """Draw progress from now on (the CLI calls this when `wanted`)."""
    global _active
    try:
        delay = float(os.environ.get("RBLN_PROGRESS_DELAY", DELAY))
    except ValueError:
        delay = DELAY
    _active = Progress(stream or sys.stderr, lang, delay)


def disable() -> None:
    global _active
    if _active is not None:
        _active.done()
    _active = None


def enabled() -> bool:
    """Whether a line may be drawn: work done only for the line (a count of what lies ahead) is skipped
    when it is not."""
    return _active is not None


def report(key: str, **values: Any) -> None:
    """Where long work stands; nothing at all unless enabled (cheap enough to call per item)."""
    if _active is not None:
        _active.show(key, values)


def done() -> None:
    """The phase ended: wipe the line before its results are printed."""
    if _active is not None:
        _active.done()
