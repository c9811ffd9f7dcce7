"""Device taints (KEP-5055): devices their driver or a DeviceTaintRule marked, and Pods evicted for it.

The allocator skips a device with an untolerated NoSchedule or NoExecute taint (`taintPreventsAllocation`,
dynamic-resource-allocation structured/internal/incubating/allocator_incubating.go, v0.36.2); the
scheduler still only says `cannot allocate all claims`. To blame the taints and nothing else, the
allocator runs again on the failed nodes with taints ignored: the devices it would then pick, and
that a taint blocks, are the ones to name (device, taint, the object it came from).

A NoExecute taint also evicts running Pods whose claims use the device: the device-taint eviction
controller (kubernetes/kubernetes pkg/controller/devicetainteviction) records a Normal event
`DeviceTaintManagerEviction` "Marking for deletion" on the Pod and sets the condition DisruptionTarget
with reason `DeletionByDeviceTaintManager` ("Device Taint manager: deleting due to NoExecute taint").
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from kubectl_rbln.catalog import Names
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.edits import add_tolerations
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.quoting import quoted_or_expected
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.simulation import (
    EVIDENCE_NODES,
    claims_to_allocate,
    resimulate_failed,
)
from kubectl_rbln.domain import KUBELET_PLUGINS, plugin_driver
from kubectl_rbln.dra.allocator import ClaimToAllocate
from kubectl_rbln.dra.constraints import blocking_taint_sources, taint_text
from kubectl_rbln.dra.model import Device, ExactRequest, Snapshot

EVICTION_REASON = "DeviceTaintManagerEviction"
EVICTION_CONDITION_REASON = "DeletionByDeviceTaintManager"


def _any_taint(ctx: PodContext) -> bool:
    rules = ctx.features.device_taint_rules
    # a typed slice's layout has no taints of its own (devices_plain); a rule's are on its devices
    slices = [s for s in ctx.snapshot.slices if rules or not s.devices_plain]
    return any(d.taints or (rules and d.rule_taints) for s in slices for d in s.devices)


def _exact(claim: ClaimToAllocate, request: str) -> ExactRequest | None:
    base, _, sub = request.partition("/")
    for req in claim.spec.requests:
        if req.name != base:
            continue
        for alt in req.alternatives:
            if alt.name == sub:
                return alt
    return None


def toleration(taint: dict[str, Any]) -> str:
    """The request toleration that lets the request use the device anyway (flow-style YAML)."""
    value = taint.get("value") or ""
    how = f'operator: Equal, value: "{value}"' if value else "operator: Exists"
    return f'{{key: "{taint.get("key") or ""}", {how}, effect: {taint.get("effect") or ""}}}'


def toleration_object(taint: dict[str, Any]) -> dict[str, str]:
    """The same toleration as an object, for the fix that writes it into the claim's spec (jq --argjson)."""
    value = taint.get("value") or ""
    how = {"operator": "Equal", "value": str(value)} if value else {"operator": "Exists"}
    return {"key": str(taint.get("key") or ""), **how, "effect": str(taint.get("effect") or "")}


def driver_plugin_values(snapshot: Snapshot, slice_names: list[str]) -> dict[str, str]:
    """Where to read why a driver tainted its devices: its kubelet plugin Pod on the slice's node
    (`driver_pod` in `driver_namespace`), else the plugin's label to list it (`plugin_label`)."""
    tainted = next((s for s in snapshot.slices if s.name in slice_names), None)
    if tainted is None or tainted.driver not in KUBELET_PLUGINS:
        return {"driver_namespace": ""}  # a DeviceTaintRule's taint, or a driver of no known plugin
    plugin = KUBELET_PLUGINS[tainted.driver]
    node = tainted.node_name or ""
    out = {"driver_namespace": plugin.namespace, "plugin_label": plugin.label, "taint_node": node}
    here = [
        p
        for p in snapshot.pods
        if node and p.node_name == node and plugin_driver(p.name, p.labels) == tainted.driver
    ]
    if here:
        out |= {"driver_pod": here[0].name, "driver_namespace": here[0].namespace}
    return out


@rule(
    "taints.device-tainted",
    emits=("device-tainted",),
    suppresses={"insufficient-devices": None, "constraint-unsatisfiable": None},
)
def device_tainted(ctx: PodContext) -> Iterator[Finding]:
    """The devices would fit but for their taints: which devices, which taint, from which object."""
    features = ctx.features
    failed = ctx.simulation.failed
    if not failed or not features.device_taints or not _any_taint(ctx):
        return
    pairs = claims_to_allocate(ctx)
    claims = [c for _, c in pairs]
    untainted = dataclasses.replace(features, device_taints=False, device_taint_rules=False)
    results = resimulate_failed(ctx, list(failed), untainted)
    devices: dict[tuple[str, str, str], Device] = {d.key: d for s in ctx.snapshot.slices for d in s.devices}
    by_key = {c.key: c for c in claims}
    fit_nodes: list[str] = []
    hits: dict[str, dict[str, Any]] = {}  # device id -> {taints, sources, request}
    for result in results:
        if not result.fits:
            continue
        fit_nodes.append(result.node)
        for claim_key, picked in result.results.items():
            for entry in picked:
                device = devices.get(entry.key)
                spec = _exact(by_key[claim_key], entry.request) if claim_key in by_key else None
                if device is None or spec is None:
                    continue
                blocking = blocking_taint_sources(
                    device, spec.tolerations, features.version, features.device_taint_rules
                )
                if blocking:
                    hits[device.id] = {
                        "request": entry.request.split("/")[0],
                        "node": result.node,
                        "taints": [(source, taint) for source, taint in blocking],
                    }
    if not hits:
        return
    taints: dict[str, dict[str, Any]] = {}
    sources: list[str] = []
    for hit in hits.values():
        for source, taint in hit["taints"]:
            taints.setdefault(taint_text(taint), taint)
            if source not in sources:
                sources.append(source)
    rules = [s.split("/", 1)[1] for s in sources if s.startswith("DeviceTaintRule/")]
    slices = [s.split("/", 1)[1] for s in sources if s.startswith("ResourceSlice/")]
    first = next(iter(hits.values()))
    no_execute = any(t.get("effect") == "NoExecute" for t in taints.values())
    evidence: dict[str, Any] = {
        "nodes": fit_nodes[:EVIDENCE_NODES],
        "taintedDevices": {
            device: [f"{taint_text(t)} ({source})" for source, t in hit["taints"]]
            for device, hit in list(hits.items())[:16]
        },
        "fitsWithoutTaints": fit_nodes[:EVIDENCE_NODES],
        "schedulerSays": f"{len(failed)} cannot allocate all claims",
        "gates": {
            "DRADeviceTaints": features.device_taints,
            "DRADeviceTaintRules": features.device_taint_rules,
        },
    }
    values = ctx.values(
        devices=Names(list(hits)),
        taint=next(iter(taints)),
        taints=list(taints),
        sources=sources,
        request=first["request"],
        node=first["node"],
        nodes=Names(fit_nodes),
        tolerations=[toleration(t) for t in taints.values()],
        edit=add_tolerations(first["request"], json.dumps([toleration_object(t) for t in taints.values()])),
        **driver_plugin_values(ctx.snapshot, slices),
        rules=rules,
        slices=slices,
        from_rule=bool(rules),
        from_driver=bool(slices),
        no_execute=no_execute,
    )
    yield Finding("device-tainted", values, evidence)


def _evictions(ctx: PodContext) -> list[str]:
    """Pods (this one, or its siblings of one generateName) the device taint manager evicted."""
    pod = ctx.pod
    prefix = pod.generate_name
    out: list[str] = []
    snapshot = ctx.snapshot
    evicted_pods = snapshot.memo(  # once per snapshot: `check` asks for every device Pod
        "taint-evicted-pods",
        lambda: [
            o
            for o in snapshot.pods
            if (c := o.conditions.get("DisruptionTarget")) is not None
            and c.reason == EVICTION_CONDITION_REASON
        ],
    )
    for other in evicted_pods:
        if other.namespace == pod.namespace and (other is pod or (prefix and other.name.startswith(prefix))):
            out.append(other.name)
    eviction_events = snapshot.memo(
        "taint-eviction-events",
        lambda: [
            e for e in snapshot.events if e.reason == EVICTION_REASON and e.involved_kind in ("Pod", "")
        ],
    )
    for event in eviction_events:
        if event.involved_namespace not in (pod.namespace, "") or event.namespace not in (pod.namespace, ""):
            continue
        name = event.involved_name
        if (name == pod.name or (prefix and name.startswith(prefix))) and name not in out:
            out.append(name)
    return out


@rule("taints.evicted", emits=("device-taint-eviction",))
def device_taint_eviction(ctx: PodContext) -> Iterator[Finding]:
    """The Pod, or an earlier Pod of the same workload, was evicted by a NoExecute device taint."""
    evicted = _evictions(ctx)
    if not evicted:
        return
    evidence = {
        "evictedPods": evicted[:EVIDENCE_NODES],
        **quoted_or_expected(ctx, "Marking for deletion", f"{EVICTION_REASON}: Marking for deletion"),
        "disruptionTarget": EVICTION_CONDITION_REASON,
    }
    values = ctx.values(evicted=Names(evicted), self_evicted=ctx.pod.name in evicted)
    yield Finding("device-taint-eviction", values, evidence)
