"""The watch API of the replay server: a bundle that changes on disk, streamed as WatchEvents.

`kubectl get pods -w`, informers and `kubectl rbln why --watch` list once and then watch
(`?watch=1&resourceVersion=N`): the server keeps the connection open and writes one JSON
WatchEvent per line (`{"type":"MODIFIED","object":{...}}`, chunked) as objects change. Here a change
is a new state of the bundle on disk (replay/reload.py re-reads it): `WatchHub.install` diffs the old
and the new objects per resource by (namespace, name), uid and content, numbers each change with the
next resourceVersion (a real API server bumps it on every write; a rewritten bundle often keeps the
old ones) and keeps the last `HISTORY` events, so a watch resumed from a recent resourceVersion misses
nothing and one from an older one gets 410 Expired, as from kube-apiserver's watch cache.

An open watch re-reads the bundle itself while it waits (no other request may come to do it), ends at
`timeoutSeconds`, when the client goes away or when the server stops, and holds a thread of its own,
not one of the pool's workers (replay/connections.py `begin_stream`).
"""

from __future__ import annotations

import collections
import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubectl_rbln.replay import tables
from kubectl_rbln.replay.discovery import status
from kubectl_rbln.replay.resources import Resource
from kubectl_rbln.replay.store import ObjectStore, Stored, encode
from kubectl_rbln.selectors import FieldRequirement, LabelRequirement, match_fields, match_labels

HISTORY = 10_000  # events kept for watches that resume from a resourceVersion
DEFAULT_TIMEOUT = 1800.0  # kube-apiserver's --min-request-timeout
MAX_TIMEOUT = 3600.0
BOOKMARK_EVERY = 5.0  # seconds between BOOKMARKs when the client allows them (the apiserver: ~1 min)
POLL = 0.2  # how often an open watch looks at the bundle on disk and at its client
INITIAL_EVENTS_END = "k8s.io/initial-events-end"

ResourceKey = tuple[str, str]  # (group, plural)
ObjectKey = tuple[str, str]  # (namespace, name)


@dataclass(frozen=True)
class Change:
    """One watch event: its resourceVersion, type, the object (the last state for DELETED) and, for
    MODIFIED, the state before (a selector may have matched one and not the other)."""

    revision: int
    type: str
    resource: ResourceKey
    namespace: str
    obj: dict[str, Any]
    before: dict[str, Any] | None = None


class WatchHub:
    """The changes of the served bundle, numbered; watches wait here for the next ones."""

    def __init__(self, store: ObjectStore, history: int = HISTORY) -> None:
        self.revision = _number(store.resource_version) or 1
        self._changes: collections.deque[Change] = collections.deque(maxlen=history)
        self._cond = threading.Condition()
        self.closed = False

    @property
    def oldest(self) -> int:
        """The lowest resourceVersion a watch may resume from without missing a change."""
        with self._cond:
            return self._changes[0].revision - 1 if len(self._changes) == self._changes.maxlen else 0

    def install(self, old: ObjectStore, objects: list[dict[str, Any]]) -> ObjectStore:
        """The store to serve `objects` from, after `old`: unchanged objects keep the resourceVersion
        they were served with, changed ones get the next ones, and each change is an event."""
        new = ObjectStore(objects)
        before, after = old.indexed(), new.indexed()
        kept: dict[tuple[ResourceKey, ObjectKey], Stored] = {}
        changes: list[Change] = []
        with self._cond:
            revision = self.revision
            for resource_key in sorted(set(before) | set(after)):
                was, now = before.get(resource_key, {}), after.get(resource_key, {})
                for key in sorted(set(was) | set(now)):
                    a, b = was.get(key), now.get(key)
                    if a is not None and b is not None and _same(a.obj, b.obj):
                        kept[(resource_key, key)] = a  # as it was served, resourceVersion included
                        continue
                    if a is not None and (b is None or _uid(a.obj) != _uid(b.obj)):
                        revision += 1
                        gone = _stamped(a.obj, revision)
                        changes.append(Change(revision, "DELETED", resource_key, key[0], gone))
                    if b is not None:
                        revision = max(revision + 1, _number(_meta(b.obj).get("resourceVersion")))
                        stamped = _stamped(b.obj, revision)
                        kind = "MODIFIED" if a is not None and _uid(a.obj) == _uid(b.obj) else "ADDED"
                        previous = a.obj if kind == "MODIFIED" and a is not None else None
                        changes.append(Change(revision, kind, resource_key, key[0], stamped, previous))
                        kept[(resource_key, key)] = Stored(b.namespace, b.name, stamped, encode(stamped))
            new.adopt(kept, str(revision))
            self.revision = revision
            self._changes.extend(changes)
            self._cond.notify_all()
        return new

    def after(self, revision: int, timeout: float) -> tuple[list[Change], int] | None:
        """The changes after `revision` (waiting up to `timeout` for one) and the revision they reach;
        None when some of them are no longer kept (the client must list again: 410)."""
        with self._cond:
            if not self.closed and self.revision <= revision:
                self._cond.wait(timeout)
            full = bool(self._changes) and len(self._changes) == self._changes.maxlen
            if full and revision < self._changes[0].revision - 1:
                return None
            found = [c for c in self._changes if c.revision > revision]
            return found, max(revision, self.revision)

    def close(self) -> None:
        """The server stops: every open watch ends."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


@dataclass(frozen=True)
class WatchRequest:
    """What a `?watch=1` list asks for."""

    resource: Resource
    version: str
    namespace: str | None
    labels: list[LabelRequirement]
    fields: list[FieldRequirement]
    resource_version: str
    timeout: float
    bookmarks: bool
    initial_events: bool
    table: str | None  # a Table version, when the client asked for tables
    include: str = "Metadata"

    def matches(self, namespace: str, obj: dict[str, Any] | None) -> bool:
        if obj is None:
            return False
        if self.namespace is not None and namespace != self.namespace:
            return False
        if self.labels and not match_labels(self.labels, obj):
            return False
        return not (self.fields and not match_fields(self.fields, obj))


def parse_timeout(text: str) -> float:
    """`timeoutSeconds`: a non-negative integer (0 or absent: the server's default), capped."""
    if not text:
        return DEFAULT_TIMEOUT
    if not text.isdigit():
        raise ValueError(f"invalid timeoutSeconds {text!r}: must be a non-negative integer")
    seconds = int(text)
    return min(float(seconds), MAX_TIMEOUT) if seconds else DEFAULT_TIMEOUT


class WatchStream:
    """Writes one watch to a client: chunked JSON lines, until the timeout, the client or the server
    ends it."""

    def __init__(
        self,
        request: WatchRequest,
        hub: WatchHub,
        store: ObjectStore,
        write: Callable[[bytes], object],
        sock: socket.socket,
        refresh: Callable[[], None],
        now: Callable[[], datetime],
    ) -> None:
        self.request = request
        self.hub = hub
        self.store = store
        self.write = write
        self.sock = sock
        self.refresh = refresh
        self.now = now
        self.printer = (
            tables.printer_for(request.resource.group, request.resource.kind) if request.table else None
        )
        self._headers_sent = False

    def start_revision(self) -> int | None:
        """Where the stream starts; None: the resourceVersion asked for is too old (410)."""
        text = self.request.resource_version
        if self.request.initial_events or text in ("", "0"):
            return _number(self.store.resource_version)
        start = _number(text)
        return None if start < self.hub.oldest else start

    def run(self) -> None:
        start = self.start_revision()
        if start is None:
            self._send_expired(self.request.resource_version)
            self._end()
            return
        request = self.request
        if request.initial_events or request.resource_version in ("", "0"):
            self._initial(start)
        deadline = time.monotonic() + request.timeout
        next_bookmark = time.monotonic() + BOOKMARK_EVERY
        revision = start
        while not self.hub.closed and time.monotonic() < deadline:
            self.refresh()
            found = self.hub.after(revision, min(POLL, max(0.0, deadline - time.monotonic())))
            if found is None:
                self._send_expired(str(revision))
                break
            changes, revision = found
            for change in changes:
                self._send_change(change)
            if request.bookmarks and time.monotonic() >= next_bookmark:
                self._send("BOOKMARK", self._bookmark(revision))
                next_bookmark = time.monotonic() + BOOKMARK_EVERY
            if _client_gone(self.sock):
                return
        self._end()

    # ------------------------------------------------------------ events

    def _initial(self, revision: int) -> None:
        """ADDED for every object now (a watch from resourceVersion 0 or "", or sendInitialEvents)."""
        request = self.request
        page = self.store.list(request.resource, request.namespace, request.labels, request.fields, 0, "")
        for stored in page.items:
            self._send("ADDED", stored.obj)
        if request.initial_events and request.bookmarks:
            bookmark = self._bookmark(revision)
            bookmark["metadata"]["annotations"] = {INITIAL_EVENTS_END: "true"}
            self._send("BOOKMARK", bookmark)

    def _send_change(self, change: Change) -> None:
        request = self.request
        if change.resource != (request.resource.group, request.resource.plural):
            return
        now_matches = request.matches(change.namespace, change.obj)
        if change.type == "MODIFIED":
            before_matches = request.matches(change.namespace, change.before)
            if before_matches and not now_matches:
                self._send("DELETED", change.obj)  # left the selection: gone, for this watch
            elif now_matches:
                self._send("MODIFIED" if before_matches else "ADDED", change.obj)
        elif now_matches:
            self._send(change.type, change.obj)

    def _bookmark(self, revision: int) -> dict[str, Any]:
        resource = self.request.resource
        api_version = f"{resource.group}/{self.request.version}" if resource.group else self.request.version
        meta = {"resourceVersion": str(revision)}
        return {"kind": resource.kind, "apiVersion": api_version, "metadata": meta}

    def _send(self, kind: str, obj: dict[str, Any]) -> None:
        if self.printer is not None and kind != "BOOKMARK":
            obj = tables.table(
                self.printer,
                [obj],
                self.now(),
                version=self.request.table or "v1",
                include=self.request.include,
                headers=not self._headers_sent,  # the apiserver sends the columns with the first only
            )
            self._headers_sent = True
        self._chunk(encode({"type": kind, "object": obj}) + b"\n")

    def _send_expired(self, revision: str) -> None:
        message = f"too old resource version: {revision} ({self.hub.oldest + 1})"
        self._chunk(encode({"type": "ERROR", "object": status(410, "Expired", message)}) + b"\n")

    def _chunk(self, data: bytes) -> None:
        self.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")

    def _end(self) -> None:
        with contextlib.suppress(OSError):
            self.write(b"0\r\n\r\n")


def _client_gone(sock: socket.socket) -> bool:
    """The client closed its end (EOF waiting on the socket), without blocking."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


# ---------------------------------------------------------------- helpers


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _number(value: Any) -> int:
    return int(value) if isinstance(value, str) and value.isdigit() else 0


def _uid(obj: dict[str, Any]) -> str:
    uid = _meta(obj).get("uid")
    return uid if isinstance(uid, str) else ""


def _without_version(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in _meta(obj).items() if k != "resourceVersion"}
    return {**obj, "metadata": meta}


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same object but for its resourceVersion (which `install` may have set itself)."""
    return a is b or _without_version(a) == _without_version(b)


def _stamped(obj: dict[str, Any], revision: int) -> dict[str, Any]:
    """A copy of `obj` carrying resourceVersion `revision` (the object on disk is left as it is)."""
    return {**obj, "metadata": {**_meta(obj), "resourceVersion": str(revision)}}
