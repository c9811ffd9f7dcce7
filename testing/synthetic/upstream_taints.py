"""Device-taint scenarios (KEP-5055), each built from a public upstream report.

The reference cluster of `builder.py`, then what the reports describe added to it: taints on the
NPUs in the driver's own ResourceSlice, or a DeviceTaintRule over the NPU driver, the scheduler's
texts on the Pending Pod (`cannot allocate all claims` on both NPU nodes: the allocator skips
tainted devices and says no more) and, for NoExecute, the eviction controller's event on the Pod it
deleted. Kept apart from scenarios.py, which appends `scenarios()` to its list.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.domain import NPU_DRIVER
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.fit_error import event_note, fit_error_message
from testing.synthetic.scenario_kit import Scenario, held_devices

SEED = 7
CP_TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
# What an allocation-side failure is easily misnamed as: a scenario of a held, tainted or used-up
# device must report none of these (minus the one it is).
ALLOCATION_SLUGS = frozenset(
    {
        "insufficient-devices",
        "constraint-unsatisfiable",
        "devices-exhausted",
        "not-device-related",
        "selector-matches-nothing",
    }
)


def mark_unschedulable(objects: list[dict[str, Any]], pod_name: str, npu_nodes: int) -> None:
    """The scheduler's texts: the control-plane taint on one node, `cannot allocate all claims` elsewhere."""
    message = fit_error_message(npu_nodes + 1, [[CP_TAINT]] + [["cannot allocate all claims"]] * npu_nodes)
    for obj in list(objects):
        if obj["kind"] == "Pod" and obj["metadata"]["name"] == pod_name:
            obj["status"]["conditions"] = [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": "2026-09-01T10:00:02Z",
                    "message": message,
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ]
            objects.append(
                _event(obj, "FailedScheduling", event_note(message), "Warning", "default-scheduler")
            )


def _event(
    pod: dict[str, Any], reason: str, message: str, kind: str, component: str, name: str = ""
) -> dict[str, Any]:
    meta = pod["metadata"]
    target = name or meta["name"]
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{target}.18a0c0de{len(reason):04x}", "namespace": meta["namespace"]},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": target, "namespace": meta["namespace"]},
        "reason": reason,
        "message": message,
        "type": kind,
        "count": 1,
        "firstTimestamp": "2026-09-01T09:58:00Z",
        "lastTimestamp": "2026-09-01T09:58:00Z",
        "source": {"component": component},
        "reportingComponent": component,
    }


# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/pull/983 ("Add taints on health events") and
# issue #663 ("Publish DeviceTaints to report / track GPU health"): the kubelet plugin watches device
# health and taints an unhealthy device in its own ResourceSlice "so the scheduler stops placing new
# workloads on them" (PR #1206, the driver's health-monitoring page). Here the NPU driver does the same
# for every NPU not already in use (the shape of resource/v1 DeviceTaint: key, value, effect, timeAdded).
DRIVER_TAINT = {
    "key": "npu.rebellions.ai/unhealthy",
    "value": "device-lost",
    "effect": "NoSchedule",
    "timeAdded": "2026-09-01T09:55:00Z",
}


def _driver_tainted(api_version: str) -> list[dict[str, Any]]:
    builder = ClusterBuilder(SEED, api_version, _KNOBS_DRIVER)
    objects = builder.build()
    held = held_devices(objects)
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"].get("driver") != NPU_DRIVER:
            continue
        pool = obj["spec"]["pool"]["name"]
        for device in obj["spec"].get("devices") or []:
            if (NPU_DRIVER, pool, device["name"]) in held:
                continue
            body = device.get("basic", device)
            body["taints"] = [dict(DRIVER_TAINT)]
    mark_unschedulable(objects, builder.target_pod()[1], len(builder.npu_node_names))
    return objects


# https://github.com/kubernetes/kubernetes/issues/141422: a NoExecute DeviceTaintRule evicts every Pod
# using the selected devices; the controller's events read `DeviceTaintManagerEviction  pod/<name>
# Marking for deletion` (pkg/controller/devicetainteviction, `emitPodDeletionEvent`). Here an
# administrator drains the NPUs of the whole driver for maintenance (deviceSelector.driver, as in
# kubernetes/kubernetes#130447's DeviceTaintRule); the decode Pod that ran was evicted and its
# replacement stays Pending. The rule is v1alpha3 where the slices are v1beta1 (1.33), else v1beta2.
RULE_TAINT = {"key": "example.com/maintenance", "value": "firmware-upgrade", "effect": "NoExecute"}


def _rule(api_version: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/" + ("v1alpha3" if api_version == "v1beta1" else "v1beta2"),
        "kind": "DeviceTaintRule",
        "metadata": {
            "name": "npu-maintenance",
            "uid": "5b1c0f5e-5e0a-4a53-9d1e-2f0c1a7d9e11",
            "generation": 1,
        },
        "spec": {"deviceSelector": {"driver": NPU_DRIVER}, "taint": dict(RULE_TAINT)},
    }


def _rule_tainted(api_version: str) -> list[dict[str, Any]]:
    builder = ClusterBuilder(SEED, api_version, _KNOBS_RULE)
    objects = builder.build()
    namespace, name = builder.target_pod()
    objects.insert(0, _rule(api_version))
    mark_unschedulable(objects, name, len(builder.npu_node_names))
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    evicted = pod["metadata"]["generateName"] + "q7k2m"
    objects.append(_terminating(pod, evicted))
    objects.append(
        _event(
            pod,
            "DeviceTaintManagerEviction",
            "Marking for deletion",
            "Normal",
            "device-taint-eviction-controller",
            evicted,
        )
    )
    return objects


def _terminating(pod: dict[str, Any], name: str) -> dict[str, Any]:
    """The evicted Pod during its grace period: deleted, with the condition the controller set
    (`addConditionAndDeletePod`: DisruptionTarget, DeletionByDeviceTaintManager)."""
    meta = {
        **pod["metadata"],
        "name": name,
        "uid": "0b9e51d4-7c2a-4f0e-9a55-3d2f6c8e1a47",
        "deletionTimestamp": "2026-09-01T09:58:30Z",
        "deletionGracePeriodSeconds": 30,
    }
    condition = {
        "lastProbeTime": None,
        "lastTransitionTime": "2026-09-01T09:58:00Z",
        "message": "Device Taint manager: deleting due to NoExecute taint",
        "reason": "DeletionByDeviceTaintManager",
        "status": "True",
        "type": "DisruptionTarget",
    }
    spec = {**pod["spec"], "nodeName": "npu-node-01"}
    return {**pod, "metadata": meta, "spec": spec, "status": {"phase": "Running", "conditions": [condition]}}


_KNOBS_DRIVER = Knobs()
_KNOBS_RULE = Knobs(prefill_running=0, decode_running=0, prefill_pending=1, decode_pending=1)


def scenarios() -> list[Any]:

    return [
        Scenario(
            name="npu-tainted-by-driver",
            description=(
                "The NPU driver tainted every free NPU npu.rebellions.ai/unhealthy=device-lost:NoSchedule in "
                "its ResourceSlices (health taints, dra-driver-nvidia-gpu#983); the decode replica has no "
                "untainted NUMA node."
            ),
            build=_driver_tainted,
            pending_pod=ClusterBuilder(SEED, "v1", _KNOBS_DRIVER).target_pod(),
            must=frozenset({"device-tainted"}),
            # npu-node-01 is full (devices-exhausted there is true too)
            must_not=(ALLOCATION_SLUGS - {"devices-exhausted"}) | {"device-taint-eviction"},
            knobs=_KNOBS_DRIVER,
        ),
        Scenario(
            name="npu-devicetaintrule-noexecute",
            description=(
                "A NoExecute DeviceTaintRule over the NPU driver (maintenance) evicted the running decode "
                "Pod (DeviceTaintManagerEviction, kubernetes#141422); its replacement stays Pending."
            ),
            build=_rule_tainted,
            pending_pod=ClusterBuilder(SEED, "v1", _KNOBS_RULE).target_pod(),
            must=frozenset({"device-tainted", "device-taint-eviction"}),
            must_not=ALLOCATION_SLUGS,
            knobs=_KNOBS_RULE,
        ),
    ]
