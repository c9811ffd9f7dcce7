"""What creates and admits a Pod, normalized: each owner kind's counts from its own status fields, its
controller, its Pod template's claims; Leases, ResourceQuotas, LimitRanges; the read time of a bundle.
Wrong types read as empty values, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_rbln.dra.model import PodClaimRef
from kubectl_rbln.dra.normalize import build_snapshot

CLAIMS = [
    {"name": "npu", "resourceClaimTemplateName": "npu-rdma"},
    {"name": "nic", "resourceClaimName": "nic-0"},
]
TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"resourceClaims": CLAIMS, "containers": []}}
REFS = [PodClaimRef("npu", None, "npu-rdma"), PodClaimRef("nic", "nic-0", None)]


def _object(kind: str, api_version: str, spec: Any, status: Any, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "w", "namespace": "serving", "uid": "u-1", **meta},
        "spec": spec,
        "status": status,
    }


@pytest.mark.parametrize(
    ("kind", "api_version", "spec", "status", "counts"),
    [
        (
            "Deployment",
            "apps/v1",
            {"replicas": 3, "template": TEMPLATE},
            {"replicas": 3, "readyReplicas": 1, "unavailableReplicas": 2},
            (3, 3, 1, 2),
        ),
        ("ReplicaSet", "apps/v1", {"replicas": 2, "template": TEMPLATE}, {"replicas": 2}, (2, 2, 0, None)),
        (
            "StatefulSet",
            "apps/v1",
            {"template": TEMPLATE},
            {"replicas": 1, "readyReplicas": 1},
            (1, 1, 1, None),
        ),
        (
            "DaemonSet",
            "apps/v1",
            {"template": TEMPLATE},
            {
                "desiredNumberScheduled": 4,
                "currentNumberScheduled": 3,
                "numberReady": 2,
                "numberUnavailable": 2,
            },
            (4, 3, 2, 2),
        ),
        (
            "Job",
            "batch/v1",
            {"parallelism": 2, "template": TEMPLATE},
            {"active": 1, "ready": 1},
            (2, 1, 1, None),
        ),
        (
            "CronJob",
            "batch/v1",
            {"jobTemplate": {"spec": {"template": TEMPLATE}}},
            {"active": [{"name": "j1"}, {"name": "j2"}]},
            (None, 2, None, None),
        ),
    ],
)
def test_each_owner_kind_counts_from_its_own_status_fields(kind, api_version, spec, status, counts):
    """A count the API leaves out (omitempty) is 0 once there is a status; spec.replicas defaults to 1."""
    owners = [
        {"kind": "Deployment", "name": "d", "controller": False},
        {"kind": "Owner", "name": "o", "controller": True},
    ]
    conditions = [
        {"type": "Available", "status": "False", "reason": "R", "message": "m", "lastTransitionTime": "t"}
    ]
    obj = _object(
        kind,
        api_version,
        spec,
        {**status, "conditions": conditions},
        ownerReferences=owners,
        labels={"app": "x"},
        creationTimestamp="2026-09-14T00:00:00Z",
        deletionTimestamp="2026-09-14T05:00:00Z",
    )
    [workload] = build_snapshot([obj]).workloads
    assert (workload.kind, workload.key, workload.uid) == (kind, "serving/w", "u-1")
    assert (workload.desired, workload.current, workload.ready, workload.unavailable) == counts
    assert (workload.owner_kind, workload.owner_name) == ("Owner", "o")  # the controller, not the first
    assert workload.claim_refs == REFS
    cond = workload.conditions["Available"]
    assert (cond.status, cond.reason, cond.message, cond.last_transition_time) == ("False", "R", "m", "t")
    assert workload.labels == {"app": "x"}
    assert (workload.created, workload.deletion_timestamp) == ("2026-09-14T00:00:00Z", "2026-09-14T05:00:00Z")


@pytest.mark.parametrize(
    "body",
    [
        {"spec": "x", "status": ["y"], "metadata": {"ownerReferences": "z", "labels": ["l"]}},
        {
            "spec": {"replicas": "3", "template": {"spec": {"resourceClaims": {"a": 1}}}},
            "status": {"replicas": True},
        },
        {"spec": {"replicas": -1}, "status": {"readyReplicas": 2.5, "conditions": ["no", {"type": 3}]}},
        {},
    ],
)
def test_a_malformed_owner_reads_as_empty_values(body):
    [workload] = build_snapshot([{"apiVersion": "apps/v1", "kind": "Deployment", **body}]).workloads
    assert workload.kind == "Deployment" and workload.namespace == "default"
    assert workload.claim_refs == [] and workload.owner_kind == ""
    assert workload.desired in (None, 1) and workload.ready in (None, 0)
    assert all(isinstance(c.type, str) for c in workload.conditions.values())


def test_a_custom_resource_that_reuses_a_kind_name_is_not_read_as_it():
    crd = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "serving"}}
    lease = {"apiVersion": "v1", "kind": "Lease", "metadata": {"name": "l"}}
    assert build_snapshot([crd, lease]).workloads == [] and build_snapshot([lease]).leases == []


def test_leases_quotas_and_limit_ranges():
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "spec": {
            "holderIdentity": "cp-01_x",
            "renewTime": "2026-09-14T05:59:58.1Z",
            "leaseDurationSeconds": 15,
        },
    }
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": "serving"},
        "spec": {"hard": {"pods": "10"}},
        "status": {"used": {"pods": "10"}},
    }
    enforced = {**quota, "metadata": {"name": "e", "namespace": "serving"}, "status": {"hard": {"pods": "5"}}}
    limits = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "l", "namespace": "serving"},
        "spec": {"limits": [{"type": "Container", "max": {"memory": "8Gi"}}, "not an object"]},
    }
    snapshot = build_snapshot([lease, quota, enforced, limits])
    [read] = snapshot.leases
    assert (read.holder, read.renew_time, read.duration_seconds) == ("cp-01_x", "2026-09-14T05:59:58.1Z", 15)
    # status.hard is what the quota controller enforces; spec.hard until it wrote one
    assert [(q.name, q.hard, q.used) for q in snapshot.quotas] == [
        ("q", {"pods": "10"}, {"pods": "10"}),
        ("e", {"pods": "5"}, {}),
    ]
    assert snapshot.limit_ranges[0].limits == [{"type": "Container", "max": {"memory": "8Gi"}}]
    hostile = [{**lease, "spec": {"leaseDurationSeconds": "15", "holderIdentity": 7}}, {**quota, "spec": []}]
    bad = build_snapshot(hostile)
    assert (bad.leases[0].holder, bad.leases[0].duration_seconds) == ("", None)
    assert bad.quotas[0].hard == {}


def test_the_newest_copy_of_an_owner_is_kept():
    old = _object("Deployment", "apps/v1", {"replicas": 1}, {"replicas": 1}, resourceVersion="5")
    new = _object("Deployment", "apps/v1", {"replicas": 4}, {"replicas": 4}, resourceVersion="9")
    snapshot = build_snapshot([new, old])
    assert [w.desired for w in snapshot.workloads] == [4] and snapshot.notes


def _info(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "kubectl-rbln/v1", "kind": "ClusterInfo", "metadata": {"name": "c"}, **fields}


def test_the_read_time_comes_from_cluster_info():
    assert build_snapshot([_info(readAt="2026-09-14T06:00:00Z")]).read_at == "2026-09-14T06:00:00Z"
    assert build_snapshot([_info()]).read_at == ""  # a dump of an older plugin: unknown
    assert build_snapshot([]).read_at == ""  # `kubectl get -o json` output: no ClusterInfo
    for bad in ("yesterday", 17, None, ["2026"]):
        assert build_snapshot([_info(readAt=bad)]).read_at == ""
    two = [_info(readAt="2026-09-14T06:00:00Z"), _info(readAt="2026-09-14T07:00:00+01:00"), _info(readAt="x")]
    assert build_snapshot(two).read_at == "2026-09-14T06:00:00Z"  # the same instant: the first kept
    later = [_info(readAt="2026-09-14T06:00:00Z"), _info(readAt="2026-09-14T06:00:01.5Z")]
    assert build_snapshot(later).read_at == "2026-09-14T06:00:01.5Z"
