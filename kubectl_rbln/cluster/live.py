"""Raw JSON reads from a live cluster through the official client, failing the way kubectl does.

Typed models are about 5x slower and 3x the memory on large lists
(harness-facts.md), so every read is one raw GET (`param_serialize` + `call_api`)
and `json.loads`, paginated with `limit`/`continue`. One ApiClient per thread over
one shared Configuration: a shared client corrupts concurrent calls
(ecosystem-facts.md 6.4). Only GET is ever sent from this module.

Bounds (cluster/bounded.py): --request-timeout is one deadline per request (credentials, connect,
headers, body), and per list (every page of one list shares it); a body larger than
MAX_RESPONSE_BYTES is refused (when announced, or once it grows past), and so is a compressed one
(we ask for `identity`).

Failures: 429 (and 5xx with Retry-After) are retried as client-go does, at most
MAX_TRIES times and never past --request-timeout; 400/403/404 become ApiRefusal
(the caller degrades one list), and so does a list or a log that broke a bound (ReadAbandoned);
everything else is a one-line ClusterError (exit 3) that never carries a credential (redact.py).
"""

from __future__ import annotations

import builtins
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.cluster.bounded import (
    ERROR_BODY_BYTES,
    MAX_RESPONSE_BYTES,
    Encoded,
    Late,
    Oversized,
    exchange_within,
    interrupt_response,
    read_body,
)
from kubectl_rbln.cluster.client_flags import request_headers
from kubectl_rbln.cluster.kubeconfig import (
    KubeContext,
    configuration_secrets,
    load_configuration,
    new_api_client,
)
from kubectl_rbln.cluster.lists import list_answer_problem
from kubectl_rbln.cluster.redact import redact
from kubectl_rbln.cluster.traced import Trace, trace_connections
from kubectl_rbln.errors import ClusterError
from kubectl_rbln.terminal import register_secret
from kubectl_rbln.text import strip_controls

PAGE_SIZE = 500
JSON = "application/json"
MAX_TRIES = 3
MAX_RETRY_AFTER = 10.0  # seconds; a server asking for more is treated as asking for this
REFUSALS = (400, 403, 404, 405, 422)
HTTP_REASONS = {
    401: "Unauthorized",
    410: "Gone",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


class ApiRefusal(ClusterError):
    """A 4xx on one read (403 forbidden, 404 not served...): the caller decides if it degrades or ends."""

    def __init__(self, status: int, verb: str, resource: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.verb = verb
        self.resource = resource


class WrongAnswer(ApiRefusal):
    """A 200 whose body is not the list asked for (a Status, another kind): read as a list it would have
    no items, an all-clear. The caller degrades that list, as on a 403 (cluster/lists.py)."""


class ReadAbandoned(ApiRefusal):
    """A read that broke a bound: no whole answer within --request-timeout, or a body past
    MAX_RESPONSE_BYTES or compressed against our ask. A list or a log is then a problem entry of its
    kind (its checks say `source-degraded`), not the end of the command; `get` (the first contact,
    discovery) turns it into a ClusterError: a cluster that cannot answer those is exit 3."""

    def __init__(self, code: str, verb: str, resource: str, message: str) -> None:
        super().__init__(0, verb, resource, message)
        self.code = code  # "timeout" | "too-large" | "encoding": the problem entry's code


class ListExpired(ClusterError):
    """410 Gone on a continue token: the list must start again."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: bytes
    retry_after: float | None
    date: str = ""  # the Date header: the server's clock


def describe_resource(path: str) -> tuple[str, str]:
    """What a URL reads, for messages: `/api/v1/pods` -> ("list", "pods at the cluster scope")."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"] and len(parts) > 2:
        group, parts = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) > 3:
        group, parts = parts[1], parts[3:]
    else:
        return "get", path  # discovery and /version
    namespace = None
    if len(parts) >= 3 and parts[0] == "namespaces":
        namespace, parts = parts[1], parts[2:]
    resource = parts[0]
    qualified = f"{resource}.{group}" if group else resource
    if len(parts) >= 3:
        return "get", f'{qualified} "{parts[1]}" {parts[2]}' + _scope(namespace)
    if len(parts) == 2:
        return "get", f'{qualified} "{parts[1]}"' + _scope(namespace)
    return "list", qualified + _scope(namespace)


def _scope(namespace: str | None) -> str:
    return f' in namespace "{namespace}"' if namespace else " at the cluster scope"


class LiveClient:
    """GETs from the API server; network, TLS, auth and server failures become ClusterError (exit 3)."""

    def __init__(self, ctx: KubeContext, *, timeout: float) -> None:
        self.ctx = ctx
        self.timeout = timeout  # 0: no timeout, as kubectl's --request-timeout=0
        self._local = threading.local()
        self._config_lock = threading.Lock()
        self._configuration: Any = None
        self._config_error: ClusterError | None = None
        self._secrets: tuple[str, ...] = ()
        self.server = ""
        self.date = ""  # the Date header of the first answer: when the read started, by the server's clock
        self.on_page: Callable[[str, int], None] | None = None  # (path, items): a progress line
        self._headers = request_headers(ctx.flags)  # User-Agent, impersonation (client_flags.py)
        self.list_versions: dict[str, str] = {}  # path -> the resourceVersion its list was read at

    # ------------------------------------------------------------ plumbing

    def _api(self) -> Any:
        api = getattr(self._local, "api", None)
        if api is None:
            with self._config_lock:
                if self._config_error is not None:  # a plugin that hung once is not run again
                    raise self._config_error
                if self._configuration is None:
                    try:
                        self._configuration = load_configuration(self.ctx, timeout=self.timeout)
                    except ClusterError as exc:
                        self._config_error = exc
                        raise
                    self._secrets = configuration_secrets(self._configuration)
                    self.server = redact(str(self._configuration.host), self._secrets)
                    for secret in self._secrets:  # the terminal writer masks them too
                        register_secret(secret)
            api = trace_connections(new_api_client(self._configuration))
            self._local.api = api
        return api

    def _deadline(self) -> float | None:
        """When a request (or a list, all its pages) started now must have ended; None: never."""
        return time.monotonic() + self.timeout if self.timeout else None

    def _send(self, path: str, query: dict[str, Any], accept: str, deadline: float | None) -> Reply:
        """One HTTP exchange, whole by `deadline`; the network's failures become ClusterError here."""
        api = self._api()
        trace = Trace()

        def start() -> Any:
            trace.bind()
            method, url, headers, _, _ = api.param_serialize(  # may refresh an exec plugin's token
                "GET",
                path,
                query_params=list(query.items()),
                header_params={"Accept": accept, "Accept-Encoding": "identity"},
                auth_settings=["BearerToken"],
            )
            timeout = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            sent = with_headers(headers, self._headers)
            return api.call_api(method, url, header_params=sent, _request_timeout=timeout)

        def read(response: Any) -> Reply:
            status = int(response.status)
            ok = 200 <= status < 300
            limit = MAX_RESPONSE_BYTES if ok else ERROR_BODY_BYTES
            body = read_body(response.response, deadline, limit, cut=not ok)
            date = str(response.getheader("Date") or "")
            return Reply(status, body, _retry_after(response.getheader("Retry-After")), date)

        try:
            if deadline is None:
                reply = read(start())
            else:
                reply = exchange_within(deadline, start, read, lambda r: interrupt_response(r.response))
        except Late:
            trace.interrupt()  # its socket shut: the worker blocked in the headers ends now, not later
            self._local.api = None  # the late exchange may still use this client: the next gets its own
            raise self._late(path) from None
        except Oversized as exc:
            raise self._oversized(path, exc) from None
        except Encoded as exc:
            verb, resource = describe_resource(path)
            raise ReadAbandoned(
                "encoding",
                verb,
                resource,
                self._scrub(
                    f"{verb} {resource}: {self.server} sent a body compressed with {_short(exc.encoding)} "
                    "although we asked for none (Accept-Encoding: identity); not read"
                ),
            ) from None
        except ClusterError:
            raise
        except Exception as exc:  # urllib3 connection, TLS, timeout and protocol errors
            raise self._network_error(path, exc) from None
        if reply.date and not self.date:
            self.date = reply.date
        return reply

    def fetch(
        self,
        path: str,
        query: dict[str, Any] | None = None,
        accept: str = JSON,
        deadline: float | None = None,
    ) -> bytes:
        """The body of a 2xx reply, retrying 429 / Retry-After politely within the deadline (by default
        --request-timeout from now; a list passes its own, shared by its pages)."""
        if deadline is None:
            deadline = self._deadline()
        for attempt in range(1, MAX_TRIES + 1):
            reply = self._send(path, dict(query or {}), accept, deadline)
            if 200 <= reply.status < 300:
                return reply.body
            retryable = reply.status == 429 or (reply.status >= 500 and reply.retry_after is not None)
            if not retryable or attempt == MAX_TRIES:
                raise self._status_error(path, query, reply, attempt)
            wait = reply.retry_after if reply.retry_after is not None else 1.0
            if deadline is not None and time.monotonic() + wait >= deadline:
                raise self._status_error(path, query, reply, attempt)
            time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def get(self, path: str, query: dict[str, Any] | None = None) -> Any:
        """One GET of a JSON document (/version, discovery): one that breaks a bound is exit 3."""
        try:
            body = self.fetch(path, query)
        except ReadAbandoned as abandoned:
            if abandoned.code == "timeout":
                raise ClusterError(self._no_answer()) from None
            raise ClusterError(abandoned.message) from None
        return self._json(path, body)

    def _json(self, path: str, body: bytes) -> Any:
        try:
            return json.loads(body)
        except ValueError as exc:
            verb, resource = describe_resource(path)
            raise ClusterError(
                self._scrub(
                    f"{verb} {resource}: the answer of {self.server} is not valid JSON "
                    f"(cut short?): {_short(str(exc))}"
                )
            ) from None

    def get_text(self, path: str, query: dict[str, Any] | None = None) -> str:
        """One GET of plain text (pods/log)."""
        return self.fetch(path, query, accept="*/*").decode("utf-8", "replace")

    def list(
        self,
        path: str,
        query: dict[str, Any] | None = None,
        keep: Callable[[dict[str, Any]], Any] | None = None,
        decoder: Any = None,
    ) -> list[Any]:
        """All items of a list, page by page; a 410 on a continue token restarts the list once.

        `keep` turns each item into what is kept (a normalized object) while its page is in memory,
        so a 5,000-node list never holds every raw item at once. `decoder` (a msgspec Decoder of the
        page's wire shape, dra/wire.py) decodes only the fields the Snapshot reads; a page it does not
        fit is decoded whole, as without it."""
        deadline = self._deadline()  # the list's: every page, and a restart after 410, share it
        try:
            return self._list_once(path, query, keep, decoder, deadline)
        except ListExpired:
            try:
                return self._list_once(path, query, keep, decoder, deadline)
            except ListExpired as again:
                raise ClusterError(
                    f"{again.message}, twice; the cluster changes faster than we can list, try again"
                ) from None

    def _list_once(
        self,
        path: str,
        query: dict[str, Any] | None,
        keep: Callable[[dict[str, Any]], Any] | None,
        decoder: Any = None,
        deadline: float | None = None,
    ) -> builtins.list[Any]:
        # resourceVersion=0 lets the apiserver answer from its cache (cheap, possibly a little stale,
        # fine for a diagnosis); it is not allowed together with a continue token.
        params: dict[str, Any] = {**(query or {}), "limit": PAGE_SIZE, "resourceVersion": "0"}
        items: list[Any] = []
        ahead = _Prefetch(self, path, deadline)
        pages = 0
        try:
            body = self.fetch(path, params, JSON, deadline)
            while True:
                # the next page is asked for while this one is decoded and normalized: the server
                # prepares it meanwhile, instead of waiting for us page after page (issue 16)
                following = ahead.start(_continue_token(body), query)
                page = self._decode(path, body, decoder)
                token = self._take(path, page, keep, items)
                pages += 1
                if not token:
                    return items
                body = ahead.result(following, token, query)
        except ReadAbandoned as abandoned:
            if pages and abandoned.code == "timeout":  # endless pagination says so
                abandoned.message = f"{abandoned.message}, after {pages:,} pages ({len(items):,} objects)"
            raise
        finally:
            ahead.close()

    def _decode(self, path: str, body: bytes, decoder: Any) -> Any:
        """A page's body: in its wire shape when `decoder` fits it, else as `get` decodes it."""
        if decoder is None:
            return self._json(path, body)
        try:
            page = decoder.decode(body)
        except Exception:  # noqa: BLE001 - msgspec's Decode/ValidationError: json says what is wrong
            return self._json(path, body)
        return page if page.get("kind") != "Status" else self._json(path, body)  # its message, whole

    def _take(
        self,
        path: str,
        page: Any,
        keep: Callable[[dict[str, Any]], Any] | None,
        items: builtins.list[Any],
    ) -> Any:
        """A decoded page's items into `items` (through `keep`); returns its continue token."""
        wrong = list_answer_problem(path, page)
        if wrong is not None:
            verb, resource = describe_resource(path)
            raise WrongAnswer(200, verb, resource, _short(self._scrub(f"{verb} {resource}: {wrong}")))
        kind = str(page.get("kind", ""))
        item_kind = kind[: -len("List")] if kind.endswith("List") else ""
        api_version = page.get("apiVersion", "")
        listed = page.get("items") or []
        for index, item in enumerate(listed):
            if isinstance(item, dict):
                item.setdefault("kind", item_kind)
                item.setdefault("apiVersion", api_version)
                if keep is not None:
                    # the raw item goes as soon as it is normalized, while its objects are in the
                    # CPU's cache, not with its whole page afterwards
                    listed[index] = None
                    item = keep(item)
                items.append(item)
        if self.on_page is not None:
            self.on_page(path, len(listed))
        meta = page.get("metadata") or {}
        version = meta.get("resourceVersion")
        if isinstance(version, str) and version and path not in self.list_versions:
            self.list_versions[path] = version  # the first page's: where a watch of the list starts
        return meta.get("continue")

    def stream(self, path: str, query: dict[str, Any], read_timeout: float) -> Any:
        """A streaming GET (a watch, `why --watch`): the urllib3 response of a 2xx, its body not read;
        any other answer is read whole and raised as `fetch` raises it (403, 405: ApiRefusal)."""
        api = self._api()
        try:
            method, url, headers, _, _ = api.param_serialize(
                "GET",
                path,
                query_params=list(query.items()),
                header_params={"Accept": JSON, "Accept-Encoding": "identity"},
                auth_settings=["BearerToken"],
            )
            response = api.call_api(method, url, header_params=headers, _request_timeout=(10.0, read_timeout))
        except ClusterError:
            raise
        except Exception as exc:  # urllib3 connection, TLS, timeout and protocol errors
            raise self._network_error(path, exc) from None
        status = int(response.status)
        if 200 <= status < 300:
            return response.response
        body = read_body(response.response, self._deadline(), ERROR_BODY_BYTES, cut=True)
        reply = Reply(status, body, _retry_after(response.getheader("Retry-After")), "")
        raise self._status_error(path, query, reply, 1)

    # ------------------------------------------------------------ errors

    def _status_error(
        self, path: str, query: dict[str, Any] | None, reply: Reply, attempts: int
    ) -> ClusterError:
        verb, resource = describe_resource(path)
        detail = self._scrub(_status_message(reply.body))
        code = f"{reply.status} {HTTP_REASONS.get(reply.status, '')}".strip()
        if reply.status == 401:
            user = f' (user "{self.ctx.user}")' if self.ctx.user else ""
            return ClusterError(
                f"the cluster at {self.server} refused our credentials (401 Unauthorized)",
                hint=f"the credentials of context {self.ctx.context}{user} were rejected: "
                "log in again or pick another --context",
            )
        if reply.status in REFUSALS:
            what = {403: "forbidden", 404: "not found"}.get(reply.status, f"refused ({reply.status})")
            own = f"{verb} {resource}: {what}: {detail or code}"
            text = detail if reply.status == 403 and detail else own  # RBAC's message says it all
            return ApiRefusal(reply.status, verb, resource, _short(text))
        if reply.status == 410 and "continue" in (query or {}):
            return ListExpired(f"{verb} {resource}: the continue token expired (410 Gone)")
        times = f" {attempts} times" if attempts > 1 else ""
        suffix = f": {detail}" if detail else ""
        return ClusterError(_short(f"{verb} {resource}: the server answered {code}{times}{suffix}"))

    def _network_error(self, path: str, exc: BaseException) -> ClusterError:
        from urllib3 import exceptions as u3  # noqa: PLC0415

        if isinstance(exc, ClusterError):
            return exc
        reason = getattr(exc, "reason", None)
        if isinstance(exc, u3.MaxRetryError) and isinstance(reason, BaseException):
            exc = reason
        text = self._scrub(str(getattr(exc, "reason", "") or exc) if _is_api_exception(exc) else str(exc))
        lowered = text.lower()
        if isinstance(exc, u3.SSLError) or (_is_api_exception(exc) and "sslerror" in lowered):
            return ClusterError(f"TLS handshake with {self.server} failed: {_ssl_reason(text)}")
        if isinstance(exc, u3.NameResolutionError):
            return ClusterError(f"cannot reach the cluster at {self.server}: unknown host")
        if isinstance(exc, u3.NewConnectionError):
            why = "connection refused" if "refused" in lowered else _short(text.split(": ", 1)[-1])
            return ClusterError(f"cannot reach the cluster at {self.server}: {why}")
        if isinstance(exc, (u3.TimeoutError, TimeoutError)) or "timed out" in lowered:
            return self._late(path)
        if isinstance(exc, u3.ProtocolError):
            verb, resource = describe_resource(path)
            return ClusterError(f"{verb} {resource}: the connection to {self.server} broke: {_short(text)}")
        return ClusterError(f"cannot reach the cluster at {self.server}: {_short(text)}")

    def _late(self, path: str) -> ReadAbandoned:
        verb, resource = describe_resource(path)
        return ReadAbandoned(
            "timeout",
            verb,
            resource,
            f"{verb} {resource}: no whole answer from {self.server} within {self.timeout:g}s "
            "(--request-timeout)",
        )

    def _no_answer(self) -> str:
        return f"the cluster at {self.server} did not answer within {self.timeout:g}s (--request-timeout)"

    def _oversized(self, path: str, exc: Oversized) -> ReadAbandoned:
        verb, resource = describe_resource(path)
        size = f"announces {exc.declared:,} bytes" if exc.declared is not None else "grew past the cap"
        return ReadAbandoned(
            "too-large",
            verb,
            resource,
            f"{verb} {resource}: the answer of {self.server} {size}, more than the {_size(exc.limit)} "
            "one answer may hold; not read",
        )

    def _scrub(self, text: str) -> str:
        """Never print a credential (token, password, URL userinfo), whatever a server or library put
        into a message: controls go first, so a BEL a proxy slipped into an echoed token cannot hide it."""
        return redact(strip_controls(text), self._secrets)


class _Prefetch:
    """The next page of one list, read by a thread of its own (with its own connection) while the
    caller decodes and normalizes the page before it. Its result, or its error, is the page the
    plain loop would have read next: the same GET with the same continue token."""

    def __init__(self, client: LiveClient, path: str, deadline: float | None) -> None:
        self.client = client
        self.path = path
        self.deadline = deadline  # the list's
        self.pool: Any = None

    def start(self, token: str | None, query: dict[str, Any] | None) -> Any:
        if not token:
            return None
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

            self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rbln-page")
        params = {**(query or {}), "limit": PAGE_SIZE, "continue": token}
        return (token, self.pool.submit(self.client.fetch, self.path, params, JSON, self.deadline))

    def result(self, started: Any, token: Any, query: dict[str, Any] | None) -> bytes:
        """The page after the one whose continue token is `token` (read ahead when it was started)."""
        if started is not None and started[0] == token:
            return started[1].result()
        params = {**(query or {}), "limit": PAGE_SIZE, "continue": token}
        return self.client.fetch(self.path, params, JSON, self.deadline)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)


_CONTINUE = b'"continue":"'


def _continue_token(body: bytes) -> str | None:
    """The continue token of a list page, found in its head without decoding the page (the API server,
    like the replay server, writes `metadata` before `items`, compactly); None when it is not there.
    Only a guess to read ahead with: the page's decoded token decides which page is read next."""
    head = body[:4096]
    end = head.find(b'"items"')
    at = head.find(_CONTINUE, 0, end if end >= 0 else len(head))
    if at < 0:
        return None
    start = at + len(_CONTINUE)
    stop = head.find(b'"', start)
    token = head[start:stop] if stop >= 0 else b""
    if not token or b"\\" in token or not token.isascii():
        return None
    return token.decode("ascii")


def with_headers(headers: dict[str, str], extra: list[tuple[str, str]]) -> Any:
    """The client's headers with ours over them, as a urllib3 HTTPHeaderDict: one header may be sent
    several times (each Impersonate-Group), which the client's plain dict cannot hold."""
    from urllib3 import HTTPHeaderDict  # noqa: PLC0415

    sent = HTTPHeaderDict(headers)
    for name in {name for name, _ in extra}:
        sent.discard(name)
    for name, value in extra:
        sent.add(name, value)
    return sent


def _is_api_exception(exc: BaseException) -> bool:
    return type(exc).__name__ == "ApiException"


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (an HTTP date counts as 1 s), capped at MAX_RETRY_AFTER."""
    if value is None:
        return None
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER)
    except ValueError:
        return 1.0


def _status_message(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        return _short(text) if text and not text.startswith("<") else ""
    return _short(str(parsed.get("message", ""))) if isinstance(parsed, dict) else ""


def _ssl_reason(text: str) -> str:
    match = re.search(r"\[SSL[^\]]*\][^(\n]*", text)
    return _short(match.group(0).strip() if match else text.replace("SSLError", "").strip(" :\n"))


def _size(count: int) -> str:
    """1073741824 -> "1 GiB"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:g} {unit}"
    return f"{count} bytes"


def _short(text: str) -> str:
    line = " ".join(text.strip().split()) if text.strip() else "unknown error"
    return line if len(line) <= 300 else line[:297] + "..."
