"""The allocator, simulated on every node for one Pod's unallocated claims: typed facts for rules.

The scheduler only says `cannot allocate all claims`; the simulation says, per node, which
request or constraint fails and with what counts (dra-facts.md 6). Nodes the Pod cannot use
for other reasons (taints, selectors) are simulated too, so a Pod whose devices would fit only
on a tainted node is `not-device-related`. PodContext.simulation runs this once per Pod; the
rules in rules/allocation.py and the `why` drawing read the same NodeResults.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, data_lang, say
from kubectl_rbln.diagnose.placement import Exclusion, anti_affinity_exclusions, exclusions
from kubectl_rbln.diagnose.pod_view import PodView
from kubectl_rbln.dra.allocator import ClaimToAllocate, Features, NodeResult, simulate_cluster
from kubectl_rbln.dra.budget import command_budget
from kubectl_rbln.dra.capacity import InUse, in_use_from_claims
from kubectl_rbln.dra.explain import CandidateCounts, Failure
from kubectl_rbln.dra.model import Node, Snapshot
from kubectl_rbln.dra.node_memo import NodeMemo
from kubectl_rbln.dra.node_types import DERIVED_KEY, NodeTypes
from kubectl_rbln.dra.proofs import Proof

EVIDENCE_NODES = 20  # evidence names this many nodes; -o json's nodes[] has them all


@dataclass(slots=True)
class SimulationFacts:
    """Per node: the allocator's typed result and what else keeps the Pod off the node."""

    ran: bool = False
    results: list[NodeResult] = field(default_factory=list)
    excluded: dict[str, list[Exclusion]] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)  # the `-o json` nodes[] table
    # the answers below, each worked out once: a dozen rules ask them of 5,000 results (filled
    # once `results` and `excluded` are final, which they are from simulate_pod on)
    _known: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def _once(self, key: str, build: Any) -> Any:
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = build()
        return known

    @property
    def error(self) -> str | None:
        """The first allocator error (the scheduler's SchedulerError), if any node hit one."""
        return next((r.error.message for r in self.results if r.error is not None), None)

    @property
    def usable(self) -> list[NodeResult]:
        excluded = self.excluded
        return list(self._once("usable", lambda: tuple(r for r in self.results if not excluded.get(r.node))))

    @property
    def fitting(self) -> list[str]:
        """Nodes where the devices fit and the Pod may run."""
        return list(self._once("fitting", lambda: tuple(r.node for r in self.usable if r.fits)))

    @property
    def fits_elsewhere(self) -> list[str]:
        """Nodes where the devices would fit but something else keeps the Pod off."""
        return [r.node for r in self.results if r.fits and self.excluded.get(r.node)]

    @property
    def failed(self) -> dict[str, NodeResult]:
        """Usable nodes where the allocator failed, when the devices fit nowhere the Pod may run."""
        return dict(self._once("failed", self._failed))

    def _failed(self) -> dict[str, NodeResult]:
        # the devices may fit on nodes the Pod cannot use (fits_elsewhere); on the ones it can use,
        # what failed is still the cause there (the holder on the only eligible node, issue 21)
        if not self.ran or self.error or self.fitting:
            return {}
        return {r.node: r for r in self.usable if r.failure is not None}

    def failures_by_kind(self) -> dict[str, list[str]]:
        """Failure kind -> the nodes that failed that way, in node order."""
        out: dict[str, list[str]] = defaultdict(list)
        failed: dict[str, NodeResult] = self._once("failed", self._failed)
        for node, result in failed.items():
            out[result.failure.kind].append(node)  # type: ignore[union-attr]
        return dict(out)

    def result(self, node: str) -> NodeResult | None:
        return next((r for r in self.results if r.node == node), None)


def allocated_devices(
    snapshot: Snapshot,
    skip: set[str],
    consumable: bool = False,
    by_pool: dict[tuple[str, str], set[str]] | None = None,
) -> set[tuple[str, str, str]]:
    """Devices held by every allocated claim (adminAccess results excluded, dra-facts.md 2.2). With
    DRAConsumableCapacity (`consumable`) a result with a `shareID` is a share, not a held device
    (the scheduler's foreachAllocatedDevice; see `capacity_in_use`). `by_pool` is filled with the same
    devices per (driver, pool), in the same pass (dra/node_memo.py reads them so: walking the set
    afterwards took 0.2 s at 20,000 nodes, its tuples all over memory)."""
    # claim names that can end a skipped "ns/name" (after any "/"): one f-string per claim cost more
    skipped = {key[i + 1 :] for key in skip for i, char in enumerate(key) if char == "/"}
    held: set[tuple[str, str, str]] = set()
    add = held.add
    names: set[str] = set()
    last: tuple[Any, Any] = (None, None)
    for claim in snapshot.claims:
        allocation = claim.allocation
        if allocation is None or (claim.name in skipped and f"{claim.namespace}/{claim.name}" in skip):
            continue
        for r in allocation.results:
            if not r.admin_access and not (consumable and r.share_id is not None):
                add((r.driver, r.pool, r.device))
                if by_pool is not None:
                    if r.pool != last[1] or r.driver != last[0]:
                        last = (r.driver, r.pool)
                        names = by_pool.setdefault(last, set())
                    names.add(r.device)
    return held


def capacity_in_use(
    snapshot: Snapshot, skip: set[str], consumable: bool
) -> dict[tuple[str, str, str], InUse]:
    """With DRAConsumableCapacity: the capacity the allocated claims' shares consume, per device."""
    return in_use_from_claims(snapshot.claims, skip) if consumable else {}


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


def stuck_holders(snapshot: Snapshot, holders: dict[str, str]) -> dict[str, str]:
    """ "ns/pod" -> why a Pod that holds devices is itself stuck: `gone` (its claim still names it),
    `terminating since <time>`, or its phase Failed/Succeeded with the claim still reserved; such a
    holder frees nothing by waiting (issue 21)."""
    claims = {f"{c.namespace}/{c.name}": c for c in snapshot.claims}
    out: dict[str, str] = {}
    for text in holders.values():
        claim = claims.get(text.split(" (pod ")[0])
        if claim is None:
            continue
        names = {str(r.get("name")) for r in claim.reserved_for if isinstance(r, dict) and r.get("name")}
        names |= {claim.owner_pod} if claim.owner_pod else set()
        for name in sorted(names):
            pod = snapshot.pod(claim.namespace, name)
            key = f"{claim.namespace}/{name}"
            if pod is None:
                if _pods_read_in(snapshot, claim.namespace):  # else its Pods were not read at all
                    out[key] = "gone"
            elif pod.deletion_timestamp:
                out[key] = f"terminating since {pod.deletion_timestamp}"
            elif pod.phase in ("Failed", "Succeeded"):
                out[key] = pod.phase
    return out


def _pods_read_in(snapshot: Snapshot, namespace: str) -> bool:
    read = snapshot.memo("pod-namespaces", lambda: {p.namespace for p in snapshot.pods})
    return namespace in read


def claims_to_allocate(ctx: PodView) -> list[tuple[Any, ClaimToAllocate]]:
    pairs = []
    for claim in ctx.unallocated:
        spec = claim.spec
        if spec is None:
            continue
        name = claim.claim_name or f"{ctx.pod.name}-{claim.ref.name}"
        pairs.append((claim, ClaimToAllocate(namespace=ctx.pod.namespace, name=name, spec=spec)))
    return pairs


def _fit_text(result: NodeResult) -> Phrase:
    parts = []
    for results in result.results.values():
        by_request: dict[str, list[str]] = defaultdict(list)
        for entry in results:
            by_request[entry.request].append(entry.device)
        parts += [f"{req} → {', '.join(devices)}" for req, devices in by_request.items()]
    return Phrase("reason-fits", {"parts": "; ".join(parts)})


def short_reason(result: NodeResult) -> str:
    """One line a table can hold: the failing request or constraint and its counts."""
    return say(reason_phrase(result), "en")


def reason_phrase(result: NodeResult) -> Phrase | str:
    """short_reason in any language: a catalog phrase, or the failure's English summary when it has none."""
    values: dict[str, Any]
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
        values = {"kind": failure.constraint_kind, "attribute": attribute}
        head = Phrase("reason-constraint", {**values, "groups": groups or Phrase("reason-no-candidate")})
        lacking = Phrase("reason-lacking", {"count": len(failure.lacking)})
        return Phrase("", parts=(head, lacking), sep="") if failure.lacking else head
    if failure.kind == "selector" and counts is not None:
        top = failure.exclusions[0] if failure.exclusions else None
        values = {"request": failure.request, "match": counts.request_match, "on": counts.on_node}
        head = Phrase("reason-selector", {**values, "needed": counts.needed})
        if top is None:
            return head
        return Phrase(
            "", parts=(head, Phrase("reason-fails", {"expr": top.conjunct or top.expression})), sep=" "
        )
    if failure.kind == "exhausted" and counts is not None:
        top = failure.exclusions[0] if failure.exclusions else None
        if top is not None and counts.free + top.excluded >= counts.needed:  # issue 12, 4d
            seen = ", ".join(f"{a.rsplit('/', 1)[-1]}={v}" for a, vals in top.values.items() for v in vals)
            values = {"request": failure.request, "match": counts.request_match, "free": top.excluded}
            return Phrase(
                "reason-held-but",
                {**values, "seen": seen or Phrase("reason-failing"), "expr": top.conjunct or top.expression},
            )
        values = {"request": failure.request, "free": counts.free, "match": counts.request_match}
        return Phrase("reason-exhausted", {**values, "needed": counts.needed})
    if failure.kind == "counters" and failure.counter:
        values = {"request": failure.request, "set": failure.counter_set, "counter": failure.counter}
        return Phrase(
            "reason-counters", {**values, "needed": failure.counter_needed, "left": failure.counter_left}
        )
    if failure.kind == "no-devices" and counts is not None:
        if counts.drivers:
            return Phrase(
                "reason-no-devices", {"request": failure.request, "drivers": "/".join(counts.drivers)}
            )
        return Phrase("reason-no-matching-devices", {"request": failure.request})
    return failure.phrase or failure.summary


def row_reason(result: NodeResult, excluded: list[Exclusion]) -> Phrase | str | None:
    """The NODES table's reason for one node, in any language (None: the row has none)."""
    if excluded:
        devices = Phrase("reason-devices-would-fit" if result.fits else "reason-devices-do-not-fit")
        return Phrase("reason-excluded", {"text": excluded[0].text, "devices": devices})
    if result.fits:
        return _fit_text(result)
    if result.error is not None:
        return Phrase("reason-allocator-error", {"message": result.error.message})
    if result.failure is not None:
        return reason_phrase(result)
    return None


def node_row(result: NodeResult, excluded: list[Exclusion]) -> dict[str, Any]:
    row: dict[str, Any] = {"name": result.node, "fits": result.fits and not excluded}
    if excluded:
        row["fits"] = None
        row["excludedBy"] = [e.text for e in excluded]
    reason = row_reason(result, excluded)
    if reason is not None:
        row["reason"] = say(reason, "en")
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
        if failure.proof is not None:
            row["failure"]["proof"] = proof_document(failure.proof)
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


def proof_document(proof: Proof) -> dict[str, Any]:
    """A counting proof (dra/proofs.py) as `-o json` and the findings' evidence hold it."""
    out: dict[str, Any] = {
        "kind": proof.kind,
        "requests": list(proof.requests),
        "needed": proof.needed,
        "available": proof.available,
        "attribute": proof.attribute,
        "choices": proof.combinations,
    }
    if proof.values:
        out["values"] = dict(proof.values)
    return out


def rows_in(facts: SimulationFacts, lang: str) -> list[dict[str, Any]]:
    """The nodes[] table with its reasons (and failure summaries) in `lang`; English is `rows` itself."""
    lang = data_lang(lang)
    if lang == "en":
        return facts.rows
    out = []
    for result, row in zip(facts.results, facts.rows, strict=True):
        row = dict(row)
        reason = row_reason(result, facts.excluded.get(result.node, []))
        if reason is not None:
            row["reason"] = say(reason, lang)
        if result.failure is not None and result.failure.phrase is not None:
            row["failure"] = {**row["failure"], "summary": say(result.failure.phrase, lang)}
        out.append(row)
    return out


def counts_for(result: NodeResult, failure: Failure) -> CandidateCounts | None:
    for (claim, request), counts in result.candidates.items():
        if claim == failure.claim and request == failure.request:
            return counts
    return None


RESIMULATED_NODES = 50  # a what-if run needs only the first failed nodes to name the cause


def _run(
    ctx: PodView, nodes: list[Node], claims: list[ClaimToAllocate], features: Features
) -> tuple[list[NodeResult], NodeMemo]:
    """The allocator on `nodes`, and the memo that says which nodes shared a result."""
    own = {f"{c.namespace}/{c.name}" for c in claims}
    by_pool: dict[tuple[str, str], set[str]] = {}
    allocated = allocated_devices(ctx.snapshot, own, features.consumable_capacity, by_pool)
    in_use = capacity_in_use(ctx.snapshot, own, features.consumable_capacity)
    specs = [c.spec for c in claims]
    classes, types = ctx.snapshot.device_classes, _types(ctx.snapshot)
    memo = NodeMemo(specs, classes, features.consumable_capacity, allocated, in_use, types, by_pool)
    del by_pool  # the memo keeps its own (frozen, shared) sets
    results = simulate_cluster(
        nodes,
        ctx.snapshot.slices,
        ctx.snapshot.device_classes,
        claims,
        allocated,
        features,
        capacity_in_use=in_use,
        memo=memo,
        budget=command_budget(ctx.snapshot),  # one for the whole command (dra/budget.py)
        pod=f"{ctx.pod.namespace}/{ctx.pod.name}",
    )
    return results, memo


def _types(snapshot: Snapshot) -> dict[int, frozenset[str]] | None:
    """The slice types the decoding found and the names that vary in each (dra/node_types.py); None
    when DeviceTaintRules may taint some devices of a type and not others."""
    found = snapshot.derived.get(DERIVED_KEY)
    if not isinstance(found, NodeTypes) or not found.types or snapshot.taint_rules:
        return None
    return snapshot.memo("node-types-varying", found.varying)


def resimulate_failed(ctx: PodView, failed: list[str], features: Features) -> list[NodeResult]:
    """The failed nodes once more under other gates: would the claims fit if one cause were gone?
    (device-tainted ignores taints, binding-gate-disabled turns binding conditions on)."""
    claims = [c for _, c in claims_to_allocate(ctx)]
    nodes = [ctx.snapshot.nodes[n] for n in failed[:RESIMULATED_NODES] if n in ctx.snapshot.nodes]
    return _run(ctx, nodes, claims, features)[0]


# The lists without which no node is simulated at all: one refused is no list, not a list of none, so
# the simulation would find "no devices" everywhere (source-degraded, case unchecked, says which).
SIMULATION_KINDS = ("ResourceSlice", "DeviceClass", "Node")


def simulate_pod(ctx: PodView) -> SimulationFacts:
    """Every node, the Pod's unallocated claims, devices other claims hold taken out."""
    if ctx.pod.node_name:  # bound: nothing is allocated for it any more (most Pods `check` reads)
        return SimulationFacts()
    pairs = claims_to_allocate(ctx)
    if not pairs:
        return SimulationFacts()
    if any(claim.spec.impossible for _, claim in pairs):  # a count or quantity the API server refuses:
        return SimulationFacts()  # nothing to simulate (source-degraded, case malformed, says which)
    if any(ctx.snapshot.refused(kind) for kind in SIMULATION_KINDS):
        return SimulationFacts()
    nodes = sorted(ctx.snapshot.nodes.values(), key=lambda n: n.name)
    results, memo = _run(ctx, nodes, [c for _, c in pairs], ctx.features)
    snapshot = ctx.snapshot
    excluded = {
        n.name: exclusions(ctx.pod, n) + anti_affinity_exclusions(snapshot, ctx.pod, n) for n in nodes
    }
    return SimulationFacts(ran=True, results=results, excluded=excluded, rows=_rows(results, excluded, memo))


def _rows(
    results: list[NodeResult], excluded: dict[str, list[Exclusion]], memo: NodeMemo
) -> list[dict[str, Any]]:
    """The nodes[] rows. A node whose result was made from another's (dra/node_memo.py) and that
    nothing else keeps the Pod off has the row of the first such node, but for its name: the row
    is said from the result's words and counts alone, which the shared results have in common."""
    rows = []
    said: dict[int, dict[str, Any]] = {}  # id of the shared result -> the first row made from it
    for result in results:
        node_excluded = excluded[result.node]
        source = None if node_excluded else memo.shared_with.get(result.node)
        row = said.get(id(source)) if source is not None else None
        if row is not None:
            rows.append({**row, "name": result.node})
            continue
        row = node_row(result, node_excluded)
        if source is not None:
            said[id(source)] = row
        rows.append(row)
    return rows
