"""The replay server's request log: what was asked, and proof that nothing wrote.

Entries are appended before the reply leaves, under a lock, so a client that
got an answer always finds its request here.
"""

from __future__ import annotations

import hashlib
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


def token_fingerprint(token: str) -> str:
    """What the audit keeps of a bearer token: the first 16 hex digits of its SHA-256, never the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class AuditEntry:
    """One request as the server saw it: method, path, raw query string, reply status, and who asked
    (what an API server's audit log and authentication read: the User-Agent, the impersonation
    headers, whether a bearer token came and which, the client certificate's CN and O, the TLS SNI)."""

    method: str
    path: str
    query: str
    status: int
    user_agent: str = ""
    impersonate_user: str = ""
    impersonate_groups: tuple[str, ...] = ()
    impersonate_uid: str = ""
    bearer: str = ""  # token_fingerprint of the Authorization: Bearer token; "" when none came
    client_cn: str = ""  # HTTPS: the verified client certificate's CommonName (the user it names)
    client_groups: tuple[str, ...] = ()  # ... and its Organizations (the groups)
    sni: str = ""  # HTTPS: the server name the client asked for
    tls: bool = False

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
