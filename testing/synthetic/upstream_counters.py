"""Partitionable-device scenarios (KEP-4815, DRAPartitionableDevices), built from a public upstream report.

The reference cluster of `builder.py`, then the NPU driver publishes each NPU twice, as the whole
device and as a half partition, both consuming one shared counter set per NPU (same slice, the
1.33/1.34 layout; `sharedCounters` / `consumesCounters` of resource/v1 types.go, v0.36.2). Kept
apart from scenarios.py, which appends `scenarios()` to its list.
"""

from __future__ import annotations

import copy
from typing import Any

from kubectl_rbln.domain import NPU_DRIVER
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import SEED, Scenario, held_devices, holder_claim
from testing.synthetic.upstream_taints import ALLOCATION_SLUGS, mark_unschedulable

NAMESPACE = "research"
HOLDER_POD = "notebook-0"
CORES = "8"  # what a whole NPU consumes; a half partition takes half


def _counter_set(device: str) -> str:
    return f"{device}-cores".lower().replace(".", "-").replace("_", "-")


def _consumes(device: str, value: str) -> list[dict[str, Any]]:
    return [{"counterSet": _counter_set(device), "counters": {"cores": {"value": value}}}]


# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/719 ("MIG-partitioned Nodes also have
# whole GPUs advertised in ResourceSlice", from NVIDIA/k8s-dra-driver-gpu discussion #712): a GPU and
# its MIG partitions are the same hardware, so allocating a partition must make the whole GPU
# unavailable. With DRAPartitionableDevices the driver says so by letting both consume one counter
# set. Here a notebook holds a half partition of every NPU the serving Pods left free: the decode
# replica sees free whole NPUs on npu-node-02, but their counters are half used.
def _partitioned(api_version: str) -> list[dict[str, Any]]:
    builder = ClusterBuilder(SEED, api_version, _KNOBS)
    objects = builder.build()
    held = held_devices(objects)
    results = []
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"].get("driver") != NPU_DRIVER:
            continue
        pool = obj["spec"]["pool"]["name"]
        devices = obj["spec"].get("devices") or []
        sets, halves = [], []
        for device in devices:
            name = device["name"]
            sets.append({"name": _counter_set(name), "counters": {"cores": {"value": CORES}}})
            device.get("basic", device)["consumesCounters"] = _consumes(name, CORES)
            if (NPU_DRIVER, pool, name) in held:
                continue
            half = copy.deepcopy(device)
            half["name"] = f"{name}-half"
            half.get("basic", half)["consumesCounters"] = _consumes(name, "4")
            halves.append(half)
            results.append({"request": "half", "driver": NPU_DRIVER, "pool": pool, "device": half["name"]})
        devices.extend(halves)
        obj["spec"]["sharedCounters"] = sets
    objects.append(
        holder_claim(
            api_version,
            name="notebook-0-npu-half",
            namespace=NAMESPACE,
            uid="7f3c2a10-9d4e-4b61-8c0a-1e2f3a4b5c6d",
            request="half",
            device_class="npu.rebellions.ai",
            holder=HOLDER_POD,
            holder_uid="0c6f4d8e-2b1a-4e37-9f55-8a7d6c5b4e3f",
            results=results,
        )
    )
    mark_unschedulable(objects, builder.target_pod()[1], len(builder.npu_node_names))
    return objects


_KNOBS = Knobs()


def scenarios() -> list[Any]:
    return [
        Scenario(
            name="npu-partition-counters-used",
            description=(
                "Every free NPU is also published as a half partition on the same shared counters "
                "(dra-driver-nvidia-gpu#719); a notebook holds the halves, so the whole NPUs do not fit."
            ),
            build=_partitioned,
            pending_pod=ClusterBuilder(SEED, "v1", _KNOBS).target_pod(),
            must=frozenset({"devices-exhausted"}),
            must_not=ALLOCATION_SLUGS - {"devices-exhausted"},
            knobs=_KNOBS,
        ),
    ]
