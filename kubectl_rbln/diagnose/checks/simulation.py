"""The allocator, simulated on every node for the Pod's unallocated claims, turned into findings.

The scheduler only says `cannot allocate all claims`; the simulation says, per
node, which request or constraint fails and with what counts (dra-facts.md 6).
Nodes the Pod cannot use for other reasons (taints, selectors) are simulated too,
so a Pod whose devices would fit only on a tainted node is `not-device-related`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.diagnose.context import PodClaim, PodContext
from kubectl_rbln.diagnose.findings import Finding, build_finding
from kubectl_rbln.diagnose.placement import Exclusion, exclusions
from kubectl_rbln.domain import DEFAULT_RCT, PCIE_ROOT_ATTR, RDMA_ATTR
from kubectl_rbln.dra.allocator import ClaimToAllocate, Features, NodeResult, simulate_cluster
from kubectl_rbln.dra.explain import CandidateCounts, Failure
from kubectl_rbln.dra.model import Snapshot

EVIDENCE_NODES = 20  # evidence names this many nodes; -o json's nodes[] has them all
REFERENCE_RCT = DEFAULT_RCT


@dataclass(slots=True)
class SimulationOutcome:
    findings: list[Finding] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    fitting: list[str] = field(default_factory=list)  # nodes where devices fit and the Pod may run
    ran: bool = False


def allocated_devices(snapshot: Snapshot, skip: set[str]) -> set[tuple[str, str, str]]:
    """Devices held by every allocated claim (adminAccess results excluded, dra-facts.md 2.2)."""
    held = set()
    for claim in snapshot.claims:
        if claim.allocation is None or f"{claim.namespace}/{claim.name}" in skip:
            continue
        held.update(r.key for r in claim.allocation.results if not r.admin_access)
    return held


def holders_of(snapshot: Snapshot, device_ids: list[str]) -> dict[str, str]:
    """device id -> "ns/claim (pod ns/pod)" for the devices other claims hold."""
    wanted = set(device_ids)
    out = {}
    for claim in snapshot.claims:
        for result in claim.allocation.results if claim.allocation else []:
            key = f"{result.driver}/{result.pool}/{result.device}"
            if key in wanted:
                owner = f" (pod {claim.namespace}/{claim.owner_pod})" if claim.owner_pod else ""
                out[key] = f"{claim.namespace}/{claim.name}{owner}"
    return out


def claims_to_allocate(ctx: PodContext) -> list[tuple[PodClaim, ClaimToAllocate]]:
    pairs = []
    for claim in ctx.unallocated:
        spec = claim.spec
        if spec is None:
            continue
        name = claim.claim_name or f"{ctx.pod.name}-{claim.ref.name}"
        pairs.append((claim, ClaimToAllocate(namespace=ctx.pod.namespace, name=name, spec=spec)))
    return pairs


def _fit_text(result: NodeResult) -> str:
    parts = []
    for results in result.results.values():
        by_request: dict[str, list[str]] = defaultdict(list)
        for entry in results:
            by_request[entry.request].append(entry.device)
        parts += [f"{req} → {', '.join(devices)}" for req, devices in by_request.items()]
    return "fits: " + "; ".join(parts)


def short_reason(result: NodeResult) -> str:
    """One line a table can hold: the failing request or constraint and its counts."""
    failure = result.failure
    if failure is None:
        return ""
    counts = next(
        (
            c
            for (claim, req), c in result.candidates.items()
            if claim == failure.claim and req == failure.request
        ),
        None,
    )
    if failure.kind == "constraint" and failure.attribute:
        attribute = failure.attribute.rsplit("/", 1)[-1]
        groups = "; ".join(
            f"{g.value}: " + ", ".join(f"{g.counts.get(r, 0)}/{n} {r}" for r, n in g.needed.items())
            for g in failure.groups
        )
        lacking = f"; {len(failure.lacking)} lack it" if failure.lacking else ""
        return f"{failure.constraint_kind} {attribute} — {groups or 'no candidate has it'}{lacking}"
    if failure.kind == "selector" and counts is not None:
        top = failure.exclusions[0] if failure.exclusions else None
        term = f" (fails: {top.conjunct or top.expression})" if top else ""
        return (
            f"{failure.request}: {counts.request_match}/{counts.on_node} match, {counts.needed} needed{term}"
        )
    if failure.kind == "exhausted" and counts is not None:
        return (
            f"{failure.request}: {counts.free} free of {counts.request_match} matching, "
            f"{counts.needed} needed (held by other claims)"
        )
    if failure.kind == "no-devices" and counts is not None:
        return f"{failure.request}: no {'/'.join(counts.drivers) or 'matching'} devices on this node"
    return failure.summary


def node_row(result: NodeResult, excluded: list[Exclusion]) -> dict[str, Any]:
    row: dict[str, Any] = {"name": result.node, "fits": result.fits and not excluded}
    if excluded:
        row["fits"] = None
        row["excludedBy"] = [e.text for e in excluded]
        devices = "devices would fit" if result.fits else "devices do not fit either"
        row["reason"] = f"{excluded[0].text} ({devices})"
    elif result.fits:
        row["reason"] = _fit_text(result)
    elif result.error is not None:
        row["reason"] = f"allocator error: {result.error.message}"
    elif result.failure is not None:
        row["reason"] = short_reason(result)
    if result.failure is not None:
        failure = result.failure
        row["failure"] = {
            "kind": failure.kind,
            "claim": failure.claim,
            "request": failure.request,
            "constraint": failure.constraint_kind and f"{failure.constraint_kind} {failure.attribute}",
            "summary": failure.summary,
            "schedulerMessage": failure.scheduler_message,
            "details": failure.details,
        }
    if result.candidates:
        row["candidates"] = {
            f"{claim}/{request}": {
                "needed": c.needed,
                "onNode": c.on_node,
                "matchClass": c.class_match,
                "matchRequest": c.request_match,
                "free": c.free,
            }
            for (claim, request), c in result.candidates.items()
        }
    return row


def _values(ctx: PodContext, **more: Any) -> dict[str, Any]:
    rct = next(
        (c.ref.resource_claim_template_name for c in ctx.claims if c.ref.resource_claim_template_name),
        REFERENCE_RCT,
    )
    return {"namespace": ctx.pod.namespace, "pod": ctx.pod.name, "rct": rct, **more}


def _capped(items: list[str]) -> list[str]:
    if len(items) <= EVIDENCE_NODES:
        return items
    return items[:EVIDENCE_NODES] + [f"... {len(items) - EVIDENCE_NODES} more"]


def _names(nodes: list[str], limit: int = 5) -> str:
    shown = ", ".join(nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


def _error_finding(ctx: PodContext, lang: str, message: str, features: Features) -> Finding:
    evidence = {
        "allocatorError": message,
        "schedulerEvent": f'running "DynamicResources" filter plugin: {message}',
        "conditionReason": "SchedulerError",
    }
    if "empty constraint" in message and not features.consumable_capacity:
        evidence["component"] = "kube-scheduler"
        return build_finding(
            "feature-gate-disabled", lang, _values(ctx, gate="DRAConsumableCapacity"), evidence=evidence
        )
    if "CEL" in message:
        return build_finding("selector-error", lang, _values(ctx, error=message), evidence=evidence)
    return build_finding("scheduler-error", lang, _values(ctx, message=message), evidence=evidence)


def _pcie_root_formats(ctx: PodContext, attribute: str | None) -> dict[str, list[str]]:
    """Drivers whose pcieRoot is not in the standard `pci<domain>:<bus>` form (ecosystem-facts 0.3)."""
    if attribute != PCIE_ROOT_ATTR:
        return {}
    odd: dict[str, set[str]] = defaultdict(set)
    for slice_ in ctx.snapshot.slices:
        for device in slice_.devices:
            value = device.attributes.get(attribute)
            if isinstance(value, str) and not value.startswith("pci"):
                odd[device.driver].add(value)
    return {driver: sorted(values)[:4] for driver, values in odd.items()}


def _other_branches(term: str) -> tuple[str, ...]:
    """Catalog fixes that belong to the other failing term: RDMA driver vs NIC selector edits."""
    if "rdma" in term and "pciSubsystem" not in term:
        return ("pciSubsystem", "<edited-rct.yaml>", "delete resourceclaimtemplate")
    if "pciSubsystem" in term and "rdma" not in term:
        return (RDMA_ATTR, "modprobe")
    return ()


def _counts_for(result: NodeResult, failure: Failure) -> CandidateCounts | None:
    for (claim, request), counts in result.candidates.items():
        if claim == failure.claim and request == failure.request:
            return counts
    return None


def _failure_findings(ctx: PodContext, lang: str, failed: dict[str, NodeResult]) -> list[Finding]:
    """One finding per kind of failure seen on the nodes the Pod could use."""
    by_kind: dict[str, list[str]] = defaultdict(list)
    for node, result in failed.items():
        by_kind[result.failure.kind].append(node)  # type: ignore[union-attr]
    findings = []
    for kind, nodes in by_kind.items():
        sample: Failure = failed[nodes[0]].failure  # type: ignore[assignment]
        counts = [c for n in nodes if (c := _counts_for(failed[n], failed[n].failure)) is not None]  # type: ignore[arg-type]
        drivers = ", ".join(sorted({d for c in counts for d in c.drivers})) or "-"
        evidence: dict[str, Any] = {
            "nodes": _capped(nodes),
            "example": f"{nodes[0]}: {sample.summary}",
            "schedulerSays": f"{len(nodes)} {sample.scheduler_message}",
        }
        values = _values(ctx, nodes=_names(nodes), request=sample.request, node=nodes[0], driver=drivers)
        if kind == "selector":
            exclusion = sample.exclusions[0] if sample.exclusions else None
            if exclusion is not None:
                evidence["excludedBy"] = exclusion.summary
                evidence["valuesSeen"] = exclusion.values
            evidence["counts"] = sample.details
            term = (exclusion.conjunct or exclusion.expression) if exclusion else ""
            seen = "; ".join(f"{a}: {v}" for a, v in (exclusion.values if exclusion else {}).items())
            best = max((c.request_match for c in counts), default=0)
            if best == 0:
                findings.append(
                    build_finding(
                        "selector-matches-nothing",
                        lang,
                        {**values, "term": term, "values": seen or "-"},
                        evidence=evidence,
                        recipe="nic-selector",
                        drop_lines=_other_branches(term),
                    )
                )
            else:
                needed = max((c.needed for c in counts), default=0)
                findings.append(
                    build_finding(
                        "insufficient-devices",
                        lang,
                        {**values, "available": best, "count": needed},
                        evidence=evidence,
                    )
                )
        elif kind == "exhausted":
            held = [h for n in nodes[:EVIDENCE_NODES] for h in failed[n].failure.holders]  # type: ignore[union-attr]
            holders = holders_of(ctx.snapshot, held)
            evidence["heldBy"] = holders
            pods = sorted({claim.split(" (pod ")[-1].rstrip(")") for claim in holders.values()})
            total = len({h for n in nodes for h in failed[n].failure.holders})  # type: ignore[union-attr]
            evidence["devicesHeld"] = total
            findings.append(
                build_finding(
                    "devices-exhausted",
                    lang,
                    {**values, "holders": _names(pods, 2) or "-"},
                    evidence=evidence,
                    severity="error",
                )
            )
        elif kind in ("constraint", "no-solution", "search-capped"):
            evidence["constraint"] = sample.constraint_kind and f"{sample.constraint_kind} {sample.attribute}"
            evidence["perValue"] = [
                {"value": g.value, "candidates": g.counts, "needed": g.needed} for g in sample.groups
            ]
            if sample.lacking:
                evidence["lackingAttribute"] = sample.lacking[:8]
            odd = _pcie_root_formats(ctx, sample.attribute)
            if odd:
                evidence["nonStandardPcieRoot"] = odd
            recipe = (
                "numa-unaligned"
                if sample.attribute and ("numaNode" in sample.attribute or "pcieRoot" in sample.attribute)
                else None
            )
            severity = "warning" if kind == "search-capped" else None
            constraint = (
                f"{sample.constraint_kind} {sample.attribute}"
                if sample.constraint_kind
                else "the claim's requests together"
            )
            title = None
            if kind == "search-capped":  # not proven impossible: say the search stopped, and where
                steps = max(failed[n].steps for n in nodes)
                evidence["searchCapped"] = {"steps": steps, "nodes": len(nodes)}
                title = (
                    f"search-capped: {steps:,}단계까지 탐색했지만 해를 찾지 못함 "
                    f"(노드 {len(nodes)}개, 불가능이 증명된 것은 아님)"
                    if lang == "ko"
                    else f"search-capped: no solution found within {steps:,} search steps on {len(nodes)} "
                    "node(s); not proven impossible"
                )
            findings.append(
                build_finding(
                    "constraint-unsatisfiable",
                    lang,
                    {**values, "constraint": constraint},
                    evidence=evidence,
                    recipe=recipe,
                    severity=severity,
                    title=title,
                )
            )
        elif kind in ("no-devices", "incomplete-pool", "invalid-pool"):
            findings.append(build_finding("driver-slices-missing", lang, values, evidence=evidence))
        elif kind == "tainted":
            needed = max((c.needed for c in counts), default=0)
            findings.append(
                build_finding(
                    "insufficient-devices",
                    lang,
                    {**values, "available": 0, "count": needed},
                    evidence=evidence,
                )
            )
    return findings


def check_simulation(ctx: PodContext, lang: str, features: Features) -> SimulationOutcome:
    outcome = SimulationOutcome()
    pairs = claims_to_allocate(ctx)
    if not pairs or ctx.pod.node_name:
        return outcome
    own = {f"{c.namespace}/{c.name}" for _, c in pairs}
    nodes = sorted(ctx.snapshot.nodes.values(), key=lambda n: n.name)
    results = simulate_cluster(
        nodes,
        ctx.snapshot.slices,
        ctx.snapshot.device_classes,
        [c for _, c in pairs],
        allocated_devices(ctx.snapshot, own),
        features,
    )
    outcome.ran = True
    excluded = {node.name: exclusions(ctx.pod, node) for node in nodes}
    outcome.nodes = [node_row(r, excluded[r.node]) for r in results]
    errors = [r.error.message for r in results if r.error is not None]
    if errors:
        outcome.findings.append(_error_finding(ctx, lang, errors[0], features))
        return outcome
    usable = [r for r in results if not excluded[r.node]]
    outcome.fitting = [r.node for r in usable if r.fits]
    if outcome.fitting:
        return outcome
    fits_elsewhere = [r.node for r in results if r.fits and excluded[r.node]]
    if fits_elsewhere or not usable:
        reasons = sorted({e.text for r in results for e in excluded[r.node]})
        evidence = {
            "devicesFitOn": fits_elsewhere,
            "nodesExcluded": {n: [e.text for e in ex] for n, ex in excluded.items() if ex},
        }
        values = _values(ctx, reasons="; ".join(reasons), node=_names(fits_elsewhere) or "-")
        outcome.findings.append(build_finding("not-device-related", lang, values, evidence=evidence))
        if fits_elsewhere:
            return outcome
    failed = {r.node: r for r in usable if r.failure is not None}
    outcome.findings += _failure_findings(ctx, lang, failed)
    return outcome
