"""The only place that reads a cluster or files: both paths end in the same raw objects.

Live reads and `-f` bundles produce one list of raw objects, normalized by the
same `build_snapshot`; what only a live read knows (server version, the
resource.k8s.io versions served, lists that were forbidden) travels in a
`kubectl-rbln/v1 ClusterInfo` item. That is why `why -f dump.json` and `why`
against the live cluster give identical answers.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from kubectl_rbln import progress
from kubectl_rbln.cluster.files import AliasBudget, expand_paths, load_objects, no_objects
from kubectl_rbln.cluster.kubeconfig import KubeContext, resolve_context
from kubectl_rbln.cluster.lists import (
    CORE_LISTS,
    DRA_LISTS,
    RESOURCE_GROUP,
    TAINT_RULE_VERSIONS,
    TAINT_RULES,
    ListSpec,
    list_path,
    stage_lists,
)
from kubectl_rbln.cluster.live import ApiRefusal, LiveClient, ReadAbandoned, WrongAnswer
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.read_gaps import NEEDS_PODS, read_gaps
from kubectl_rbln.cluster.wire_read import iter_checked
from kubectl_rbln.domain import DEVICE_RESOURCE_PREFIXES, KUBELET_PLUGINS
from kubectl_rbln.dra.fields import _d, _i, _l
from kubectl_rbln.dra.model import REFUSED_CODES, Snapshot
from kubectl_rbln.dra.normalize import (
    NORMALIZERS,
    PLUGIN_API_VERSION,
    PREBUILT,
    VERSION_ORDER,
    SnapshotBuilder,
)
from kubectl_rbln.dra.wire import WIRE_SHAPES
from kubectl_rbln.errors import ClusterError, InputError

Warn = Callable[[str], None]
LOG_TAIL_LINES = 500
LOG_LIMIT_BYTES = 256 * 1024


@dataclass(slots=True)
class Collected:
    objects: list[dict[str, Any]]
    namespace: str | None  # None: all namespaces
    context: KubeContext | None


def is_device_pod(pod: dict[str, Any]) -> bool:
    """A Pod with DRA claims or Rebellions / RDMA extended resources. A raw object from a list: any
    field may have the wrong type (a replayed bundle is what its author wrote); those count as absent."""
    spec = _d(pod.get("spec"))
    if spec.get("resourceClaims"):
        return True
    for container in _l(spec.get("containers")):
        resources = _d(_d(container).get("resources"))
        names = [*_d(resources.get("requests")), *_d(resources.get("limits"))]
        if any(isinstance(name, str) and name.startswith(DEVICE_RESOURCE_PREFIXES) for name in names):
            return True
    return False


def crashing_containers(pod: dict[str, Any]) -> list[str]:
    """Containers that restarted or sit in a crash loop: their previous log says why."""
    names = []
    for status in map(_d, _l(_d(pod.get("status")).get("containerStatuses"))):
        waiting = _d(_d(status.get("state")).get("waiting")).get("reason", "")
        restarts = status.get("restartCount", 0)
        restarted = _i(restarts) > 0  # a text count reads as 0, as the normalizer reads it
        if restarted or waiting == "CrashLoopBackOff":
            names.append(str(status.get("name", "")))
    return [n for n in names if n]


class LiveCollector:
    """Reads every list a diagnosis needs, in parallel, degrading per list on 403."""

    def __init__(self, opts: SourceOptions) -> None:
        self.ctx = resolve_context(opts.kubeconfig, opts.context, opts.namespace, opts.flags)
        self.client = LiveClient(self.ctx, timeout=opts.request_timeout)
        self.namespace = None if opts.all_namespaces else self.ctx.namespace
        self.kinds = opts.kinds
        self.only: tuple[str, ...] | None = None  # several namespaces (read as -A, then kept to these)
        self.problems: list[dict[str, str]] = []
        self._served: list[str] = []
        self._read_counts: dict[str, int] = {}
        self._events_read: set[tuple[str, str]] = set()  # (namespace, name) of every event a list held
        self._count_lock = threading.Lock()
        self.client.on_page = self._page_read

    def _page_read(self, path: str, items: int) -> None:
        """A progress line while the lists arrive: objects read so far, per resource."""
        resource = path.rstrip("/").rsplit("/", 1)[-1]
        with self._count_lock:  # the lists are read in parallel threads
            counts = self._read_counts
            counts[resource] = counts.get(resource, 0) + items
            lists = ", ".join(f"{name} {count:,}" for name, count in counts.items())
            done = sum(counts.values())
        progress.report("progress-reading-cluster", done=done, lists=lists)

    def server_version(self) -> str:
        """The first contact: an unreachable, hung or credential-refusing cluster ends here (exit 3)."""
        try:
            info = self.client.get("/version")
        except ApiRefusal as refusal:  # a locked-down /version still lets the lists run
            self._problem("Version", refusal)
            return ""
        return str(info.get("gitVersion", "")) if isinstance(info, dict) else ""

    def _problem(self, kind: str, refusal: ApiRefusal, message: str | None = None) -> None:
        """A refused read, recorded in ClusterInfo: the check that needed it says `source-degraded`. A list
        read in the pool keeps its own (`_lists`), so that they are recorded in the lists' order."""
        entry = {"kind": kind, "code": _code(refusal), "message": message or refusal.message}
        pending = getattr(_JOB, "problems", None)
        (pending if pending is not None else self.problems).append(entry)

    def _lists(self, jobs: list[tuple[ListSpec, str]], normalized: bool) -> list[list[Any]]:
        """Every list of `jobs` in parallel (each normalized as read, when `normalized`); the problems of
        refused ones in the order of `jobs`, whichever answered first (a dump says the same each time)."""

        def read(job: tuple[ListSpec, str]) -> tuple[list[Any], list[dict[str, str]]]:
            found: list[dict[str, str]] = []
            _JOB.problems = found
            try:
                keep = _normalizer(job[0].kind) if normalized else None
                return self._read_one(job[0], job[1], keep=keep), found
            finally:
                _JOB.problems = None

        with ThreadPoolExecutor(max_workers=max(1, min(8, len(jobs)))) as pool:
            done = list(pool.map(read, jobs))
        for _, found in done:
            self.problems.extend(found)
        return [items for items, _ in done]

    def resource_versions(self) -> list[str]:
        """The resource.k8s.io versions served, newest first; [] when DRA is not served."""
        try:
            group = self.client.get(f"/apis/{RESOURCE_GROUP}")
        except ApiRefusal as refusal:
            note = None
            if refusal.status == 404:
                note = (
                    f"the cluster does not serve {RESOURCE_GROUP} (Dynamic Resource Allocation): "
                    f"GET /apis/{RESOURCE_GROUP} answered 404"
                )
            self._problem(RESOURCE_GROUP, refusal, note)
            return []
        served = [str(v.get("version")) for v in group.get("versions") or [] if isinstance(v, dict)]
        return [v for v in VERSION_ORDER if v in served]

    def _read(self, spec: ListSpec, version: str, keep: Keep | None = None) -> list[Any]:
        """One list in the scope, or in the namespace of its own (kube-system's Leases); a refusal is a
        problem entry of its kind. Events are noted as read, so that no later read adds them again."""
        namespace = spec.namespace or self.namespace
        path = list_path(spec, version, namespace)
        query = {"labelSelector": spec.label} if spec.label else None
        chosen = _kept(spec, keep, self._events_read) if spec.wanted or spec.kind == "Event" else keep
        try:
            items = self.client.list(path, query, keep=chosen, decoder=_page_decoder(spec.kind, keep))
        except ApiRefusal as refusal:
            note = f"{spec.purpose} in {namespace}: {refusal.message}" if spec.purpose else None
            self._problem(spec.kind, refusal, note)
            return []
        return [item for item in items if item is not None] if spec.wanted else items

    def _read_one(self, spec: ListSpec, version: str, keep: Keep | None = None) -> list[Any]:
        if spec.kind == "ResourceClaim":
            return self._read_claims(version, keep)
        if spec.kind == "ResourceClaimTemplate" and self.namespace is not None:
            return self._read_templates(spec, version, keep)
        if spec.kind == "DeviceTaintRule":
            return self._read_taint_rules(keep)
        return self._read(spec, version, keep)

    def _read_templates(self, spec: ListSpec, version: str, keep: Keep | None = None) -> list[Any]:
        """RCTs of every namespace, so `why` can say where a missing one is (claim-template-missing,
        case other-namespace); when that list is forbidden, ours alone, and nothing is lost."""
        try:
            return self.client.list(list_path(spec, version, None), keep=keep)
        except ReadAbandoned as abandoned:  # out of time: a second list would be too
            self._problem(spec.kind, abandoned)
            return []
        except ApiRefusal:
            return self._read(spec, version, keep)

    def _read_taint_rules(self, keep: Keep | None = None) -> list[Any]:
        """The newest served version that has the resource; forbidden is a problem, not served is none."""
        for version in TAINT_RULE_VERSIONS:
            if version not in self._served:
                continue
            try:
                return self.client.list(list_path(TAINT_RULES, version, None), keep=keep)
            except ApiRefusal as refusal:
                if refusal.status == 404:
                    continue
                self._problem(TAINT_RULES.kind, refusal)
                return []
        return []

    def _read_claims(self, version: str, keep: Keep | None = None) -> list[Any]:
        """Claims of every namespace hold devices too; fall back to ours when that list is forbidden."""
        spec = DRA_LISTS[3]
        decoder = _page_decoder(spec.kind, keep)
        try:
            return self.client.list(list_path(spec, version, None), keep=keep, decoder=decoder)
        except ApiRefusal as refusal:
            if self.namespace is None or isinstance(refusal, ReadAbandoned):
                self._problem("ResourceClaim", refusal)
                return []
            note = f"{refusal.message}; claims in other namespaces are invisible, devices they hold look free"
            self._problem("ResourceClaim", refusal, note)
            try:
                return self.client.list(list_path(spec, version, self.namespace), keep=keep, decoder=decoder)
            except ApiRefusal as again:
                self._problem("ResourceClaim", again)
                return []

    def _jobs(self, versions: list[str]) -> list[tuple[ListSpec, str]]:
        jobs: list[tuple[ListSpec, str]] = [(spec, "v1") for spec in CORE_LISTS]
        self._served = list(versions)
        if versions:
            jobs += [(spec, versions[0]) for spec in DRA_LISTS]
            if any(v in versions for v in TAINT_RULE_VERSIONS):
                jobs.append((TAINT_RULES, versions[0]))
        jobs += [(spec, "v1") for spec in stage_lists(self.namespace)]
        if self.kinds is not None:
            jobs = [job for job in jobs if job[0].kind in self.kinds]
        return jobs

    def read_at(self) -> str:
        """When this read started: the server's clock (the Date of its first answer), which is the clock
        its Leases are renewed by, else ours; UTC RFC 3339, for ClusterInfo `readAt`."""
        return read_time(self.client.date)

    def collect(self, extras: Sequence[ExtraCollector] = ()) -> list[dict[str, Any]]:
        """Every list, the crash logs, then what `extras` add (exec probes), then ClusterInfo."""
        version = self.server_version()
        read_at = self.read_at()
        versions = self.resource_versions()
        jobs = self._jobs(versions)
        lists = self._lists(jobs, normalized=False)
        objects = [obj for items in lists for obj in items]
        objects.extend(self.previous_logs([o for o in objects if o.get("kind") == "Pod"]))
        pods = [o for o in objects if o.get("kind") == "Pod"]
        plugins = self.kubelet_plugin_objects(waiting_nodes(_raw_pod_facts(pods)), _keys(pods))
        objects.extend(self._unread(plugins))
        if self.only is not None:  # several namespaces: read as -A, kept to those and the plugins'
            keep = set(self.only) | {plugin.namespace for plugin in KUBELET_PLUGINS.values()}
            objects = [o for o in objects if _namespace_of(o) in keep or not _namespace_of(o)]
        for extra in extras:
            objects.extend(extra(self, list(objects)))
        objects.append(
            cluster_info(version, versions, self.problems, self.ctx.context, self.scope(), read_at)
        )
        progress.done()
        return objects

    def _unread(self, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Objects of a later read without the events a list already held (a driver Pod's events)."""
        return [o for o in objects if o.get("kind") != "Event" or _event_key(o) not in self._events_read]

    def scope(self) -> dict[str, Any]:
        """What this collector reads, for ClusterInfo `scope`."""
        if self.only is not None:
            return {"namespaces": list(self.only)}
        if self.namespace is None:
            return {"allNamespaces": True}
        return {"namespaces": [self.namespace]}

    def device_namespaces(self) -> list[str] | None:
        """The namespaces holding a device Pod or a ResourceClaim (cluster-scope lists), sorted; None
        when a list is refused. `dump` without -n reads these."""

        def pod_keep(item: dict[str, Any]) -> str:
            return _namespace_of(item) if is_device_pod(item) else ""

        try:
            found = {ns for ns in self.client.list("/api/v1/pods", keep=pod_keep) if ns}
            group = self.client.get(f"/apis/{RESOURCE_GROUP}")
            served = [str(v.get("version")) for v in group.get("versions") or [] if isinstance(v, dict)]
            version = next((v for v in VERSION_ORDER if v in served), None)
            if version is not None:
                path = list_path(DRA_LISTS[3], version, None)
                found |= {ns for ns in self.client.list(path, keep=_namespace_of) if ns}
        except ApiRefusal:
            return None
        return sorted(found)

    def collect_snapshot(self, source: str) -> Snapshot:
        """What `collect()` reads, normalized page by page in the reading threads: the same Snapshot
        as `build_snapshot(collect())`, without ever holding all the raw objects (docs/performance.md)."""
        version = self.server_version()
        read_at = self.read_at()
        versions = self.resource_versions()
        jobs = self._jobs(versions)
        lists = self._lists(jobs, normalized=True)
        builder = SnapshotBuilder(source)
        crashed: list[tuple[dict[str, Any], str]] = []
        for (spec, _), items in zip(jobs, lists, strict=True):
            noted = None  # a list's items share their apiVersion: noted once (`note_version` adds to a set)
            place = builder.place
            for api_version, model, crashing in items:
                if api_version != noted and spec.kind != TAINT_RULES.kind:  # not the DRA objects' version
                    builder.note_version(api_version)
                    noted = api_version
                place(spec.kind, model)
                if crashing:
                    crashed += crashing
        for meta, container in crashed:
            text = self.read_log(meta["namespace"], meta["name"], container)
            if text is not None:
                builder.add(pod_log(meta, container, text))
        pods = builder.snapshot.pods
        facts = ((bool(p.resource_claims) or _model_uses_devices(p), p.phase, p.node_name) for p in pods)
        keys = {(p.namespace, p.name) for p in pods}
        for obj in self._unread(self.kubelet_plugin_objects(waiting_nodes(facts), keys)):  # none without Pods
            builder.add(obj)
        builder.add(cluster_info(version, versions, self.problems, self.ctx.context, self.scope(), read_at))
        return builder.finish()

    def previous_logs(self, pods: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """PodLog items for the crashing containers of device Pods (the memlock check reads them)."""
        logs = []
        for pod in pods:
            if not is_device_pod(pod):
                continue
            meta = pod.get("metadata") or {}
            for container in crashing_containers(pod):
                text = self.read_log(meta.get("namespace", ""), meta.get("name", ""), container)
                if text is not None:
                    logs.append(pod_log(meta, container, text))
        return logs

    def kubelet_plugin_objects(self, nodes: set[str], seen: set[tuple[str, str]]) -> list[dict[str, Any]]:
        """The DRA kubelet plugin Pods of the drivers on `nodes` (device Pods bound there wait), their
        events and crash logs: they live in the drivers' own namespaces (domain.KUBELET_PLUGINS).
        With -A they were read already; a refused read is a `Pod`/`Event` problem, not the end."""
        if not nodes or self.namespace is None:
            return []
        objects: list[dict[str, Any]] = []
        for plugin in KUBELET_PLUGINS.values():
            path = f"/api/v1/namespaces/{plugin.namespace}/pods"
            try:
                items = self.client.list(path, {"labelSelector": plugin.label})
            except ApiRefusal as refusal:
                note = f"pods of {plugin.driver}'s kubelet plugin in {plugin.namespace}: {refusal.message}"
                self._problem("Pod", refusal, note)
                continue
            for pod in items:
                meta = pod.get("metadata") or {}
                where = (str(meta.get("namespace", "")), str(meta.get("name", "")))
                if (pod.get("spec") or {}).get("nodeName") not in nodes or where in seen:
                    continue
                seen.add(where)
                objects.append(pod)
                if _unhealthy(pod):
                    objects.extend(self._events_of(*where))
                for container in crashing_containers(pod):
                    text = self.read_log(where[0], where[1], container)
                    if text is not None:
                        objects.append(pod_log(meta, container, text))
        return objects

    def _events_of(self, namespace: str, name: str) -> list[dict[str, Any]]:
        query = {"fieldSelector": f"involvedObject.name={name}"}
        try:
            return self.client.list(f"/api/v1/namespaces/{namespace}/events", query)
        except ApiRefusal as refusal:
            self._problem("Event", refusal, f"events of {namespace}/{name}: {refusal.message}")
            return []

    def read_log(self, namespace: str, pod: str, container: str) -> str | None:
        """The previous run's log; a refused log (403, gone: 400/404) is a problem entry, not the end."""
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}/log"
        query = {
            "container": container,
            "previous": "true",
            "tailLines": LOG_TAIL_LINES,
            "limitBytes": LOG_LIMIT_BYTES,
        }
        try:
            return self.client.get_text(path, query)
        except ApiRefusal as refusal:
            note = f"logs of {namespace}/{pod} container {container}: {refusal.message}"
            self._problem("PodLog", refusal, note)
            return None


def waiting_nodes(pods: Iterable[tuple[bool, str, str | None]]) -> set[str]:
    """Nodes where a device Pod is bound but still Pending: (uses devices, phase, nodeName) per Pod."""
    return {node for devices, phase, node in pods if devices and phase == "Pending" and node}


def _raw_pod_facts(pods: Iterable[dict[str, Any]]) -> Iterator[tuple[bool, str, str | None]]:
    for pod in pods:
        yield (
            is_device_pod(pod),
            str((pod.get("status") or {}).get("phase", "")),
            (pod.get("spec") or {}).get("nodeName"),
        )


def _model_uses_devices(pod: Any) -> bool:
    names = [n for c in pod.containers for n in [*c.requests, *c.limits]]
    return any(name.startswith(DEVICE_RESOURCE_PREFIXES) for name in names)


def _keys(pods: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    return {
        (str((p.get("metadata") or {}).get("namespace", "")), str((p.get("metadata") or {}).get("name", "")))
        for p in pods
    }


def _namespace_of(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("namespace") or "") if isinstance(meta, dict) else ""


def _unhealthy(pod: dict[str, Any]) -> bool:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return bool(crashing_containers(pod)) or not statuses or not all(s.get("ready") for s in statuses)


# An extension point of `collect`: given the collector and the objects read so far, more
# objects for the bundle (exec probe captures). A refused read belongs in `collector.problems`.
ExtraCollector = Callable[["LiveCollector", list[dict[str, Any]]], Iterable[dict[str, Any]]]


Keep = Callable[[dict[str, Any]], Any]
# the problems of the list a pool thread reads now (LiveCollector._lists), None outside of one
_JOB = threading.local()


def _page_decoder(kind: str, keep: Keep | None) -> Any:
    """The reader of a list's pages whose items are normalized as read (`keep`), else None: `collect()`
    (for `dump`) keeps whole objects. One per list read: it holds that list's templates
    (cluster/wire_pages.py)."""
    if keep is None or kind not in WIRE_SHAPES:
        return None
    from kubectl_rbln.cluster.wire_pages import PageReader  # noqa: PLC0415

    return PageReader(kind)


def _normalizer(kind: str) -> Keep:
    """Raw item -> (apiVersion, normalized object, crashed containers whose previous log to read). An
    item read from a template carries its model (PREBUILT), and is a Pod none of whose containers
    restarted (cluster/wire_pages.py reads no other Pod so)."""
    normalize = NORMALIZERS[kind]

    def keep(item: dict[str, Any]) -> tuple[str, Any, list[tuple[dict[str, str], str]]]:
        api_version = item.get("apiVersion")
        api_version = api_version if isinstance(api_version, str) else ""
        model = item.get(PREBUILT)
        if model is not None:
            return (api_version, model, [])
        crashing: list[tuple[dict[str, str], str]] = []
        if kind == "Pod":
            names = crashing_containers(item)  # its status: nearly always none, so rarely a spec to read
            if names and is_device_pod(_plain_spec(item)):
                meta = item.get("metadata") or {}
                where = {"namespace": meta.get("namespace", ""), "name": meta.get("name", "")}
                crashing = [(where, container) for container in names]
        return (api_version, normalize(item), crashing)

    return keep


def _plain_spec(pod: dict[str, Any]) -> dict[str, Any]:
    """A live page's Pod with its spec as `is_device_pod` reads it: a wire Pod's containers and claim
    references are their JSON text (dra/wire.py PodSpecWire), decoded here as json.loads would."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod
    import msgspec  # noqa: PLC0415

    return {"spec": {k: msgspec.json.decode(v) if isinstance(v, msgspec.Raw) else v for k, v in spec.items()}}


def _event_key(event: dict[str, Any]) -> tuple[str, str]:
    meta = event.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def _kept(spec: ListSpec, keep: Keep | None, read: set[tuple[str, str]]) -> Keep:
    """`keep` (or the item itself) for the items `spec.wanted` keeps, None for the rest; an event kept is
    noted in `read` (lists of events run in threads of their own: set.add is atomic)."""

    def chosen(item: dict[str, Any]) -> Any:
        if spec.wanted is not None and not spec.wanted(item):
            return None
        if spec.kind == "Event":
            read.add(_event_key(item))
        return keep(item) if keep is not None else item

    return chosen


def _code(refusal: ApiRefusal) -> str:
    if isinstance(refusal, WrongAnswer):
        return "missing"  # answered, but not with the list: as if the cluster held none (an error)
    if isinstance(refusal, ReadAbandoned):
        return refusal.code  # timeout, too-large, encoding: the list broke a bound (cluster/bounded.py)
    return {403: "forbidden", 404: "not-served"}.get(refusal.status, "error")


def pod_log(meta: dict[str, Any], container: str, text: str) -> dict[str, Any]:
    return {
        "apiVersion": PLUGIN_API_VERSION,
        "kind": "PodLog",
        "metadata": {"name": meta.get("name", ""), "namespace": meta.get("namespace", "")},
        "container": container,
        "previous": True,
        "log": text,
    }


def cluster_info(
    version: str,
    resource_versions: list[str],
    problems: list[dict[str, str]],
    context: str,
    scope: dict[str, Any] | None = None,
    read_at: str = "",
) -> dict[str, Any]:
    """What only a live read knows, kept so that a bundle diagnoses like the cluster it came from;
    `scope` is what was read: `{namespaces: [..]}` or `{allNamespaces: true}`; `read_at` when (a
    Lease's renewTime is read against it)."""
    info: dict[str, Any] = {
        "apiVersion": PLUGIN_API_VERSION,
        "kind": "ClusterInfo",
        "metadata": {"name": context or "cluster"},
        "serverVersion": version,
        "resourceVersions": resource_versions,
        "problems": problems,
    }
    if scope is not None:
        info["scope"] = scope
    if read_at:
        info["readAt"] = read_at
    return info


def read_time(date: str, now: datetime | None = None) -> str:
    """An HTTP Date header (RFC 9110: `Mon, 14 Sep 2026 06:00:00 GMT`) as UTC RFC 3339; without one (or
    unreadable), `now`, else this machine's clock."""
    when = now
    if date:
        try:
            when = parsedate_to_datetime(date)
        except (TypeError, ValueError):
            when = now
    if when is None:
        when = datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def collect(opts: SourceOptions) -> Collected:
    """Raw objects from `-f` files, or from the cluster the kubeconfig names."""
    if opts.offline:
        namespace = None if opts.all_namespaces else opts.namespace
        return Collected(objects=load_objects(opts.filenames), namespace=namespace, context=None)
    collector = LiveCollector(opts)
    return Collected(objects=collector.collect(), namespace=collector.namespace, context=collector.ctx)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic GC while millions of acyclic objects are parsed and normalized: the collector would
    walk them again and again (json.loads of a 5,000-node bundle: 2.5 s with it, 0.8 s without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(slots=True)
class _Input:
    """What tells one cluster from another, per input file."""

    path: str
    info: tuple[str, str] | None = None  # a dump's ClusterInfo: (context, server version)
    nodes: set[str] | None = None


def read_inputs(paths: Sequence[str], label: str) -> Snapshot:
    """Every `-f` input into one Snapshot: a duplicate object keeps its newest copy (a note says so);
    inputs from different clusters (another dump's ClusterInfo, or no Node in common) are an error."""
    builder = SnapshotBuilder(label)
    inputs: list[_Input] = []
    found = 0
    budget = AliasBudget()  # one bound on YAML aliases over every input
    for path in expand_paths(paths):
        seen = _Input("<stdin>" if path == "-" else path)
        for obj, checked in iter_checked(path, _file_progress(seen.path), budget):
            found += 1
            kind = obj.get("kind")
            raw_meta = obj.get("metadata")
            meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
            if kind == "ClusterInfo" and obj.get("apiVersion") == PLUGIN_API_VERSION:
                seen.info = (str(meta.get("name", "")), str(obj.get("serverVersion", "")))
            elif kind == "Node":
                if seen.nodes is None:
                    seen.nodes = set()
                seen.nodes.add(str(meta.get("name", "")))  # in place: a copy per Node was O(n^2)
            builder.add(obj, checked)
        inputs.append(seen)
    if not found:
        raise no_objects([i.path for i in inputs])
    _same_cluster(inputs)
    return builder.finish()


def _file_progress(name: str) -> Callable[[int, int], None]:
    def step(done: int, total: int) -> None:
        progress.report("progress-reading-file", file=name, done=done, total=total)

    return step


def _same_cluster(inputs: list[_Input]) -> None:
    dumps = [(i.path, i.info) for i in inputs if i.info is not None]
    for path, info in dumps[1:]:
        first, first_info = dumps[0]
        if info != first_info:
            raise InputError(
                f"{first} and {path} come from different clusters (ClusterInfo: context "
                f"{first_info[0]!r} {first_info[1] or 'version unknown'}, context {info[0]!r} "
                f"{info[1] or 'version unknown'})",
                hint="read one cluster's inputs at a time",
            )
    with_nodes = [i for i in inputs if i.nodes]
    for other in with_nodes[1:]:
        one = with_nodes[0]
        if one.nodes and other.nodes and not one.nodes & other.nodes:
            raise InputError(
                f"{one.path} and {other.path} come from different clusters (no Node in common)",
                hint="read one cluster's inputs at a time",
            )


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def input_warnings(snapshot: Snapshot) -> list[str]:
    """What reading the inputs decided or could not read: malformed objects, lists that came back
    with nothing where something must be or not at all (`source-degraded`), duplicates kept."""
    lines = [f"warning: malformed {p.message}" for p in snapshot.problems if p.code == "malformed"]
    lines += [
        f"warning: {p.message}: checked on partial data (source-degraded)"
        for p in snapshot.problems
        if p.code == "missing" or p.code in REFUSED_CODES
    ]
    return lines + [f"note: {note}" for note in snapshot.notes]


def load_snapshot(
    opts: SourceOptions, warn: Warn | None = _stderr, needs: Collection[str] = NEEDS_PODS
) -> tuple[Snapshot, Collected]:
    """The Snapshot every command reads. Raw objects are normalized as they are read and dropped,
    so `Collected.objects` stays empty here (`collect()` returns them, for `dump`). The kinds in
    `needs` that came back with nothing are `missing` problems (cluster/read_gaps.py)."""
    with _gc_paused():
        if opts.offline:
            namespace = None if opts.all_namespaces else opts.namespace
            collected = Collected(objects=[], namespace=namespace, context=None)
            label = "files " + ", ".join(opts.filenames)
            snapshot = read_inputs(opts.filenames, label)
        else:
            collector = LiveCollector(opts)
            collected = Collected(objects=[], namespace=collector.namespace, context=collector.ctx)
            snapshot = collector.collect_snapshot(f"context {collector.ctx.context}")
        progress.done()
        live_scope = (collected.namespace,) if collected.namespace is not None else None
        scope = snapshot.dump_namespaces if opts.offline else live_scope
        snapshot.problems += read_gaps(snapshot, needs, live=not opts.offline, pod_scope=scope)
        if not gc.isenabled():  # a one-shot command: what was just built lives until the end
            gc.freeze()  # (not in `why --watch`, whose every round would otherwise stay for good)
    if warn is not None:
        for line in input_warnings(snapshot):
            warn(line)
    unread = snapshot.resource_api_version is None and not snapshot.problem_for(RESOURCE_GROUP)
    if not opts.offline and unread:
        raise ClusterError("the cluster answered, but resource.k8s.io could not be read")
    return snapshot, collected


@dataclass(frozen=True, slots=True)
class NamespaceScope:
    """Which namespace a command reads: one, or every one (None), and why, when it was not `-n`."""

    namespace: str | None  # None: every namespace (-A, or a bundle holding several)
    held: tuple[str, ...] = ()  # offline without -n: the namespaces the bundle's device objects are in
    note: str = ""  # one stderr line when the choice was not `-n` / `-A`
    given: bool = False  # -n was passed

    @property
    def single(self) -> str:
        """For the commands that read one namespace: the chosen one, else the bundle's first."""
        return self.namespace or (self.held[0] if self.held else "default")

    @property
    def single_note(self) -> str:
        """The note of a command that reads one namespace (it cannot read all of them)."""
        if self.namespace is None and len(self.held) > 1:
            return (
                f"no -n: the input holds namespaces {', '.join(self.held)}; reading {self.single} "
                f"(pass -n to choose another)"
            )
        return self.note


def held_namespaces(snapshot: Snapshot) -> list[str]:
    """The namespaces of a snapshot's device Pods, else of its claims and RCTs, else of its Pods."""
    for found in (
        {p.namespace for p in snapshot.pods if p.resource_claims or _model_uses_devices(p)},
        {c.namespace for c in snapshot.claims} | {t.namespace for t in snapshot.templates},
        {p.namespace for p in snapshot.pods},
    ):
        if found:
            return sorted(found)
    return []


def namespace_scope(
    opts: SourceOptions, collected: Collected, snapshot: Snapshot | None = None
) -> NamespaceScope:
    """The one place every command that takes -n chooses its namespace.

    -A: every namespace (the CLI drops -n then, as kubectl does: cli/options.py); -n; live: the
    context's namespace. Offline without -n: the namespace a `dump` recorded, else the namespaces
    the bundle holds (device Pods, else claims and RCTs): one is used; several are read as with -A,
    and the note says so."""
    if opts.all_namespaces:
        return NamespaceScope(None)
    if opts.namespace:
        return NamespaceScope(opts.namespace, note=_outside_dump(snapshot, opts.namespace), given=True)
    if collected.context is not None:
        return NamespaceScope(collected.context.namespace)
    held = tuple(held_namespaces(snapshot)) if snapshot is not None else ()
    dumped = snapshot.dump_namespaces if snapshot is not None else None
    if dumped and len(dumped) == 1:
        return NamespaceScope(dumped[0], held=held)
    if dumped:
        held = tuple(dumped)
    if len(held) == 1:
        return NamespaceScope(held[0], held=held)
    if len(held) > 1:
        note = f"no -n: the input holds namespaces {', '.join(held)}; reading all of them, as with -A"
        return NamespaceScope(None, held=held, note=note)
    return NamespaceScope("default")


def _outside_dump(snapshot: Snapshot | None, namespace: str) -> str:
    """A bundle dumped with -n X read with -n Y: Y's Pods, events and RCTs were never written."""
    dumped = snapshot.dump_namespaces if snapshot is not None else None
    if dumped and namespace not in dumped:
        return (
            f'namespace "{namespace}" was not in the dump\'s scope (it read {", ".join(dumped)}): '
            f"its Pods, Events and ResourceClaimTemplates are not in the input"
        )
    return ""


def default_namespace(
    opts: SourceOptions, collected: Collected, snapshot: Snapshot | None = None, warn: Warn | None = None
) -> str:
    """The one namespace of the commands that read one (check, attrs, topo, suggest-rct); its note
    (a bundle of several namespaces, a namespace outside a dump's scope) goes to `warn`."""
    scope = namespace_scope(opts, collected, snapshot)
    if scope.single_note and warn is not None:
        warn(f"note: {scope.single_note}")
    return scope.single
