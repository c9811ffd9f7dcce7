"""Connections of the replay server, bounded: idle ones cost a file descriptor, never a thread.

Why: `serve` used ThreadingHTTPServer, a thread per connection for its whole life. 3,000 clients
that connect and say nothing held 3,000 threads; one that sends half a request line held one
forever; a 16 MB body was read before it was refused. Here:

- one reactor thread watches every connection between requests (`selectors`): it reads a
  request's head as it arrives, and hands the connection to a worker only once the blank line that
  ends the head is in. A connection idle for `idle_timeout`, or a head not complete within
  `head_timeout` of its first byte, is closed; so is the oldest idle one when `max_connections`
  are open or the process runs out of file descriptors.
- a pool of at most `workers` threads answers requests, one at a time per connection; the
  connection goes back to the reactor after each answer (HTTP keep-alive), or is closed.
  A request being answered is not idle, however long it runs (an exec stream, a delayed fault).
- a body larger than `max_drained_body` is never read: the handler refuses it (413, or 405 for a
  write), and the reactor reads and drops what the client still sends for at most
  `linger_seconds` and `linger_bytes` before closing ("lingering close", so the client reads the
  refusal instead of a reset).
"""

from __future__ import annotations

import collections
import contextlib
import errno
import io
import json
import queue
import re
import selectors
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from kubectl_rbln.replay.discovery import status
from kubectl_rbln.replay.tls import handshake_names

_READ_SIZE = 65536
_SCAN_EVERY = 0.25  # seconds between looks for connections past their deadline
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
_REFUSALS = {
    400: ("BadRequest", "not an HTTP request"),
    408: ("Timeout", "the request head did not arrive in time"),
    431: ("RequestHeaderFieldsTooLarge", "the request line and headers are too large"),
}


@dataclass(frozen=True)
class Limits:
    """What one `serve` holds at most, and how long it waits for a client."""

    workers: int = 32  # threads answering requests
    max_connections: int = 4096  # open connections (the oldest idle one goes first)
    idle_timeout: float = 60.0  # a connection with no request in progress
    head_timeout: float = 10.0  # from a request's first byte to the blank line ending its head
    io_timeout: float = 30.0  # one blocking read or write while a request is answered
    max_head: int = 64 * 1024  # request line and headers
    max_drained_body: int = 64 * 1024  # read and dropped (a write's JSON); a larger body is refused unread
    linger_seconds: float = 1.0  # after refusing a body: how long to drop what still comes
    linger_bytes: int = 1 << 20
    max_streams: int = 256  # open watches: each holds a thread of its own, beside the `workers`


@dataclass(eq=False)
class Connection:
    """One client connection, between the reactor and the worker answering it."""

    sock: socket.socket
    address: Any
    head: bytearray = field(default_factory=bytearray)  # bytes read ahead of the handler
    since: float = field(default_factory=time.monotonic)  # parked at / head begun at
    after: str = "close"  # the handler's verdict: "park" (keep-alive), "close", "linger"
    handshaking: bool = False  # HTTPS: the TLS handshake is not finished (the reactor drives it)
    tls: tuple[str, str, tuple[str, ...]] = ("", "", ())  # its SNI name, client CN and O groups


@dataclass(eq=False)
class _Linger:
    sock: socket.socket
    deadline: float
    budget: int


_REQUEST_LINE = re.compile(rb"[!-~]+ [!-~]+ HTTP/[0-9]+\.[0-9]+\r?\n")


def head_state(data: bytes | bytearray) -> str:
    """ "ready": the handler can answer now (the blank line ending the head is in, or a first line
    that is no HTTP/1.x request line, answered 400 or 501 from that line alone); "wait"; "junk":
    not HTTP at all (a TLS hello, binary), answered 400 by the reactor without a worker."""
    start = len(data) - len(bytes(data).lstrip(b"\r\n"))  # empty lines before a request line are skipped
    if start == len(data):
        return "wait"
    if not chr(data[start]).isascii() or not chr(data[start]).isalpha():  # a method is a token
        return "junk"
    end = data.find(b"\n", start)
    if end < 0:
        return "wait"
    if not _REQUEST_LINE.fullmatch(bytes(data[start : end + 1])):
        return "ready"
    return "ready" if data.find(b"\n\r\n", end) >= 0 or data.find(b"\n\n", end) >= 0 else "wait"


class ConnectionPool:
    """The reactor and the workers of one server; `add` takes each accepted socket."""

    def __init__(self, server: PooledHTTPServer, limits: Limits) -> None:
        self.server = server
        self.limits = limits
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._lock = threading.Lock()
        self._inbox: collections.deque[Connection | _Linger] = collections.deque()
        self._parked: dict[Connection, None] = {}  # insertion order: the oldest idle first
        self._lingering: set[_Linger] = set()
        self._work: queue.SimpleQueue[Connection | None] = queue.SimpleQueue()
        self._busy = 0  # connections queued for or held by a worker
        self._workers = 0
        self._streams = 0  # workers holding an open watch (not counted against `workers`)
        self._idle_workers = 0
        self._reactor: threading.Thread | None = None
        self._closing = False
        self._next_scan = 0.0
        self._shed = 0  # idle connections to close for file descriptors (asked by the accept thread)

    # ------------------------------------------------------------ from other threads

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._parked) + self._busy + len(self._inbox)

    @property
    def threads(self) -> int:
        """Threads this pool runs now: the workers and the reactor."""
        with self._lock:
            return self._workers + (1 if self._reactor is not None else 0)

    @property
    def streams(self) -> int:
        """Watches being streamed now."""
        with self._lock:
            return self._streams

    def begin_stream(self) -> bool:
        """A worker starts a watch, which lasts as long as its client likes: it no longer counts
        against `workers`, and when no other worker is idle a new one starts (a request queued while
        this one was counted idle is answered), up to `max_streams`; False at the bound."""
        with self._lock:
            if self._streams >= self.limits.max_streams:
                return False
            self._streams += 1
            spawn = self._idle_workers == 0 and self._workers - self._streams < self.limits.workers
            if spawn:
                self._workers += 1
        if spawn:
            threading.Thread(target=self._serve, name="rbln-replay-worker", daemon=True).start()
        return True

    def end_stream(self) -> None:
        with self._lock:
            self._streams -= 1

    def add(self, sock: socket.socket, address: Any) -> None:
        """A newly accepted connection: watched until its first request's head is in (and, on HTTPS,
        until its handshake is done: the reactor drives it without blocking, within head_timeout)."""
        sock.setblocking(False)
        context = getattr(self.server, "ssl_context", None)
        if context is None:
            self._post(Connection(sock, address))
            return
        try:
            wrapped = context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except (OSError, ValueError):
            self._forget(sock)
            return
        self._post(Connection(wrapped, address, handshaking=True))

    def shed(self) -> None:
        """Out of file descriptors: the reactor closes the oldest idle connection to make room."""
        with self._lock:
            self._shed += 1
        self._wake()

    def close(self) -> None:
        """Stop the reactor and the workers; close every connection not being answered."""
        with self._lock:
            self._closing = True
            reactor, workers = self._reactor, self._workers
        self._wake()
        if reactor is not None:
            reactor.join(timeout=5)
        for _ in range(workers):
            self._work.put(None)
        with self._lock:
            parked, self._parked = list(self._parked), {}
            lingering, self._lingering = list(self._lingering), set()
            inbox = list(self._inbox)
            self._inbox.clear()
        for item in [*parked, *lingering, *inbox]:
            self._forget(item.sock)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()

    def _post(self, item: Connection | _Linger) -> None:
        with self._lock:
            if self._closing:
                closing = True
            else:
                closing = False
                self._inbox.append(item)
                if self._reactor is None:
                    self._reactor = threading.Thread(
                        target=self._run, name="rbln-replay-reactor", daemon=True
                    )
                    self._reactor.start()
        if closing:
            self._forget(item.sock)
        else:
            self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # already woken (a full pipe: BlockingIOError), or closing
            self._wake_w.send(b"\0")

    # ------------------------------------------------------------ the reactor thread

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closing:
                    return
            try:
                events = self._selector.select(_SCAN_EVERY)
            except (OSError, ValueError):  # closed under us while stopping
                return
            for key, _ in events:
                if key.data is None:
                    self._drain_wake()
                elif isinstance(key.data, _Linger):
                    self._drop_lingering(key.data)
                else:
                    self._read_head(key.data)
            self._take_inbox()
            self._shed_idle()
            now = time.monotonic()
            if now >= self._next_scan:
                self._next_scan = now + _SCAN_EVERY
                self._expire(now)

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _take_inbox(self) -> None:
        while True:
            with self._lock:
                if not self._inbox:
                    return
                item = self._inbox.popleft()
            if isinstance(item, _Linger):
                self._watch(item.sock, item)
                with self._lock:
                    self._lingering.add(item)
            elif head_state(item.head) == "ready":
                self._dispatch(item)  # a pipelined request already read ahead
            else:
                self._park(item)

    def _shed_idle(self) -> None:
        with self._lock:
            count, self._shed = self._shed, 0
            victims = [c for c in self._parked if not c.head][:count]
        for victim in victims:
            self._drop(victim)

    def _park(self, conn: Connection) -> None:
        with self._lock:
            crowded = len(self._parked) + self._busy + len(self._inbox) >= self.limits.max_connections
            victim = next((c for c in self._parked if not c.head), None) if crowded else None
            if victim is not None:
                del self._parked[victim]
            self._parked[conn] = None
        if victim is not None:
            self._unwatch(victim.sock)
            self._forget(victim.sock)
        if not self._watch(conn.sock, conn):
            with self._lock:
                self._parked.pop(conn, None)
            self._forget(conn.sock)

    def _watch(self, sock: socket.socket, data: Any) -> bool:
        try:
            self._selector.register(sock, selectors.EVENT_READ, data)
            return True
        except (OSError, ValueError, KeyError):  # closed by the client meanwhile
            return False

    def _unwatch(self, sock: socket.socket) -> None:
        with contextlib.suppress(OSError, ValueError, KeyError):
            self._selector.unregister(sock)

    def _handshake(self, conn: Connection) -> bool:
        """One step of a TLS handshake; True once it is done (its names kept for the audit)."""
        sock = conn.sock
        assert isinstance(sock, ssl.SSLSocket)
        try:
            sock.do_handshake()
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return False
        except (OSError, ValueError):  # not TLS, a certificate refused, the client gone
            self._drop(conn)
            return False
        conn.handshaking = False
        conn.tls = handshake_names(sock)
        return True

    def _read_head(self, conn: Connection) -> None:
        if conn.handshaking and not self._handshake(conn):
            return
        try:
            data = conn.sock.recv(_READ_SIZE)
            data += _pending(conn.sock)
        except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return
        except OSError:
            data = b""
        if not data:  # the client closed (or reset) the connection
            self._drop(conn)
            return
        if not conn.head:
            conn.since = time.monotonic()  # the head timeout runs from its first byte
        conn.head += data
        state = head_state(conn.head)
        if state == "ready":
            self._unwatch(conn.sock)
            with self._lock:
                self._parked.pop(conn, None)
            self._dispatch(conn)
        elif state == "junk":
            self._refuse(conn, 400)
        elif len(conn.head) > self.limits.max_head:
            self._refuse(conn, 431)

    def _refuse(self, conn: Connection, code: int) -> None:
        """A head that will never be answered: its Status, written only if the socket takes it now."""
        reason, message = _REFUSALS[code]
        body = json.dumps(status(code, reason, message)).encode()
        head = f"HTTP/1.1 {code} {HTTPStatus(code).phrase}\r\nContent-Type: application/json\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        with contextlib.suppress(OSError):
            conn.sock.send(head.encode() + body)
        self._drop(conn)

    def _drop(self, conn: Connection) -> None:
        self._unwatch(conn.sock)
        with self._lock:
            self._parked.pop(conn, None)
        self._forget(conn.sock)

    def _drop_lingering(self, linger: _Linger) -> None:
        try:
            data = linger.sock.recv(_READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        linger.budget -= len(data)
        if not data or linger.budget <= 0:
            self._end_linger(linger)

    def _end_linger(self, linger: _Linger) -> None:
        self._unwatch(linger.sock)
        with self._lock:
            self._lingering.discard(linger)
        self._forget(linger.sock)

    def _expire(self, now: float) -> None:
        limits = self.limits
        with self._lock:
            late = [
                c
                for c in self._parked
                if now - c.since > (limits.head_timeout if c.head or c.handshaking else limits.idle_timeout)
            ]
            ended = [item for item in self._lingering if now >= item.deadline]
        for conn in late:
            if conn.head:
                self._refuse(conn, 408)
            else:
                self._drop(conn)
        for linger in ended:
            self._end_linger(linger)

    def _dispatch(self, conn: Connection) -> None:
        with self._lock:
            self._busy += 1
            spawn = self._idle_workers == 0 and self._workers - self._streams < self.limits.workers
            if spawn:
                self._workers += 1
        if spawn:
            threading.Thread(target=self._serve, name="rbln-replay-worker", daemon=True).start()
        self._work.put(conn)

    # ------------------------------------------------------------ the worker threads

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle_workers += 1
            conn = self._work.get()
            with self._lock:
                self._idle_workers -= 1
            if conn is None:
                return
            try:
                conn.sock.settimeout(self.limits.io_timeout)
                self.server.finish_request(conn, conn.address)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - a broken connection ends, the server goes on
                conn.after = "close"
            finally:
                with self._lock:
                    self._busy -= 1
            self._after(conn)
            with self._lock:  # a watch ended: the workers that replaced it are enough
                if self._workers - self._streams > self.limits.workers:
                    self._workers -= 1
                    return

    def _after(self, conn: Connection) -> None:
        if conn.after == "park":
            try:
                conn.sock.setblocking(False)
            except OSError:
                self._forget(conn.sock)
                return
            conn.since = time.monotonic()
            self._post(conn)
        elif conn.after == "linger":
            try:
                conn.sock.shutdown(socket.SHUT_WR)  # the answer is out; what still comes is dropped
                conn.sock.setblocking(False)
            except OSError:
                self._forget(conn.sock)
                return
            limits = self.limits
            self._post(_Linger(conn.sock, time.monotonic() + limits.linger_seconds, limits.linger_bytes))
        else:
            self.server.shutdown_request(conn.sock)

    @staticmethod
    def _forget(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.close()


class _PrefixedReader(io.RawIOBase):
    """The socket, after the bytes the reactor already read from it."""

    def __init__(self, prefix: bytes, sock: socket.socket) -> None:
        super().__init__()
        self._prefix = memoryview(prefix)
        self._sock: socket.socket | None = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            size = min(len(buffer), len(self._prefix))
            buffer[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        if self._sock is None:
            return 0
        return self._sock.recv_into(buffer)

    def leftover(self, buffered: io.BufferedIOBase) -> bytes:
        """What was read ahead and not used (a pipelined request), without reading the socket again
        (on HTTPS, what TLS already decrypted too: the reactor's selector cannot see those bytes)."""
        sock, self._sock = self._sock, None
        ahead = buffered.read() or b""
        return ahead + (_pending(sock) if sock is not None else b"")


def _pending(sock: socket.socket) -> bytes:
    """Bytes TLS has decrypted and not handed out yet (none on plain HTTP)."""
    data = b""
    while isinstance(sock, ssl.SSLSocket) and sock.pending():
        data += sock.recv(sock.pending())
    return data


class _SocketWriter(io.BufferedIOBase):
    """Unbuffered writes to the socket (socketserver's own writer is private)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._sock.sendall(data)
        with memoryview(data) as view:
            return view.nbytes

    def fileno(self) -> int:
        return self._sock.fileno()


class PooledRequestHandler(BaseHTTPRequestHandler):
    """One request per call, on a connection the pool owns; says what becomes of it afterwards."""

    request: Connection
    linger = False  # set when a body was refused unread: the pool drops what still comes, then closes

    def setup(self) -> None:
        conn = self.request
        self.connection = conn.sock
        if self.disable_nagle_algorithm:
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        self._reader = _PrefixedReader(bytes(conn.head), conn.sock)
        conn.head = bytearray()
        self.rfile = io.BufferedReader(self._reader, _READ_SIZE)
        self.wfile = _SocketWriter(conn.sock)

    def handle(self) -> None:
        conn = self.request
        self.close_connection = True
        self.handle_one_request()
        if self.close_connection:
            conn.after = "linger" if self.linger else "close"
            return
        try:
            conn.head = bytearray(self._reader.leftover(self.rfile))
        except OSError:
            conn.after = "close"
            return
        conn.after = "park"


class PooledHTTPServer(HTTPServer):
    """An HTTPServer whose accepted connections go to a `ConnectionPool`, not to a thread each."""

    ssl_context: ssl.SSLContext | None = None  # HTTPS: every accepted socket is wrapped with it

    def __init__(self, address: tuple[str, int], handler: type[PooledRequestHandler], limits: Limits) -> None:
        self.limits = limits
        self.pool = ConnectionPool(self, limits)  # first: a failed bind calls server_close()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.pool.add(request, client_address)

    def get_request(self) -> tuple[socket.socket, Any]:
        try:
            return super().get_request()
        except OSError as exc:
            if exc.errno in _OUT_OF_FILES:
                self.pool.shed()
                time.sleep(0.01)  # the reactor closes an idle one; never spin on the backlog
            raise

    def server_close(self) -> None:
        super().server_close()
        self.pool.close()
