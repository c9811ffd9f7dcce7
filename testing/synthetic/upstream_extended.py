"""Scenarios from public upstream reports: DRA-backed extended resources (KEP-5004) and a CEL error
on some nodes only. Each is the
reference cluster of builder.py with a few objects edited in the real API shape, and the
scheduler's words set as the scheduler writes them.

Imported by scenarios.py (one line, after `_SCENARIOS`); import scenarios.py first, not this file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from kubectl_rbln.domain import NPU_CLASS, NPU_DRIVER
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.fit_error import fit_error_message
from testing.synthetic.scenario_kit import SEED, Scenario

Edit = Callable[[ClusterBuilder, list[dict[str, Any]], str], None]
NPU_RESOURCE = "rebellions.ai/npu"
CONTROL_PLANE = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
TARGET_ONLY = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 0, "decode_pending": 1}


def _find(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def _extended_pod(builder: ClusterBuilder, objects: list[dict[str, Any]], resource: str, count: int) -> None:
    """The target Pod asks for `count` of `resource` in its limits, with no resourceClaims (KEP-5004)."""
    _, name = builder.target_pod()
    pod = _find(objects, "Pod", name)
    pod["spec"].pop("resourceClaims", None)
    pod["status"].pop("resourceClaimStatuses", None)
    resources = pod["spec"]["containers"][0]["resources"]
    resources.pop("claims", None)
    resources["limits"][resource] = str(count)
    resources["requests"][resource] = str(count)  # the API server defaults requests to limits
    claim_prefix = f"{name}-"
    objects[:] = [
        o
        for o in objects
        if not (o["kind"] == "ResourceClaim" and o["metadata"]["name"].startswith(claim_prefix))
    ]


def _scheduled(builder: ClusterBuilder, objects: list[dict[str, Any]], reason: str, message: str) -> None:
    """The target Pod's PodScheduled condition and FailedScheduling event, as the scheduler writes them."""
    namespace, name = builder.target_pod()
    pod = _find(objects, "Pod", name)
    created = pod["metadata"]["creationTimestamp"]
    pod["status"]["conditions"] = [
        {
            "lastProbeTime": None,
            "lastTransitionTime": created,
            "message": message,
            "reason": reason,
            "status": "False",
            "type": "PodScheduled",
        }
    ]
    objects[:] = [
        o for o in objects if not (o["kind"] == "Event" and o.get("involvedObject", {}).get("name") == name)
    ]
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{name}.18a3c0ffee000001", "namespace": namespace},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": name, "namespace": namespace},
            "reason": "FailedScheduling",
            "message": message,
            "type": "Warning",
            "count": 6,
            "firstTimestamp": created,
            "lastTimestamp": created,
            "source": {"component": "default-scheduler"},
            "reportingComponent": "default-scheduler",
        }
    )


def _insufficient(builder: ClusterBuilder, resource: str) -> str:
    npu_nodes = len(builder.npu_node_names)
    return fit_error_message(
        npu_nodes + 1,
        [[CONTROL_PLANE]] + [[f"Insufficient {resource}"]] * npu_nodes,
        dra_postfilter=None,
        preemption_reasons=["Preemption is not helpful for scheduling"]
        + ["No preemption victims found for incoming pod"] * npu_nodes,
    )


def _class_spec(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return _find(objects, "DeviceClass", name)["spec"]


# ---------------------------------------------------------------- the edits, one per scenario


def _dra_backed_exhausted(builder: ClusterBuilder, objects: list[dict[str, Any]], shape: str) -> None:
    """Four Pods hold every NPU; a fifth asks for `rebellions.ai/npu: 4`, which the NPU DeviceClass
    maps (extendedResourceName): the scheduler's own claim cannot be allocated on any node."""
    _extended_pod(builder, objects, NPU_RESOURCE, 4)
    npu_nodes = len(builder.npu_node_names)
    text = fit_error_message(
        npu_nodes + 1,
        [[CONTROL_PLANE]] + [["cannot allocate all claims"]] * npu_nodes,
        dra_postfilter="still not schedulable",
        preemption_reasons=["Preemption is not helpful for scheduling"] * (npu_nodes + 1),
    )
    _scheduled(builder, objects, "Unschedulable", text)


def _gate_off(builder: ClusterBuilder, objects: list[dict[str, Any]], shape: str) -> None:
    """The NPU DeviceClass was applied with extendedResourceName, but the API server (gate off)
    stored it without; no device plugin runs, so nothing offers `rebellions.ai/npu`."""
    _extended_pod(builder, objects, NPU_RESOURCE, 4)
    device_class = _find(objects, "DeviceClass", NPU_CLASS)
    applied = copy.deepcopy(device_class)
    applied["metadata"] = {"annotations": {}, "name": NPU_CLASS}
    applied["spec"]["extendedResourceName"] = NPU_RESOURCE
    device_class["metadata"].setdefault("annotations", {})[LAST_APPLIED] = json.dumps(applied) + "\n"
    device_class["spec"].pop("extendedResourceName", None)
    _scheduled(builder, objects, "Unschedulable", _insufficient(builder, NPU_RESOURCE))


def _unmapped(builder: ClusterBuilder, objects: list[dict[str, Any]], shape: str) -> None:
    """The Pod asks for `rebellions.ai/npu: 4`; no DeviceClass names it and no device plugin runs."""
    _extended_pod(builder, objects, NPU_RESOURCE, 4)
    _scheduled(builder, objects, "Unschedulable", _insufficient(builder, NPU_RESOURCE))


def _implicit_class_missing(builder: ClusterBuilder, objects: list[dict[str, Any]], shape: str) -> None:
    """The Pod asks for the implicit name of a class that does not exist (a typo of the class)."""
    resource = "deviceclass.resource.kubernetes.io/npu.rebellions.io"
    _extended_pod(builder, objects, resource, 4)
    _scheduled(builder, objects, "Unschedulable", _insufficient(builder, resource))


def _cel_error_some_nodes(builder: ClusterBuilder, objects: list[dict[str, Any]], shape: str) -> None:
    """npu-node-02 still runs the v0.1.x RBLN driver, which does not mirror NUMA as dra.net/numaNode;
    the RCT reads it without a guard: CEL `no such key` on that node's NPUs only. The scheduler
    (1.34) aborts the attempt on that node, although npu-node-01 would fit."""
    old_node = builder.npu_node_names[-1]
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"].get("nodeName") != old_node:
            continue
        if obj["spec"].get("driver") != NPU_DRIVER:
            continue
        for device in obj["spec"].get("devices") or []:
            attributes = (device.get("basic") or device).get("attributes") or {}
            for key in [k for k in attributes if k in ("dra.net/numaNode",)]:
                del attributes[key]
    namespace, name = builder.target_pod()
    pod = _find(objects, "Pod", name)
    claim = next(s["resourceClaimName"] for s in pod["status"].get("resourceClaimStatuses") or [])
    text = (
        f'running "DynamicResources" filter plugin: claim {namespace}/{claim}: '
        "selector #0: CEL runtime error: no such key: numaNode"
    )
    _scheduled(builder, objects, "SchedulerError", text)


def _scenario(
    name: str, description: str, edit: Edit, knobs: Knobs, must: set[str], must_not: set[str]
) -> Scenario:
    def build(api_version: str) -> list[dict[str, Any]]:
        builder = ClusterBuilder(SEED, api_version, knobs)
        objects = builder.build()
        edit(builder, objects, api_version)
        return objects

    return Scenario(
        name=name,
        description=description,
        build=build,
        pending_pod=ClusterBuilder(SEED, "v1", knobs).target_pod(),
        must=frozenset(must),
        must_not=frozenset(must_not) - frozenset(must),
        knobs=knobs,
    )


UPSTREAM_EXTENDED = [
    # KEP-5004 (kubernetes/enhancements#5136, kubernetes/kubernetes#130653): a DeviceClass's
    # extendedResourceName lets a Pod ask for devices in its limits; the scheduler builds the claim.
    # kubernetes/kubernetes#135691 (DRA e2e for extended resources): a second Pod asking for the
    # same extended resource stays Unschedulable until the first one is deleted.
    _scenario(
        "extended-resource-exhausted",
        "The NPU DeviceClass maps rebellions.ai/npu (extendedResourceName); four Pods hold every NPU "
        "and a fifth asks for rebellions.ai/npu: 4 in its limits. The scheduler's own claim has no "
        "free NPUs on any node.",
        _dra_backed_exhausted,
        Knobs(
            extended_resource_name=True,
            prefill_running=2,
            decode_running=2,
            prefill_pending=0,
            decode_pending=1,
        ),
        must={"extended-resource-request", "devices-exhausted"},
        must_not={"device-plugin-mode", "not-device-related", "device-class-missing", "insufficient-devices"},
    ),
    # kubernetes/kubernetes#130653 (release note: extendedResourceName needs DRAExtendedResource) and
    # kubernetes/kubernetes#133653 (DRAExtendedResource e2e: the Pod with `example.com/resource0`
    # in its limits never ran): with the gate off in kube-apiserver the field is dropped.
    _scenario(
        "extended-resource-gate-off",
        "The NPU DeviceClass was applied with extendedResourceName rebellions.ai/npu, but "
        "DRAExtendedResource is off in kube-apiserver, which stored the class without it; no device "
        "plugin runs. The Pod asks for rebellions.ai/npu: 4 and every node says Insufficient.",
        _gate_off,
        Knobs(**TARGET_ONLY),
        must={"feature-gate-disabled"},
        must_not={
            "device-plugin-mode",
            "extended-resource-request",
            "not-device-related",
            "insufficient-devices",
        },
    ),
    # kubernetes/kubernetes dynamicresources_test.go ("non-DRA-extended-resource-name-with-zero-
    # allocatable") and extendeddynamicresources.go (`cannot fit resource`); kubernetes/kubernetes#135667
    # (an extended resource no node advertises is dropped at admission unless DRA backs it).
    _scenario(
        "extended-resource-unmapped",
        "The Pod asks for rebellions.ai/npu: 4; no DeviceClass names it in extendedResourceName and no "
        "device plugin advertises it, so every node says Insufficient rebellions.ai/npu.",
        _unmapped,
        Knobs(**TARGET_ONLY),
        must={"extended-resource-request"},
        must_not={
            "device-plugin-mode",
            "feature-gate-disabled",
            "not-device-related",
            "insufficient-devices",
        },
    ),
    # kubernetes/kubernetes#141467 (a Pod asking for the implicit name of DeviceClass
    # fake.example.com) and dynamicresources_test.go "implicit-extended-resource-name-with-resources".
    _scenario(
        "extended-resource-implicit-class-missing",
        "The Pod asks for deviceclass.resource.kubernetes.io/npu.rebellions.io (a typo of the class "
        "npu.rebellions.ai): no DeviceClass of that name exists.",
        _implicit_class_missing,
        Knobs(**TARGET_ONLY),
        must={"extended-resource-request"},
        must_not={
            "device-plugin-mode",
            "feature-gate-disabled",
            "not-device-related",
            "device-class-missing",
        },
    ),
    # kubernetes/kubernetes#125488 (DRA for 1.31, review of filterErr: CEL runtime errors "can occur
    # with some nodes, but not others, for example because the CEL expression gets evaluated against
    # a device which only exists on some of the nodes") and #135184 (test
    # "CEL-runtime-error-for-one-of-three-nodes"): the error on one node keeps the Pod Pending.
    _scenario(
        "cel-error-some-nodes",
        'The RCT pins NPUs with device.attributes["dra.net"].numaNode == 0; npu-node-02 still runs '
        "the v0.1.x RBLN driver, which does not mirror NUMA under dra.net, so only its NPUs raise "
        "`no such key: numaNode`. The 1.34 scheduler aborts the attempt, though npu-node-01 fits.",
        _cel_error_some_nodes,
        Knobs(npu_selector_dranet_numa=0, **TARGET_ONLY),
        must={"selector-error"},
        must_not={"not-device-related", "driver-slices-missing", "device-class-missing", "devices-exhausted"},
    ),
]
