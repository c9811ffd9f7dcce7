"""Counting proofs that a node cannot hold the claims, decided before any search (issue 26).

Why: a claim of nine single-NPU requests on distinct NUMA nodes of an 8-NUMA node, or 17 requests
over 16 eligible NPUs, has no solution that a count shows at once, yet the depth-first search
(dra/allocator.py) tries every combination up to its step cap and can only say `search-capped`.

Three arguments, each a relaxation of what the search requires, so each is sound (never "impossible"
when an allocation exists); when none applies the answer is unknown and the search runs as before:

- **devices** (Hall's condition, as a maximum flow): every non-adminAccess request takes `count`
  distinct devices among its candidates, and a device serves at most one of them, unless it is
  shared (`allowMultipleAllocations` with DRAConsumableCapacity: then it serves any number of
  requests, but one request takes it once). Counters, capacity, taints at pick time and constraints
  only refuse more, so a flow short of the total count proves no allocation exists.
- **distinct** (distinctAttribute, a matching of requests to values): the allocator remembers one
  value per request (the last device picked, dra/constraints.py, upstream's quirk), so only the last
  picks of the covered requests are sure to have pairwise different values; every pick needs the
  attribute. Fewer values than covered requests (Hall's condition on requests and values) proves it.
- **match** (matchAttribute): every device of the covered requests shares one value; for each value,
  the devices flow with the covered requests restricted to that value. No value with a full flow
  proves it.

A prioritized list (firstAvailable) is impossible only when every choice of its subrequests is:
each combination is proven separately, up to MAX_COMBINATIONS, else unknown. adminAccess requests
are left out of the device count (they take devices others may hold). Requests of one claim that
share a name (the API refuses them) make the distinct argument unknown.

This module reads one prepared `allocator._Allocation` duck-typed (alts, devices, shared,
constraints), as dra/explain.py does; the allocator calls it, it never imports the allocator.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.dra.constraints import DistinctAttribute, MatchAttribute, applies, lookup_attribute, typed

MAX_COMBINATIONS = 64  # firstAvailable choices proven one by one; more: unknown
UNLIMITED = 1 << 30


@dataclass(slots=True)
class Proof:
    """Why no allocation exists, with the counts (kind: devices | distinct | match)."""

    kind: str
    claim: str = ""
    requests: list[str] = field(default_factory=list)  # "claim/request" of the requests that cannot fit
    needed: int = 0  # devices (devices, match) or distinct values (distinct) they need
    available: int = 0  # what the node can give them
    attribute: str | None = None
    constraint_index: int | None = None
    values: dict[str, int] = field(default_factory=dict)  # match: value text -> devices it can give
    combinations: int = 1  # firstAvailable choices, every one proven impossible


def prove_impossible(state: Any) -> Proof | None:
    """A proof that no choice of devices satisfies every claim on this node, or None (unknown).

    Only call it when no fatal allocator error can come first (`_Allocation.prunable`)."""
    choices = []
    for per_claim in state.alts:
        for alts in per_claim:
            viable = [a for a in alts if _alone_possible(state, a)]
            if not viable:
                return None  # hopeless() decides and explains this one
            choices.append(viable)
    total = 1
    for viable in choices:
        total *= len(viable)
        if total > MAX_COMBINATIONS:
            return None
    first: Proof | None = None
    for combination in itertools.product(*choices):
        proof = _prove_one(state, list(combination))
        if proof is None:
            return None
        first = first or proof
    if first is not None:
        first.combinations = total
    return first


def _alone_possible(state: Any, alt: Any) -> bool:
    if alt.all_devices is not None:
        return bool(alt.all_devices) or state.features.version < 33
    return len(alt.free) >= alt.count


def _candidates(alt: Any) -> list[int]:
    """The positions the search may pick for the alternative: its free candidates, or for `All`
    every device it must take."""
    return list(alt.all_devices) if alt.all_devices is not None else list(alt.free)


def _name(state: Any, alt: Any) -> str:
    return f"{state.claims[alt.claim].key}/{alt.name}"


def _prove_one(state: Any, chosen: list[Any]) -> Proof | None:
    proof = _devices(state, chosen, {})
    if proof is not None:
        return proof
    for ci in range(len(state.claims)):
        for index, c in enumerate(state.constraints[ci]):
            covered = [
                a for a in chosen if a.claim == ci and a.count > 0 and applies(c.requests, a.base, a.sub)
            ]
            if not covered:
                continue
            if isinstance(c, DistinctAttribute):
                proof = _distinct(state, c, covered)
            elif isinstance(c, MatchAttribute):
                proof = _match(state, chosen, c, covered)
            else:
                proof = None
            if proof is not None:
                proof.claim = state.claims[ci].key
                proof.constraint_index = index
                return proof
    return None


# ------------------------------------------------------------------ devices: a maximum flow


def _devices(state: Any, chosen: list[Any], only: dict[int, set[int]]) -> Proof | None:
    """Requests (non-admin) into devices: a flow short of their total count is a proof."""
    flow, needed, stuck = _flow(state, chosen, only)
    if flow >= needed:
        return None
    wanted = sum(a.count for a in stuck)
    return Proof(
        "devices",
        requests=[_name(state, a) for a in stuck],
        needed=wanted,
        available=wanted - (needed - flow),
    )


def _flow(state: Any, chosen: list[Any], only: dict[int, set[int]]) -> tuple[int, int, list[Any]]:
    """(flow, total count, the requests a short flow leaves unserved) of the non-admin requests into
    their candidates; `only`: alternative order -> the positions it is restricted to."""
    demand: list[tuple[Any, list[int]]] = []
    for alt in chosen:
        if alt.spec.admin_access or alt.count <= 0:
            continue
        positions = _candidates(alt)
        allowed = only.get(alt.order)
        if allowed is not None:
            positions = [p for p in positions if p in allowed]
        demand.append((alt, positions))
    if not demand:
        return 0, 0, []
    # devices that every request sees alike are one node of the flow, with their number as capacity
    member_of: dict[int, list[int]] = {}
    for i, (_, positions) in enumerate(demand):
        for p in positions:
            member_of.setdefault(p, []).append(i)
    groups: dict[tuple, int] = {}
    for p, members in member_of.items():
        key = (tuple(members), bool(state.shared[p]))
        groups[key] = groups.get(key, 0) + 1
    flow, reached, _ = _max_flow(
        [alt.count for alt, _ in demand],
        [(n, UNLIMITED if shared else n, set(members)) for (members, shared), n in groups.items()],
    )
    return flow, sum(alt.count for alt, _ in demand), [demand[i][0] for i in sorted(reached)]


def _max_flow(demands: list[int], groups: list[tuple[int, int, set[int]]]) -> tuple[int, set[int], set[int]]:
    """source -> request i (demands[i]) -> group g (its size, when the request may use it) -> sink
    (the group's capacity). Returns the flow and, from the residual graph, the requests and groups
    still reachable from the source: the requests that cannot all be served (Hall's violator)."""
    n_req, n_grp = len(demands), len(groups)
    source, sink = n_req + n_grp, n_req + n_grp + 1
    size = sink + 1
    cap: list[dict[int, int]] = [dict() for _ in range(size)]

    def edge(u: int, v: int, c: int) -> None:
        cap[u][v] = cap[u].get(v, 0) + c
        cap[v].setdefault(u, 0)

    for i, d in enumerate(demands):
        edge(source, i, d)
    for g, (per_request, capacity, members) in enumerate(groups):
        for i in members:
            edge(i, n_req + g, per_request)
        edge(n_req + g, sink, capacity)
    flow = 0
    while True:
        parent = {source: source}
        queue = deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, c in cap[u].items():
                if c > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            break
        push = UNLIMITED
        v = sink
        while v != source:
            u = parent[v]
            push = min(push, cap[u][v])
            v = u
        v = sink
        while v != source:
            u = parent[v]
            cap[u][v] -= push
            cap[v][u] += push
            v = u
        flow += push
    reached = set(parent)
    return flow, {i for i in range(n_req) if i in reached}, {g for g in range(n_grp) if n_req + g in reached}


# ------------------------------------------------------------------ distinct: requests into values


def _distinct(state: Any, c: DistinctAttribute, covered: list[Any]) -> Proof | None:
    if len({a.base for a in covered}) != len(covered):
        return None  # two requests of one name (refused by the API): the allocator's memory differs
    values_of: list[set[tuple]] = []
    for alt in covered:
        with_value = []
        for pos in _candidates(alt):
            v = lookup_attribute(state.devices[pos], c.attribute)
            if v is not None:
                with_value.append(typed(v))
        if len(with_value) < alt.count:  # every pick needs the attribute
            return Proof(
                "distinct",
                requests=[_name(state, alt)],
                needed=alt.count,
                available=len(with_value),
                attribute=c.attribute,
            )
        values_of.append(set(with_value))
    flow, reach_requests, _ = _max_flow(
        [1] * len(covered),
        [
            (1, 1, {i for i, vs in enumerate(values_of) if v in vs})
            for v in sorted(set().union(*values_of), key=repr)
        ],
    )
    if flow >= len(covered):
        return None
    stuck = sorted(reach_requests)
    seen = set().union(*(values_of[i] for i in stuck))
    return Proof(
        "distinct",
        requests=[_name(state, covered[i]) for i in stuck],
        needed=len(stuck),
        available=len(seen),
        attribute=c.attribute,
    )


# ------------------------------------------------------------------ match: one value for all


def _match(state: Any, chosen: list[Any], c: MatchAttribute, covered: list[Any]) -> Proof | None:
    by_value: dict[tuple, set[int]] = {}
    texts: dict[tuple, str] = {}
    for alt in covered:
        for pos in _candidates(alt):
            v = lookup_attribute(state.devices[pos], c.attribute)
            if v is not None:
                key = typed(v)
                by_value.setdefault(key, set()).add(pos)
                texts[key] = _text(v)
    given: dict[str, int] = {}
    needed = sum(a.count for a in chosen if not a.spec.admin_access and a.count > 0)
    for key, positions in by_value.items():
        flow, _, _ = _flow(state, chosen, {a.order: positions for a in covered})
        # an adminAccess request is outside the flow: it needs its own devices with the value
        short = any(sum(1 for p in _candidates(a) if p in positions) < a.count for a in covered)
        if flow >= needed and not short:
            return None  # this value may hold the claim
        given[texts[key]] = flow
    return Proof(
        "match",
        requests=[_name(state, a) for a in covered],
        needed=needed,
        available=max(given.values(), default=0),
        attribute=c.attribute,
        values=given,
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = getattr(value, "text", None)
    return text if isinstance(text, str) else str(value)
