"""Raw API objects -> Snapshot, whatever resource.k8s.io version they come in.

The differences this absorbs (dra-facts.md section 4):
- v1beta1 requests are flat (`deviceClassName`, `count`, ...); v1beta2/v1 wrap them in
  `exactly`; all three may carry `firstAvailable`.
- v1beta1 devices nest attributes under `basic`; v1beta2/v1 are flat. Some doc samples
  say `apiVersion: v1` and still nest under `basic`: accept both everywhere.
- unqualified attribute and capacity names belong to the driver's domain.
Objects that are missing fields they should have never raise: they normalize to
empty values, and the problem is recorded where the checks can see it.

This module holds the kind table and the SnapshotBuilder; each kind's normalizer lives in a module of
its own job: normalize_slices (devices, slices, classes, taint rules), normalize_claims (claims,
templates), normalize_pods, normalize_others (Nodes, Events, Namespaces, PodLog, ExecCapture),
normalize_workloads (Pods' owners, drivers' DaemonSets, Leases, ResourceQuotas, LimitRanges), over
fields (field readers), values (attribute and quantity values), interning and shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from kubectl_rbln.dra import node_types
from kubectl_rbln.dra.fields import _d, _l, _s
from kubectl_rbln.dra.interning import _LAST
from kubectl_rbln.dra.model import Snapshot, SourceProblem
from kubectl_rbln.dra.normalize_claims import (
    _CLAIM_SPECS,
    _NODE_SELECTORS,
    normalize_claim,
    normalize_template,
)
from kubectl_rbln.dra.normalize_others import (
    normalize_event,
    normalize_exec_capture,
    normalize_namespace,
    normalize_node,
    normalize_pod_log,
)
from kubectl_rbln.dra.normalize_pods import _POD_CONDITIONS, _POD_PARTS, normalize_pod
from kubectl_rbln.dra.normalize_slices import (
    _CAPACITIES,
    _SHARED_VALUES,
    apply_taint_rules,
    normalize_class,
    normalize_slice,
    normalize_taint_rule,
)
from kubectl_rbln.dra.normalize_workloads import (
    KIND_GROUPS,
    WORKLOAD_GROUPS,
    normalize_lease,
    normalize_limit_range,
    normalize_quota,
    normalize_workload,
)
from kubectl_rbln.dra.shapes import shape_problems

RESOURCE_GROUP = "resource.k8s.io"
# where an item read from its text carries its model, made already (cluster/wire_templates.py)
PREBUILT = "kubectl-rbln/model"
PLUGIN_API_VERSION = "kubectl-rbln/v1"
VERSION_ORDER = ("v1", "v1beta2", "v1beta1", "v1alpha3")


def group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def newest_resource_version(versions: Iterable[str]) -> str | None:
    present = set(versions)
    return next((v for v in VERSION_ORDER if v in present), None)


# kind -> its normalizer, for the Kubernetes kinds a Snapshot holds.
NORMALIZERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Namespace": normalize_namespace,
    "Pod": normalize_pod,
    "Node": normalize_node,
    "Event": normalize_event,
    "ResourceSlice": normalize_slice,
    "ResourceClaim": normalize_claim,
    "ResourceClaimTemplate": normalize_template,
    "DeviceClass": normalize_class,
    "DeviceTaintRule": normalize_taint_rule,
    **dict.fromkeys(WORKLOAD_GROUPS, normalize_workload),
    "Lease": normalize_lease,
    "ResourceQuota": normalize_quota,
    "LimitRange": normalize_limit_range,
}


NAMESPACED_KINDS = frozenset(
    {"Pod", "Event", "ResourceClaim", "ResourceClaimTemplate", "PodLog", "ExecCapture", *KIND_GROUPS}
)


_OLDER = -2  # `_duplicate`: this copy is older than the one already read
_LIST_OF = {
    "Pod": "pods",
    "Event": "events",
    "ResourceSlice": "slices",
    "ResourceClaim": "claims",
    "ResourceClaimTemplate": "templates",
    "DeviceTaintRule": "taint_rules",
    **dict.fromkeys(WORKLOAD_GROUPS, "workloads"),
    "Lease": "leases",
    "ResourceQuota": "quotas",
    "LimitRange": "limit_ranges",
}


def _in_group(kind: str, obj: dict[str, Any]) -> bool:
    group, _ = group_version(_s(obj.get("apiVersion")))
    return group == KIND_GROUPS[kind]


def _instant(value: Any) -> datetime | None:
    text = _s(value)
    try:
        found = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=timezone.utc)


def rfc3339(value: Any) -> str:
    """A time as `dump` writes it (`2026-09-14T06:00:00Z`), else "" (an unreadable time is none)."""
    return _s(value) if _instant(value) is not None else ""


def later(one: str, other: str) -> str:
    """The later of two read times ("" is none): two dumps of one cluster read at the later one."""
    first, second = _instant(one), _instant(other)
    if first is None or (second is not None and second > first):
        return other if second is not None else ""
    return one


_INDEX = (1 << 32) - 1  # the index bits of a packed entry (all set: -1, a kind kept by name)


def _packed(version: str, index: int) -> int | tuple[str, int]:
    """A duplicate-index entry: one int when the version is ASCII digits that read back the same."""
    if (
        version.isascii()
        and version.isdigit()
        and (version[0] != "0" or version == "0")
        and 0 <= index < _INDEX
    ):
        return int(version) << 32 | index
    if index < 0 and version.isascii() and version.isdigit() and (version[0] != "0" or version == "0"):
        return int(version) << 32 | _INDEX
    return (version, index)


def _newer(kept: str, other: str) -> bool:
    """The copy read first is the newer: a larger resourceVersion (numeric, as etcd's are); not
    comparable: the copy read last wins."""
    if kept.isdigit() and other.isdigit():
        return int(kept) > int(other)
    return False


# the kinds whose `spec` is a ClaimSpec, and where its fields are in the object
_SPEC_AT = {"ResourceClaim": "spec.", "ResourceClaimTemplate": "spec.spec."}
# the kinds kept by name go to a map of the Snapshot (SnapshotBuilder.place); the others to _LIST_OF's list
_KEYED_IN = {"Node": "nodes", "DeviceClass": "device_classes", "Namespace": "namespaces"}


class SnapshotBuilder:
    """A Snapshot built one object at a time, so a caller can drop each raw object (or page) as soon as
    it is normalized: at 5,000 nodes the raw objects weigh several times their normalized form."""

    def __init__(self, source: str = "") -> None:
        self.snapshot = Snapshot(source=source)
        self.resource_versions: set[str] = set()
        # kind -> namespace -> name -> its resourceVersion and where it was placed: a second copy of an
        # object (two bundles of one cluster, a folder holding both) keeps the newest, never both. Packed
        # in one int (`version << 32 | index`) when the version is digits, as etcd's are, else a tuple:
        # ~1.6 KB a node as tuples at 50,000 nodes (issue 26)
        self._seen: dict[str, dict[str, dict[str, int | tuple[str, int]]]] = {}
        self.duplicates: list[str] = []  # "Pod serving/x", once per object seen more than once
        snap = self.snapshot
        self._lists: dict[str, list[Any]] = {kind: getattr(snap, attr) for kind, attr in _LIST_OF.items()}
        self._api_version: Any = None  # the last apiVersion noted (most objects repeat the one before)
        self._last: tuple[Any, str, dict[str, Any]] = (None, "", {})  # the last (kind, namespace) indexed
        node_types.switch_read_again()  # KUBECTL_RBLN_NODE_TYPES, read once per Snapshot

    def add(self, obj: Any, checked: bool = False) -> None:
        """Normalize one raw object of a known kind; unknown kinds (CDI specs...) are ignored.
        `checked`: decoded into its wire shape (dra/wire.py), so well-formed: no shape check."""
        if not isinstance(obj, dict):
            return
        kind = obj.get("kind")
        api_version = obj.get("apiVersion")
        # DeviceTaintRule is served in v1alpha3/v1beta2 only: not the version of the DRA objects
        if kind != "DeviceTaintRule" and api_version != self._api_version:
            self.note_version(_s(api_version))
            if isinstance(api_version, str):
                self._api_version = api_version
        normalize = NORMALIZERS.get(kind) if isinstance(kind, str) else None
        if normalize is not None and kind in KIND_GROUPS and not _in_group(kind, obj):
            return  # a custom resource that reuses the name (a CRD's `Job`) is not the built-in kind
        if normalize is not None:
            assert isinstance(kind, str)
            index = self._duplicate(kind, obj)
            if index == _OLDER:
                return
            if not checked:
                self._check_shape(kind, obj)
                model = normalize(obj)
            else:
                model = obj.get(PREBUILT)
                if model is None:
                    model = normalize(obj)
            if index is None:
                self.place(kind, model)
            else:
                self._replace(kind, index, model)
        elif obj.get("apiVersion") != PLUGIN_API_VERSION:
            return
        elif kind == "PodLog":
            self.snapshot.logs.append(normalize_pod_log(obj))
        elif kind == "ExecCapture":
            self.snapshot.captures.append(normalize_exec_capture(obj))
        elif kind == "ClusterInfo":
            self._cluster_info(obj)

    def _duplicate(self, kind: str, obj: dict[str, Any]) -> int | None:
        """None: the first copy of this object; else where the older copy sits (the new one replaces it),
        or _OLDER when the copy read first is the newer one."""
        meta = obj.get("metadata")
        if meta.__class__ is not dict:
            meta = _d(meta)
        name = meta.get("name")
        if not name or name.__class__ is not str:
            return None
        namespace = _s(meta.get("namespace")) if kind in NAMESPACED_KINDS else ""
        version = meta.get("resourceVersion")
        if version.__class__ is not str:
            version = ""
        last = self._last  # the objects of a list come kind by kind, namespace by namespace
        seen: Any
        if last[0] == kind and last[1] == namespace:
            seen = last[2]
        else:
            names = self._seen.get(kind)
            if names is None:
                names = self._seen[kind] = {}
            seen = names.get(namespace)
            if seen is None:
                seen = names[namespace] = {}
            self._last = (kind, namespace, seen)
        before = seen.get(name)
        if before is None:
            listed = self._lists.get(kind)
            index = len(listed) if listed is not None else -1
            if 0 <= index < _INDEX and version.isdigit() and version.isascii() and version[:1] != "0":
                seen[name] = int(version) << 32 | index  # `_packed`, inline: nearly every object
            else:
                seen[name] = _packed(version, index)
            return None
        if before.__class__ is int:
            kept, index = str(before >> 32), before & _INDEX
        else:
            kept, index = before
        if index == _INDEX:
            index = -1
        if len(self.duplicates) < 1000:
            self.duplicates.append(f"{kind} {namespace + '/' if namespace else ''}{name}")
        if _newer(kept, version):
            return _OLDER
        seen[name] = _packed(version, index)
        return index

    def _replace(self, kind: str, index: int, model: Any) -> None:
        attr = _LIST_OF.get(kind)
        if attr is None:
            self.place(kind, model)  # keyed by name: the newer copy overwrites
        else:
            self._check_values(kind, model)
            getattr(self.snapshot, attr)[index] = model

    def _check_values(self, kind: str, model: Any) -> None:
        """An impossible value in a claim's or RCT's requests (dra/impossible.py): a `malformed` problem
        that names the object, the field and the value. One attribute read per object otherwise."""
        if kind not in _SPEC_AT:
            return
        wrong = model.spec.impossible
        if not wrong:
            return
        name = f"{model.namespace}/{model.name or '(no name)'}"
        at = _SPEC_AT[kind]
        shown = "; ".join(at + w for w in wrong[:3]) + (
            f"; and {len(wrong) - 3} more" if len(wrong) > 3 else ""
        )
        message = f"{kind} {name}: {shown}: not simulated"
        self.snapshot.problems.append(SourceProblem(kind=kind, message=message, code="malformed", name=name))

    def _check_shape(self, kind: str, obj: dict[str, Any]) -> None:
        """A field of the wrong type is read as empty: say so (kind, name, field), a `malformed` problem."""
        problems = shape_problems(kind, obj)
        if not problems:
            return
        meta = _d(obj.get("metadata"))
        name = _s(meta.get("name")) or "(no name)"
        namespace = _s(meta.get("namespace"))
        if kind in NAMESPACED_KINDS:
            name = f"{namespace or 'default'}/{name}"
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        message = f"{kind} {name}: {shown}: read without it"
        self.snapshot.problems.append(SourceProblem(kind=kind, message=message, code="malformed", name=name))

    def note_version(self, api_version: str) -> None:
        group, version = group_version(api_version)
        if group == RESOURCE_GROUP:
            self.resource_versions.add(version)

    def place(self, kind: str, model: Any) -> None:
        """Add what NORMALIZERS[kind] returned (live reads normalize page by page, in their threads)."""
        if kind in _SPEC_AT:
            self._check_values(kind, model)
        listed = self._lists.get(kind)
        if listed is not None:
            listed.append(model)
        elif kind in _KEYED_IN:
            getattr(self.snapshot, _KEYED_IN[kind])[model.name] = model

    def _cluster_info(self, obj: dict[str, Any]) -> None:
        snap = self.snapshot
        snap.from_dump = True
        snap.server_version = _s(obj.get("serverVersion")) or None
        snap.read_at = later(snap.read_at, rfc3339(obj.get("readAt")))  # two dumps of one cluster: the later
        scope = _d(obj.get("scope"))
        namespaces = tuple(sorted({n for n in _l(scope.get("namespaces")) if isinstance(n, str) and n}))
        if namespaces and scope.get("allNamespaces") is not True:
            snap.dump_namespaces = tuple(sorted({*(snap.dump_namespaces or ()), *namespaces}))
        served = [v for v in _l(obj.get("resourceVersions")) if isinstance(v, str)]
        self.resource_versions.update(served)
        for problem in map(_d, _l(obj.get("problems"))):
            entry = SourceProblem(
                kind=_s(problem.get("kind")),
                message=_s(problem.get("message")),
                code=_s(problem.get("code"), "error"),
            )
            if entry not in snap.problems:  # two bundles of one cluster: said once
                snap.problems.append(entry)

    def merge(self, other: SnapshotBuilder) -> None:
        """Append what `other` normalized (one list read in another thread), keeping its order."""
        snap, more = self.snapshot, other.snapshot
        snap.pods += more.pods
        snap.nodes.update(more.nodes)
        snap.events += more.events
        snap.slices += more.slices
        snap.taint_rules += more.taint_rules
        snap.claims += more.claims
        snap.templates += more.templates
        snap.device_classes.update(more.device_classes)
        snap.namespaces.update(more.namespaces)
        snap.workloads += more.workloads
        snap.leases += more.leases
        snap.quotas += more.quotas
        snap.limit_ranges += more.limit_ranges
        snap.logs += more.logs
        snap.captures += more.captures
        snap.problems += more.problems
        snap.server_version = more.server_version or snap.server_version
        snap.from_dump = snap.from_dump or more.from_dump
        snap.read_at = later(snap.read_at, more.read_at)
        self.resource_versions |= other.resource_versions

    def finish(self) -> Snapshot:
        self.snapshot.derived[node_types.DERIVED_KEY] = node_types.finish()
        _SHARED_VALUES.clear()
        _CAPACITIES.clear()
        _CLAIM_SPECS.clear()
        _NODE_SELECTORS.clear()
        _POD_PARTS.clear()
        _POD_CONDITIONS.clear()
        _LAST.clear()
        if self.duplicates:
            shown = ", ".join(self.duplicates[:3]) + (
                f" and {len(self.duplicates) - 3} more" if len(self.duplicates) > 3 else ""
            )
            self.snapshot.notes.append(
                f"{len(self.duplicates)} object(s) appear more than once in the input ({shown}): "
                f"kept the copy with the newest resourceVersion of each"
            )
        if self.snapshot.taint_rules:
            apply_taint_rules(self.snapshot.slices, self.snapshot.taint_rules)
        self.snapshot.resource_api_version = newest_resource_version(self.resource_versions)
        return self.snapshot


def build_snapshot(objects: Iterable[dict[str, Any]], *, source: str = "") -> Snapshot:
    """Every known kind is normalized; unknown kinds (CDI specs...) are ignored."""
    builder = SnapshotBuilder(source)
    for obj in objects:
        builder.add(obj)
    return builder.finish()
