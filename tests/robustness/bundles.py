"""Raw bundles (what `kubectl get -o json` gives) for the robustness tests, built by hand on purpose:
they go where the synthetic builder never goes (a 64-NPU node, requests no node can satisfy)."""

from __future__ import annotations

import itertools
from typing import Any

NS = "ml"
NPU_DRIVER = "npu.rebellions.ai"
NIC_DRIVER = "dra.net"
NUMA = "resource.kubernetes.io/numaNode"


def _meta(name: str, namespace: str | None = None, **more: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "uid": f"uid-{name}", **more}
    if namespace:
        meta["namespace"] = namespace
    return meta


def device_class(name: str, driver: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": _meta(name),
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
    }


def resource_slice(node: str, driver: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": _meta(f"{node}-{driver}"),
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": _meta(name, labels={"kubernetes.io/hostname": name}),
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


def claim_spec(requests: list[dict[str, Any]], constraints: list[dict[str, Any]]) -> dict[str, Any]:
    return {"devices": {"requests": requests, "constraints": constraints}}


def pending_pod_bundle(
    node_name: str, slices: list[dict[str, Any]], spec: dict[str, Any]
) -> list[dict[str, Any]]:
    """One node, its slices, both classes, an RCT with `spec`, its Pending Pod and unallocated claim."""
    pod = "big-0"
    claim = f"{pod}-devices-x7k2p"
    return [
        node(node_name),
        device_class(NPU_DRIVER, NPU_DRIVER),
        device_class("dranet", NIC_DRIVER),
        *slices,
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": _meta("big", NS),
            "spec": {"spec": spec},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": _meta(
                claim,
                NS,
                annotations={"resource.kubernetes.io/pod-claim-name": "devices"},
                ownerReferences=[{"kind": "Pod", "name": pod, "controller": True, "apiVersion": "v1"}],
            ),
            "spec": spec,
            "status": {},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _meta(pod, NS),
            "spec": {
                "containers": [
                    {"name": "main", "image": "x", "resources": {"claims": [{"name": "devices"}]}}
                ],
                "resourceClaims": [{"name": "devices", "resourceClaimTemplateName": "big"}],
            },
            "status": {
                "phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
                "resourceClaimStatuses": [{"name": "devices", "resourceClaimName": claim}],
            },
        },
    ]


def pathological_bundle() -> list[dict[str, Any]]:
    """64 NPUs and 32 NICs on one node, and a claim no choice of them satisfies, that no count or
    value-group argument can rule out: 15 requests of 2 NPUs over overlapping windows of `index`,
    chained pairwise onto one NUMA node (the windows hold 19 NPUs per NUMA node, 30 are needed).
    No single constraint is short of devices, so the counting proofs (dra/proofs.py) say unknown;
    one matchAttribute over every request would be proven impossible at once."""
    npus = [{"name": f"npu{i}", "attributes": {NUMA: {"int": i % 2}, "index": {"int": i}}} for i in range(64)]
    nics = [{"name": f"nic{i}", "attributes": {NUMA: {"int": i // 16}}} for i in range(32)]
    requests = [
        {
            "name": f"npu{k}",
            "exactly": {
                "deviceClassName": NPU_DRIVER,
                "count": 2,
                "selectors": [
                    {
                        "cel": {
                            "expression": f'device.attributes["{NPU_DRIVER}"].index >= {k} && '
                            f'device.attributes["{NPU_DRIVER}"].index < {k + 24}'
                        }
                    }
                ],
            },
        }
        for k in range(15)
    ]
    requests.append({"name": "nic", "exactly": {"deviceClassName": "dranet", "count": 2}})
    names = [r["name"] for r in requests]
    chain = [{"requests": [a, b], "matchAttribute": NUMA} for a, b in itertools.pairwise(names)]
    spec = claim_spec(requests, chain)
    slices = [resource_slice("npu-64", NPU_DRIVER, npus), resource_slice("npu-64", NIC_DRIVER, nics)]
    return pending_pod_bundle("npu-64", slices, spec)


def numa8_bundle(requests: list[dict[str, Any]], constraints: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """64 NPUs over 8 NUMA nodes (8 each, interleaved by index) and a claim of `requests`."""
    npus = [{"name": f"npu{i}", "attributes": {NUMA: {"int": i % 8}, "index": {"int": i}}} for i in range(64)]
    slices = [resource_slice("npu-64", NPU_DRIVER, npus)]
    return pending_pod_bundle("npu-64", slices, claim_spec(requests, constraints))


def npu_request(name: str, count: int) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": NPU_DRIVER, "count": count}}


def many_pathological_nodes(count: int) -> list[dict[str, Any]]:
    """`pathological_bundle` with its node repeated `count` times (same slices per node)."""
    one = pathological_bundle()
    out: list[dict[str, Any]] = []
    for index in range(count):
        name = f"npu-64-{index}"
        for obj in one:
            if obj["kind"] == "Node":
                out.append(node(name))
            elif obj["kind"] == "ResourceSlice":
                spec = obj["spec"]
                out.append(resource_slice(name, spec["driver"], spec["devices"]))
            elif index == 0:
                out.append(obj)
    return out
