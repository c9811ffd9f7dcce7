"""The reference node and its variants (issue 8), built from the synthetic cluster.

Each case is one NPU node of seed 000's shape: 2 NUMA nodes, 4 NPUs and 2 RoCE NICs
each, plus a management NIC. Variants change one thing; "NICs without NUMA" removes
every NUMA attribute dranet publishes, by post-processing the builder's objects.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.diagnose.topology import Topology
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic import ClusterBuilder

NAMESPACE = "serving"
IDLE = {"npu_nodes": 1, "prefill_running": 0, "decode_running": 0}
CASES: dict[str, dict[str, Any]] = {
    "healthy": IDLE,
    "half-allocated": {**IDLE, "prefill_running": 1},
    "one-nic-per-numa": {**IDLE, "nics_per_numa": 1},
    "nics-without-numa": {**IDLE, "nic_numa_standard": False},
    "rdma-disabled": {**IDLE, "nic_rdma": False},
}
NO_DRANET_NUMA = {"nics-without-numa"}


def without_dranet_numa(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """dranet on a VM or single socket omits dra.net/numaNode too (ecosystem-facts 1.1)."""
    for obj in objects:
        if obj.get("kind") == "ResourceSlice" and obj["spec"].get("driver") == "dra.net":
            for device in obj["spec"]["devices"]:
                device.get("attributes", {}).pop("dra.net/numaNode", None)
    return objects


def case_objects(name: str) -> list[dict[str, Any]]:
    objects = ClusterBuilder(0, **CASES[name]).build()
    return without_dranet_numa(objects) if name in NO_DRANET_NUMA else objects


def case_snapshot(name: str) -> Snapshot:
    return build_snapshot(case_objects(name))


def topology_of(snapshot: Snapshot) -> Topology:
    """What `kubectl rbln topo -n serving` lays out (the use case the command calls)."""
    return topo(snapshot, TopoRequest(namespace=NAMESPACE, namespace_given=True)).topology
