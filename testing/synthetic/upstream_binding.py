"""Device binding condition scenarios (KEP-5007), each built from a public upstream report.

The reference cluster of `builder.py` with every NPU published as a fabric-attached device: it
carries `bindingConditions`, `bindingFailureConditions` and `bindsToNode: true` in its
ResourceSlice (kubernetes/api resource/v1/types.go `Device`, v0.36.0). The pending decode Pod's
claim is then allocated the way the scheduler's PreBind writes it (results with copies of the
conditions, `allocationTimestamp`, the node selector pinned to the chosen node, the Pod in
`reservedFor`), with the texts kubernetes/kubernetes
pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (1.35/1.36 cycle) records at
each stage. `scenarios.py` appends `scenarios()` to its list.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from kubectl_rbln.domain import NPU_DRIVER
from kubectl_rbln.dra.allocator import Features
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import SEED, Scenario, edited_scenario
from testing.synthetic.shapes import to_api_shape

Objects = list[dict[str, Any]]

# The condition names follow KEP-5007's attachment example (`is-attached` / `attach-failed`,
# kubernetes/enhancements#5012) in the driver's domain, as the website's example does
# (`dra.example.com/is-prepared` / `preparing-failed`, kubernetes/website#52832).
ATTACHED = "npu.rebellions.ai/is-attached"
ATTACH_FAILED = "npu.rebellions.ai/attach-failed"
ALLOCATED_AT = datetime(2026, 9, 1, 10, 0, 0, tzinfo=timezone.utc)
_KNOBS = Knobs(kubernetes_version="v1.36.1")
_WRONG = frozenset(
    {
        "insufficient-devices",
        "devices-exhausted",
        "constraint-unsatisfiable",
        "selector-matches-nothing",
        "not-device-related",
        "claim-not-allocated",
        "simulation-disagrees",
        "device-tainted",
    }
)


def _ts(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _fabric_devices(objects: Objects) -> None:
    """Every NPU of the NPU driver needs attaching before use (enhancements#5701's fabric devices)."""
    for obj in objects:
        if obj["kind"] == "ResourceSlice" and obj["spec"].get("driver") == NPU_DRIVER:
            for device in obj["spec"].get("devices") or []:
                device["bindsToNode"] = True
                device["bindingConditions"] = [ATTACHED]
                device["bindingFailureConditions"] = [ATTACH_FAILED]


def _pick(objects: Objects, pod: tuple[str, str]) -> tuple[str, list[dict[str, Any]]]:
    """The node and results the allocator picks for the Pod's claim (our own allocator, 1.36 gates)."""
    from kubectl_rbln.diagnose.context import pod_context  # noqa: PLC0415
    from kubectl_rbln.dra.normalize import build_snapshot  # noqa: PLC0415

    snapshot = build_snapshot(copy.deepcopy(objects))
    target = snapshot.pod(*pod)
    assert target is not None
    ctx = pod_context(snapshot, target, Features.defaults(36))
    node = ctx.simulation.fitting[0]
    result = ctx.simulation.result(node)
    assert result is not None
    picked = next(iter(result.results.values()))
    return node, [
        {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device} for r in picked
    ]


def _allocate(objects: Objects, builder: ClusterBuilder, stage: str) -> Objects:
    """The decode Pod's claim as PreBind leaves it at `stage`: waiting, failed or timeout."""
    namespace, name = builder.target_pod()
    _fabric_devices(objects)
    node, results = _pick(objects, (namespace, name))
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = next(o for o in objects if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == claim_name)
    allocated_at = ALLOCATED_AT - (timedelta(seconds=660) if stage == "timeout" else timedelta())
    for r in results:
        if r["driver"] == NPU_DRIVER:
            r["bindingConditions"] = [ATTACHED]
            r["bindingFailureConditions"] = [ATTACH_FAILED]
    claim["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    uid = pod["metadata"]["uid"]
    claim["status"] = {
        "allocation": {
            "devices": {"results": results},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                ]
            },
            "allocationTimestamp": _ts(allocated_at),
        },
        # PreBind reserved the claim; after a failed attempt Unreserve removed the Pod again
        "reservedFor": [{"name": name, "resource": "pods", "uid": uid}] if stage == "waiting" else [],
        "devices": [_device_status(r, stage, allocated_at) for r in results if r["driver"] == NPU_DRIVER],
    }
    # the scheduler's earlier refusals belong to an older cluster state: this attempt got to PreBind
    objects[:] = [
        o
        for o in objects
        if not (
            o["kind"] == "Event"
            and o["involvedObject"].get("name") == name
            and o["reason"] == "FailedScheduling"
        )
    ]
    pod["status"]["conditions"] = [
        c for c in pod["status"].get("conditions") or [] if c["type"] != "PodScheduled"
    ]
    objects.append(
        _event(
            pod,
            "BindingConditionsPending",
            f"waiting for binding conditions for device on node {node}",
            "Normal",
            allocated_at + timedelta(seconds=1),
        )
    )
    if stage != "waiting":
        error = (
            f'claim {claim_name} binding failed: reason=AttachFailed, message="CXL switch port 3 is down"'
            if stage == "failed"
            else "device binding timeout"
        )
        text = f'running PreBind plugin "DynamicResources": {error}'
        at = allocated_at + timedelta(seconds=95 if stage == "failed" else 600)
        pod["status"]["conditions"].append(
            {
                "lastProbeTime": None,
                "lastTransitionTime": _ts(at),
                "message": text,
                "reason": "SchedulerError",
                "status": "False",
                "type": "PodScheduled",
            }
        )
        objects.append(_event(pod, "FailedScheduling", text, "Warning", at))
    return objects


def _device_status(result: dict[str, Any], stage: str, allocated_at: datetime) -> dict[str, Any]:
    """status.devices[] as the attachment controller writes it (AllocatedDeviceStatus.conditions)."""
    at = _ts(allocated_at + timedelta(seconds=95 if stage != "timeout" else 30))
    conditions = [
        {
            "type": ATTACHED,
            "status": "False",
            "reason": "Attaching",
            "message": "waiting for the fabric manager to attach the device",
            "lastTransitionTime": at,
            "observedGeneration": 1,
        }
    ]
    if stage == "failed":
        conditions.append(
            {
                "type": ATTACH_FAILED,
                "status": "True",
                "reason": "AttachFailed",
                "message": "CXL switch port 3 is down",
                "lastTransitionTime": at,
                "observedGeneration": 1,
            }
        )
    return {
        "driver": result["driver"],
        "pool": result["pool"],
        "device": result["device"],
        "conditions": conditions,
    }


def _event(pod: dict[str, Any], reason: str, message: str, kind: str, at: datetime) -> dict[str, Any]:
    meta = pod["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{meta['name']}.18a1b{len(reason):03x}{len(message):04x}",
            "namespace": meta["namespace"],
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": meta["name"],
            "namespace": meta["namespace"],
        },
        "reason": reason,
        "message": message,
        "type": kind,
        "count": 1,
        "firstTimestamp": _ts(at),
        "lastTimestamp": _ts(at),
        "source": {"component": "default-scheduler"},
        "reportingComponent": "default-scheduler",
    }


def _scenario(
    name: str, description: str, edit: Callable[[Objects, ClusterBuilder], Objects], must: set[str]
) -> Scenario:
    wrong = _WRONG | {"scheduler-error"}
    return edited_scenario(name, description, edit, must=must, must_not=wrong, knobs=_KNOBS)


def scenarios() -> list[Scenario]:
    return [
        # https://github.com/kubernetes/enhancements/issues/5701 ("DRA: DBC - happy path ... in device
        # attachment scenario"): a fabric-attached device (a GPU behind a PCIe or CXL switch) is
        # published with bindingConditions and bindsToNode; the scheduler allocates it and waits in
        # PreBind while the composable-infrastructure controller attaches it (CoHDI
        # composable-resource-operator keeps the device "Attaching" until then, its PR #62).
        _scenario(
            "fabric-npu-binding-pending",
            "The decode Pod's claim got fabric-attached NPUs; PreBind waits for "
            "npu.rebellions.ai/is-attached "
            "(BindingConditionsPending, 95 s of the 600 s binding timeout).",
            lambda objects, builder: _allocate(objects, builder, "waiting"),
            {"binding-conditions-pending"},
        ),
        # https://github.com/kubernetes/website/pull/52832 (binding conditions, 1.35 docs): "if preparation
        # fails (e.g. preparing-failed condition is True), the scheduler aborts the binding process" and
        # clears the allocation; KEP-5007's `attach-failed` (kubernetes/enhancements#5012). The attachment
        # controller sets the failure condition; PreBind fails with `claim <c> binding failed: ...`.
        _scenario(
            "fabric-npu-attach-failed",
            "The attachment controller set npu.rebellions.ai/attach-failed=True (CXL switch port down); "
            "PreBind "
            "failed with `binding failed` and the scheduler deallocates and retries.",
            lambda objects, builder: _allocate(objects, builder, "failed"),
            {"binding-failed"},
        ),
        # https://github.com/kubernetes/website/pull/52832 ("By default, the scheduler waits up to 600
        # seconds ... If the timeout is reached ... the scheduler clears the allocation and reschedules the
        # Pod") and kubernetes/kubernetes#130160 (the 10-minute default): the device never got attached.
        _scenario(
            "fabric-npu-binding-timeout",
            "npu.rebellions.ai/is-attached stayed False for 600 s; PreBind failed with `device binding "
            "timeout`.",
            lambda objects, builder: _allocate(objects, builder, "timeout"),
            {"binding-failed"},
        ),
    ]


def fabric_cluster(api_version: str = "v1") -> tuple[Objects, tuple[str, str]]:
    """The reference cluster with fabric-attached NPUs and the decode Pod not yet allocated: what a
    scheduler without DRADeviceBindingConditions meets (`why --feature-gates
    DRADeviceBindingConditions=false`; no stored object can show the scheduler's gate, so this is not a
    SCENARIOS entry, whose runs take no flags)."""
    builder = ClusterBuilder(SEED, "v1", _KNOBS)
    objects = builder.build()
    _fabric_devices(objects)
    return [to_api_shape(o, api_version) for o in objects], builder.target_pod()
