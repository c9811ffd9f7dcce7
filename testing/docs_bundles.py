"""The docs' hand-made bundles: a synthetic cluster plus the one change a finding page's example names.

A finding page whose example is not a scenario's own run (a scenario plus an edit, a builder knob, a
flag no stored object can carry) names its bundle here, with the sentence its Example section opens
with turned into code. `testing.docs_examples` (why) and `testing.docs_pod_devices` (pod-devices)
write the bundle, run the command the page shows and check or rewrite the block like any other, so
these examples follow the tool too.

To add one: write the page's block (`$ kubectl rbln why -f NAME.json ...`) and a builder under NAME.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kubectl_rbln.cluster.source import cluster_info
from kubectl_rbln.domain import NIC_DRIVER, PCIE_ROOT_ATTR
from testing.synthetic import ClusterBuilder, Knobs
from testing.synthetic.builder import build_cluster
from testing.synthetic.scenario_kit import pod_condition
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.upstream_binding import fabric_cluster

Objects = list[dict[str, Any]]
SCHEDULING = "FailedScheduling"
CRASH_LOG = "INFO: starting modelserver\nERROR: model weights not found at /models/llama, exiting\n"
SEED = 7  # the scenarios' seed: the Pods are the ones the scenario pages name
COMPONENT = "app.kubernetes.io/component"
HEALTHY = {"prefill_running": 1, "decode_running": 2, "decode_pending": 0}  # the `healthy` scenario


def _of(objects: Objects, kind: str, name: str | None = None) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind and name in (None, o["metadata"]["name"])]


def _pod(objects: Objects, component: str) -> str:
    """The first Pod of `component` (prefill, decode)."""
    pods = _of(objects, "Pod")
    return next(p for p in pods if p["metadata"]["labels"].get(COMPONENT) == component)["metadata"]["name"]


def _pod_scheduled(objects: Objects, pod: str, reason: str, message: str) -> Objects:
    """The Pod's PodScheduled condition set to `reason: message`, the scheduler's events of it gone."""
    status = _of(objects, "Pod", pod)[0]["status"]
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    conditions.append(pod_condition("PodScheduled", "False", "2026-09-14T05:00:09Z", reason, message))
    status["conditions"] = conditions
    return [
        o
        for o in objects
        if not (o["kind"] == "Event" and o["involvedObject"]["name"] == pod and o["reason"] == SCHEDULING)
    ]


def _probe(objects: Objects, pod: str, section: str, drop: str) -> Objects:
    """The Pod's recorded probe (its ExecCapture) without the line `drop` in its `@@section`."""
    capture = _of(objects, "ExecCapture", pod)[0]
    lines, current, kept = capture["stdout"].split("\n"), "", []
    for line in lines:
        if line.startswith("@@"):
            current = line[2:].split()[0] if line[2:] else ""
        if not (current == section and line.strip() == drop):
            kept.append(line)
    if kept == lines:
        raise ValueError(f"{pod}'s probe has no {drop!r} in @@{section}")
    capture["stdout"] = "\n".join(kept)
    return objects


def allocation_constraint_violated() -> Objects:
    """The healthy reference cluster (seed 5, the pod-devices pages' Pods), with the second NIC
    allocated to the prefill Pod given the first one's pcieRoot (two ports of one card)."""
    objects = build_cluster(seed=5, **HEALTHY)
    prefill = _pod(objects, "prefill")
    claim = next(c for c in _of(objects, "ResourceClaim") if c["metadata"]["name"].startswith(prefill))
    nics = [r for r in claim["status"]["allocation"]["devices"]["results"] if r["driver"] == NIC_DRIVER]
    devices = {
        (s["spec"]["pool"]["name"], d["name"]): d
        for s in _of(objects, "ResourceSlice")
        if s["spec"]["driver"] == NIC_DRIVER
        for d in s["spec"]["devices"]
    }
    first, second = (devices[(r["pool"], r["device"])] for r in nics[:2])
    second["attributes"][PCIE_ROOT_ATTR] = copy.deepcopy(first["attributes"][PCIE_ROOT_ATTR])
    return objects


def claim_not_allocated() -> Objects:
    """The reference cluster: one prefill and one decode Pod running, a second decode Pod Pending that
    fits (no PodScheduled condition yet)."""
    return ClusterBuilder(SEED, "v1", Knobs()).build()


def dra_api_unavailable() -> Objects:
    """The reference cluster without any resource.k8s.io object, and a ClusterInfo saying
    `GET /apis/resource.k8s.io` answered 404."""
    objects = [o for o in claim_not_allocated() if not o["apiVersion"].startswith("resource.k8s.io/")]
    objects = [o for o in objects if o["kind"] != "ClusterInfo"]
    message = "GET /apis/resource.k8s.io answered 404"
    problem = {"kind": "resource.k8s.io", "code": "not-found", "message": message}
    return [*objects, cluster_info("v1.33.4", [], [problem], "ctx")]


def insufficient_devices() -> Objects:
    """The reference cluster built with one NPU per NUMA node."""
    return ClusterBuilder(SEED, "v1", Knobs(npus_per_numa=1)).build()


def pod_crashing() -> Objects:
    """`memlock-crash`, with the previous log of modelserver replaced by a line without memlock."""
    objects = SCENARIOS["memlock-crash"].build("v1")
    for log in _of(objects, "PodLog"):
        if log["container"] == "modelserver" and log.get("previous"):
            log["log"] = CRASH_LOG
    return objects


def rds_devices_missing() -> Objects:
    """The healthy reference cluster, with `rblnfs0` removed from the prefill Pod's recorded probe."""
    objects = SCENARIOS["healthy"].build("v1")
    return _probe(objects, _pod(objects, "prefill"), "rds", "rblnfs0")


def rsd_group_missing() -> Objects:
    """The healthy reference cluster (seed 5, the pod-devices pages' Pods), with `rsd0` removed from the
    decode Pod's recorded probe."""
    objects = build_cluster(seed=5, **HEALTHY)
    return _probe(objects, _pod(objects, "decode"), "rsd", "rsd0")


def scheduler_error() -> Objects:
    """The `claim-not-allocated` cluster, with the Pending Pod's PodScheduled condition set to a
    SchedulerError of a filter plugin."""
    builder = ClusterBuilder(SEED, "v1", Knobs())
    message = 'running "VolumeRestrictions" filter plugin: context deadline exceeded'
    return _pod_scheduled(builder.build(), builder.target_pod()[1], "SchedulerError", message)


def source_degraded() -> Objects:
    """`nic-no-numanode` without its Events, and a ClusterInfo problem {kind: Event, code: forbidden}."""
    objects = [o for o in SCENARIOS["nic-no-numanode"].build("v1") if o["kind"] != "Event"]
    message = (
        'events is forbidden: User "dev" cannot list resource "events" in API group "" in the namespace '
    )
    message += '"serving"'
    for info in _of(objects, "ClusterInfo"):
        info.setdefault("problems", []).append({"kind": "Event", "code": "forbidden", "message": message})
    return objects


# bundle name (the page's `-f NAME.json`) -> its objects
BUNDLES: dict[str, Callable[[], Objects]] = {
    "allocation-constraint-violated": allocation_constraint_violated,
    "claim-not-allocated": claim_not_allocated,
    "dra-api-unavailable": dra_api_unavailable,
    # the scheduler's gate cannot be stored: the page passes --feature-gates
    "fabric-npu-gate-off": lambda: fabric_cluster()[0],
    "insufficient-devices": insufficient_devices,
    "pod-crashing": pod_crashing,
    "rds-devices-missing": rds_devices_missing,
    "rsd-group-missing": rsd_group_missing,
    "scheduler-error": scheduler_error,
    "source-degraded": source_degraded,
    "stale": lambda: SCENARIOS["upstream-stale-event"].build("v1"),
}
# bundle name -> the one finding its pages show (the rest of `why`'s output is `...`)
ONLY: dict[str, str] = {"source-degraded": "source-degraded"}
