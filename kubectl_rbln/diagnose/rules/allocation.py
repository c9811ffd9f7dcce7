"""What the allocator met on the nodes the Pod could use: one rule per kind of failure.

All of them read PodContext.simulation (run once per Pod) and the typed NodeResults in it;
`not-device-related` also reads the scheduler's own per-node reasons from the events.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import SchedulingMessage
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.simulation import (
    EVIDENCE_NODES,
    counts_for,
    holders_of,
    proof_document,
    stuck_holders,
)
from kubectl_rbln.domain import DEVICE_RESOURCE_PREFIXES, PCIE_ROOT_ATTR
from kubectl_rbln.dra.allocator import CLUSTER_MAX_STEPS
from kubectl_rbln.dra.explain import CandidateCounts, Failure

ALIGNMENT_IDS = ("numaNode", "pcieRoot")


def _capped(items: list[str]) -> list[str]:
    if len(items) <= EVIDENCE_NODES:
        return items
    return items[:EVIDENCE_NODES] + [f"... {len(items) - EVIDENCE_NODES} more"]


def _sample(ctx: PodContext, nodes: list[str]) -> Failure:
    return ctx.simulation.failed[nodes[0]].failure  # type: ignore[return-value]


def _counts(ctx: PodContext, nodes: list[str]) -> list[CandidateCounts]:
    failed = ctx.simulation.failed
    return [c for n in nodes if (c := counts_for(failed[n], failed[n].failure)) is not None]  # type: ignore[arg-type]


def failure_evidence(ctx: PodContext, nodes: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The evidence and values every allocation finding shares: nodes, example, the scheduler's line."""
    sample = _sample(ctx, nodes)
    drivers = sorted({d for c in _counts(ctx, nodes) for d in c.drivers})
    evidence: dict[str, Any] = {
        "nodes": _capped(nodes),
        "example": Said(Phrase("node-says", {"node": nodes[0], "text": sample.phrase or sample.summary})),
        "schedulerSays": f"{len(nodes)} {sample.scheduler_message}",
    }
    if sample.proof is not None:  # decided by counting, before any search (dra/proofs.py)
        evidence["proof"] = proof_document(sample.proof)
    source = ctx.source_of(sample.claim)  # the claim the failing request is in
    values = ctx.values(nodes=Names(nodes), request=sample.request, node=nodes[0], driver=drivers, **source)
    return evidence, values


def _nodes_failing(ctx: PodContext, *kinds: str) -> list[str]:
    simulation = ctx.simulation
    if not simulation.ran:
        return []  # nothing was simulated (a bound Pod, claims allocated): no node failed
    return [n for kind, found in simulation.failures_by_kind().items() if kind in kinds for n in found]


def _selector_failure(ctx: PodContext) -> tuple[list[str], dict[str, Any], dict[str, Any], int, int] | None:
    nodes = _nodes_failing(ctx, "selector")
    if not nodes:
        return None
    evidence, values = failure_evidence(ctx, nodes)
    sample = _sample(ctx, nodes)
    exclusion = sample.exclusions[0] if sample.exclusions else None
    if exclusion is not None:
        evidence["excludedBy"] = Said(exclusion.phrase)
        evidence["valuesSeen"] = exclusion.values
    evidence["counts"] = sample.details
    term = (exclusion.conjunct or exclusion.expression) if exclusion else ""
    seen = [f"{a}: {v}" for a, v in (exclusion.values if exclusion else {}).items()]
    counts = _counts(ctx, nodes)
    best = max((c.request_match for c in counts), default=0)
    needed = max((c.needed for c in counts), default=0)
    values.update(
        term=term,
        values=seen,
        rdma_only="rdma" in term and "pciSubsystem" not in term,
        subsystem_only="pciSubsystem" in term and "rdma" not in term,
        nic_term="rdma" in term or "pciSubsystem" in term,  # a term of the recipe's NIC selector
    )
    return nodes, evidence, values, best, needed


@rule("allocation.selector", emits=("selector-matches-nothing",))
def selector_matches_nothing(ctx: PodContext) -> Iterator[Finding]:
    """A request's selectors exclude every device of its class on every usable node."""
    failure = _selector_failure(ctx)
    if failure is not None and failure[3] == 0:
        nodes, evidence, values, _, _ = failure
        values["fix_nodes"] = list(nodes)  # the RDMA driver is loaded on every node that matches nothing
        yield Finding("selector-matches-nothing", values, evidence, recipe="nic-selector")


def _extended_resource_shortage(ctx: PodContext, message: SchedulingMessage) -> Finding | None:
    """Device-plugin resources (rebellions.ai/*, rdma/*) that no node has enough of."""
    short = [r for r in message.reasons if r.resource and r.resource.startswith(DEVICE_RESOURCE_PREFIXES)]
    if not short:
        return None
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
    values = ctx.values(
        request=first.resource,
        count=requested.get(first.resource or "", "?"),
        short_nodes=first.count,
        resources=sorted({r.resource or "" for r in short}),
        node=min(available, default=""),  # "": no node has the resource, nothing to describe
    )
    return Finding("insufficient-devices", values, evidence, case="device-plugin")


@rule("allocation.insufficient", emits=("insufficient-devices",))
def insufficient_devices(ctx: PodContext) -> Iterator[Finding]:
    """Fewer matching devices than the request's count: by selector, by taint, or device-plugin stock."""
    failure = _selector_failure(ctx)
    if failure is not None and failure[3] > 0:
        _, evidence, values, best, needed = failure
        missing = _not_published(ctx)
        if missing:  # the driver left devices out of these nodes' slices (published on every other)
            evidence["notPublishedOn"] = missing
        yield Finding("insufficient-devices", {**values, "available": best, "count": needed}, evidence)
        return
    tainted = _nodes_failing(ctx, "tainted")
    if tainted:
        evidence, values = failure_evidence(ctx, tainted)
        needed = max((c.needed for c in _counts(ctx, tainted)), default=0)
        yield Finding("insufficient-devices", {**values, "available": 0, "count": needed}, evidence)
        return
    if ctx.pod.resource_claims:
        return
    for message in ctx.scheduling_messages:
        found = _extended_resource_shortage(ctx, message)
        if found is not None:
            yield found
            return


def _not_published(ctx: PodContext) -> dict[str, list[str]]:
    """node -> the devices its drivers publish on every other node of its type but not on it."""
    from kubectl_rbln.diagnose.topology import unpublished_devices  # noqa: PLC0415

    out = {}
    for node in list(ctx.simulation.failed)[:EVIDENCE_NODES]:
        names = [f"{d.driver}/{d.name}" for d in unpublished_devices(ctx.snapshot, node)]
        if names:
            out[node] = names
    return out


@rule("allocation.exhausted", emits=("devices-exhausted",))
def devices_exhausted(ctx: PodContext) -> Iterator[Finding]:
    """Enough devices match, but other claims hold them: name the holders. Also when the devices are
    free but the shared counters of their partitionable device are used up (case `counters`), or a
    shared device's capacity is (case `capacity`)."""
    if _nodes_failing(ctx, "counters"):
        yield from _counters_exhausted(ctx)
        return
    if _nodes_failing(ctx, "capacity"):
        yield from _capacity_exhausted(ctx)
        return
    nodes = _nodes_failing(ctx, "exhausted")
    if not nodes:
        return
    evidence, values = failure_evidence(ctx, nodes)
    failed = ctx.simulation.failed
    held = [h for n in nodes[:EVIDENCE_NODES] for h in failed[n].failure.holders]  # type: ignore[union-attr]
    holders = holders_of(ctx.snapshot, held)
    evidence["heldBy"] = holders
    pods = sorted({claim.split(" (pod ")[-1].rstrip(")") for claim in holders.values()})
    evidence["devicesHeld"] = len({h for n in nodes for h in failed[n].failure.holders})  # type: ignore[union-attr]
    values["holders"] = Names(pods, 2)
    stuck = stuck_holders(ctx.snapshot, holders)
    if stuck:  # holders that are themselves stuck free nothing by waiting: named as such
        evidence["stuckHolders"] = stuck
    values["stuck_holders"] = Names(sorted(stuck), 2) if stuck else ""
    every = _all_mode(ctx, nodes)
    if every is not None:
        evidence["allocationMode"] = "All"
        yield Finding("devices-exhausted", {**values, **every}, evidence, case="all-mode")
        return
    changed = _free_but_failing(ctx, nodes)
    if changed is not None:
        evidence.update(changed[0])
        yield Finding("devices-exhausted", {**values, **changed[1]}, evidence, case="free-but-failing")
        return
    yield Finding("devices-exhausted", values, evidence)


def _counters_exhausted(ctx: PodContext) -> Iterator[Finding]:
    """Partitionable devices (DRAPartitionableDevices): free partitions whose shared counters other
    allocations used up, e.g. a whole GPU allocated, so none of its MIG partitions fit (dra/counters.py)."""
    nodes = _nodes_failing(ctx, "counters")
    if not nodes:
        return
    evidence, values = failure_evidence(ctx, nodes)
    sample = _sample(ctx, nodes)
    failed = ctx.simulation.failed
    held = [h for n in nodes[:EVIDENCE_NODES] for h in failed[n].failure.holders]  # type: ignore[union-attr]
    holders = holders_of(ctx.snapshot, held)
    evidence["heldBy"] = holders
    evidence["counter"] = sample.counter and f"{sample.counter_set}/{sample.counter}"
    evidence["counterNeeded"], evidence["counterLeft"] = sample.counter_needed, sample.counter_left
    also = _nodes_failing(ctx, "exhausted")
    if also:
        evidence["exhaustedNodes"] = _capped(also)  # nodes whose matching devices other claims hold
    pods = sorted({claim.split(" (pod ")[-1].rstrip(")") for claim in holders.values()})
    values["holders"] = Names(pods or sorted(set(held)) or ["-"], 2)
    values["counter_set"] = sample.counter_set or "-"
    values["counter"] = sample.counter or "-"
    values["needed"] = sample.counter_needed or "-"
    values["left"] = sample.counter_left or "-"
    yield Finding("devices-exhausted", values, evidence, case="counters")


def _capacity_exhausted(ctx: PodContext) -> Iterator[Finding]:
    """Consumable capacity (DRAConsumableCapacity): the shared device (allowMultipleAllocations) the
    request could use has too little of a capacity left beside the claims consuming it (dra/capacity.py)."""
    nodes = _nodes_failing(ctx, "capacity")
    evidence, values = failure_evidence(ctx, nodes)
    sample = _sample(ctx, nodes)
    evidence["device"] = sample.capacity_device
    evidence["capacity"] = sample.capacity
    evidence["capacityNeeded"], evidence["capacityLeft"] = sample.capacity_needed, sample.capacity_left
    evidence["capacityReason"] = sample.capacity_reason
    evidence["consumedBy"] = list(sample.holders)
    also = _nodes_failing(ctx, "exhausted")
    if also:
        evidence["exhaustedNodes"] = _capped(also)
    values["device"] = sample.capacity_device or "-"
    values["capacity"] = (sample.capacity or "-").rsplit("/", 1)[-1]
    values["needed"] = sample.capacity_needed or "-"
    values["left"] = sample.capacity_left or "-"
    values["holders"] = Names(sorted(set(sample.holders)) or ["-"], 2)
    yield Finding("devices-exhausted", values, evidence, case="capacity")


def _all_mode(ctx: PodContext, nodes: list[str]) -> dict[str, Any] | None:
    """An `allocationMode: All` request needs every matching device free: say so (issue 12, 4c)."""
    sample = _sample(ctx, nodes)
    base, _, sub = sample.request.partition("/")
    every = any(
        alternative.allocation_mode == "All" and (alternative.name or "") == sub
        for claim in ctx.unallocated
        if claim.spec is not None
        for request in claim.spec.requests
        if request.name == base
        for alternative in request.alternatives
    )
    counts = counts_for(ctx.simulation.failed[nodes[0]], sample)
    if not every or counts is None:
        return None
    return {"matching": counts.request_match, "held": counts.request_match - counts.free}


def _free_but_failing(ctx: PodContext, nodes: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Free devices that a selector drops, enough to fit the request if they still matched: the
    devices changed (NICs back with rdma=false), so other claims are not what to fix (issue 12, 4d)."""
    sample = _sample(ctx, nodes)
    counts = counts_for(ctx.simulation.failed[nodes[0]], sample)
    top = sample.exclusions[0] if sample.exclusions else None
    if top is None or counts is None or counts.free + top.excluded < counts.needed:
        return None
    seen = [
        f"{attribute.rsplit('/', 1)[-1]}={value}"
        for attribute, found in top.values.items()
        for value in found
    ]
    evidence = {"freeButFailing": Said(top.phrase), "freeValuesSeen": top.values}
    values = {
        "term": top.conjunct or top.expression,
        "seen": seen or ["<no value>"],
        "free_failing": top.excluded,
        "count": counts.needed,
    }
    return evidence, values


def _pcie_root_formats(ctx: PodContext, attribute: str | None) -> dict[str, list[str]]:
    """Drivers whose pcieRoot is not in the standard `pci<domain>:<bus>` form (ecosystem-facts 0.3)."""
    if attribute != PCIE_ROOT_ATTR:
        return {}
    odd: dict[str, set[str]] = {}
    for slice_ in ctx.snapshot.slices:
        for device in slice_.devices:
            value = device.attributes.get(attribute)
            if isinstance(value, str) and not value.startswith("pci"):
                odd.setdefault(device.driver, set()).add(value)
    return {driver: sorted(values)[:4] for driver, values in odd.items()}


@rule(
    "allocation.constraint",
    emits=("constraint-unsatisfiable",),
)
def constraint_unsatisfiable(ctx: PodContext) -> Iterator[Finding]:
    """Every request can be met alone, never together: the constraint (or the search cap) decides."""
    nodes = _nodes_failing(ctx, "constraint", "no-solution", "search-capped", "proven-impossible")
    if not nodes:
        return
    evidence, values = failure_evidence(ctx, nodes)
    sample = _sample(ctx, nodes)
    evidence["constraint"] = sample.constraint_kind and f"{sample.constraint_kind} {sample.attribute}"
    evidence["perValue"] = [
        {"value": g.value, "candidates": g.counts, "needed": g.needed} for g in sample.groups
    ]
    if sample.lacking:
        evidence["lackingAttribute"] = sample.lacking[:8]
    odd = _pcie_root_formats(ctx, sample.attribute)
    if odd:
        evidence["nonStandardPcieRoot"] = odd
    aligned = bool(sample.attribute and sample.attribute.rsplit("/", 1)[-1] in ALIGNMENT_IDS)
    values.update(
        constraint=f"{sample.constraint_kind} {sample.attribute}" if sample.constraint_kind else None,
        attribute=sample.attribute,
    )
    case = None if sample.constraint_kind else "together"
    capped = [n for n in nodes if ctx.simulation.failed[n].failure.kind == "search-capped"]  # type: ignore[union-attr]
    if capped and sample.kind == "search-capped":
        steps = max(ctx.simulation.failed[n].steps for n in nodes)
        evidence["searchCapped"] = {"steps": steps, "nodes": len(nodes)}
        spent = sum(result.steps for result in ctx.simulation.failed.values())
        if spent >= CLUSTER_MAX_STEPS:  # the cluster's budget ran out: some nodes were never searched
            unsearched = sum(1 for n in capped if ctx.simulation.failed[n].steps <= 1)
            evidence["searchCapped"].update(clusterBudget=CLUSTER_MAX_STEPS, unsearchedNodes=unsearched)
        values.update(steps=steps, node_count=len(nodes))
        case = "search-capped"
    unreached = [n for n in nodes if not ctx.simulation.failed[n].reached]
    if unreached:  # the command's work budget (dra/budget.py) ran out before these nodes
        evidence["notReached"] = {"nodes": _capped(unreached), "count": len(unreached)}
        values.update(unreached=len(unreached), node_count=len(nodes))
        if case == "search-capped":
            case = "not-reached"
    yield Finding(
        "constraint-unsatisfiable", values, evidence, case=case, recipe="numa-unaligned" if aligned else None
    )


def _non_device_reasons(message: SchedulingMessage) -> list[str]:
    """Every node was rejected for something other than devices: do not blame the devices."""
    if not message.reasons or any(_is_device_reason(r) for r in message.reasons):
        return []
    return [f"{r.count} {r.text}" for r in message.reasons]


def _is_device_reason(reason: Any) -> bool:
    if reason.category == "dra":
        return True
    return bool(reason.resource and reason.resource.startswith(DEVICE_RESOURCE_PREFIXES))


def _cordoned(ctx: PodContext, nodes: list[str]) -> list[str]:
    """The cordoned nodes among `nodes` (spec.unschedulable): the one change the fix can name itself,
    `kubectl uncordon` (taints, affinity and resources live in the operator's manifests)."""
    found = ctx.snapshot.nodes
    return [n for n in sorted(set(nodes)) if n in found and found[n].unschedulable]


@rule("allocation.not-device", emits=("not-device-related",), suppresses={"claim-not-allocated": None})
def not_device_related(ctx: PodContext) -> Iterator[Finding]:
    """The devices fit, or nothing device-shaped is the problem: taints, selectors, CPU, affinity."""
    simulation = ctx.simulation
    if simulation.ran and not simulation.error and not simulation.fitting:
        elsewhere = simulation.fits_elsewhere
        # only when no node the Pod may use fails on its devices: those failures lead (the holder on
        # the only eligible node is a device cause, whatever keeps the Pod off the other nodes)
        if (elsewhere and not simulation.failed) or not simulation.usable:
            reasons = sorted(
                {e.text for r in simulation.results for e in simulation.excluded.get(r.node, [])}
            )
            evidence: dict[str, Any] = {
                "devicesFitOn": elsewhere,
                "nodesExcluded": {n: [e.text for e in ex] for n, ex in simulation.excluded.items() if ex},
            }
            excluded = [n for n, ex in simulation.excluded.items() if ex]
            node = (elsewhere or excluded or [""])[0]
            cordoned = _cordoned(ctx, [*elsewhere, *excluded])
            values = ctx.values(reasons=reasons, nodes=Names(elsewhere), node=node, cordoned=cordoned)
            yield Finding("not-device-related", values, evidence)
            return
    for message in ctx.scheduling_messages:
        reasons = _non_device_reasons(message)
        if reasons:
            evidence = {"event": message.text, "nodeReasons": reasons, "totalNodes": message.total_nodes}
            unschedulable = any("unschedulable" in r for r in reasons)
            cordoned = _cordoned(ctx, list(ctx.snapshot.nodes)) if unschedulable else []
            values = ctx.values(
                reasons=reasons, nodes=Names([]), node=ctx.pod.node_name or "", cordoned=cordoned
            )
            yield Finding("not-device-related", values, evidence)
            return
