"""Which API resources a bundle implies: group, versions, plural name, scope.

kubectl and the Python client find everything through discovery, so the replay
server must answer "is `resourceslices` namespaced, and under which versions"
for whatever kinds a bundle holds. Known kinds come from a small table; an
unknown kind gets a guessed plural and is namespaced if its objects say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Our own kinds (PodLog, ExecCapture, ClusterInfo) live under this apiVersion and back
# pods/log, pods/exec and /version instead of being served as resources.
PRIVATE_API_VERSION = "kubectl-rbln/v1"
DRA_GROUP = "resource.k8s.io"

# kind -> (plural, namespaced, short names)
KNOWN_KINDS: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "Node": ("nodes", False, ("no",)),
    "Pod": ("pods", True, ("po",)),
    "Event": ("events", True, ("ev",)),
    "Namespace": ("namespaces", False, ("ns",)),
    "ConfigMap": ("configmaps", True, ("cm",)),
    "Secret": ("secrets", True, ()),
    "Service": ("services", True, ("svc",)),
    "ServiceAccount": ("serviceaccounts", True, ("sa",)),
    "PersistentVolume": ("persistentvolumes", False, ("pv",)),
    "PersistentVolumeClaim": ("persistentvolumeclaims", True, ("pvc",)),
    "Endpoints": ("endpoints", True, ("ep",)),
    "Deployment": ("deployments", True, ("deploy",)),
    "DaemonSet": ("daemonsets", True, ("ds",)),
    "StatefulSet": ("statefulsets", True, ("sts",)),
    "ReplicaSet": ("replicasets", True, ("rs",)),
    "Job": ("jobs", True, ()),
    "CronJob": ("cronjobs", True, ("cj",)),
    "Lease": ("leases", True, ()),
    "ResourceQuota": ("resourcequotas", True, ("quota",)),
    "LimitRange": ("limitranges", True, ("limits",)),
    "PriorityClass": ("priorityclasses", False, ("pc",)),
    "RuntimeClass": ("runtimeclasses", False, ()),
    "StorageClass": ("storageclasses", False, ("sc",)),
    "CSIDriver": ("csidrivers", False, ()),
    "CSINode": ("csinodes", False, ()),
    "CustomResourceDefinition": ("customresourcedefinitions", False, ("crd", "crds")),
    "ClusterRole": ("clusterroles", False, ()),
    "ClusterRoleBinding": ("clusterrolebindings", False, ()),
    "DeviceClass": ("deviceclasses", False, ()),
    "ResourceSlice": ("resourceslices", False, ()),
    "ResourceClaim": ("resourceclaims", True, ()),
    "ResourceClaimTemplate": ("resourceclaimtemplates", True, ()),
    "DeviceTaintRule": ("devicetaintrules", False, ()),
}

# Served even when the bundle holds none: an empty list says "none", a 404 says "no such API".
ALWAYS_CORE = ("Node", "Pod", "Event", "Namespace", "ResourceQuota", "LimitRange")
ALWAYS_DRA = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")
# Every cluster serves these groups (v1): what owns Pods, and the schedulers' Leases. `dump` reads them,
# so a bundle without any still answers their lists, empty, as the cluster it came from did.
ALWAYS_GROUPS: dict[str, tuple[str, ...]] = {
    "apps": ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"),
    "batch": ("Job", "CronJob"),
    "coordination.k8s.io": ("Lease",),
}

_VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


@dataclass(frozen=True)
class Resource:
    """One served resource of one group (all its served versions share it)."""

    group: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()

    @property
    def singular(self) -> str:
        return self.kind.lower()


@dataclass
class Group:
    """An API group, the versions the bundle uses, and its resources by plural."""

    name: str
    versions: set[str] = field(default_factory=set)
    resources: dict[str, Resource] = field(default_factory=dict)

    def ordered_versions(self) -> list[str]:
        """Newest first, by Kubernetes' priority (v1 > v1beta2 > v1beta1 > v1alpha1)."""
        return sorted(self.versions, key=version_priority)

    @property
    def preferred(self) -> str:
        return self.ordered_versions()[0]


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Sort key putting GA before beta before alpha, higher numbers first, odd names last."""
    match = _VERSION_RE.match(version)
    if not match:
        return (3, 0, 0, version)
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0), version)


def split_api_version(api_version: str) -> tuple[str, str]:
    """`v1` -> ("", "v1"); `resource.k8s.io/v1beta1` -> ("resource.k8s.io", "v1beta1")."""
    group, _, version = api_version.rpartition("/")
    return group, version


def guess_plural(kind: str) -> str:
    """The apiserver's default plural for a kind it was not told about (lowercase + s/es/ies)."""
    lower = kind.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return lower[:-1] + "ies"
    return lower + "s"


def metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def object_namespace(obj: dict[str, Any]) -> str:
    value = metadata(obj).get("namespace")
    return value if isinstance(value, str) else ""


def object_name(obj: dict[str, Any]) -> str:
    value = metadata(obj).get("name")
    return value if isinstance(value, str) else ""


def is_servable(obj: dict[str, Any]) -> bool:
    """A Kubernetes object of a real API group (not one of ours, not a bare List)."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    return (
        isinstance(api_version, str)
        and bool(api_version)
        and isinstance(kind, str)
        and bool(kind)
        and api_version != PRIVATE_API_VERSION
        and kind != "List"
    )


def build_groups(objects: Iterable[dict[str, Any]]) -> dict[str, Group]:
    """Every group the bundle uses (core "" always), with its versions and resources."""
    groups: dict[str, Group] = {"": Group("", {"v1"})}
    namespaced_seen: dict[tuple[str, str], bool] = {}
    for obj in objects:
        if obj.get("kind") == "ClusterInfo" and obj.get("apiVersion") == PRIVATE_API_VERSION:
            # a dump records the DRA versions the cluster served, even when it held no DRA object
            served = [v for v in obj.get("resourceVersions") or [] if isinstance(v, str) and v]
            if served:
                groups.setdefault(DRA_GROUP, Group(DRA_GROUP)).versions.update(served)
            continue
        if not is_servable(obj):
            continue
        group_name, version = split_api_version(obj["apiVersion"])
        group = groups.setdefault(group_name, Group(group_name))
        group.versions.add(version)
        key = (group_name, obj["kind"])
        namespaced_seen[key] = namespaced_seen.get(key, False) or bool(object_namespace(obj))
    for kind in ALWAYS_CORE:
        namespaced_seen.setdefault(("", kind), False)
    for group_name, kinds in ALWAYS_GROUPS.items():
        group = groups.setdefault(group_name, Group(group_name))
        group.versions.add("v1")
        for kind in kinds:
            namespaced_seen.setdefault((group_name, kind), False)
    if DRA_GROUP in groups:
        for kind in ALWAYS_DRA:
            namespaced_seen.setdefault((DRA_GROUP, kind), False)
    for (group_name, kind), has_namespace in namespaced_seen.items():
        resource = _resource_for(group_name, kind, has_namespace)
        groups[group_name].resources[resource.plural] = resource
    return groups


def _resource_for(group: str, kind: str, has_namespace: bool) -> Resource:
    known = KNOWN_KINDS.get(kind)
    if known:
        plural, namespaced, short = known
        return Resource(group, kind, plural, namespaced, short)
    return Resource(group, kind, guess_plural(kind), has_namespace)
