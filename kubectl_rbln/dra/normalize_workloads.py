"""What creates and admits a Pod -> model objects: its owners (ReplicaSet, Deployment, StatefulSet, Job,
CronJob), the drivers' DaemonSets, the schedulers' Leases, a namespace's ResourceQuotas and LimitRanges.

A Pod's life stage (diagnose/lifecycle.py) is read from these: a Deployment that cannot create Pods, a
scheduler whose Lease is not renewed, a quota that refuses a Pod. Counts are read from each kind's own
status fields into one shape (desired, current, ready, unavailable); a field of the wrong type reads as
None, never raises.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.dra.fields import _d, _l, _s, _str_map
from kubectl_rbln.dra.model import Condition, Lease, LimitRange, ResourceQuota, Workload
from kubectl_rbln.dra.normalize_pods import claim_refs, controller_owner

# kind -> the API group it is read from; an object of another group (a CRD that reuses the name) is not one
WORKLOAD_GROUPS = {
    "ReplicaSet": "apps",
    "Deployment": "apps",
    "StatefulSet": "apps",
    "DaemonSet": "apps",
    "Job": "batch",
    "CronJob": "batch",
}
KIND_GROUPS = {**WORKLOAD_GROUPS, "Lease": "coordination.k8s.io", "ResourceQuota": "", "LimitRange": ""}

# kind -> where its (desired, current, ready, unavailable) counts are: ("spec"|"status", field) or None
_COUNTS: dict[str, tuple[tuple[str, str] | None, ...]] = {
    "ReplicaSet": (("spec", "replicas"), ("status", "replicas"), ("status", "readyReplicas"), None),
    "Deployment": (
        ("spec", "replicas"),
        ("status", "replicas"),
        ("status", "readyReplicas"),
        ("status", "unavailableReplicas"),
    ),
    "StatefulSet": (("spec", "replicas"), ("status", "replicas"), ("status", "readyReplicas"), None),
    "DaemonSet": (
        ("status", "desiredNumberScheduled"),
        ("status", "currentNumberScheduled"),
        ("status", "numberReady"),
        ("status", "numberUnavailable"),
    ),
    "Job": (("spec", "parallelism"), ("status", "active"), ("status", "ready"), None),
}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _counts(kind: str, obj: dict[str, Any]) -> tuple[int | None, ...]:
    """The kind's four counts. A status count the API leaves out (omitempty) is 0 once a controller wrote
    a status; spec.replicas and spec.parallelism the API defaults to 1. Wrong types read as None."""
    if kind == "CronJob":  # no counts of its own: the Jobs it runs now
        active = _d(obj.get("status")).get("active")
        return (None, len(active) if isinstance(active, list) else None, None, None)
    found: list[int | None] = []
    for where in _COUNTS.get(kind, (None, None, None, None)):
        if where is None:
            found.append(None)
            continue
        part, name = where
        holder = obj.get(part)
        if not isinstance(holder, dict):
            found.append(None)
        elif name in holder:
            found.append(_count(holder[name]))
        else:
            found.append(1 if part == "spec" else 0)
    return tuple(found)


def workload_conditions(raw: Any) -> dict[str, Condition]:
    """status.conditions -> type -> Condition, as a Pod's (with the transition time: when it went so)."""
    found: dict[str, Condition] = {}
    for c in map(_d, _l(raw)):
        kind = _s(c.get("type"))
        found[kind] = Condition(
            kind,
            _s(c.get("status")),
            _s(c.get("reason")),
            _s(c.get("message")),
            _s(c.get("lastTransitionTime")),
        )
    return found


def _template_spec(kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The Pod template's spec (a CronJob's is one level down, in its Job template)."""
    if kind == "CronJob":
        spec = _d(_d(spec.get("jobTemplate")).get("spec"))
    return _d(_d(spec.get("template")).get("spec"))


def normalize_workload(obj: dict[str, Any]) -> Workload:
    kind = _s(obj.get("kind"))
    meta = _d(obj.get("metadata"))
    spec = _d(obj.get("spec"))
    owner = controller_owner(meta.get("ownerReferences"))
    desired, current, ready, unavailable = _counts(kind, obj)
    return Workload(
        kind=kind,
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        uid=_s(meta.get("uid")),
        owner_kind=_s(owner.get("kind")),
        owner_name=_s(owner.get("name")),
        desired=desired,
        current=current,
        ready=ready,
        unavailable=unavailable,
        conditions=workload_conditions(_d(obj.get("status")).get("conditions")),
        claim_refs=claim_refs(_template_spec(kind, spec).get("resourceClaims")),
        labels=_str_map(meta.get("labels")),
        created=_s(meta.get("creationTimestamp")),
        deletion_timestamp=_s(meta.get("deletionTimestamp")),
    )


def normalize_lease(obj: dict[str, Any]) -> Lease:
    meta = _d(obj.get("metadata"))
    spec = _d(obj.get("spec"))
    return Lease(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        holder=_s(spec.get("holderIdentity")),
        renew_time=_s(spec.get("renewTime")),
        duration_seconds=_count(spec.get("leaseDurationSeconds")),
    )


def normalize_quota(obj: dict[str, Any]) -> ResourceQuota:
    """What the quota enforces: status.hard (what the quota controller took), else spec.hard."""
    meta = _d(obj.get("metadata"))
    status = _d(obj.get("status"))
    hard = _str_map(status.get("hard")) or _str_map(_d(obj.get("spec")).get("hard"))
    return ResourceQuota(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        hard=hard,
        used=_str_map(status.get("used")),
    )


def normalize_limit_range(obj: dict[str, Any]) -> LimitRange:
    meta = _d(obj.get("metadata"))
    limits = _l(_d(obj.get("spec")).get("limits"))
    return LimitRange(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        limits=[item for item in limits if isinstance(item, dict)],
    )
