"""What the scheduler and kubelet said that no object shows: fatal errors, gates, preparation.

A SchedulerError (a CEL runtime error, an allocator that cannot read a constraint) stops the
scheduler for this Pod on every node; our own simulation meets the same error. Feature gates
cannot be read through the API, so the gate rule collects every piece of evidence: the
simulation's error, fields the API server dropped from a stored RCT or DeviceClass, and events.
"""

from __future__ import annotations

from collections.abc import Iterator

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.rct_audit import applied_document, applied_spec, template_dropped_fields
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.rules.after_scheduling import container_errors, plugin_down, prepare_case
from kubectl_rbln.diagnose.simulation import EVIDENCE_NODES
from kubectl_rbln.dra.gates import GATE_FIELDS

CEL_CODES = ("cel-runtime-error", "cel-compile-error")
GATE_CODES = ("empty-constraint",)
CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
EXTENDED_RESOURCE = "DRAExtendedResource"
CEL_PER_NODE_FROM = 36  # the minor whose scheduler rejects per node (still keeping the Pod Pending)


def _simulated_error(ctx: PodContext) -> tuple[str, str] | None:
    """(slug, message) of the allocator error our simulation met, classified as the scheduler would."""
    simulation = ctx.simulation
    message = simulation.error if simulation.ran else None  # not run: no node, no error
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


def _cel_error_nodes(ctx: PodContext) -> list[str]:
    """The nodes whose devices raise a CEL error in our simulation (each node is simulated alone)."""
    return [
        r.node
        for r in ctx.simulation.results
        if r.error is not None and "CEL" in r.error.message and not ctx.simulation.excluded.get(r.node)
    ] or [r.node for r in ctx.simulation.results if r.error is not None and "CEL" in r.error.message]


def _selector_values(ctx: PodContext, error: str, nodes: list[str]) -> tuple[dict, str | None]:
    """Values and case of selector-error for the simulated minor.

    Up to 1.35 the allocator's CEL error is a fatal error of Filter: the scheduler aborts the whole
    attempt on the first node that meets it (SchedulerError), whichever nodes would fit
    (dra-facts.md 1.3). The allocator of 1.36 still returns it as fatal, not as a per-node
    ErrFailedAllocationOnNode (kubernetes/dynamic-resource-allocation v0.36.2
    structured/internal/incubating/allocator_incubating.go selectorsMatch, and structured/allocator.go:
    "a scheduler should abort and report that problem instead of trying to find other nodes where
    the error doesn't occur"). The 1.36 scheduler plugin rejects the nodes that meet it, with the error
    as their reason, and still keeps the Pod off the other nodes: its test table
    (kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go,
    "CEL-runtime-error-for-one-of-three-nodes", issue #135184) expects PreScore to fail with
    `filter node <node>: <error>`; see also kubernetes/kubernetes#125488, where the "some nodes but not
    others" case was designed to abort rather than schedule.
    """
    version = ctx.features.version
    others = [r.node for r in ctx.simulation.usable if r.fits]
    values = ctx.values(
        error=error,
        nodes=Names(nodes),
        node_count=len(nodes),
        fit_count=len(others),
        version=f"1.{version}",
        node=nodes[0] if nodes else "",
    )
    if version >= CEL_PER_NODE_FROM:
        return values, "per-node"
    everywhere = {r.node for r in ctx.simulation.usable}
    return values, ("some-nodes" if nodes and not everywhere <= set(nodes) else None)


@rule("scheduler.selector-error", emits=("selector-error",))
def selector_error(ctx: PodContext) -> Iterator[Finding]:
    """A selector fails at runtime (a missing attribute read without a guard, a type error): on
    which nodes, and what the simulated Kubernetes minor does about it."""
    simulated = _simulated_error(ctx)
    if simulated and simulated[0] == "selector-error":
        nodes = _cel_error_nodes(ctx)
        values, case = _selector_values(ctx, simulated[1], nodes)
        evidence = {**_simulated_evidence(simulated[1]), "nodesWithError": nodes[:EVIDENCE_NODES]}
        if values["fit_count"]:
            evidence["nodesThatFit"] = [r.node for r in ctx.simulation.usable if r.fits][:EVIDENCE_NODES]
        if case == "per-node":
            evidence["schedulerEvent"] = f"filter node {nodes[0]}: {simulated[1]}" if nodes else simulated[1]
            evidence["conditionReason"] = "Unschedulable"
        yield Finding("selector-error", values, evidence, case=case)
        return
    for code, text, error in _fatal_messages(ctx):
        if code in CEL_CODES:
            values, case = _selector_values(ctx, text, [])
            yield Finding(
                "selector-error",
                values,
                {"schedulerError": error, "reason": "SchedulerError"},
                case="per-node" if case == "per-node" else None,
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


def gate_values(ctx: PodContext, gate: str, **more: object) -> dict[str, object]:
    """The values of an RCT's feature-gate-disabled: `fix_gates`, the gate its fix turns on before the
    RCT is re-created, so that the shared remedy proves the RCT with the gate on (remedy/attach.py)."""
    return ctx.values(gate=gate, fix_gates=f"{gate}=true" if gate in GATE_FIELDS else "", **more)


def dropped_from_templates(ctx: PodContext) -> Iterator[Finding]:
    for claim in ctx.claims:
        template = claim.template
        applied = applied_spec(template) if template is not None else None
        if template is None or applied is None:
            continue
        for gate, field in template_dropped_fields(template, applied).items():
            values = gate_values(ctx, gate, namespace=template.namespace, rct=template.name)
            evidence = {
                "resourceClaimTemplate": f"{template.namespace}/{template.name}",
                "applied": field,
                "stored": Said(Phrase("evidence-value-missing")),
                "component": Said(Phrase("gate-components-all")),
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
                "stored": Said(Phrase("evidence-value-missing")),
                "podRequests": {applied_name: ctx.extended_resources[applied_name]},
                "component": "kube-apiserver, kube-scheduler",
            }
            yield Finding("feature-gate-disabled", values, evidence, case="extended-resource")


def _gate_from_events(ctx: PodContext) -> Iterator[Finding]:
    for code, _, error in _fatal_messages(ctx):
        if code in GATE_CODES:
            evidence = {"schedulerError": error, "reason": "SchedulerError", "component": "kube-scheduler"}
            yield Finding("feature-gate-disabled", gate_values(ctx, CONSUMABLE_CAPACITY), evidence)
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
            "feature-gate-disabled", gate_values(ctx, CONSUMABLE_CAPACITY), evidence
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
    """kubelet could not prepare the claim's devices on the node the Pod was bound to; the case (a plugin
    that is not registered, a NodePrepareResources error, CDI specs gone) comes from after_scheduling."""
    found = False
    for event in [*ctx.events, *container_errors(ctx)]:
        parsed = classify_event(event)
        if any(parsed.kind == "kubelet" or dra.code == "kubelet-prepare-failed" for dra in parsed.dra):
            found = True
            case, more, more_evidence = prepare_case(ctx, event, parsed.fields)
            values = ctx.values(message=event.message, node=ctx.pod.node_name or "<node>", **more)
            evidence = {"event": f"{event.reason}: {event.message}", "count": event.count, **more_evidence}
            yield Finding("kubelet-prepare-failed", values, evidence, case=case)
    if not found:  # events expire: a crashing kubelet plugin on the node still says it
        for case, values, evidence in plugin_down(ctx):
            yield Finding("kubelet-prepare-failed", values, evidence, case=case)
