"""Exchanges with the API server that end: one deadline per request, a cap on what a body may hold.

Why: urllib3's timeout bounds each socket operation, not the exchange. A server that drips a byte a
second (in its headers or its body), an endless chunked body or a credential plugin that never
returns would hold a command for hours, and a body that never ends would take all memory. Here:

- `exchange_within` runs the start of one exchange (credentials, connect, headers) in a daemon
  worker thread and waits for it until the deadline, no longer; the body is then read by the
  calling thread while the worker watches the clock and shuts the socket when the deadline passes.
  A late start is abandoned (the caller drops what it shared with it, see LiveClient._send), never
  waited for at exit. `run_within` is the same for one piece of work (loading credentials). No
  process-wide alarm: each request, in whichever thread, has its own deadline.
- `read_body` reads a body as before the bounds (one read of an announced length), or a piece at
  a time when its length is not announced (chunked), counting: a body larger than
  MAX_RESPONSE_BYTES is refused as soon as it is announced (Content-Length) or has grown past it,
  never held. A compressed body is refused whole: we ask for `identity`, so a server that
  compresses anyway gets no decompressor to bomb.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

# One answer of the API server: far above any real list. The API server answers `resourceVersion=0`
# lists from its watch cache in one piece whatever `limit` says (kubernetes#70735), so an answer can be
# a whole list: the largest of the 5,000-node bench cluster (bench/gen) is its ResourceSlices, 50 MB,
# with 3x the attribute data of a real cluster (docs/performance.md), so 50,000 such nodes would send
# 0.5 GB. Past this, the list is refused (its checks say `source-degraded`), never held.
MAX_RESPONSE_BYTES = 1 << 30  # 1 GiB
ERROR_BODY_BYTES = 1 << 16  # of a 4xx/5xx body, only its message is read: the rest is dropped unread
_PIECE = 1 << 20  # one read of a body whose length is not announced

T = TypeVar("T")


class Late(Exception):
    """The deadline passed before the exchange ended."""


class Oversized(Exception):
    """The body is (or says it will be) larger than the cap."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        super().__init__(limit, declared)
        self.limit = limit
        self.declared = declared


class Encoded(Exception):
    """The body is compressed although we asked for `identity`."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding)
        self.encoding = encoding


class _Worker:
    """A daemon thread that runs one piece of work at a time, handed over by `_handed`."""

    def __init__(self, name: str) -> None:
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        threading.Thread(target=_serve, args=(self.jobs,), name=name, daemon=True).start()


def _serve(jobs: queue.SimpleQueue[Any]) -> None:
    while (job := jobs.get()) is not None:
        _run(*job)
        del job  # an idle worker holds nothing: not the last answer's body, not its client


def _run(work: Callable[[], Any], outcome: list[tuple[bool, Any]], done: threading.Event) -> None:
    try:
        outcome.append((True, work()))
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread as it is
        outcome.append((False, exc))
    finally:
        done.set()


_IDLE: list[_Worker] = []  # workers whose last work ended in time, reused: a thread per request costs
_IDLE_LOCK = threading.Lock()  # more than the request on a fast cluster

R = TypeVar("R")


def _worker(name: str) -> _Worker:
    with _IDLE_LOCK:
        worker = _IDLE.pop() if _IDLE else None
    return worker if worker is not None else _Worker(name)


def _idle(worker: _Worker) -> None:
    with _IDLE_LOCK:
        _IDLE.append(worker)


def _handed(worker: _Worker, deadline: float, work: Callable[[], T]) -> T:
    """`work()` run by `worker`, waited for until `deadline`: its result or its exception (the worker is
    then idle again), else Late (the worker's thread ends with its work and is given no more)."""
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()
    worker.jobs.put((work, outcome, done))
    if not done.wait(max(deadline - time.monotonic(), 0.0)) or not outcome:
        worker.jobs.put(None)
        raise Late()
    ok, value = outcome[0]
    if ok:
        return value
    _idle(worker)
    raise value


def run_within(deadline: float, work: Callable[[], T], name: str = "rbln-request") -> T:
    """`work()`'s result or exception, if it ends by `deadline` (time.monotonic()); else Late.

    The work runs in a daemon thread, so that one that never ends (a plugin that sleeps) never holds
    the process at exit."""
    worker = _worker(name)
    value = _handed(worker, deadline, work)
    _idle(worker)
    return value


def exchange_within(
    deadline: float,
    start: Callable[[], R],
    read: Callable[[R], T],
    interrupt: Callable[[R], None],
    name: str = "rbln-request",
) -> T:
    """An exchange whole by `deadline`, else Late: `start()` (credentials, connect, headers) in a worker
    thread, waited for; then `read(started)` (the body) here, in the calling thread, while the same
    worker watches the clock and calls `interrupt(started)` (shut its socket) when the deadline passes.

    Why the body here: it is allocated by the thread that decodes it, as without the bounds, not in
    a worker's malloc arena (which kept 6 MB more at 5,000 nodes). Why a worker for the start: nothing
    can interrupt a thread blocked in it from outside (an exec plugin's refresh, headers dripped)."""
    worker = _worker(name)
    started = _handed(worker, deadline, start)
    finished = threading.Event()
    late: list[bool] = []

    def watch() -> None:
        if not finished.wait(max(deadline - time.monotonic(), 0.0)):
            late.append(True)
            interrupt(started)
        _idle(worker)

    worker.jobs.put((watch, [], threading.Event()))
    try:
        return read(started)
    except Late:
        raise
    except Exception:
        if late:  # the socket was shut under the read: that is why it failed
            raise Late() from None
        raise
    finally:
        finished.set()


def interrupt_response(response: Any) -> None:
    """Wake a thread blocked reading `response` (a urllib3 HTTPResponse) and make it fail: its socket
    is shut down for reading. Safe on a response already read to its end."""
    try:
        response.shutdown()  # urllib3 >= 2.3: made for this, from another thread
    except Exception:  # noqa: BLE001 - an older urllib3, or a connection already back in its pool
        with contextlib.suppress(Exception):  # nothing left to interrupt
            response.close()


def read_body(
    response: Any, deadline: float | None, limit: int = MAX_RESPONSE_BYTES, cut: bool = False
) -> bytes:
    """The body of a urllib3 response read with `preload_content=False`, under `limit` bytes.

    `cut`: keep the first `limit` bytes and drop the rest unread (an error's body, where only the
    message matters), instead of refusing the body. The deadline is kept by the worker watching this read
    (exchange_within shuts the socket); it is checked here between pieces too.
    The connection is closed, not reused, whenever the body was not read to its end."""
    headers = response.headers
    encoding = str(headers.get("Content-Encoding") or "identity").strip().lower()
    declared = _length(headers.get("Content-Length"))
    complete = False
    try:
        if encoding not in ("identity", ""):
            raise Encoded(encoding)
        if cut:
            return bytes(response.read(limit, decode_content=False))
        if declared is not None:
            if declared > limit:
                raise Oversized(limit, declared)
            body = response.read(decode_content=False)  # one buffer, filled by the socket: no copy
            complete = True
            return bytes(body)
        pieces: list[bytes] = []
        size = 0
        while piece := response.read(_PIECE, decode_content=False):
            size += len(piece)
            if size > limit:
                raise Oversized(limit)
            if deadline is not None and time.monotonic() > deadline:
                raise Late()
            pieces.append(piece)
        complete = True
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)
    finally:
        if not complete:
            response.close()  # a half-read connection must not go back to the pool


def _length(value: Any) -> int | None:
    try:
        length = int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    return length if length is None or length >= 0 else None
