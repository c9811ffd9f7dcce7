"""HTTP routing of the replay server: one request in, one document or Status out.

Maps kube-apiserver URLs onto the ObjectStore (discovery, list, get, pods/log,
pods/exec), refuses every write with 405, and turns any fault into a Status
body, never a traceback. Runs in ThreadingHTTPServer worker threads; the store
is immutable and the audit locked, so handlers share nothing else.
"""

from __future__ import annotations

import hmac
import json
import socket
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from kubectl_rbln import __version__
from kubectl_rbln.replay import exec as replay_exec
from kubectl_rbln.replay import tables
from kubectl_rbln.replay.audit import READ_METHODS, Audit, AuditEntry, is_exec_path, token_fingerprint
from kubectl_rbln.replay.connections import Limits, PooledHTTPServer, PooledRequestHandler
from kubectl_rbln.replay.discovery import (
    api_group,
    api_group_list,
    api_resource_list,
    api_versions,
    not_found,
    status,
    version_info,
)
from kubectl_rbln.replay.faults import FaultInjector, Faults
from kubectl_rbln.replay.fields import parse_field_selector
from kubectl_rbln.replay.reload import BundleReloader
from kubectl_rbln.replay.resources import Group, Resource
from kubectl_rbln.replay.store import ContinueError, ContinueExpired, ObjectStore, Stored, encode
from kubectl_rbln.replay.tls import TlsSettings
from kubectl_rbln.replay.watch import WatchHub, WatchRequest, WatchStream, parse_timeout
from kubectl_rbln.replay.ws import accept_key, choose_protocol, parse_protocol_header
from kubectl_rbln.selectors import SelectorError, parse_label_selector

READ_ONLY = (
    "the replay server is read-only: {method} is not allowed "
    "(it serves a recorded bundle; nothing can be changed)"
)


class BadRequest(Exception):
    """A request the apiserver would answer with 400 and this message."""


class ReplayHTTPServer(PooledHTTPServer):
    """The listening socket, with what handlers need: the store, the audit, the public address.
    Connections are bounded (replay/connections.py): idle ones cost no thread."""

    allow_reuse_address = True
    request_queue_size = 1024  # a burst of clients waits in the backlog, not in SYN retries (1 s each)

    def __init__(
        self,
        address: tuple[str, int],
        store: ObjectStore,
        audit: Audit,
        faults: Faults | None = None,
        limits: Limits | None = None,
        tls: TlsSettings | None = None,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, ReplayHandler, limits or Limits())
        self.tls = tls
        self.ssl_context = tls.server_context() if tls is not None else None
        self.store = store
        self.audit = audit
        self.reloader: BundleReloader | None = None  # serve: re-read the bundle when it changes
        self.faults = FaultInjector(faults) if faults is not None else None
        self.watches = WatchHub(store)  # what changed, for `?watch=1` (replay/watch.py)

    def install(self, objects: list[dict[str, Any]]) -> None:
        """Serve these objects from now on (a request already running finishes on the old store);
        what changed is told to the open watches."""
        self.store = self.watches.install(self.store, objects)

    def refresh(self) -> None:
        """Re-read the bundle if it changed on disk (serve), as each request and each open watch do."""
        if self.reloader is not None:
            self.reloader.refresh(self.install)

    def now(self) -> datetime:
        """What a table's ages are measured from: the bundle's read time, else the wall clock."""
        return self.store.read_at or datetime.now(timezone.utc)

    def server_close(self) -> None:
        watches = getattr(self, "watches", None)  # None: the bind failed, in HTTPServer.__init__
        if watches is not None:
            watches.close()  # open watches end (their threads are not the pool's workers)
        super().server_close()

    @property
    def public_host(self) -> str:
        """The address clients should use: wildcard binds map to loopback."""
        host = str(self.server_address[0])
        return {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)


class ReplayHandler(PooledRequestHandler):
    """Routes one request; every reply is a Status or a document, never a traceback."""

    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as every Go server's connection has it (net/tcpsock.go SetNoDelay: "The default is
    # true"): the headers and the body go out in two writes, and with Nagle on, the body's last segment
    # waited for the client's delayed ACK, ~40 ms on every small answer of a kept-alive connection
    disable_nagle_algorithm = True
    server_version = f"kubectl-rbln-replay/{__version__}"  # the Server header; /version is the bundle's
    sys_version = ""
    server: ReplayHTTPServer

    # ------------------------------------------------------------ plumbing

    def version_string(self) -> str:
        """The Server header: `kubectl-rbln-replay/VERSION`, without the stdlib's trailing Python version."""
        return self.server_version

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The Date header: the time the bundle was read (ClusterInfo readAt), when it says, so that a live
        read of a served bundle reads at that time (a Lease's age), as `-f` does; else now."""
        read_at = self.server.store.read_at
        if timestamp is None and read_at is not None:
            return format_datetime(read_at, usegmt=True)
        return super().date_time_string(timestamp)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: the audit list is the record."""

    def send_response(self, code: int, message: str | None = None) -> None:
        """Audit before the reply leaves: a client that saw a reply also finds it in the audit."""
        self._code = code
        self._audit_once()
        super().send_response(code, message)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed request lines and unknown methods: a Status body instead of stdlib HTML."""
        self.close_connection = True
        reason = {400: "BadRequest", 414: "RequestURITooLong", 431: "BadRequest", 501: "MethodNotAllowed"}
        body = status(code, reason.get(code, "BadRequest"), message or "bad request")
        self._audited = False
        self._send_json(code, body)

    def do_GET(self) -> None:
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_GET

    def _dispatch(self) -> None:
        self._code = 0
        self._audited = False
        try:
            if self._refuse_body():
                return
            if not self._authenticated():
                return
            self.server.refresh()
            faults = self.server.faults
            store = self.server.store
            if faults is None or not faults.intercept(self, store.groups, store.server_version):
                self._route()
        except BadRequest as exc:
            self._send_json(400, status(400, "BadRequest", str(exc)))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # noqa: BLE001 - the last line of defence: a 500 Status, not a traceback
            self.close_connection = True
            if not self._code:
                self._send_json(500, status(500, "InternalError", f"replay server error: {exc!r}"))
        finally:
            self._audit_once()

    def _audit_once(self) -> None:
        if getattr(self, "_audited", False):
            return
        self._audited = True
        raw = getattr(self, "path", "") or ""
        parts = urlsplit(raw)
        headers = getattr(self, "headers", None)

        def header(name: str) -> str:
            return str(headers.get(name, "")) if headers is not None else ""

        sni, cn, groups = getattr(self.request, "tls", ("", "", ()))
        entry = AuditEntry(
            getattr(self, "command", "") or "",
            parts.path,
            parts.query,
            getattr(self, "_code", 0),
            user_agent=header("User-Agent"),
            impersonate_user=header("Impersonate-User"),
            impersonate_groups=tuple(headers.get_all("Impersonate-Group") or ())
            if headers is not None
            else (),
            impersonate_uid=header("Impersonate-Uid"),
            bearer=token_fingerprint(self._bearer()) if self._bearer() else "",
            client_cn=cn,
            client_groups=groups,
            sni=sni,
            tls=self.server.ssl_context is not None,
        )
        self.server.audit.record(entry)

    def _bearer(self) -> str:
        headers = getattr(self, "headers", None)
        scheme, _, token = str(headers.get("Authorization", "") if headers is not None else "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" else ""

    def _authenticated(self) -> bool:
        """`serve --require-token`: a request without that bearer token gets 401, as an API server answers
        one it cannot authenticate (the client certificate was checked in the handshake)."""
        tls = self.server.tls
        wanted = tls.require_token if tls is not None else None
        if not wanted or hmac.compare_digest(self._bearer().encode(), wanted.encode()):
            return True
        self.close_connection = True
        self._send_json(401, status(401, "Unauthorized", "Unauthorized"))
        return False

    def _refuse_body(self) -> bool:
        """A body is never buffered: one up to `max_drained_body` (a refused write's JSON) is read and
        dropped, so the connection stays usable; a larger or chunked one is refused before a byte of
        it is read (405 for a write, 413 otherwise), and the pool drops what still comes, bounded."""
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise BadRequest("invalid Content-Length") from None
        if length < 0:
            raise BadRequest("invalid Content-Length")
        if not chunked and length <= self.server.limits.max_drained_body:
            if length:
                self.rfile.read(length)
            return False
        self.close_connection = True
        self.linger = True
        if self.command not in READ_METHODS and not is_exec_path(_segments(self.path)):
            self._send_json(
                405,
                status(405, "MethodNotAllowed", READ_ONLY.format(method=self.command)),
                {"Allow": "GET, HEAD, OPTIONS", "Connection": "close"},
            )
        else:
            limit = self.server.limits.max_drained_body
            message = (
                f"request bodies are not accepted (the replay server is read-only; at most {limit} bytes)"
            )
            self._send_json(413, status(413, "RequestEntityTooLarge", message), {"Connection": "close"})
        return True

    def _send_body(
        self, code: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        if self.server.faults is not None:
            body = self.server.faults.shape_body(getattr(self, "path", "") or "", body)
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache, private")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD" and code not in (204, 304):
            self.wfile.write(body)

    def _send_json(self, code: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        self._send_body(code, encode(doc), "application/json", headers)

    # ------------------------------------------------------------ routing

    def _route(self) -> None:
        parts = urlsplit(self.path)
        segments = _segments(self.path)
        query = _parse_query(parts.query)
        store = self.server.store
        exec_target = is_exec_path(segments)

        if self.command == "OPTIONS":
            allow = "GET, POST, OPTIONS" if exec_target else "GET, HEAD, OPTIONS"
            self._send_body(204, b"", "text/plain", {"Allow": allow})
            return
        if self.command not in READ_METHODS and not exec_target:
            self._send_json(
                405,
                status(405, "MethodNotAllowed", READ_ONLY.format(method=self.command)),
                {"Allow": "GET, HEAD, OPTIONS"},
            )
            return

        if segments in (["version"],):
            self._send_json(200, version_info(store.server_version))
        elif segments in (["healthz"], ["livez"], ["readyz"]):
            self._send_body(200, b"ok", "text/plain; charset=utf-8")
        elif segments == ["api"]:
            self._send_json(200, api_versions(f"{self.server.public_host}:{self.server.server_address[1]}"))
        elif segments == ["apis"]:
            self._send_json(200, api_group_list(store.groups))
        elif segments[:1] == ["api"] and len(segments) >= 2:
            self._route_group(store, store.groups[""], segments[1], segments[2:], query)
        elif segments[:1] == ["apis"] and len(segments) >= 2 and segments[1] in store.groups and segments[1]:
            group = store.groups[segments[1]]
            if len(segments) == 2:
                self._send_json(200, api_group(group))
            else:
                self._route_group(store, group, segments[2], segments[3:], query)
        else:
            self._not_found_path()

    def _not_found_path(self) -> None:
        self._send_json(404, status(404, "NotFound", "the server could not find the requested resource"))

    def _route_group(
        self, store: ObjectStore, group: Group, version: str, rest: list[str], query: dict[str, list[str]]
    ) -> None:
        if version not in group.versions:
            self._not_found_path()
            return
        if not rest:
            self._send_json(200, api_resource_list(group, version))
            return
        namespace: str | None = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        plural, name, sub = rest[0], _at(rest, 1), _at(rest, 2)
        resource = group.resources.get(plural)
        if resource is None or len(rest) > 3 or (namespace is not None and not resource.namespaced):
            self._not_found_path()
            return
        if resource.namespaced and namespace is None and name is not None:
            self._not_found_path()
            return
        if name is None:
            self._list(store, resource, version, namespace, query)
            return
        stored = store.get(resource, namespace or "", name)
        if sub is None or sub == "status":
            if stored is None:
                self._send_json(404, not_found(resource, name))
            elif not self._send_table(resource, [stored], {"resourceVersion": store.resource_version}, query):
                self._send_body(200, stored.raw, "application/json")
        elif group.name == "" and plural == "pods" and sub == "log":
            self._pod_log(store, resource, namespace or "", name, stored, query)
        elif group.name == "" and plural == "pods" and sub == "exec":
            self._pod_exec(store, resource, namespace or "", name, stored, query)
        else:
            self._not_found_path()

    # ------------------------------------------------------------ list

    def _list(
        self,
        store: ObjectStore,
        resource: Resource,
        version: str,
        namespace: str | None,
        query: dict[str, list[str]],
    ) -> None:
        limit_text = _last(query, "limit")
        if limit_text and not (limit_text.isdigit()):
            raise BadRequest(f"invalid limit {limit_text!r}: must be a non-negative integer")
        try:
            labels = parse_label_selector(_last(query, "labelSelector"))
            fields = parse_field_selector(_last(query, "fieldSelector"), resource.plural)
        except SelectorError as exc:
            raise BadRequest(str(exc)) from None
        if _parse_bool(query, "watch"):
            self._watch(store, resource, version, namespace, query, labels, fields)
            return
        try:
            page = store.list(
                resource, namespace, labels, fields, int(limit_text or 0), _last(query, "continue")
            )
        except ContinueExpired as exc:
            self._send_json(410, status(410, "Expired", str(exc)))
            return
        except (SelectorError, ContinueError) as exc:
            raise BadRequest(str(exc)) from None
        meta: dict[str, Any] = {"resourceVersion": store.resource_version}
        if page.continue_token:
            meta["continue"] = page.continue_token
            if page.remaining is not None:
                meta["remainingItemCount"] = page.remaining
        if self._send_table(resource, page.items, meta, query):
            return
        api_version = f"{resource.group}/{version}" if resource.group else version
        self._send_body(
            200, _list_body(f"{resource.kind}List", api_version, meta, page.items), "application/json"
        )

    def _send_table(
        self, resource: Resource, items: list[Stored], meta: dict[str, Any], query: dict[str, list[str]]
    ) -> bool:
        """A Table (replay/tables.py) when the client asked for one and the kind has kubectl's columns;
        False: send the objects as they are (kubectl then prints NAME and AGE itself)."""
        version = tables.table_version(self.headers.get("Accept", ""))
        printer = tables.printer_for(resource.group, resource.kind) if version else None
        if printer is None or version is None:
            return False
        try:
            include = tables.include_object(_last(query, "includeObject"))
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        objs = [s.obj for s in items]
        doc = tables.table(printer, objs, self.server.now(), version=version, include=include, metadata=meta)
        self._send_json(200, doc)
        return True

    # ------------------------------------------------------------ watch

    def _watch(
        self,
        store: ObjectStore,
        resource: Resource,
        version: str,
        namespace: str | None,
        query: dict[str, list[str]],
        labels: list[Any],
        fields: list[Any],
    ) -> None:
        """Stream WatchEvents as the bundle changes (replay/watch.py), in a thread not counted
        against the pool's workers; at the pool's bound of open watches, 429."""
        table = tables.table_version(self.headers.get("Accept", ""))
        wanted = _last(query, "resourceVersion")
        if wanted and not wanted.isdigit():
            raise BadRequest(f"invalid resourceVersion {wanted!r}: a resourceVersion this server issued")
        try:
            request = WatchRequest(
                resource, version, namespace, labels, fields,
                resource_version=wanted,
                timeout=parse_timeout(_last(query, "timeoutSeconds")),
                bookmarks=_parse_bool(query, "allowWatchBookmarks"),
                initial_events=_parse_bool(query, "sendInitialEvents"),
                table=table if table and tables.printer_for(resource.group, resource.kind) else None,
                include=tables.include_object(_last(query, "includeObject")),
            )  # fmt: skip
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        if not self.server.pool.begin_stream():
            message = "too many open watches; try again later"
            self._send_json(429, status(429, "TooManyRequests", message), {"Retry-After": "1"})
            return
        try:
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache, private")
            self.end_headers()
            if self.command == "HEAD":
                return
            stream = WatchStream(
                request, self.server.watches, store, self.wfile.write, self.connection,
                self.server.refresh, self.server.now,
            )  # fmt: skip
            stream.run()
        finally:
            self.server.pool.end_stream()

    # ------------------------------------------------------------ pods/log

    def _pod_log(
        self,
        store: ObjectStore,
        resource: Resource,
        namespace: str,
        pod: str,
        stored: Stored | None,
        query: dict[str, list[str]],
    ) -> None:
        containers = store.pod_containers(stored.obj) if stored else store.log_containers(namespace, pod)
        if stored is None and not containers:
            self._send_json(404, not_found(resource, pod))
            return
        container = _last(query, "container") or _default_container(stored, containers)
        if not container:
            raise BadRequest(
                f"a container name must be specified for pod {pod}, choose one of: [{' '.join(containers)}]"
            )
        if container not in containers:
            raise BadRequest(f"container {container} is not valid for pod {pod}")
        previous = _parse_bool(query, "previous")
        log = store.logs.get((namespace, pod, container, previous))
        if log is None:
            if previous:
                raise BadRequest(f'previous terminated container "{container}" in pod "{pod}" not found')
            self._send_json(
                404,
                status(
                    404,
                    "NotFound",
                    f'no log of container "{container}" in pod "{pod}" was recorded in the bundle',
                    {"name": pod, "kind": "pods"},
                ),
            )
            return
        self._send_body(200, _trim_log(log, query).encode("utf-8"), "text/plain")

    # ------------------------------------------------------------ pods/exec

    def _pod_exec(
        self,
        store: ObjectStore,
        resource: Resource,
        namespace: str,
        pod: str,
        stored: Stored | None,
        query: dict[str, list[str]],
    ) -> None:
        command = query.get("command", [])
        if not command:
            raise BadRequest("you must specify at least 1 command")
        containers = store.pod_containers(stored.obj) if stored else []
        container = _last(query, "container") or (containers[0] if containers else "")
        if stored is None and store.find_capture(namespace, pod, container, tuple(command)) is None:
            self._send_json(404, not_found(resource, pod))
            return
        if stored is not None and container not in containers:
            raise BadRequest(f"container {container} is not valid for pod {pod}")
        refused = replay_exec.refusal(store, namespace, pod, container, command)
        if refused:
            self._send_json(403, status(403, "Forbidden", refused, {"name": pod, "kind": "pods"}))
            return
        upgrade = self.headers.get("Upgrade", "").lower()
        if "websocket" not in upgrade:
            raise BadRequest(
                "the replay server streams exec over websocket only "
                "(v5.channel.k8s.io, v4.channel.k8s.io); SPDY and plain requests are not supported"
            )
        key = self.headers.get("Sec-WebSocket-Key", "")
        if not key:
            raise BadRequest("websocket upgrade without Sec-WebSocket-Key")
        protocol = choose_protocol(
            parse_protocol_header(self.headers.get_all("Sec-WebSocket-Protocol") or [])
        )
        if protocol is None:
            raise BadRequest(
                "no supported websocket subprotocol offered (want v5.channel.k8s.io or v4.channel.k8s.io)"
            )
        result = replay_exec.replay(store, namespace, pod, container, command)
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept_key(key))
        self.send_header("Sec-WebSocket-Protocol", protocol.name)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        replay_exec.stream(
            self.connection,
            self.rfile,
            protocol,
            command,
            result,
            want_stdout=_parse_bool(query, "stdout", default=True),
            want_stderr=_parse_bool(query, "stderr", default=True),
            tty=_parse_bool(query, "tty"),
        )


# ---------------------------------------------------------------- helpers


def _segments(path: str) -> list[str]:
    return [unquote(s) for s in urlsplit(path).path.split("/") if s]


def _at(items: list[str], index: int) -> str | None:
    return items[index] if len(items) > index else None


def _parse_query(text: str) -> dict[str, list[str]]:
    try:
        return parse_qs(text, keep_blank_values=True, max_num_fields=1000)
    except ValueError as exc:
        raise BadRequest(f"malformed query: {exc}") from None


def _last(query: dict[str, list[str]], name: str) -> str:
    values = query.get(name)
    return values[-1] if values else ""


def _parse_bool(query: dict[str, list[str]], name: str, default: bool = False) -> bool:
    """The apiserver's query bool: absent is the default, "0"/"false" are false, anything else true."""
    if name not in query:
        return default
    return _last(query, name).lower() not in ("0", "false")


def _default_container(stored: Stored | None, containers: list[str]) -> str:
    """The container kubelet would pick: the default-container annotation, else the only one."""
    if stored is not None:
        annotations = stored.obj.get("metadata", {}).get("annotations") or {}
        chosen = (
            annotations.get("kubectl.kubernetes.io/default-container")
            if isinstance(annotations, dict)
            else None
        )
        if isinstance(chosen, str) and chosen in containers:
            return chosen
        spec_containers = stored.obj.get("spec", {}).get("containers") or []
        if len(spec_containers) == 1:
            return containers[0]
        return ""
    return containers[0] if len(containers) == 1 else ""


def _trim_log(log: str, query: dict[str, list[str]]) -> str:
    """Honour tailLines and limitBytes (kubectl logs --tail / --limit-bytes)."""
    tail = _last(query, "tailLines")
    if tail:
        if not tail.lstrip("-").isdigit():
            raise BadRequest(f"invalid tailLines {tail!r}")
        count = int(tail)
        if count >= 0:
            lines = log.splitlines(keepends=True)
            log = "".join(lines[-count:]) if count else ""
    limit = _last(query, "limitBytes")
    if limit:
        if not limit.isdigit() or int(limit) == 0:
            raise BadRequest(f"invalid limitBytes {limit!r}: must be a positive integer")
        log = log.encode("utf-8")[: int(limit)].decode("utf-8", "ignore")
    return log


def _list_body(kind: str, api_version: str, meta: dict[str, Any], items: list[Stored]) -> bytes:
    """The list document, splicing each item's pre-encoded JSON instead of re-encoding it."""
    head = json.dumps({"kind": kind, "apiVersion": api_version, "metadata": meta}, separators=(",", ":"))
    return head[:-1].encode("utf-8") + b',"items":[' + b",".join(s.raw for s in items) + b"]}"
