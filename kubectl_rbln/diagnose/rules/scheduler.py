"""What the scheduler and kubelet said that no object shows: fatal errors, gates, preparation.

A SchedulerError (a CEL runtime error, an allocator that cannot read a constraint) stops the
scheduler for this Pod on every node; our own simulation meets the same error. Feature gates
cannot be read through the API, so the gate rule collects every piece of evidence: the
simulation's error, fields the API server dropped from a stored RCT or DeviceClass, and events.
"""

from __future__ import annotations

from collections.abc import Iterator

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.rct_audit import applied_document, applied_spec, dropped_fields
from kubectl_rbln.diagnose.registry import rule

CEL_CODES = ("cel-runtime-error", "cel-compile-error")
GATE_CODES = ("empty-constraint",)
CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
EXTENDED_RESOURCE = "DRAExtendedResource"


def _simulated_error(ctx: PodContext) -> tuple[str, str] | None:
    """(slug, message) of the allocator error our simulation met, classified as the scheduler would."""
    message = ctx.simulation.error
    if message is None:
        return None
    if "empty constraint" in message and not ctx.features.consumable_capacity:
        return "feature-gate-disabled", message
    if "CEL" in message:
        return "selector-error", message
    return "scheduler-error", message


def _simulated_evidence(message: str) -> dict[str, str]:
    return {
        "allocatorError": message,
        "schedulerEvent": f'running "DynamicResources" filter plugin: {message}',
        "conditionReason": "SchedulerError",
    }


def _fatal_messages(ctx: PodContext) -> Iterator[tuple[str, str, str]]:
    """(code, text, scheduler error) of every fatal DRA message the scheduler recorded."""
    for message in ctx.scheduling_messages:
        for dra in message.dra:
            if dra.fatal:
                yield dra.code, dra.text, message.scheduler_error or dra.text


@rule("scheduler.selector-error", emits=("selector-error",))
def selector_error(ctx: PodContext) -> Iterator[Finding]:
    """A selector fails at runtime (a missing attribute read without a guard, a type error)."""
    simulated = _simulated_error(ctx)
    if simulated and simulated[0] == "selector-error":
        yield Finding("selector-error", ctx.values(error=simulated[1]), _simulated_evidence(simulated[1]))
        return
    for code, text, error in _fatal_messages(ctx):
        if code in CEL_CODES:
            yield Finding(
                "selector-error",
                ctx.values(error=text),
                {"schedulerError": error, "reason": "SchedulerError"},
            )
            return


@rule("scheduler.error", emits=("scheduler-error",))
def scheduler_error(ctx: PodContext) -> Iterator[Finding]:
    """Any other SchedulerError: not a fit problem, the scheduler itself fails."""
    simulated = _simulated_error(ctx)
    if simulated and simulated[0] == "scheduler-error":
        yield Finding("scheduler-error", ctx.values(message=simulated[1]), _simulated_evidence(simulated[1]))
        return
    seen: set[str] = set()
    for code, text, error in _fatal_messages(ctx):
        if code not in CEL_CODES + GATE_CODES and text not in seen:
            seen.add(text)
            yield Finding(
                "scheduler-error",
                ctx.values(message=text),
                {"schedulerError": error, "reason": "SchedulerError"},
            )
    if seen:
        return
    for message in ctx.scheduling_messages:
        if message.scheduler_error and not message.dra:
            evidence = {"schedulerError": message.scheduler_error}
            yield Finding("scheduler-error", ctx.values(message=message.scheduler_error), evidence)
            return


def dropped_from_templates(ctx: PodContext) -> Iterator[Finding]:
    for claim in ctx.claims:
        template = claim.template
        applied = applied_spec(template) if template is not None else None
        if template is None or applied is None:
            continue
        for gate, field in dropped_fields(applied, template.spec).items():
            values = {"gate": gate, "namespace": template.namespace, "rct": template.name}
            evidence = {
                "resourceClaimTemplate": f"{template.namespace}/{template.name}",
                "applied": field,
                "stored": "missing",
                "component": "kube-apiserver (and kube-scheduler, kubelet)",
            }
            yield Finding("feature-gate-disabled", values, evidence)


def _dropped_from_classes(ctx: PodContext) -> Iterator[Finding]:
    """A Pod asks for an extended resource that a DeviceClass was applied with, but the API server
    dropped `extendedResourceName` (gate DRAExtendedResource off) and no node advertises it."""
    wanted = set(ctx.extended_resources)
    if not wanted:
        return
    advertised = {name for node in ctx.snapshot.nodes.values() for name in node.allocatable}
    for device_class in ctx.snapshot.device_classes.values():
        applied_name = (applied_document(device_class.raw).get("spec") or {}).get("extendedResourceName")
        if (
            applied_name in wanted
            and device_class.extended_resource_name is None
            and applied_name not in advertised
        ):
            values = {
                "gate": EXTENDED_RESOURCE,
                "class": device_class.name,
                "resource": applied_name,
                "request": applied_name,
            }
            evidence = {
                "deviceClass": device_class.name,
                "applied": f"extendedResourceName: {applied_name}",
                "stored": "missing",
                "podRequests": {applied_name: ctx.extended_resources[applied_name]},
                "component": "kube-apiserver, kube-scheduler",
            }
            yield Finding("feature-gate-disabled", values, evidence, case="extended-resource")


def _gate_from_events(ctx: PodContext) -> Iterator[Finding]:
    for code, _, error in _fatal_messages(ctx):
        if code in GATE_CODES:
            evidence = {"schedulerError": error, "reason": "SchedulerError", "component": "kube-scheduler"}
            yield Finding("feature-gate-disabled", ctx.values(gate=CONSUMABLE_CAPACITY), evidence)
            return


@rule(
    "scheduler.feature-gate",
    emits=("feature-gate-disabled",),
    # the dropped extendedResourceName is why `Insufficient <resource>`: not a shortage of devices
    suppresses={"insufficient-devices": "request"},
)
def feature_gate_disabled(ctx: PodContext) -> Iterator[Finding]:
    """One finding per gate, from the strongest evidence: our simulation, stored objects, events."""
    found: dict[str, Finding] = {}
    simulated = _simulated_error(ctx)
    if simulated and simulated[0] == "feature-gate-disabled":
        evidence = {**_simulated_evidence(simulated[1]), "component": "kube-scheduler"}
        found[CONSUMABLE_CAPACITY] = Finding(
            "feature-gate-disabled", ctx.values(gate=CONSUMABLE_CAPACITY), evidence
        )
    for finding in [*dropped_from_templates(ctx), *_dropped_from_classes(ctx), *_gate_from_events(ctx)]:
        found.setdefault(finding.values["gate"] + str(finding.values.get("rct", "")), finding)
    yield from _unique_gates(found.values())


def _unique_gates(findings: object) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for finding in findings:  # type: ignore[attr-defined]
        key = (finding.values["gate"], str(finding.values.get("rct") or finding.values.get("class")))
        if key not in seen:
            seen.add(key)
            yield finding


@rule("scheduler.kubelet-prepare", emits=("kubelet-prepare-failed",))
def kubelet_prepare_failed(ctx: PodContext) -> Iterator[Finding]:
    """kubelet could not prepare the claim's devices on the node the Pod was bound to."""
    for event in ctx.events:
        parsed = classify_event(event)
        if any(parsed.kind == "kubelet" or dra.code == "kubelet-prepare-failed" for dra in parsed.dra):
            values = ctx.values(message=event.message, node=ctx.pod.node_name or "<node>")
            evidence = {"event": f"{event.reason}: {event.message}", "count": event.count}
            yield Finding("kubelet-prepare-failed", values, evidence)
