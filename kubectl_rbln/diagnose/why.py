"""`why` as a pure function: a Snapshot and a Pod in, a diagnosis out.

The order follows the issue: the Pod itself, the four claim layers, the events,
the per-node allocator simulation, then node preparation (memlock, RDS label,
device-plugin mode). Root causes found early suppress their downstream symptoms
(a missing RCT explains an uncreated claim; an unsatisfiable constraint explains
an unallocated claim), so each slug appears only for its own situation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kubectl_rbln.catalog import sentence
from kubectl_rbln.diagnose.checks.attributes import check_attributes
from kubectl_rbln.diagnose.checks.crash import check_crashes
from kubectl_rbln.diagnose.checks.events import check_events, relevant_events
from kubectl_rbln.diagnose.checks.layers import (
    check_device_classes,
    check_driver_slices,
    check_templates_and_claims,
)
from kubectl_rbln.diagnose.checks.node_prep import check_device_plugin_mode, check_rds_label
from kubectl_rbln.diagnose.checks.rct_audit import check_class_audit, check_rct_audit
from kubectl_rbln.diagnose.checks.simulation import SimulationOutcome, check_simulation
from kubectl_rbln.diagnose.context import PodContext, pod_context
from kubectl_rbln.diagnose.findings import Finding, build_finding, dedupe, ordered
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Pod, ResourceClaimTemplate, Snapshot

# A finding of the key slug makes the listed downstream slugs redundant for this Pod.
SUPPRESSES = {
    "claim-template-missing": {"claim-not-created", "claim-not-allocated"},
    "claim-not-created": {"claim-not-allocated"},
    "not-device-related": {"claim-not-allocated"},
    "rds-label-missing": {"not-device-related", "claim-not-allocated"},
    "device-class-missing": {"claim-not-allocated", "driver-slices-missing"},
    "dra-api-unavailable": {
        "device-class-missing",
        "claim-template-missing",
        "claim-not-created",
        "claim-not-allocated",
        "driver-slices-missing",
    },
}


# Lists whose absence weakens a `why` answer (exec probes and logs of other Pods do not).
RESOURCE_NAMES = {
    "Node": "nodes",
    "Pod": "pods",
    "Event": "events",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "DeviceClass": "deviceclasses.resource.k8s.io",
    "ResourceSlice": "resourceslices.resource.k8s.io",
}
WHY_READS = set(RESOURCE_NAMES)

# Findings after which the allocator has nothing meaningful to simulate.
LAYER_BLOCKERS = {
    "dra-api-unavailable",
    "device-class-missing",
    "claim-template-missing",
    "claim-not-created",
}


@dataclass(slots=True)
class WhyOptions:
    lang: str = "en"
    features: Features = field(default_factory=Features)
    with_rct: ResourceClaimTemplate | None = None
    assumptions: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class PodDiagnosis:
    pod: Pod
    verdict: str
    findings: list[Finding]
    nodes: list[dict[str, Any]]
    events: list[dict[str, Any]]
    features: dict[str, Any]
    closest_node: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod.key,
            "phase": self.pod.phase,
            "node": self.pod.node_name,
            "verdict": self.verdict,
            "findings": [f.to_dict() for f in self.findings],
            "nodes": self.nodes,
            "closestNode": self.closest_node,
            "events": self.events,
            "assumptions": self.features,
        }


def _apply_with_rct(ctx: PodContext, template: ResourceClaimTemplate) -> None:
    """Diagnose as if `template` replaced the Pod's RCT: unallocated claims become virtual claims of it."""
    for claim in ctx.claims:
        if claim.ref.resource_claim_template_name and not claim.allocated:
            claim.template = replace(template, namespace=ctx.pod.namespace, raw={})
            claim.spec_override = template.spec
            if claim.claim is None:
                claim.status_recorded = True


def _dra_unavailable(ctx: PodContext, lang: str) -> list[Finding]:
    problem = ctx.snapshot.problem_for("resource.k8s.io")
    if problem is None or not ctx.pod.resource_claims:
        return []
    values = {"version": ctx.snapshot.server_version or "unknown"}
    evidence = {"serverVersion": ctx.snapshot.server_version, "problem": problem.message}
    return [build_finding("dra-api-unavailable", lang, values, evidence=evidence)]


def _degraded(ctx: PodContext, lang: str) -> list[Finding]:
    return [
        build_finding(
            "source-degraded",
            lang,
            {
                "kind": problem.kind,
                "message": problem.message,
                "resource": RESOURCE_NAMES.get(problem.kind, problem.kind),
            },
            evidence={"kind": problem.kind, "code": problem.code, "message": problem.message},
            severity="warning",
        )
        for problem in ctx.snapshot.problems
        if problem.kind in WHY_READS
    ]


def _without_explained_constraints(simulated: list[Finding], found: list[Finding]) -> list[Finding]:
    """A constraint on an attribute no device publishes is already explained by attribute-not-advertised."""
    missing = {f.evidence.get("attribute") for f in found if f.slug == "attribute-not-advertised"}
    layer_slugs = {f.slug for f in found}
    return [
        f
        for f in simulated
        if not (
            f.slug == "constraint-unsatisfiable"
            and str(f.evidence.get("constraint", "")).split(" ")[-1] in missing
        )
        and not (f.slug == "driver-slices-missing" and "driver-slices-missing" in layer_slugs)
    ]


def _still_unallocated(
    ctx: PodContext, lang: str, findings: list[Finding], outcome: SimulationOutcome
) -> list[Finding]:
    """Pending with unallocated claims and no cause found: say so, with where the devices would fit."""
    if ctx.pod.phase != "Pending" or ctx.pod.node_name or any(f.severity == "error" for f in findings):
        return []
    result = []
    for claim in ctx.unallocated:
        if claim.claim is None:
            continue
        values = {"namespace": ctx.pod.namespace, "pod": ctx.pod.name, "claim": claim.claim.name}
        evidence = {"claim": f"{ctx.pod.namespace}/{claim.claim.name}", "simulationFitsOn": outcome.fitting}
        result.append(build_finding("claim-not-allocated", lang, values, evidence=evidence))
    return result


def _suppress(findings: list[Finding]) -> list[Finding]:
    present = {f.slug for f in findings}
    hidden = set().union(*(SUPPRESSES.get(slug, set()) for slug in present))
    return [f for f in findings if f.slug not in hidden]


def verdict_for(pod: Pod, findings: list[Finding], lang: str) -> str:
    """The first line a user reads, in the catalog's words: the blocking finding's title, or none."""
    state = pod.phase
    scheduled = pod.conditions.get("PodScheduled")
    if state == "Pending" and scheduled and scheduled.status == "False":
        state = sentence("pending-reason", lang, reason=scheduled.reason or "unscheduled")
    blocking = [f for f in findings if f.severity == "error"]
    if blocking:
        return sentence("verdict-blocked", lang, pod=pod.key, state=state, title=blocking[0].words(lang).title)
    if findings:
        return sentence("verdict-notes", lang, pod=pod.key, state=state, count=len(findings))
    return sentence("verdict-clear", lang, pod=pod.key, state=state)


def diagnose_pod(snapshot: Snapshot, pod: Pod, options: WhyOptions) -> PodDiagnosis:
    lang = options.lang
    ctx = pod_context(snapshot, pod)
    if options.with_rct is not None:
        _apply_with_rct(ctx, options.with_rct)
    findings: list[Finding] = []
    findings += _dra_unavailable(ctx, lang)
    findings += check_device_classes(ctx, lang)
    findings += check_templates_and_claims(ctx, lang)
    findings += check_driver_slices(ctx, lang)
    findings += check_attributes(ctx, lang)
    outcome = SimulationOutcome()
    if not any(f.slug in LAYER_BLOCKERS for f in findings):
        outcome = check_simulation(ctx, lang, options.features)
        findings += _without_explained_constraints(outcome.findings, findings)
    findings += check_rct_audit(ctx, lang)
    findings += check_class_audit(ctx, lang)
    findings += check_events(ctx, lang, outcome)
    findings += check_rds_label(ctx, lang)
    findings += check_device_plugin_mode(ctx, lang)
    findings += check_crashes(ctx, lang)
    findings += _degraded(ctx, lang)
    findings += _still_unallocated(ctx, lang, findings, outcome)
    findings = ordered(dedupe(_suppress(findings)))
    return PodDiagnosis(
        pod=pod,
        verdict=verdict_for(pod, findings, lang),
        findings=findings,
        nodes=outcome.nodes,
        events=[e for e in relevant_events(ctx)],
        features=options.assumptions,
    )
