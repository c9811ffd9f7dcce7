"""Consumable-capacity scenarios (KEP-5075, DRAConsumableCapacity), built from a public upstream report.

The reference cluster of `builder.py` at Kubernetes 1.36 (the gate on by default), then dranet publishes
every NIC as a shared device (`allowMultipleAllocations: true`) with a `bandwidth` capacity whose
`requestPolicy` gives a request without one 100G (resource/v1 types.go DeviceCapacity, v0.36.2). Kept
apart from scenarios.py, which appends `scenarios()` to its list.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.domain import NIC_DRIVER
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import SEED, Scenario, held_devices, holder_claim
from testing.synthetic.upstream_taints import ALLOCATION_SLUGS, mark_unschedulable

NAMESPACE = "inference"
HOLDER_POD = "llm-decode-0"
BANDWIDTH = "200G"
POLICY = {"default": "100G", "validRange": {"min": "25G", "step": "25G"}}


# https://github.com/kubernetes-sigs/dranet/issues/63 ("Support RDMA NIC sharing"): LLM inference runs
# several Pods per node that all need the node's RDMA NIC, so dranet proposes sharing one NIC through
# DRA consumable capacity (kep.k8s.io/5075). Here every NIC the serving Pods left free is shared, and
# two shares of a decode Pod already consume its whole bandwidth: the pending replica's NIC request
# (no `capacity.requests`, so the policy default of 100G) finds each NIC's bandwidth used up.
def _shared_nics(api_version: str) -> list[dict[str, Any]]:
    builder = ClusterBuilder(SEED, api_version, _KNOBS)
    objects = builder.build()
    held = held_devices(objects)
    results = []
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"].get("driver") != NIC_DRIVER:
            continue
        pool = obj["spec"]["pool"]["name"]
        for device in obj["spec"].get("devices") or []:
            body = device.get("basic", device)
            body["allowMultipleAllocations"] = True
            body.setdefault("capacity", {})["bandwidth"] = {"value": BANDWIDTH, "requestPolicy": dict(POLICY)}
            if (NIC_DRIVER, pool, device["name"]) in held:
                continue
            for share in ("1", "2"):
                results.append(
                    {
                        "request": "rdma",
                        "driver": NIC_DRIVER,
                        "pool": pool,
                        "device": device["name"],
                        "shareID": f"0b5c7a4e-2d1f-4e6a-9c3b-{share}{len(results):011d}",
                        "consumedCapacity": {"bandwidth": "100G"},
                    }
                )
    objects.append(
        holder_claim(
            api_version,
            name="llm-decode-0-rdma",
            namespace=NAMESPACE,
            uid="3b9e0c52-6a1f-4d27-8e44-5f0a9c1d2b7e",
            request="rdma",
            device_class="dranet",
            holder=HOLDER_POD,
            holder_uid="9d1c7e2a-4b3f-4a58-b6e1-0f2d3c4b5a69",
            results=results,
        )
    )
    mark_unschedulable(objects, builder.target_pod()[1], len(builder.npu_node_names))
    return objects


_KNOBS = Knobs(kubernetes_version="v1.36.1")


def scenarios() -> list[Any]:
    return [
        Scenario(
            name="nic-shared-bandwidth-used",
            description=(
                "Every free NIC is shared (allowMultipleAllocations, dranet#63) and a decode Pod's shares "
                "use its whole bandwidth, so the NIC request's default 100G does not fit."
            ),
            build=_shared_nics,
            pending_pod=ClusterBuilder(SEED, "v1", _KNOBS).target_pod(),
            must=frozenset({"devices-exhausted"}),
            must_not=ALLOCATION_SLUGS - {"devices-exhausted"},
            knobs=_KNOBS,
        ),
    ]
