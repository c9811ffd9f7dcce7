"""Which connection an exchange is using, so that a late one can be shut from outside its thread.

Why: `bounded.exchange_within` gives up on an exchange whose headers do not arrive by the deadline,
but the worker thread stays blocked in urllib3's `getresponse` for as long as the server keeps
dripping bytes (each read returns before the socket timeout). Over a `why --watch` that polls a
dripping server, one blocked thread a poll would pile up. The client's pools are given a connection
class that tells the exchange's `Trace` which connection it is sending on (urllib3's own extension
point, `PoolManager.pool_classes_by_scheme`: nothing of the client is patched); on Late the caller
shuts that socket and the worker's read fails at once, so the thread ends with its exchange.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from functools import cache
from typing import Any

_CURRENT = threading.local()  # the Trace of the exchange this (worker) thread runs


class Trace:
    """One exchange's connection, once it sends; `interrupt()` shuts it, now or as soon as it sends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connection: Any = None
        self._abandoned = False

    def bind(self) -> None:
        """Called first by the exchange, in the thread that runs it."""
        _CURRENT.trace = self

    def sending(self, connection: Any) -> None:
        with self._lock:
            self._connection = connection
            abandoned = self._abandoned
        if abandoned:  # given up on before it even sent: it must not wait for an answer either
            _shut(connection)

    def interrupt(self) -> None:
        with self._lock:
            self._abandoned = True
            connection = self._connection
        if connection is not None:
            _shut(connection)


def _shut(connection: Any) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _note(connection: Any) -> None:
    trace = getattr(_CURRENT, "trace", None)
    if trace is not None:
        trace.sending(connection)


@cache
def _pool_classes() -> dict[str, Any]:
    """urllib3's pools, with connections that tell the current Trace before they send (made once)."""
    from urllib3.connection import HTTPConnection, HTTPSConnection  # noqa: PLC0415
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool  # noqa: PLC0415

    class TracedHTTPConnection(HTTPConnection):
        def request(self, *args: Any, **kwargs: Any) -> Any:
            _note(self)
            return super().request(*args, **kwargs)

    class TracedHTTPSConnection(HTTPSConnection):
        def request(self, *args: Any, **kwargs: Any) -> Any:
            _note(self)
            return super().request(*args, **kwargs)

    class TracedHTTPConnectionPool(HTTPConnectionPool):
        ConnectionCls = TracedHTTPConnection

    class TracedHTTPSConnectionPool(HTTPSConnectionPool):
        ConnectionCls = TracedHTTPSConnection

    return {"http": TracedHTTPConnectionPool, "https": TracedHTTPSConnectionPool}


def trace_connections(api_client: Any) -> Any:
    """`api_client`, its pools now making traced connections; a client without the usual pool
    manager is left as it is (its late exchanges then end when the server lets them)."""
    manager = getattr(getattr(api_client, "rest_client", None), "pool_manager", None)
    if manager is not None and isinstance(getattr(manager, "pool_classes_by_scheme", None), dict):
        manager.pool_classes_by_scheme = _pool_classes()
    return api_client
