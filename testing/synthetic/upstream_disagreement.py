"""Scenarios where the scheduler recorded `cannot allocate all claims` but the devices fit.

Each one is a synthetic cluster where the allocator, simulated on the snapshot, fits the Pending
Pod, plus the FailedScheduling event and PodScheduled condition the real scheduler wrote. `why`
must say that the two disagree (`simulation-disagrees`), never "nothing blocks it".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_rbln.domain import NIC_CLASS, NPU_CLASS
from testing.synthetic.builder import ClusterBuilder, Knobs, fit_error_message
from testing.synthetic.fit_error import event_note
from testing.synthetic.ids import ts
from testing.synthetic.scenario_kit import DEVICE_BLAME, Scenario

SEED = 7
CP_TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
CANNOT = "cannot allocate all claims"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


def _cannot_allocate(npu_nodes: int) -> str:
    """The FitError of a cluster with one tainted control plane and NPU nodes that all said CANNOT."""
    reasons = [[CP_TAINT]] + [[CANNOT]] * npu_nodes
    return fit_error_message(
        npu_nodes + 1,
        reasons,
        dra_postfilter="still not schedulable",
        preemption_reasons=[NOT_HELPFUL] * (npu_nodes + 1),
    )


def _refused(objects: list[dict[str, Any]], pod: tuple[str, str], message: str, at: int, count: int) -> None:
    """Give the Pending Pod the PodScheduled condition and the FailedScheduling event the scheduler wrote."""
    namespace, name = pod
    target = next(
        o
        for o in objects
        if o.get("kind") == "Pod"
        and o["metadata"]["name"] == name
        and o["metadata"]["namespace"] == namespace
    )
    target["status"]["conditions"] = [
        {
            "lastProbeTime": None,
            "lastTransitionTime": ts(at - 600),
            "message": message,
            "reason": "Unschedulable",
            "status": "False",
            "type": "PodScheduled",
        }
    ]
    meta = target["metadata"]
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{name}.18a2f0c4d5e6f701",
                "namespace": namespace,
                "creationTimestamp": ts(at - 600),
                "resourceVersion": "512345",
                "uid": "5b0f3c52-7d3e-4a51-9a0b-2f7d2a9e6c01",
            },
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": name,
                "namespace": namespace,
                "resourceVersion": meta.get("resourceVersion", ""),
                "uid": meta.get("uid", ""),
            },
            "reason": "FailedScheduling",
            "message": event_note(message),
            "count": count,
            "eventTime": None,
            "firstTimestamp": ts(at - 600),
            "lastTimestamp": ts(at),
            "source": {"component": "default-scheduler"},
            "reportingComponent": "default-scheduler",
            "reportingInstance": "default-scheduler-cp-01",
            "action": "Scheduling",
            "type": "Warning",
        }
    )


def _set_npu_count(objects: list[dict[str, Any]], count: int) -> None:
    """The NPU request of every RCT and unallocated claim asks for `count` devices (every API shape)."""
    for obj in objects:
        if obj.get("kind") not in ("ResourceClaimTemplate", "ResourceClaim"):
            continue
        if obj.get("kind") == "ResourceClaim" and (obj.get("status") or {}).get("allocation"):
            continue
        spec = obj["spec"]["spec"] if obj["kind"] == "ResourceClaimTemplate" else obj["spec"]
        for request in spec["devices"]["requests"]:
            exact = request.get("exactly", request)
            if exact.get("deviceClassName") == NPU_CLASS:
                exact["count"] = count


def _recreated(objects: list[dict[str, Any]], kind: str, name: str, at: int) -> None:
    """The object was deleted and applied again at `at` (creation time and managedFields say so)."""
    for obj in objects:
        if obj.get("kind") == kind and obj["metadata"]["name"] == name:
            obj["metadata"]["creationTimestamp"] = ts(at)
            obj["metadata"]["managedFields"] = [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "time": ts(at)}
            ]


def _scenario(
    name: str,
    description: str,
    knobs: Knobs,
    patch: Callable[[list[dict[str, Any]], tuple[str, str]], None],
    must: set[str],
) -> Any:

    pod = ClusterBuilder(SEED, "v1", knobs).target_pod()

    def build(api_version: str) -> list[dict[str, Any]]:
        objects = ClusterBuilder(SEED, api_version, knobs).build()
        patch(objects, pod)
        return objects

    return Scenario(
        name=name,
        description=description,
        build=build,
        pending_pod=pod,
        must=frozenset(must),
        must_not=DEVICE_BLAME | {"claim-not-allocated", "not-device-related"},
        knobs=knobs,
    )


# kubernetes/kubernetes#131662 (and its 1.33 cherry-pick #131679): "in Kubernetes 1.33, the number
# of devices that can be allocated per ResourceClaim was accidentally reduced to 16". A claim of 16
# NPUs and 2 NICs (18 devices) on a 16-NPU node: kube-scheduler v1.33.0 reports `cannot allocate all
# claims` on every NPU node; the simulation (the limit of 32, fixed in v1.33.2) fits it.
# https://github.com/kubernetes/kubernetes/pull/131662
def _device_cap(objects: list[dict[str, Any]], pod: tuple[str, str]) -> None:
    _set_npu_count(objects, 16)
    _refused(objects, pod, _cannot_allocate(2), at=-240, count=31)


# kubernetes/kubernetes#140831 and #127497: a missed or unhinted update leaves a Pod "pending
# although resources might be available again" until the unschedulable queue is flushed. Here the
# dranet DeviceClass was deleted and applied again (a corrected selector) 2 minutes after the last
# `cannot allocate all claims`: the event predates the change, the simulation fits, and `why`
# must show both and say the event may be stale.
# https://github.com/kubernetes/kubernetes/pull/140831
# https://github.com/kubernetes/kubernetes/pull/127497
def _stale_class(objects: list[dict[str, Any]], pod: tuple[str, str]) -> None:
    _refused(objects, pod, _cannot_allocate(2), at=-900, count=12)
    _recreated(objects, "DeviceClass", NIC_CLASS, at=-780)


UPSTREAM_DISAGREEMENT = [
    _scenario(
        "upstream-133-device-cap",
        "kube-scheduler v1.33.0 allocates at most 16 devices per claim (kubernetes#131662): a 16-NPU + "
        "2-NIC claim gets `cannot allocate all claims` on both NPU nodes, the simulation fits it.",
        Knobs(
            kubernetes_version="v1.33.0",
            npus_per_numa=8,
            rct="numa-unaligned",
            prefill_running=0,
            decode_running=0,
            prefill_pending=0,
            decode_pending=1,
        ),
        _device_cap,
        {"simulation-disagrees"},
    ),
    _scenario(
        "upstream-stale-event",
        "The last `cannot allocate all claims` predates a re-applied dranet DeviceClass (kubernetes#140831, "
        "#127497): the decode Pod fits now; `why` shows both sides and that the event may be stale.",
        Knobs(),
        _stale_class,
        {"simulation-disagrees"},
    ),
]
