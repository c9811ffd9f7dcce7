"""Device binding conditions (KEP-5007): a Pod held in PreBind until a controller readies its devices.

A device may list `bindingConditions` and `bindingFailureConditions` in its ResourceSlice
(kubernetes/api resource/v1/types.go, `Device`, at v0.36.0); the allocator copies both into the
claim's allocation results. After Reserve the scheduler's PreBind (kubernetes/kubernetes
pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, 1.35/1.36 cycle) writes the
allocation with `allocationTimestamp`, records the Normal event `BindingConditionsPending`
("waiting for binding conditions for device on node <node>") and polls every 5 s until, for every
result with binding conditions, each condition is True in the claim's `status.devices[].conditions`
(`isClaimReadyForBinding`). It gives up when a failure condition is True (`claim <c> binding failed:
reason=<r>, message="<m>"`) or when `allocationTimestamp + bindingTimeout` has passed (`claim <c>
binding timeout`, or `device binding timeout` when the poll itself runs out). The error is recorded
as `running PreBind plugin "DynamicResources": ...` (reason SchedulerError); Unreserve removes the
Pod from `reservedFor`, the next attempt's Filter marks the claim `resourceclaim not available on the
node` and PostFilter clears its allocation (`deallocation of ResourceClaim completed`), so the Pod is
scheduled again, possibly onto other devices. `bindingTimeout` is a DynamicResourcesArgs field of
the scheduler configuration (1.35+; `DynamicResourcesBindingTimeoutDefault = 600 * time.Second`,
pkg/scheduler/apis/config/types_pluginargs.go; 1.34: the constant `BindingTimeoutDefaultSeconds =
600`).

Without DRADeviceBindingConditions (and DRAResourceClaimDeviceStatus) in the scheduler, the allocator
never picks a device that has binding conditions (`isSelectable`; allocator.py STAGE_BINDING); the
scheduler then says only `cannot allocate all claims`.

Offline there is no clock: how long a claim has waited is measured to the newest time the input
records for this Pod (its events, its PodScheduled condition, its claims' conditions), so a bundle
and the cluster it came from agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from kubectl_rbln.catalog import Names
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.simulation import (
    EVIDENCE_NODES,
    resimulate_failed,
)
from kubectl_rbln.dra.model import Device, ResourceClaim

BINDING_TIMEOUT_SECONDS = 600  # DynamicResourcesBindingTimeoutDefault (kube-scheduler, 1.34 to 1.36)
PENDING_EVENT = "BindingConditionsPending"
FAILED_CODES = ("binding-failed",)
TIMEOUT_CODES = ("claim-binding-timeout", "binding-timeout")


def _time(text: str) -> datetime | None:
    if not text:
        return None
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


@dataclass(slots=True)
class _Waiting:
    """One allocated device whose binding conditions the scheduler waits on."""

    claim: ResourceClaim
    device: str  # driver/pool/device
    request: str
    pending: list[str] = field(default_factory=list)  # binding conditions not True
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (condition, reason, message)
    states: dict[str, str] = field(default_factory=dict)  # condition -> "False (Attaching)" / "missing"


def _waiting(ctx: PodContext) -> list[_Waiting]:
    out = []
    for pod_claim in ctx.claims:
        claim = pod_claim.claim
        if claim is None or claim.allocation is None:
            continue
        for result in claim.allocation.results:
            if not result.binding_conditions:
                continue
            status = claim.device_status(result.driver, result.pool, result.device)
            entry = _Waiting(claim, f"{result.driver}/{result.pool}/{result.device}", result.request)
            for name in result.binding_failure_conditions:
                cond = status.condition(name) if status else None
                if cond is not None and cond.status == "True":
                    entry.failed.append((name, cond.reason, cond.message))
            for name in result.binding_conditions:
                cond = status.condition(name) if status else None
                if cond is None or cond.status != "True":
                    entry.pending.append(name)
                    entry.states[name] = (
                        "missing" if cond is None else f"{cond.status or 'Unknown'} ({cond.reason or '-'})"
                    )
            if entry.pending or entry.failed:
                out.append(entry)
    return out


def _node_of(claim: ResourceClaim) -> str | None:
    """The node an allocation is pinned to (matchFields metadata.name, or the hostname label)."""
    selector = claim.allocation.node_selector if claim.allocation else None
    for term in (selector or {}).get("nodeSelectorTerms") or []:
        for key in ("matchFields", "matchExpressions"):
            for expr in (term or {}).get(key) or []:
                if expr.get("key") in ("metadata.name", "kubernetes.io/hostname") and expr.get("values"):
                    return str(expr["values"][0])
    return None


def _as_of(ctx: PodContext) -> datetime | None:
    """The newest time the input records for this Pod and its claims."""
    times: list[str] = [e.last_timestamp for e in ctx.events]
    for condition in (ctx.pod.raw.get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict):
            times.append(str(condition.get("lastTransitionTime") or ""))
    for pod_claim in ctx.claims:
        claim = pod_claim.claim
        if claim is None:
            continue
        if claim.allocation is not None:
            times.append(claim.allocation.allocation_timestamp)
        times += [c.last_transition_time for d in claim.devices for c in d.conditions]
    parsed = [t for t in map(_time, times) if t is not None]
    return max(parsed) if parsed else None


def _waited(claim: ResourceClaim, as_of: datetime | None) -> int | None:
    start = _time(claim.allocation.allocation_timestamp) if claim.allocation else None
    if start is None or as_of is None:
        return None
    return max(0, int((as_of - start).total_seconds()))


def _scheduler_texts(ctx: PodContext, codes: tuple[str, ...]) -> list[tuple[str, dict[str, str]]]:
    """(text, fields) of every recorded PreBind binding error of one of `codes`, condition first."""
    found: list[tuple[str, dict[str, str]]] = []
    for message in ctx.scheduling_messages:
        for dra in message.dra:
            if dra.code in codes and all(dra.text != t for t, _ in found):
                found.append((dra.text, dict(dra.fields)))
    return found


def _deallocated(ctx: PodContext) -> bool:
    return any(d.code == "claim-deallocated" for m in ctx.scheduling_messages for d in m.dra)


def _pending_events(ctx: PodContext) -> list[str]:
    out = []
    for event in ctx.events:
        if event.reason == PENDING_EVENT or any(
            d.code == "binding-conditions-pending" for d in classify_event(event).dra
        ):
            out.append(f"{event.reason}: {event.message}")
    return out


@rule("binding.pending", emits=("binding-conditions-pending",))
def binding_conditions_pending(ctx: PodContext) -> Iterator[Finding]:
    """The claim is allocated; the scheduler waits in PreBind for its devices' binding conditions."""
    if ctx.pod.node_name:
        return  # bound: PreBind is over (read first: most Pods `check` reads are bound)
    waiting = [w for w in _waiting(ctx) if not w.failed]
    if not waiting or _scheduler_texts(ctx, FAILED_CODES + TIMEOUT_CODES):
        return
    as_of = _as_of(ctx)
    claim = waiting[0].claim
    waited = _waited(claim, as_of)
    if waited is not None and waited >= BINDING_TIMEOUT_SECONDS:
        return  # binding-failed (timeout) says it
    conditions = sorted({c for w in waiting for c in w.pending})
    values = ctx.values(
        claim=claim.name,
        devices=Names([w.device for w in waiting]),
        conditions=conditions,
        node=_node_of(claim) or "<node>",
        timeout=BINDING_TIMEOUT_SECONDS,
        waited=waited if waited is not None else "?",
        left=BINDING_TIMEOUT_SECONDS - waited if waited is not None else BINDING_TIMEOUT_SECONDS,
        as_of=as_of.strftime("%Y-%m-%dT%H:%M:%SZ") if as_of else "?",
    )
    evidence: dict[str, Any] = {
        "claim": f"{claim.namespace}/{claim.name}",
        "allocationTimestamp": claim.allocation.allocation_timestamp if claim.allocation else "",
        "devices": {w.device: {c: w.states[c] for c in w.pending} for w in waiting[:16]},
        "events": _pending_events(ctx)[:EVIDENCE_NODES],
        "reservedFor": [r.get("name") for r in claim.reserved_for],
    }
    yield Finding("binding-conditions-pending", values, evidence)


@rule(
    "binding.failed",
    emits=("binding-failed",),
    suppresses={"scheduler-error": None, "simulation-disagrees": None, "binding-conditions-pending": None},
)
def binding_failed(ctx: PodContext) -> Iterator[Finding]:
    """A binding failure condition is True, or the binding timed out: the scheduler deallocates, retries."""
    waiting = _waiting(ctx)
    failed = [w for w in waiting if w.failed]
    failed_texts = _scheduler_texts(ctx, FAILED_CODES)
    timeout_texts = _scheduler_texts(ctx, TIMEOUT_CODES)
    deallocated = _deallocated(ctx)
    if failed or failed_texts:
        if failed:
            first = failed[0]
            condition, reason, message = first.failed[0]
            claim_name, devices = first.claim.name, [w.device for w in failed]
            node = _node_of(first.claim) or "<node>"
        else:
            fields = failed_texts[0][1]
            claim_name, condition, devices, node = fields.get("claim", "?"), "?", [], "<node>"
            reason, message = fields.get("reason", ""), fields.get("message", "").strip('"')
        evidence: dict[str, Any] = {
            "claim": f"{ctx.pod.namespace}/{claim_name}",
            "failureConditions": {w.device: [f"{c}=True ({r}: {m})" for c, r, m in w.failed] for w in failed},
            "schedulerError": [t for t, _ in failed_texts] or None,
            "deallocated": deallocated,
        }
        values = ctx.values(
            claim=claim_name,
            claim_known=claim_name != "?",  # a scheduler text without the claim's name: no command names it
            devices=Names(devices),
            condition=condition,
            reason=reason or "-",
            message=message or "-",
            node=node,
            timeout=BINDING_TIMEOUT_SECONDS,
            deallocated=deallocated,
        )
        yield Finding("binding-failed", values, _compact(evidence))
        return
    pending = [w for w in waiting if w.pending]
    claim = pending[0].claim if pending else None
    waited = _waited(claim, _as_of(ctx)) if claim is not None else None  # times parsed only when waiting
    timed_out = waited is not None and waited >= BINDING_TIMEOUT_SECONDS
    if not timeout_texts and not timed_out:
        return
    claim_name = claim.name if claim is not None else timeout_texts[0][1].get("claim", "?")
    conditions = sorted({c for w in pending for c in w.pending})
    evidence = {
        "claim": f"{ctx.pod.namespace}/{claim_name}",
        "allocationTimestamp": claim.allocation.allocation_timestamp if claim and claim.allocation else None,
        "devices": {w.device: {c: w.states[c] for c in w.pending} for w in pending[:16]} or None,
        "schedulerError": [t for t, _ in timeout_texts] or None,
        "deallocated": deallocated,
    }
    values = ctx.values(
        claim=claim_name,
        claim_known=claim_name != "?",
        devices=Names([w.device for w in pending] or [claim_name]),
        conditions=conditions or ["?"],
        node=(_node_of(claim) if claim is not None else None) or "<node>",
        timeout=BINDING_TIMEOUT_SECONDS,
        waited=waited if waited is not None else "?",
        deallocated=deallocated,
    )
    yield Finding("binding-failed", values, _compact(evidence), case="timeout")


def _compact(evidence: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in evidence.items() if v not in (None, {}, [])}


@rule(
    "binding.gate",
    emits=("binding-gate-disabled",),
    suppresses={
        "insufficient-devices": None,
        "selector-matches-nothing": None,
        "devices-exhausted": None,
        "constraint-unsatisfiable": None,
    },
)
def binding_gate_disabled(ctx: PodContext) -> Iterator[Finding]:
    """The devices that would fit have binding conditions, which this scheduler cannot honour."""
    features = ctx.features
    failed = ctx.simulation.failed
    if not failed or features.binding_conditions or features.version < 34:
        return
    slices = ctx.snapshot.slices  # a typed slice's layout has no binding conditions (devices_plain)
    if not any(d.binding_conditions for s in slices if not s.devices_plain for d in s.devices):
        return
    gated = dataclasses.replace(features, binding_conditions=True)
    results = resimulate_failed(ctx, list(failed), gated)
    devices: dict[tuple[str, str, str], Device] = {d.key: d for s in ctx.snapshot.slices for d in s.devices}
    fit_nodes: list[str] = []
    hits: dict[str, list[str]] = {}
    for result in results:
        if not result.fits:
            continue
        fit_nodes.append(result.node)
        for picked in result.results.values():
            for entry in picked:
                device = devices.get(entry.key)
                if device is not None and device.binding_conditions:
                    hits[device.id] = list(device.binding_conditions)
    if not hits:
        return
    conditions = sorted({c for found in hits.values() for c in found})
    evidence = {
        "fitsWithBindingConditions": fit_nodes[:EVIDENCE_NODES],
        "devicesWithBindingConditions": dict(list(hits.items())[:16]),
        "schedulerSays": f"{len(failed)} cannot allocate all claims",
        "gates": {"DRADeviceBindingConditions": False, "kubernetesMinor": f"1.{features.version}"},
    }
    values = ctx.values(
        devices=Names(list(hits)),
        conditions=conditions,
        nodes=Names(fit_nodes),
        node=fit_nodes[0],
        gate="DRADeviceBindingConditions",
    )
    yield Finding("binding-gate-disabled", values, evidence)
