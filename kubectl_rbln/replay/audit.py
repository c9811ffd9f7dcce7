"""The replay server's request log: what was asked, and proof that nothing wrote.

Entries are appended before the reply leaves, under a lock, so a client that
got an answer always finds its request here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_exec_path(segments: list[str]) -> bool:
    """`/api/v1/namespaces/NS/pods/NAME/exec`: the one place a non-GET (the exec upgrade) is allowed."""
    return (
        len(segments) == 7
        and segments[:3] == ["api", "v1", "namespaces"]
        and segments[4:7:2] == ["pods", "exec"]
    )


@dataclass(frozen=True)
class AuditEntry:
    """One request as the server saw it: method, path, raw query string, reply status."""

    method: str
    path: str
    query: str
    status: int

    @property
    def is_exec(self) -> bool:
        return is_exec_path([p for p in self.path.split("/") if p])

    @property
    def is_write(self) -> bool:
        """A verb that would change state (an unparseable request, e.g. a TLS hello, is not one)."""
        return self.method in WRITE_METHODS and not self.is_exec


class Audit:
    """A thread-safe, append-only list of AuditEntry."""

    def __init__(self) -> None:
        self._entries: list[AuditEntry] = []
        self._lock = threading.Lock()

    def record(self, entry: AuditEntry) -> None:
        with self._lock:
            self._entries.append(entry)

    def entries(self) -> list[AuditEntry]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
