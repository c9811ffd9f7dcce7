"""What stands around the serving Pods in a real dump: each role's Deployment and ReplicaSet, kube-scheduler's
Lease in kube-system, and the ClusterInfo whose readAt that Lease is fresh against.

Why: a Pod's life stage (created, let into scheduling, taken by a scheduler...) is read from its owners
and from the scheduler's leader election, so the synthetic clusters carry them as the controllers write
them: a ReplicaSet `<release>-<role>-<hash>` (the Pods' generateName) owned by the Deployment
`<release>-<role>`, status counts from the Pods, a Lease renewed two seconds before the read.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from testing.synthetic.ids import Ids, ts

READ_AT = 0  # seconds from ids.BASE_TIME: the cluster's "now" (its events and heartbeats precede it)
LEASE_DURATION = 15  # kube-scheduler's --leader-elect-lease-duration default
# Set on a Pod by admission (DefaultTolerationSeconds, Priority) or by the scheduler, never in a template.
_NOT_IN_TEMPLATE = ("nodeName", "tolerations", "priority", "preemptionPolicy", "serviceAccount")

ROLLING_UPDATE = {"maxSurge": "25%", "maxUnavailable": "25%"}
AVAILABILITY = "Deployment has minimum availability"
Meta = Callable[..., dict[str, Any]]  # ClusterBuilder._meta(kind, name, namespace, created=...)


@dataclass
class Role:
    """One role's Pods (prefill or decode), as the ReplicaSet controller counts them."""

    component: str
    replicaset: str
    pod: dict[str, Any]  # a copy of its first Pod: the template is read from it
    replicas: int = 0
    ready: int = 0
    first_created: int = 0  # its first Pod's creation (seconds from BASE_TIME): the ReplicaSet's just before
    unavailable_since: int | None = None  # when a Pod first was not available (seconds from BASE_TIME)


def _micro(seconds: int, ids: Ids, *parts: Any) -> str:
    """A MicroTime (a Lease's renewTime): RFC 3339 with microseconds."""
    return f"{ts(seconds)[:-1]}.{ids.num(0, 999999, 'micro', *parts):06d}Z"


def _template(pod: dict[str, Any], with_hash: bool) -> dict[str, Any]:
    labels = dict(pod["metadata"]["labels"])
    if not with_hash:
        labels.pop("pod-template-hash", None)
    spec = {k: copy.deepcopy(v) for k, v in pod["spec"].items() if k not in _NOT_IN_TEMPLATE}
    return {"metadata": {"creationTimestamp": None, "labels": labels}, "spec": spec}


def _counts(**counts: int) -> dict[str, int]:
    """Status counts as the API writes them: a zero count is left out (omitempty)."""
    return {name: value for name, value in counts.items() if value}


Pair = tuple[str, str]  # (when True, when False)


def _condition(kind: str, ok: bool, reasons: Pair, messages: Pair, at: int) -> dict[str, Any]:
    return {
        "lastTransitionTime": ts(at),
        "lastUpdateTime": ts(at),
        "message": messages[0] if ok else messages[1],
        "reason": reasons[0] if ok else reasons[1],
        "status": "True" if ok else "False",
        "type": kind,
    }


def role_workloads(meta: Meta, ids: Ids, namespace: str, release: str, role: Role) -> list[dict[str, Any]]:
    """The role's Deployment and its one ReplicaSet (revision 1), with the counts of the role's Pods."""
    name = f"{release}-{role.component}"
    created = role.first_created - 2  # the Deployment, then its ReplicaSet, then the Pods
    n, ready = role.replicas, role.ready
    deployment_meta = meta("Deployment", name, namespace, created=created)
    labels = {k: v for k, v in role.pod["metadata"]["labels"].items() if k != "pod-template-hash"}
    deployment_meta.update(
        generation=1,
        labels=dict(labels),
        annotations={
            "deployment.kubernetes.io/revision": "1",
            "meta.helm.sh/release-name": release,
            "meta.helm.sh/release-namespace": namespace,
        },
    )
    surge = -(-n // 4)  # maxSurge 25%, rounded up
    available_enough = ready >= n - n // 4  # maxUnavailable 25%, rounded down
    since = role.unavailable_since if role.unavailable_since is not None else created + 250
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": deployment_meta,
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": n,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": dict(labels)},
            "strategy": {"rollingUpdate": ROLLING_UPDATE, "type": "RollingUpdate"},
            "template": _template(role.pod, with_hash=False),
        },
        "status": {
            **_counts(
                availableReplicas=ready,
                observedGeneration=1,
                readyReplicas=ready,
                replicas=n,
                unavailableReplicas=n - ready,
                updatedReplicas=n,
            ),
            "conditions": [
                _condition(
                    "Available",
                    available_enough,
                    ("MinimumReplicasAvailable", "MinimumReplicasUnavailable"),
                    (f"{AVAILABILITY}.", "Deployment does not have minimum availability."),
                    since if not available_enough else created + 250,
                ),
                _condition(
                    "Progressing",
                    ready == n,
                    ("NewReplicaSetAvailable", "ProgressDeadlineExceeded"),
                    (
                        f'ReplicaSet "{role.replicaset}" has successfully progressed.',
                        f'ReplicaSet "{role.replicaset}" has timed out progressing.',
                    ),
                    since + 600 if ready != n else created + 250,
                ),
            ],
        },
    }
    rs_meta = meta("ReplicaSet", role.replicaset, namespace, created=created + 1)
    hashed = dict(role.pod["metadata"]["labels"])
    rs_meta.update(
        generation=1,
        labels=dict(hashed),
        annotations={
            "deployment.kubernetes.io/desired-replicas": str(n),
            "deployment.kubernetes.io/max-replicas": str(n + surge),
            "deployment.kubernetes.io/revision": "1",
        },
        ownerReferences=[
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "Deployment",
                "name": name,
                "uid": deployment_meta["uid"],
            }
        ],
    )
    replicaset = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": rs_meta,
        "spec": {"replicas": n, "selector": {"matchLabels": hashed}, "template": _template(role.pod, True)},
        "status": _counts(
            availableReplicas=ready,
            fullyLabeledReplicas=n,
            observedGeneration=1,
            readyReplicas=ready,
            replicas=n,
        ),
    }
    return [deployment, replicaset]


def scheduler_lease(meta: Meta, ids: Ids, holder_node: str) -> dict[str, Any]:
    """kube-scheduler's leader election, held by the scheduler on `holder_node`, renewed 2 s before the read
    (it renews every 2 s: --leader-elect-retry-period)."""
    lease_meta = meta("Lease", "kube-scheduler", "kube-system", created=-86400 * 60 + 400)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": lease_meta,
        "spec": {
            "acquireTime": _micro(-86400 * 60 + 420, ids, "lease-acquired"),
            "holderIdentity": f"{holder_node}_{ids.uid('scheduler-identity', holder_node)}",
            "leaseDurationSeconds": LEASE_DURATION,
            "leaseTransitions": 0,
            "renewTime": _micro(READ_AT - 2, ids, "lease-renewed"),
        },
    }


def cluster_info() -> dict[str, Any]:
    """When the synthetic cluster was read (`dump` writes ClusterInfo last). Only readAt: a server version
    or served resource.k8s.io versions would decide the allocator's behaviour of every scenario."""
    return {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ClusterInfo",
        "metadata": {"name": "synthetic"},
        "readAt": ts(READ_AT),
    }
