"""Real `kubectl get` against `serve`: kubectl's own columns, computed as kube-apiserver computes them.

The expected cells are written from a reading of kubernetes/kubernetes
pkg/printers/internalversion/printers.go (printPod, printNode, printEvent, resourceClaimState,
printResourceSlice, printDeviceClass, printResourceClaimTemplate) and apimachinery
pkg/util/duration `HumanDuration`, for objects chosen to walk their branches: a Pending Pod, a
CrashLoopBackOff Pod with restarts, init containers, a sidecar, Completed, Terminating, NodeLost,
claims pending / allocated / reserved / deleted. Ages are measured from the bundle's read time
(ClusterInfo readAt, 06:00:00), so every AGE is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.e2e.conftest import Kubectl

REPO = Path(__file__).resolve().parents[2]
READ_AT = "2026-09-14T06:00:00Z"
NS = "serving"


def meta(name: str, created: str, namespace: str | None = NS, **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "creationTimestamp": created, "uid": f"uid-{name}", **more}
    if namespace:
        found["namespace"] = namespace
    return found


def pod(name: str, created: str, spec: dict[str, Any], status: dict[str, Any], **more: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "app", "image": "app:1"}], **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta(name, created, **more),
        "spec": spec,
        "status": status,
    }


RUNNING = {"running": {"startedAt": "2026-09-14T05:00:00Z"}}
PODS = [
    pod(
        "pending",
        "2026-09-14T05:00:00Z",
        {},
        {
            "phase": "Pending",
            "nominatedNodeName": "npu-node-2",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
        },
    ),
    pod(
        "crashing",
        "2026-09-13T06:00:00Z",
        {"nodeName": "npu-node-1"},
        {
            "phase": "Running",
            "podIPs": [{"ip": "10.244.1.5"}],
            "containerStatuses": [
                {
                    "name": "app",
                    "ready": False,
                    "restartCount": 7,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {
                        "terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-09-14T05:55:00Z"}
                    },
                }
            ],
        },
    ),
    pod(
        "initializing",
        "2026-09-14T05:58:30Z",
        {"initContainers": [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}]},
        {
            "phase": "Pending",
            "initContainerStatuses": [
                {"name": "a", "state": {"terminated": {"exitCode": 0}}},
                {"name": "b", "state": RUNNING},
            ],
        },
    ),
    pod(
        "init-crash",
        "2026-09-14T05:00:00Z",
        {"initContainers": [{"name": "a", "image": "i"}]},
        {
            "phase": "Pending",
            "initContainerStatuses": [
                {
                    "name": "a",
                    "restartCount": 3,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"exitCode": 2, "finishedAt": "2026-09-14T05:50:00Z"}},
                }
            ],
        },
    ),
    pod(
        "completed",
        "2026-09-10T06:00:00Z",
        {},
        {
            "phase": "Succeeded",
            "containerStatuses": [
                {"name": "app", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
            ],
        },
    ),
    pod(
        "terminating",
        "2026-09-14T05:00:00Z",
        {},
        {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "app", "ready": True, "state": RUNNING}],
        },
        deletionTimestamp="2026-09-14T05:59:00Z",
    ),
    pod(
        "node-lost",
        "2026-09-14T05:00:00Z",
        {},
        {"phase": "Running", "reason": "NodeLost"},
        deletionTimestamp="2026-09-14T05:59:00Z",
    ),
    pod(
        "sidecar",
        "2026-09-14T05:00:00Z",
        {
            "initContainers": [{"name": "proxy", "image": "p", "restartPolicy": "Always"}],
            "readinessGates": [{"conditionType": "example.com/ready"}],
        },
        {
            "phase": "Running",
            "conditions": [
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": "True"},
                {"type": "example.com/ready", "status": "True"},
            ],
            "initContainerStatuses": [{"name": "proxy", "started": True, "ready": True, "state": RUNNING}],
            "containerStatuses": [{"name": "app", "ready": True, "state": RUNNING}],
        },
    ),
    pod(
        "gated",
        "2026-09-14T05:00:00Z",
        {},
        {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
        },
    ),
    pod(
        "killed",
        "2026-09-14T05:00:00Z",
        {},
        {
            "phase": "Failed",
            "containerStatuses": [{"name": "app", "state": {"terminated": {"exitCode": 137, "signal": 9}}}],
        },
    ),
]

NODES = [
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta(
            "cp", "2026-07-16T06:00:00Z", None, labels={"node-role.kubernetes.io/control-plane": ""}
        ),
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.10"}],
            "nodeInfo": {
                "kubeletVersion": "v1.34.2",
                "osImage": "Ubuntu 22.04.5 LTS",
                "kernelVersion": "5.15.0",
                "containerRuntimeVersion": "containerd://1.7.27",
            },
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta(
            "npu-node-1",
            "2026-09-14T05:00:00Z",
            None,
            labels={"kubernetes.io/role": "worker", "node-role.kubernetes.io/npu": ""},
        ),
        "spec": {"unschedulable": True},
        "status": {
            "conditions": [{"type": "Ready", "status": "False"}],
            "addresses": [
                {"type": "ExternalIP", "address": "1.2.3.4"},
                {"type": "InternalIP", "address": "10.0.0.11"},
            ],
            "nodeInfo": {"kubeletVersion": "v1.34.1"},
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta("npu-node-2", "2026-09-14T05:59:00Z", None),
        "status": {"nodeInfo": {"kubeletVersion": "v1.34.1"}},
    },
]

EVENTS = [
    {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta("pending.1", "2026-09-14T05:00:00Z"),
        "involvedObject": {"kind": "Pod", "name": "pending", "namespace": NS},
        "reason": "FailedScheduling",
        "type": "Warning",
        "message": "  0/3 nodes are available  ",
        "count": 3,
        "firstTimestamp": "2026-09-14T05:00:00Z",
        "lastTimestamp": "2026-09-14T05:56:00Z",
        "source": {"component": "default-scheduler"},
    },
    {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta("crashing.2", "2026-09-14T05:59:00Z"),
        "involvedObject": {
            "kind": "Pod",
            "name": "crashing",
            "namespace": NS,
            "fieldPath": "spec.containers{app}",
        },
        "reason": "BackOff",
        "type": "Warning",
        "message": "Back-off restarting failed container",
        "eventTime": "2026-09-14T05:59:00.000000Z",
        "reportingComponent": "kubelet",
        "reportingInstance": "npu-node-1",
        "series": {"count": 4, "lastObservedTime": "2026-09-14T05:59:30.000000Z"},
    },
    {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta("nameless.3", "2026-09-14T05:30:00Z"),
        "involvedObject": {"kind": "Node"},
        "reason": "Rebooted",
        "type": "Normal",
        "message": "x",
        "firstTimestamp": "2026-09-14T05:30:00Z",
        "source": {"component": "kubelet", "host": "npu-node-2"},
    },
]

ALLOCATION = {"devices": {"results": []}}
RESERVED = [{"resource": "pods", "name": "crashing", "uid": "uid-crashing"}]
CLAIMS = [
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta(name, "2026-09-14T05:00:00Z", **extra),
        "spec": {"devices": {"requests": []}},
        "status": status,
    }
    for name, status, extra in [
        ("claim-pending", {}, {}),
        ("claim-allocated", {"allocation": ALLOCATION}, {}),
        ("claim-reserved", {"allocation": ALLOCATION, "reservedFor": RESERVED}, {}),
        ("claim-deleted", {"allocation": ALLOCATION}, {"deletionTimestamp": "2026-09-14T05:59:00Z"}),
        ("claim-gone", {}, {"deletionTimestamp": "2026-09-14T05:59:00Z"}),
    ]
]
SLICES = [
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": meta("npu-node-1-npu", "2026-08-26T06:00:00Z", None),
        "spec": {
            "driver": "npu.rebellions.ai",
            "nodeName": "npu-node-1",
            "pool": {"name": "npu-node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [],
        },
    },
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": meta("fabric", "2026-09-14T04:00:00Z", None),
        "spec": {
            "driver": "dra.net",
            "allNodes": True,
            "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
            "devices": [],
        },
    },
]
OTHERS = [
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": meta("npu.rebellions.ai", "2026-08-25T06:00:00Z", None),
        "spec": {},
    },
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": meta("npu-rdma", "2026-09-12T06:00:00Z"),
        "spec": {"spec": {"devices": {"requests": []}}},
    },
    {"apiVersion": "kubectl-rbln/v1", "kind": "ClusterInfo", "metadata": {"name": "c"}, "readAt": READ_AT},
]


def table(output: str, headers: list[str]) -> list[dict[str, str]]:
    """kubectl's table (tabwriter: left-aligned columns) as rows of header -> cell, cut at the
    columns' start offsets in the header line (a cell may be empty; a header may hold a space)."""
    lines = output.splitlines()
    head = lines[0]
    starts = []
    at = 0
    for name in headers:
        at = head.index(name, at)
        starts.append(at)
        at += len(name)
    assert head.split() == " ".join(headers).split(), head
    rows = []
    for line in lines[1:]:
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        rows.append(dict(zip(headers, cells, strict=True)))
    return rows


@pytest.fixture
def kubectl_states(
    replay_server: Callable[..., ReplayServer], kubectl_for: Callable[[ReplayServer], Kubectl]
) -> Kubectl:
    return kubectl_for(replay_server([*PODS, *NODES, *EVENTS, *CLAIMS, *SLICES, *OTHERS]))


def run(kubectl: Kubectl, *args: str) -> str:
    result = kubectl(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


POD_HEADERS = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
POD_WIDE = [*POD_HEADERS, "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]


def test_pods_status_ready_restarts_and_age_as_printpod(kubectl_states: Kubectl) -> None:
    rows = {r["NAME"]: r for r in table(run(kubectl_states, "get", "pods", "-n", NS), POD_HEADERS)}
    expected = {
        "pending": ["0/1", "Pending", "0", "60m"],
        "crashing": ["0/1", "CrashLoopBackOff", "7 (5m ago)", "24h"],
        "initializing": ["0/1", "Init:1/2", "0", "90s"],
        "init-crash": ["0/1", "Init:CrashLoopBackOff", "3 (10m ago)", "60m"],
        "completed": ["0/1", "Completed", "0", "4d"],
        "terminating": ["1/1", "Terminating", "0", "60m"],
        "node-lost": ["0/1", "Unknown", "0", "60m"],
        "sidecar": ["2/2", "Running", "0", "60m"],
        "gated": ["0/1", "SchedulingGated", "0", "60m"],
        "killed": ["0/1", "Signal:9", "0", "60m"],
    }
    assert {n: [r["READY"], r["STATUS"], r["RESTARTS"], r["AGE"]] for n, r in rows.items()} == expected


def test_pods_wide_and_all_namespaces(kubectl_states: Kubectl) -> None:
    rows = {
        r["NAME"]: r
        for r in table(run(kubectl_states, "get", "pods", "-A", "-o", "wide"), ["NAMESPACE", *POD_WIDE])
    }
    assert [
        rows["crashing"][h] for h in ("NAMESPACE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
    ] == [NS, "10.244.1.5", "npu-node-1", "<none>", "<none>"]
    assert rows["pending"]["NOMINATED NODE"] == "npu-node-2" and rows["pending"]["NODE"] == "<none>"
    assert rows["sidecar"]["READINESS GATES"] == "1/1"


def test_one_pod_by_name_is_a_table_too(kubectl_states: Kubectl) -> None:
    (row,) = table(run(kubectl_states, "get", "pod", "crashing", "-n", NS), POD_HEADERS)
    assert row == {
        "NAME": "crashing",
        "READY": "0/1",
        "STATUS": "CrashLoopBackOff",
        "RESTARTS": "7 (5m ago)",
        "AGE": "24h",
    }


def test_nodes_status_roles_and_wide(kubectl_states: Kubectl) -> None:
    headers = [
        "NAME",
        "STATUS",
        "ROLES",
        "AGE",
        "VERSION",
        "INTERNAL-IP",
        "EXTERNAL-IP",
        "OS-IMAGE",
        "KERNEL-VERSION",
        "CONTAINER-RUNTIME",
    ]
    rows = {r["NAME"]: r for r in table(run(kubectl_states, "get", "nodes", "-o", "wide"), headers)}
    assert list(rows["cp"].values()) == [
        "cp",
        "Ready",
        "control-plane",
        "60d",
        "v1.34.2",
        "10.0.0.10",
        "<none>",
        "Ubuntu 22.04.5 LTS",
        "5.15.0",
        "containerd://1.7.27",
    ]
    assert list(rows["npu-node-1"].values()) == [
        "npu-node-1",
        "NotReady,SchedulingDisabled",
        "npu,worker",
        "60m",
        "v1.34.1",
        "10.0.0.11",
        "1.2.3.4",
        "<unknown>",
        "<unknown>",
        "<unknown>",
    ]
    assert rows["npu-node-2"]["STATUS"] == "Unknown" and rows["npu-node-2"]["AGE"] == "60s"
    assert rows["npu-node-2"]["ROLES"] == "<none>"
    plain = table(run(kubectl_states, "get", "nodes"), headers[:5])
    assert [r["NAME"] for r in plain] == ["cp", "npu-node-1", "npu-node-2"]


def test_resourceclaims_state_column(kubectl_states: Kubectl) -> None:
    """The product documents' check (4): `kubectl get resourceclaims`, its STATE column."""
    rows = table(run(kubectl_states, "get", "resourceclaims", "-n", NS), ["NAME", "STATE", "AGE"])
    assert {r["NAME"]: r["STATE"] for r in rows} == {
        "claim-pending": "pending",
        "claim-allocated": "allocated",
        "claim-reserved": "allocated,reserved",
        "claim-deleted": "deleted,allocated",
        "claim-gone": "deleted",
    }
    assert {r["AGE"] for r in rows} == {"60m"}


def test_resourceslices_deviceclasses_and_templates(kubectl_states: Kubectl) -> None:
    headers = ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    for args in (("get", "resourceslices"), ("get", "resourceslices", "-o", "wide")):
        rows = {r["NAME"]: r for r in table(run(kubectl_states, *args), headers)}
        assert list(rows["npu-node-1-npu"].values()) == [
            "npu-node-1-npu",
            "npu-node-1",
            "npu.rebellions.ai",
            "npu-node-1",
            "19d",
        ]
        assert list(rows["fabric"].values()) == [
            "fabric",
            "",
            "dra.net",
            "fabric",
            "120m",
        ]  # under 3h: minutes
    assert table(run(kubectl_states, "get", "deviceclasses"), ["NAME", "AGE"]) == [
        {"NAME": "npu.rebellions.ai", "AGE": "20d"}
    ]
    assert table(
        run(kubectl_states, "-n", NS, "get", "resourceclaimtemplate", "npu-rdma"), ["NAME", "AGE"]
    ) == [{"NAME": "npu-rdma", "AGE": "2d"}]


def test_events_columns_and_wide(kubectl_states: Kubectl) -> None:
    headers = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    rows = {r["OBJECT"]: r for r in table(run(kubectl_states, "get", "events", "-n", NS), headers)}
    assert list(rows["pod/pending"].values()) == [
        "4m",
        "Warning",
        "FailedScheduling",
        "pod/pending",
        "0/3 nodes are available",
    ]
    assert rows["pod/crashing"]["LAST SEEN"] == "30s"
    assert rows["node"]["LAST SEEN"] == "30m"  # no lastTimestamp: the first one
    wide = [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
    ]
    rows = {r["NAME"]: r for r in table(run(kubectl_states, "get", "events", "-n", NS, "-o", "wide"), wide)}
    assert [rows["crashing.2"][h] for h in ("SUBOBJECT", "SOURCE", "FIRST SEEN", "COUNT")] == [
        "spec.containers{app}",
        "kubelet, npu-node-1",
        "60s",
        "4",
    ]
    assert [rows["pending.1"][h] for h in ("SOURCE", "FIRST SEEN", "COUNT")] == [
        "default-scheduler",
        "60m",
        "3",
    ]
    assert [rows["nameless.3"][h] for h in ("SOURCE", "COUNT")] == ["kubelet, npu-node-2", "1"]


def test_the_example_bundle_reads_as_the_product_documents_checklist(
    replay_server: Callable[..., ReplayServer], kubectl_for: Callable[[ReplayServer], Kubectl]
) -> None:
    """The checklist's commands (1) to (4) on the example dump, as on its cluster."""
    kubectl = kubectl_for(replay_server(load_objects([str(REPO / "examples" / "pending-decode.json")])))
    classes = table(run(kubectl, "get", "deviceclasses"), ["NAME", "AGE"])
    assert [r["NAME"] for r in classes] == ["dranet", "npu.rebellions.ai"]
    slices = table(
        run(kubectl, "get", "resourceslices", "-o", "wide"), ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    )
    assert {(r["NODE"], r["DRIVER"]) for r in slices} == {
        (node, driver)
        for node in ("npu-node-01", "npu-node-02")
        for driver in ("dra.net", "npu.rebellions.ai")
    }
    template = table(run(kubectl, "-n", NS, "get", "resourceclaimtemplate", "npu-rdma"), ["NAME", "AGE"])
    assert template == [{"NAME": "npu-rdma", "AGE": "2d"}]
    claims = table(run(kubectl, "-n", NS, "get", "resourceclaims"), ["NAME", "STATE", "AGE"])
    assert len(claims) == 3 and {r["STATE"] for r in claims} == {"pending"}
    pods = table(run(kubectl, "-n", NS, "get", "pods"), POD_HEADERS)
    assert {(r["READY"], r["STATUS"], r["RESTARTS"]) for r in pods} == {("0/1", "Pending", "0")}


def test_json_output_is_still_the_objects(kubectl_states: Kubectl) -> None:
    """-o json / -o name / -o jsonpath ask for objects, not tables: unchanged."""
    assert run(kubectl_states, "get", "resourceclaims", "-n", NS, "-o", "name").split() == sorted(
        f"resourceclaim.resource.k8s.io/{c['metadata']['name']}" for c in CLAIMS
    )
    out = run(kubectl_states, "get", "pod", "crashing", "-n", NS, "-o", "jsonpath={.status.phase}")
    assert out == "Running"
