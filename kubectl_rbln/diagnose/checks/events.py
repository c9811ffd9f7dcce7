"""The events of the Pod and its claims, parsed: what only the scheduler and kubelet saw.

Objects reveal most causes, and events expire after an hour, so this check adds
only what objects cannot show: a fatal `SchedulerError` (a CEL runtime error, an
allocator without `distinctAttribute`), nodes rejected for reasons outside
devices, the claim controller's errors, and kubelet preparation failures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import SchedulingMessage, classify_event, parse_pod_scheduled
from kubectl_rbln.diagnose.findings import Finding, build_finding
from kubectl_rbln.domain import DEFAULT_RCT, DEVICE_RESOURCE_PREFIXES
from kubectl_rbln.dra.model import Event

if TYPE_CHECKING:
    from kubectl_rbln.diagnose.checks.simulation import SimulationOutcome

NON_DEVICE_CATEGORIES = ("taint", "resources", "affinity", "unschedulable", "other")


def pod_events(ctx: PodContext) -> list[Event]:
    pod = ctx.pod
    claim_names = {c.claim_name for c in ctx.claims if c.claim_name}
    events = [
        e
        for e in ctx.snapshot.events
        if (e.involved_namespace or e.namespace) == pod.namespace
        and (
            (e.involved_kind == "Pod" and e.involved_name == pod.name)
            or (e.involved_kind == "ResourceClaim" and e.involved_name in claim_names)
        )
    ]
    return sorted(events, key=lambda e: e.last_timestamp)


def relevant_events(ctx: PodContext) -> list[dict[str, Any]]:
    return [
        {
            "type": e.type,
            "reason": e.reason,
            "message": e.message,
            "count": e.count,
            "lastTimestamp": e.last_timestamp,
            "object": f"{e.involved_kind}/{e.involved_name}",
        }
        for e in pod_events(ctx)
    ]


def scheduling_messages(ctx: PodContext) -> list[SchedulingMessage]:
    """The PodScheduled condition (it outlives events) first, then FailedScheduling events."""
    messages = []
    condition = ctx.pod.conditions.get("PodScheduled")
    if condition and condition.status == "False" and condition.message:
        messages.append(parse_pod_scheduled(condition))
    for event in pod_events(ctx):
        parsed = classify_event(event)
        if parsed.scheduling is not None:
            messages.append(parsed.scheduling)
    return messages


def _is_device_reason(reason: Any) -> bool:
    if reason.category == "dra":
        return True
    return bool(reason.resource and reason.resource.startswith(DEVICE_RESOURCE_PREFIXES))


def _values(ctx: PodContext, **more: Any) -> dict[str, Any]:
    rct = next(
        (c.ref.resource_claim_template_name for c in ctx.claims if c.ref.resource_claim_template_name),
        DEFAULT_RCT,
    )
    return {"namespace": ctx.pod.namespace, "pod": ctx.pod.name, "rct": rct, **more}


def _scheduler_error_findings(
    ctx: PodContext, lang: str, message: SchedulingMessage, known: set[str]
) -> list[Finding]:
    findings = []
    for dra in message.dra:
        if not dra.fatal:
            continue
        evidence = {"schedulerError": message.scheduler_error or dra.text, "reason": "SchedulerError"}
        if dra.code in ("cel-runtime-error", "cel-compile-error") and "selector-error" not in known:
            findings.append(
                build_finding("selector-error", lang, _values(ctx, error=dra.text), evidence=evidence)
            )
        elif dra.code == "empty-constraint" and "feature-gate-disabled" not in known:
            evidence["component"] = "kube-scheduler"
            findings.append(
                build_finding(
                    "feature-gate-disabled",
                    lang,
                    _values(ctx, gate="DRAConsumableCapacity"),
                    evidence=evidence,
                )
            )
        elif dra.code not in ("cel-runtime-error", "cel-compile-error", "empty-constraint"):
            findings.append(
                build_finding("scheduler-error", lang, _values(ctx, message=dra.text), evidence=evidence)
            )
    if message.scheduler_error and not message.dra and "scheduler-error" not in known:
        findings.append(
            build_finding(
                "scheduler-error",
                lang,
                _values(ctx, message=message.scheduler_error),
                evidence={"schedulerError": message.scheduler_error},
            )
        )
    return findings


def _non_device_finding(ctx: PodContext, lang: str, message: SchedulingMessage) -> list[Finding]:
    """Every node was rejected for something other than devices: do not blame the devices."""
    if not message.reasons or any(_is_device_reason(r) for r in message.reasons):
        return []
    reasons = [f"{r.count} {r.text}" for r in message.reasons]
    evidence = {"event": message.text, "nodeReasons": reasons, "totalNodes": message.total_nodes}
    values = _values(ctx, reasons="; ".join(reasons), node=ctx.pod.node_name or "-")
    return [build_finding("not-device-related", lang, values, evidence=evidence)]


def _extended_resource_finding(ctx: PodContext, lang: str, message: SchedulingMessage) -> list[Finding]:
    """Device-plugin resources (rebellions.ai/*, rdma/*) that no node has enough of."""
    short = [r for r in message.reasons if r.resource and r.resource.startswith(DEVICE_RESOURCE_PREFIXES)]
    if not short:
        return []
    requested = ctx.extended_resources
    available = {
        node.name: {r.resource: node.allocatable.get(r.resource or "", "0") for r in short}
        for node in ctx.snapshot.nodes.values()
        if any(node.allocatable.get(r.resource or "") for r in short)
    }
    evidence = {
        "event": message.text,
        "podRequests": requested,
        "allocatable": available,
        "nodeReasons": [f"{r.count} {r.text}" for r in short],
    }
    first = short[0]
    values = _values(
        ctx,
        request=first.resource,
        count=requested.get(first.resource or "", "?"),
        available=f"{first.count} node(s) short",
        node=min(available, default="-"),
    )
    names = ", ".join(sorted({r.resource or "" for r in short}))
    if lang == "ko":
        detail = (
            f"Pod가 디바이스 플러그인에 {names}을(를) 요청하지만 노드 {first.count}개에 남은 수가 부족합니다"
            "(allocatable에서 실행 중인 Pod가 쓰는 수를 뺀 값). "
            "디바이스 플러그인 리소스는 NUMA 정렬을 보장하지 않습니다."
        )
    else:
        detail = (
            f"The Pod asks the device plugin for {names}; {first.count} node(s) do not have that many left "
            "(allocatable minus what running Pods hold). Device-plugin resources have no NUMA alignment."
        )
    remedy = [f"kubectl describe node {min(available, default='<node>')}   # see Allocated resources"]
    return [
        build_finding(
            "insufficient-devices",
            lang,
            values,
            evidence=evidence,
            detail=detail,
            extra_remediation=remedy,
            drop_lines=("RCT", "resourceslices"),
        )
    ]


def check_events(ctx: PodContext, lang: str, outcome: SimulationOutcome) -> list[Finding]:
    known = {f.slug for f in outcome.findings}
    findings: list[Finding] = []
    for message in scheduling_messages(ctx):
        findings += _scheduler_error_findings(ctx, lang, message, known | {f.slug for f in findings})
        if "not-device-related" not in known | {f.slug for f in findings}:
            findings += _non_device_finding(ctx, lang, message)
        if not ctx.pod.resource_claims and "insufficient-devices" not in {f.slug for f in findings}:
            findings += _extended_resource_finding(ctx, lang, message)
    for event in pod_events(ctx):
        parsed = classify_event(event)
        for dra in parsed.dra:
            if parsed.kind == "kubelet" or dra.code == "kubelet-prepare-failed":
                values = _values(ctx, message=event.message, node=ctx.pod.node_name or "<node>")
                evidence = {"event": f"{event.reason}: {event.message}", "count": event.count}
                findings.append(build_finding("kubelet-prepare-failed", lang, values, evidence=evidence))
                break
            if parsed.kind == "claim-creation" and dra.code not in ("template-not-found",):
                values = _values(ctx)
                evidence = {"event": f"{event.reason}: {event.message}", "code": dra.code}
                findings.append(build_finding("claim-not-created", lang, values, evidence=evidence))
                break
    return findings
