"""Faults the replay server can inject, so tests prove how clients meet a hostile cluster.

A real kube-apiserver forbids lists (RBAC), rejects stale tokens, hides API groups,
throttles with 429 + Retry-After, fails with 500, cuts bodies short, expires
continue tokens (410) and hangs. `Faults` says which of these to play; the
server's request handler asks a `FaultInjector` before routing each request.
Every Status body is shaped like kube-apiserver's, so clients see what they
would see in the field. Faults are for tests and demos; none is on by default.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from kubectl_rbln.replay.discovery import api_group_list, status
from kubectl_rbln.replay.rbac import Rbac, request_attributes

MAX_DELAY = 60.0  # a forgotten delay must not hang a test run forever
DEFAULT_USER = "system:serviceaccount:rbln:diagnose"
RETRY_AFTER_STATUSES = (429, 503)  # kube-apiserver sends Retry-After with these
REASONS = {
    409: "Conflict",
    410: "Expired",
    429: "TooManyRequests",
    500: "InternalError",
    502: "BadGateway",
    503: "ServiceUnavailable",
    504: "Timeout",
}
NOT_FOUND_MESSAGE = "the server could not find the requested resource"
EXPIRED_MESSAGE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter."
)


@dataclass
class Faults:
    """Which faults to play; the defaults play none (the server then behaves exactly as without faults).

    forbid: resource plurals (`resourceclaims`, or `pods/log` for a subresource) answered 403.
    forbid_namespaced_ok: 403 only for requests at the cluster scope; namespaced ones succeed.
    rbac: Roles, ClusterRoles and bindings every request is authorized against, as kube-apiserver
        does for the bundle's server version (replay/rbac.py: a websocket exec is `get`, and from
        1.35 also `create`); None: every request is allowed.
    user: the user requests are made as (RBAC subjects, and the 403 messages).
    require_token: 401 for every request without `Authorization: Bearer <token>`.
    hide_groups: API groups answered 404 (and left out of `/apis`), as if not served.
    delay: seconds to wait before answering every request (capped at MAX_DELAY).
    status_for: URL path substring -> status (500, 429, 503...); 429/503 carry `Retry-After: 1`.
    fail_times: how many times each `status_for` entry fails before it lets requests through
        (None: always).
    truncate_body: URL path substrings whose reply body is cut in half (valid HTTP, broken JSON).
    gone_on_continue: the first request with a `continue` token gets 410 Expired, once
        (`gone_times` continue requests, if more).
    vanish_after: after this many requests the server goes away mid-command: every later
        connection is closed without an answer.
    refuse_watch: every `?watch=` request is answered with this status (403: RBAC without the
        `watch` verb; 405: an API server or proxy that does not stream), lists still succeed.
    """

    forbid: set[str] = field(default_factory=set)
    forbid_namespaced_ok: bool = False
    rbac: Rbac | None = None
    user: str = DEFAULT_USER
    require_token: str | None = None
    hide_groups: set[str] = field(default_factory=set)
    delay: float = 0.0
    status_for: dict[str, int] = field(default_factory=dict)
    fail_times: int | None = None
    truncate_body: set[str] = field(default_factory=set)
    gone_on_continue: bool = False
    gone_times: int = 1
    vanish_after: int | None = None
    refuse_watch: int | None = None


class Responder(Protocol):
    """What the injector needs from a request handler (ReplayHandler fits)."""

    path: str
    command: str
    headers: Any

    def _send_json(self, code: int, doc: Any, headers: dict[str, str] | None = None) -> None: ...


@dataclass(frozen=True)
class Target:
    """What a URL addresses, as RBAC sees it."""

    group: str | None  # None: not a resource URL (discovery, /version)
    plural: str
    namespace: str | None
    name: str | None
    subresource: str | None

    @property
    def resource(self) -> str:
        return f"{self.plural}/{self.subresource}" if self.subresource else self.plural

    @property
    def verb(self) -> str:
        return "get" if self.name else "list"


def parse_target(path: str) -> Target:
    """`/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/x` -> group, plural, namespace, name."""
    segments = [unquote(s) for s in path.split("/") if s]
    if segments[:2] == ["api", "v1"]:
        group, rest = "", segments[2:]
    elif segments[:1] == ["apis"] and len(segments) >= 3:
        group, rest = segments[1], segments[3:]
    else:
        return Target(None, "", None, None, None)
    if not rest:
        return Target(None, "", None, None, None)
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    return Target(group, rest[0], namespace, name, sub)


def forbidden_message(target: Target, user: str) -> str:
    """kube-apiserver's RBAC denial, word for word."""
    qualified = f"{target.plural}.{target.group}" if target.group else target.plural
    subject = f'{qualified} "{target.name}"' if target.name else qualified
    scope = f'in the namespace "{target.namespace}"' if target.namespace else "at the cluster scope"
    return (
        f'{subject} is forbidden: User "{user}" cannot {target.verb} resource "{target.resource}" '
        f'in API group "{target.group}" {scope}'
    )


class FaultInjector:
    """Applies one `Faults` to requests; thread-safe (handlers run in worker threads)."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self._lock = threading.Lock()
        self._failures: dict[str, int] = {}
        self._gone_sent = 0
        self._released = threading.Event()
        self._count_lock = threading.Lock()
        self._requests = 0

    def release(self) -> None:
        """End every pending delay now (the server is stopping)."""
        self._released.set()

    def intercept(self, handler: Responder, groups: dict[str, Any], server_version: str = "") -> bool:
        """Answer the request with a fault, or return False to let the server answer it.
        `server_version` (the bundle's) decides how RBAC authorizes a websocket exec."""
        faults = self.faults
        if faults.vanish_after is not None and self._count() > faults.vanish_after:
            handler.close_connection = True  # type: ignore[attr-defined]
            return True  # nothing is written: the client sees the connection drop
        if faults.delay > 0:
            self._released.wait(min(faults.delay, MAX_DELAY))
        parts = urlsplit(handler.path)
        path = parts.path
        token = faults.require_token
        if token is not None and handler.headers.get("Authorization", "") != f"Bearer {token}":
            handler._send_json(401, status(401, "Unauthorized", "Unauthorized"))
            return True
        if faults.hide_groups and self._hidden(handler, path, groups):
            return True
        if faults.rbac is not None:
            refused = faults.rbac.refusal(handler.command, path, parts.query, server_version, faults.user)
            if refused:
                attrs = request_attributes(handler.command, path, parts.query)
                details = {"kind": attrs.resource, "group": attrs.group, "name": attrs.name}
                handler._send_json(
                    403, status(403, "Forbidden", refused, {k: v for k, v in details.items() if v})
                )
                return True
        target = parse_target(path)
        if target.group is not None and self._forbidden(target):
            details = {"kind": target.plural, "group": target.group}
            if target.name:
                details["name"] = target.name
            message = forbidden_message(target, faults.user)
            handler._send_json(403, status(403, "Forbidden", message, details))
            return True
        if faults.refuse_watch is not None and target.group is not None and _watching(parts.query):
            self._refuse_watch(handler, target)
            return True
        code = self._injected_status(path)
        if code is not None:
            headers = {"Retry-After": "1"} if code in RETRY_AFTER_STATUSES else None
            reason = REASONS.get(code, "InternalError")
            handler._send_json(code, status(code, reason, f"injected fault: {reason}"), headers)
            return True
        if faults.gone_on_continue and "continue" in parse_qs(parts.query) and self._first_gone():
            handler._send_json(410, status(410, "Expired", EXPIRED_MESSAGE))
            return True
        return False

    def _count(self) -> int:
        with self._count_lock:
            self._requests += 1
            return self._requests

    def shape_body(self, path: str, body: bytes) -> bytes:
        """The body to send: cut in half when `truncate_body` names this path."""
        plain = urlsplit(path).path
        if any(part in plain for part in self.faults.truncate_body):
            return body[: len(body) // 2]
        return body

    # ------------------------------------------------------------ helpers

    def _refuse_watch(self, handler: Responder, target: Target) -> None:
        code = self.faults.refuse_watch or 405
        if code == 403:
            message = forbidden_message(target, self.faults.user).replace(" cannot list ", " cannot watch ")
            handler._send_json(403, status(403, "Forbidden", message, {"kind": target.plural}))
        else:
            reason = "MethodNotAllowed" if code == 405 else REASONS.get(code, "InternalError")
            handler._send_json(code, status(code, reason, "injected fault: watch is not served"))

    def _hidden(self, handler: Responder, path: str, groups: dict[str, Any]) -> bool:
        segments = [s for s in path.split("/") if s]
        if segments == ["apis"]:
            shown = {name: group for name, group in groups.items() if name not in self.faults.hide_groups}
            handler._send_json(200, api_group_list(shown))
            return True
        if len(segments) >= 2 and segments[0] == "apis" and segments[1] in self.faults.hide_groups:
            handler._send_json(404, status(404, "NotFound", NOT_FOUND_MESSAGE))
            return True
        return False

    def _forbidden(self, target: Target) -> bool:
        if target.resource not in self.faults.forbid:
            return False  # `pods` forbids pods, not pods/log: RBAC names subresources apart
        return not (self.faults.forbid_namespaced_ok and target.namespace is not None)

    def _injected_status(self, path: str) -> int | None:
        for part, code in self.faults.status_for.items():
            if part not in path:
                continue
            with self._lock:
                done = self._failures.get(part, 0)
                if self.faults.fail_times is not None and done >= self.faults.fail_times:
                    continue
                self._failures[part] = done + 1
            return code
        return None

    def _first_gone(self) -> bool:
        with self._lock:
            if self._gone_sent >= self.faults.gone_times:
                return False
            self._gone_sent += 1
            return True


def _watching(query: str) -> bool:
    values = parse_qs(query, keep_blank_values=True).get("watch") or []
    return bool(values) and values[-1].lower() not in ("0", "false")
