"""Serve a bundle as a read-only Kubernetes API on loopback, for real kubectl and client libraries.

`kubectl rbln serve BUNDLE` and the end-to-end tests both use this: point
kubectl at `ReplayServer.kubeconfig()` and `get`, `logs`, `exec` and
`describe` work against a dump, offline (the idea of replicatedhq/sbctl).
It answers discovery, list/get with selectors and pagination, pods/log from
PodLog items and pods/exec from ExecCapture items; every other verb gets a
405 Status. Every request lands in `audit`, so tests can prove nothing wrote.

Layout of the `kubectl_rbln.replay` package: `resources` (what a bundle serves),
`store` (the index), `fields` (which fields a field selector may use; the
selectors themselves are kubectl_rbln/selectors.py), `discovery` (documents and
Status), `http` (routing), `ws` + `exec` (exec streaming), `faults` (a hostile
cluster for tests), `rbac` (RBAC as kube-apiserver authorizes, per emulated minor), `audit`
(the request log), and this module (the public face).
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import Any

import yaml

from kubectl_rbln.errors import InputError
from kubectl_rbln.replay.audit import Audit, AuditEntry
from kubectl_rbln.replay.connections import Limits
from kubectl_rbln.replay.faults import Faults
from kubectl_rbln.replay.http import ReplayHTTPServer
from kubectl_rbln.replay.reload import BundleReloader
from kubectl_rbln.replay.store import ObjectStore
from kubectl_rbln.replay.tls import TlsFiles, TlsSettings, make_tls_files

__all__ = [
    "AuditEntry",
    "Faults",
    "Limits",
    "ReplayServer",
    "TlsFiles",
    "TlsSettings",
    "make_tls_files",
    "run",
]


class ReplayServer:
    """A read-only Kubernetes API over a list of object dicts; bound on creation, served by `start()`."""

    def __init__(
        self,
        objects: list[dict[str, Any]],
        host: str = "127.0.0.1",
        port: int = 0,
        faults: Faults | None = None,
        reload_paths: tuple[str, ...] = (),
        limits: Limits | None = None,
        tls: TlsSettings | None = None,
        lang: str = "en",
    ) -> None:
        self._audit = Audit()
        self.tls = tls
        self._thread: threading.Thread | None = None
        self._serving = False
        self._life_lock = threading.Lock()
        try:
            self._httpd = ReplayHTTPServer(
                (host, port), ObjectStore(objects), self._audit, faults, limits, tls
            )
        except OSError as exc:  # port taken, address not local: the user's to fix, not a traceback
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        if reload_paths:
            self._httpd.reloader = BundleReloader(reload_paths, lang=lang)  # its warning: the user's language

    @property
    def store(self) -> ObjectStore:
        """What is served now (a new one after the bundle changed on disk, see replay/reload.py)."""
        return self._httpd.store

    @property
    def threads(self) -> int:
        """Threads answering connections now (workers and the reactor; idle connections hold none)."""
        return self._httpd.pool.threads

    @property
    def open_connections(self) -> int:
        return self._httpd.pool.open_connections

    def install(self, objects: list[dict[str, Any]]) -> None:
        """Serve these objects from now on, as a changed bundle on disk is; open watches see the change."""
        self._httpd.install(objects)

    @property
    def reloads(self) -> int:
        """How many times the bundle was re-read since the start."""
        return self._httpd.reloader.generation if self._httpd.reloader is not None else 0

    # ------------------------------------------------------------ lifecycle

    def start(self) -> ReplayServer:
        """Serve in a daemon thread; returns self so `ReplayServer(objs).start()` reads well."""
        with self._life_lock:
            if self._thread is None and not self._serving:
                self._serving = True
                self._thread = threading.Thread(
                    target=self._httpd.serve_forever,
                    kwargs={"poll_interval": 0.1},
                    name="rbln-replay",
                    daemon=True,
                )
                self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until `stop()` is called from another one (or Ctrl-C)."""
        with self._life_lock:
            if self._serving:
                raise RuntimeError("the replay server is already serving")
            self._serving = True
        try:
            self._httpd.serve_forever(poll_interval=0.2)
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        """Stop serving and release the port; safe to call twice, or without `start()`."""
        with self._life_lock:
            serving, thread = self._serving, self._thread
            self._serving, self._thread = False, None
        if self._httpd.faults is not None:
            self._httpd.faults.release()  # end injected delays: stopping must not wait for them
        if serving:
            self._httpd.shutdown()
        if thread is not None:
            thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ addresses and kubeconfig

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def host(self) -> str:
        """The address clients use (the kubeconfig's): a wildcard bind maps to loopback."""
        return self._httpd.public_host

    @property
    def listen_host(self) -> str:
        """The address truly bound (0.0.0.0 for every IPv4 interface), for what `serve` prints."""
        return str(self._httpd.server_address[0])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{host}:{self.port}"

    def kubeconfig(self, context_name: str = "rbln-replay", namespace: str | None = None) -> dict[str, Any]:
        """A kubeconfig whose current context talks to this server: plain HTTP and a dummy token; with
        TLS, the CA inline (and the client certificate it made, and the token it requires)."""
        context: dict[str, Any] = {"cluster": context_name, "user": context_name}
        if namespace:
            context["namespace"] = namespace
        cluster: dict[str, Any] = {"server": self.url}
        user: dict[str, Any] = {"token": "rbln-replay-read-only"}
        if self.tls is not None:
            files = self.tls.files
            cluster["certificate-authority-data"] = _base64_file(files.ca_cert)
            if files.client_cert and files.client_key:
                user["client-certificate-data"] = _base64_file(files.client_cert)
                user["client-key-data"] = _base64_file(files.client_key)
            if self.tls.require_token:
                user["token"] = self.tls.require_token
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": context_name, "cluster": cluster}],
            "users": [{"name": context_name, "user": user}],
            "contexts": [{"name": context_name, "context": context}],
            "current-context": context_name,
            "preferences": {},
        }

    def kubeconfig_yaml(self, context_name: str = "rbln-replay", namespace: str | None = None) -> str:
        return yaml.safe_dump(self.kubeconfig(context_name, namespace), sort_keys=False)

    # ------------------------------------------------------------ audit

    @property
    def audit(self) -> list[AuditEntry]:
        """A copy of every request so far, in the order replies were started."""
        return self._audit.entries()

    def write_attempts(self) -> list[AuditEntry]:
        """Requests with a write verb (all refused with 405, unless something is badly wrong)."""
        return [entry for entry in self.audit if entry.is_write]

    def clear_audit(self) -> None:
        self._audit.clear()


def _base64_file(path: str) -> str:
    with open(path, "rb") as handle:
        return base64.b64encode(handle.read()).decode("ascii")


def run(
    objects: list[dict[str, Any]],
    host: str = "127.0.0.1",
    port: int = 0,
    on_ready: Callable[[ReplayServer], None] | None = None,
    reload_paths: tuple[str, ...] = (),
    tls: TlsSettings | None = None,
    lang: str = "en",
) -> None:
    """Serve in the calling thread until Ctrl-C (the `kubectl rbln serve` path).

    `on_ready` runs once the port is bound and before serving starts: print the
    kubeconfig there. Connections queue in the listen backlog meanwhile. `lang`: the language of
    what the server itself says on stderr (a changed bundle that does not load).
    """
    files = _more_files()
    limits = Limits(max_connections=max(64, min(Limits.max_connections, files - 64)))
    server = ReplayServer(objects, host, port, reload_paths=reload_paths, limits=limits, tls=tls, lang=lang)
    try:
        if on_ready is not None:
            on_ready(server)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


def _more_files() -> int:
    """The soft limit of open files raised to the hard one, as Go servers do since 1.19 (idle
    clients must not exhaust a default of 1,024); the limit now in force."""
    try:
        import resource  # noqa: PLC0415 - not on every platform
    except ImportError:
        return Limits.max_connections + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (OSError, ValueError):  # not allowed here: serve with what there is
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 20
