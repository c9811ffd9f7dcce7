"""`why --watch` on a cluster: list once, then follow the watch API instead of listing again.

Polling re-read every list on each round (60 requests in 5 s at a 1 s interval, and every slice of
a 5,000-node cluster each time). Here the first read is the usual one (cluster/source.py
LiveCollector, every list a diagnosis needs); then the kinds a Pod's diagnosis follows (FOLLOWED:
its Pods, events, ResourceClaims, ResourceSlices and Nodes) are watched from the resourceVersion
their list was read at, one streaming request each (`?watch=1&allowWatchBookmarks=true`, the
official client's raw response, read line by line with kubernetes.watch's `iter_resp_lines`). Each
event updates the objects kept from the first read, and the next Snapshot is built from them; the
other kinds (owners, quotas, Leases, the drivers' DaemonSets) stay as the first read saw them, and
so does its read time (ClusterInfo readAt).

A watch that ends (its timeoutSeconds) is opened again from the last resourceVersion seen (a
BOOKMARK moves it too); one answered 410 Expired lists its kind again, once. A server that refuses
to watch (403 without the `watch` verb, 405 from a proxy or server that does not stream) raises
`WatchRefused`: the caller says so and polls.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.cluster.lists import CORE_LISTS, DRA_LISTS, ListSpec, list_path
from kubectl_rbln.cluster.live import ApiRefusal
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.read_gaps import NEEDS_PODS, read_gaps
from kubectl_rbln.cluster.source import Collected, LiveCollector
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.errors import ClusterError

FOLLOWED = ("Pod", "Event", "ResourceClaim", "ResourceSlice", "Node")
WATCH_SECONDS = 300  # each watch request's timeoutSeconds; then it is opened again from where it was
SETTLE = 0.1  # after a first event, what else arrives this soon belongs to the same change

Key = tuple[str, str, str]  # (kind, namespace, name)


class WatchRefused(ClusterError):
    """The server would not stream a watch (403, 405...): poll instead."""


@dataclass
class _Event:
    kind: str
    type: str  # ADDED, MODIFIED, DELETED, RELISTED, REFUSED
    obj: dict[str, Any] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    scope: str | None = None  # RELISTED: the namespace the list covers (None: every one)


def _key(kind: str, obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return kind, str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _version(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    value = meta.get("resourceVersion") if isinstance(meta, dict) else None
    return value if isinstance(value, str) else ""


class Follower:
    """The first read of the cluster, kept up to date by watches; `wait` returns what changed."""

    def __init__(self, opts: SourceOptions) -> None:
        self.collector = LiveCollector(opts)
        self.client = self.collector.client
        self._followed: dict[Key, dict[str, Any]] = {}
        self._others: list[dict[str, Any]] = []
        self._queue: queue.SimpleQueue[_Event] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._responses: set[Any] = set()
        self._lock = threading.Lock()

    # ------------------------------------------------------------ the first read

    def first(self) -> tuple[Snapshot, Collected]:
        """Every list, read once (as `dump` reads them), and the watches started from them."""
        objects = self.collector.collect()
        for obj in objects:
            kind = obj.get("kind")
            if isinstance(kind, str) and kind in FOLLOWED and obj.get("apiVersion") != "kubectl-rbln/v1":
                self._followed[_key(kind, obj)] = obj
            else:
                self._others.append(obj)
        collected = Collected(objects=[], namespace=self.collector.namespace, context=self.collector.ctx)
        for spec, path, scope in self._watched_paths():
            version = self.client.list_versions.get(path, "")
            thread = threading.Thread(
                target=self._follow,
                args=(spec, path, version, scope),
                name=f"rbln-watch-{spec.resource}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()
        return self.snapshot(), collected

    def _served(self) -> list[str]:
        """The resource.k8s.io versions the first read found served, newest first (its ClusterInfo)."""
        for obj in self._others:
            if obj.get("kind") == "ClusterInfo":
                return [v for v in obj.get("resourceVersions") or [] if isinstance(v, str)]
        return []

    def _watched_paths(self) -> list[tuple[ListSpec, str, str | None]]:
        """The list each followed kind was read from (claims: every namespace's, when that was
        allowed), with the namespace it covers (None: every one)."""
        served = self._served()
        found: list[tuple[ListSpec, str, str | None]] = []
        for spec in (*CORE_LISTS, *DRA_LISTS):
            if spec.kind not in FOLLOWED or (spec.group and not served):
                continue
            version = served[0] if spec.group else "v1"
            namespace = self.collector.namespace if spec.namespaced else None
            for scope in (None, namespace) if spec.kind == "ResourceClaim" else (namespace,):
                path = list_path(spec, version, scope)
                if path in self.client.list_versions:
                    found.append((spec, path, scope))
                    break
        return found

    def snapshot(self) -> Snapshot:
        """The Snapshot of what is known now, with the gaps a read reports (cluster/read_gaps.py)."""
        snapshot = build_snapshot(self.objects(), source=f"context {self.collector.ctx.context}")
        scope = (self.collector.namespace,) if self.collector.namespace is not None else None
        snapshot.problems += read_gaps(snapshot, NEEDS_PODS, live=True, pod_scope=scope)
        return snapshot

    def objects(self) -> list[dict[str, Any]]:
        """What a Snapshot is built from now: the followed objects as the watches left them, the rest
        as the first read saw them (ClusterInfo last, as `collect` puts it)."""
        infos = [o for o in self._others if o.get("kind") == "ClusterInfo"]
        rest = [o for o in self._others if o.get("kind") != "ClusterInfo"]
        return [*rest, *self._followed.values(), *infos]

    # ------------------------------------------------------------ changes

    def wait(self, timeout: float) -> list[str]:
        """The kinds that changed, waiting up to `timeout` seconds for a first change ([]: none)."""
        try:
            event = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return []
        events = [event]
        while True:
            try:
                events.append(self._queue.get(timeout=SETTLE))
            except queue.Empty:
                break
        changed: list[str] = []
        for item in events:
            if item.type == "REFUSED":
                raise WatchRefused(item.message)
            self._apply(item)
            if item.kind not in changed:
                changed.append(item.kind)
        return changed

    def _apply(self, event: _Event) -> None:
        if event.type == "RELISTED":
            stale = [k for k in self._followed if k[0] == event.kind and event.scope in (None, k[1])]
            for key in stale:
                del self._followed[key]
            for obj in event.items:
                self._followed[_key(event.kind, obj)] = obj
        elif event.type == "DELETED":
            self._followed.pop(_key(event.kind, event.obj), None)
        else:
            self._followed[_key(event.kind, event.obj)] = event.obj

    def close(self) -> None:
        """Stop every watch (their connections are closed under them)."""
        self._stop.set()
        with self._lock:
            responses = list(self._responses)
        for response in responses:
            with contextlib.suppress(Exception):
                response.close()

    # ------------------------------------------------------------ one watch, in its thread

    def _follow(self, spec: ListSpec, path: str, version: str, scope: str | None) -> None:
        while not self._stop.is_set():
            try:
                version = self._watch_once(spec, path, version)
            except ApiRefusal as refusal:
                self._queue.put(_Event(spec.kind, "REFUSED", message=refusal.message))
                return
            except ClusterError:
                if self._stop.wait(1.0):  # the network: try again in a moment
                    return
                continue
            if not version:  # 410 Expired: list again, once, and watch from there
                self.client.list_versions.pop(path, None)  # the new list's resourceVersion, not the old
                try:
                    items = self.client.list(path)
                except ClusterError:
                    if self._stop.wait(1.0):
                        return
                    continue
                version = self.client.list_versions.get(path, "")
                relisted = _Event(spec.kind, "RELISTED", items=_with_kind(items, spec.kind), scope=scope)
                self._queue.put(relisted)

    def _watch_once(self, spec: ListSpec, path: str, version: str) -> str:
        """One watch request, read to its end; the resourceVersion to go on from ("" : list again)."""
        query = {"watch": "1", "allowWatchBookmarks": "true", "timeoutSeconds": str(WATCH_SECONDS)}
        if version:
            query["resourceVersion"] = version
        response = self.client.stream(path, query, read_timeout=WATCH_SECONDS + 30)
        with self._lock:
            self._responses.add(response)
        try:
            from kubernetes.watch.watch import iter_resp_lines  # noqa: PLC0415

            for line in iter_resp_lines(response):
                if self._stop.is_set():
                    return version
                event = _parse(line)
                if event is None:
                    continue
                kind, obj = event
                if kind == "ERROR":
                    return "" if obj.get("code") == 410 else version
                version = _version(obj) or version
                if kind != "BOOKMARK":
                    obj.setdefault("kind", spec.kind)
                    self._queue.put(_Event(spec.kind, kind, obj))
        except Exception as exc:  # noqa: BLE001 - a connection cut mid-stream: open it again
            if self._stop.is_set():
                return version
            raise ClusterError(f"watch of {spec.resource} ended: {exc}") from None
        finally:
            with self._lock:
                self._responses.discard(response)
            with contextlib.suppress(Exception):
                response.release_conn()
        return version


def _parse(line: str) -> tuple[str, dict[str, Any]] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
        return None
    kind = event.get("type")
    return (kind, event["object"]) if isinstance(kind, str) else None


def _with_kind(items: Iterable[Any], kind: str) -> list[dict[str, Any]]:
    found = [i for i in items if isinstance(i, dict)]
    for item in found:
        item.setdefault("kind", kind)
    return found
