"""A mapped `-f` file that shrinks under us ends the command as an input error, not as a SIGBUS death.

Why: wire_read.py reads a bundle through a file mapping (the page cache's pages, handed back as
they are decoded: a 112 MB bundle costs no copy, issue 16). If the file is truncated while it is
read (`kubectl get ... > f` run again, a log rotation), touching a page past the new end raises
SIGBUS, and a process without a handler dies with no word (issue 23). Python cannot recover from
it: its own handlers return, the faulting load runs again and faults again. So while a file is
mapped, a C-level handler (installed with ctypes) writes the same one line an InputError prints,
`error: <file>: ...`, and ends the process with the input-error exit code 2. The fault is always
raised in the thread that holds the GIL (the decoders run under it), so the handler may run the
few Python calls it makes (two writes and `os._exit`).

Copying the file into anonymous memory instead would have cost ~50 ms of page faults at 5,000
nodes on every read, for a file that almost never changes; the guard costs nothing until it fires.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kubectl_rbln.errors import EXIT_USAGE

_lock = threading.Lock()
_paths: list[str] = []  # the files mapped now, innermost last: the message names the newest
_state: dict[str, Any] = {}  # "libc", "handler" (kept alive), "previous" while installed


def _message() -> bytes:
    name = _paths[-1] if _paths else "an input file"
    text = (
        f"error: {name}: the file shrank while it was read (SIGBUS on its mapping); "
        "read it again once it is written\n"
    )
    return text.encode("utf-8", "backslashreplace")


def _on_sigbus(_signum: int) -> None:
    """In the faulting thread: one line on stderr (a progress line wiped first), then exit 2."""
    try:
        if os.isatty(2):
            os.write(2, b"\r\x1b[K")
        os.write(2, _message())
    finally:
        os._exit(EXIT_USAGE)


def _install() -> None:
    if "previous" in _state:
        return
    if "libc" not in _state:
        import ctypes  # noqa: PLC0415 - only when a file is mapped

        libc = ctypes.CDLL(None, use_errno=True)
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        _state["libc"] = libc
        _state["handler"] = ctypes.CFUNCTYPE(None, ctypes.c_int)(_on_sigbus)
        _state["pointer"] = ctypes.cast(_state["handler"], ctypes.c_void_p).value
    _state["previous"] = _state["libc"].signal(signal.SIGBUS, _state["pointer"])


def _uninstall() -> None:
    previous = _state.pop("previous", None)
    _state["libc"].signal(signal.SIGBUS, previous)


@contextmanager
def guarded(path: str) -> Iterator[None]:
    """While inside, a SIGBUS (the mapped `path` truncated) is the one-line input error, exit 2;
    on platforms without SIGBUS or ctypes, nothing changes."""
    installed = False
    if hasattr(signal, "SIGBUS") and sys.platform != "win32":
        with _lock:
            try:
                _install()
                installed = True
                _paths.append(path)
            except (ImportError, OSError, AttributeError):  # no libc to ask: the default stays
                pass
    try:
        yield
    finally:
        if installed:
            with _lock:
                _paths.remove(path)
                if not _paths:
                    _uninstall()
