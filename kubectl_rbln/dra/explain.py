"""Why the allocator found no solution on a node: the plugin's value-add.

The real allocator only reports `cannot allocate all claims` (dra-facts.md §1.2,
§6); here every request is re-checked against every device of the node to say
which selector, constraint, or other claim is in the way. Works on the state of
one `allocator._Allocation`, duck-typed: the allocator calls this module, so this
module never imports the allocator (the stage numbers both read are dra/stages.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, Said, say
from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.constraints import lookup_attribute, typed
from kubectl_rbln.dra.model import Device, Version
from kubectl_rbln.dra.proofs import Proof
from kubectl_rbln.dra.quantity import format_quantity
from kubectl_rbln.dra.references import cached_references as find_references
from kubectl_rbln.dra.references import split_conjuncts
from kubectl_rbln.dra.stages import STAGE_BINDING, STAGE_CLASS, STAGE_ERROR, STAGE_OK, STAGE_REQUEST

MISSING_TEXT = "<missing>"


@dataclass(slots=True)
class CandidateCounts:
    """How many devices of the node survive each filter, for one request (or subrequest)."""

    claim: str
    request: str  # "req" or "req/sub"
    device_class: str
    drivers: list[str]  # drivers the class selects (from `device.driver == "..."`), [] if unknown
    needed: int  # count, or for `All` the number of matching devices (at least 1 from 1.33)
    on_node: int = 0  # devices of the class's drivers in the node's pools
    class_match: int = 0
    request_match: int = 0
    free: int = 0  # matching and not allocated to another claim (pool usable)
    usable: int = 0  # free and not blocked by an untolerated taint
    errors: int = 0  # devices on which a selector fails with a CEL error

    @property
    def summary(self) -> str:
        driver = "/".join(self.drivers) or "any driver"
        return (
            f"{self.request}: {self.on_node} {driver} devices, {self.class_match} match class "
            f"{self.device_class}, {self.request_match} match the request, {self.free} free, "
            f"{self.needed} needed"
        )

    @property
    def phrase(self) -> Phrase:
        """`summary` in any language."""
        driver: Phrase | str = "/".join(self.drivers) or Phrase("any-driver")
        values = {
            "request": self.request,
            "on": self.on_node,
            "driver": driver,
            "class_match": self.class_match,
        }
        more = {
            "class": self.device_class,
            "match": self.request_match,
            "free": self.free,
            "needed": self.needed,
        }
        return Phrase("candidate-counts", {**values, **more})


@dataclass(slots=True)
class SelectorExclusion:
    owner: str  # "class <name>" or "request <name>"
    index: int  # selector index
    expression: str
    conjunct: str | None  # the `&&` term that excludes, when the selector is a conjunction
    excluded: int  # devices it excludes first
    values: dict[str, dict[str, int]] = field(default_factory=dict)  # attribute -> value text -> devices
    error: str | None = None  # a CEL runtime error seen on these devices

    @property
    def summary(self) -> str:
        term = f"`{self.conjunct}` of " if self.conjunct else ""
        seen = "; ".join(f"{attr} values {dict(vals)}" for attr, vals in self.values.items())
        text = f"{self.excluded} excluded by {term}{self.owner} selector #{self.index}"
        return f"{text} ({seen})" if seen else text

    @property
    def phrase(self) -> Phrase:
        """`summary` in any language."""
        kind, _, name = self.owner.partition(" ")
        owner = Phrase(f"sim-owner-{kind}", {"name": name}) if kind in ("class", "request") else self.owner
        values = {"count": self.excluded, "conjunct": self.conjunct, "owner": owner, "index": self.index}
        head = Phrase("sim-excluded-conjunct" if self.conjunct else "sim-excluded", values)
        if not self.values:
            return head
        seen = [Phrase("sim-values", {"attr": a, "values": str(dict(v))}) for a, v in self.values.items()]
        return Phrase(
            "", parts=(head, Phrase("sim-seen", {"seen": Phrase("", parts=tuple(seen), sep="; ")})), sep=" "
        )


@dataclass(slots=True)
class ConstraintGroup:
    value: str  # attribute value text
    counts: dict[str, int]  # request -> usable candidates with this value
    needed: dict[str, int]
    devices: dict[str, list[str]] = field(default_factory=dict)

    @property
    def viable(self) -> bool:
        return all(self.counts.get(r, 0) >= n for r, n in self.needed.items())


@dataclass(slots=True)
class Failure:
    kind: str  # no-devices | selector | exhausted | tainted | counters | capacity | constraint
    #            | incomplete-pool | invalid-pool | search-capped | no-solution | proven-impossible
    summary: str
    claim: str = ""
    request: str = ""
    scheduler_message: str = "cannot allocate all claims"  # what the node's status says
    details: list[str] = field(default_factory=list)
    exclusions: list[SelectorExclusion] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)  # devices held by other claims (exhausted)
    constraint_index: int | None = None
    constraint_kind: str | None = None  # "matchAttribute" | "distinctAttribute"
    attribute: str | None = None
    groups: list[ConstraintGroup] = field(default_factory=list)
    lacking: list[str] = field(default_factory=list)  # candidates without the attribute
    # kind "counters": the shared counter that ran out (dra/counters.py); holders are then the
    # allocated devices that consume it
    counter_set: str | None = None
    counter: str | None = None
    counter_needed: str | None = None
    counter_left: str | None = None
    # kind "capacity" (DRAConsumableCapacity, dra/capacity.py): the device and capacity that ran out, or
    # the one the request names but the device lacks / its requestPolicy refuses (capacity_reason);
    # holders are then the allocated claims consuming the device
    capacity_device: str | None = None
    capacity: str | None = None
    capacity_needed: str | None = None
    capacity_left: str | None = None
    capacity_reason: str | None = None  # capacity | policy | missing
    phrase: Phrase | None = None  # `summary` in any language, where the catalog has its words
    proof: Proof | None = None  # a counting proof that the node cannot hold the claims (dra/proofs.py)

    def say(self, phrase: Phrase) -> None:
        """Set the summary from a catalog phrase: English here, the reader's language in a table."""
        self.phrase = phrase
        self.summary = say(phrase, "en")


def value_text(value: Any) -> str:
    if value is None:
        return MISSING_TEXT
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Version):
        return value.text
    return str(value)


def _drivers(cls: Any) -> list[str]:
    out: list[str] = []
    for expr in cls.selectors:
        for d in sorted(find_references(expr).driver_compared):
            if d not in out:
                out.append(d)
    return out


def _passes(exprs: list[str], device: Device, consumable: bool) -> tuple[int | None, str | None]:
    """Index of the first selector that rejects (or errors on) the device; (None, None) if all pass."""
    for i, expr in enumerate(exprs):
        try:
            if not compile_selector(expr, consumable_capacity=consumable).matches(device):
                return i, None
        except CelError as err:
            return i, str(err)
    return None, None


def candidate_counts(state: Any) -> dict[tuple[str, str], CandidateCounts]:
    """Counts from the stages the allocator recorded per device (no selector is evaluated again)."""
    f = state.features
    out: dict[tuple[str, str], CandidateCounts] = {}
    for per_claim in state.alts:
        for alts in per_claim:
            for alt in alts:
                claim = state.claims[alt.claim].key
                drivers = _drivers(alt.device_class)
                needed = alt.count if alt.all_devices is None else max(alt.count, 1 if f.version >= 33 else 0)
                c = CandidateCounts(claim, alt.name, alt.device_class.name, drivers, needed)
                admin = alt.spec.admin_access
                for pos, stage in enumerate(alt.stage):
                    if drivers and state.devices[pos].driver not in drivers:
                        continue
                    c.on_node += 1
                    if stage == STAGE_ERROR:
                        c.errors += 1
                        continue
                    if stage == STAGE_CLASS:
                        continue
                    c.class_match += 1
                    if stage in (STAGE_REQUEST, STAGE_BINDING):
                        continue
                    c.request_match += 1
                    if (state.is_allocated[pos] and not admin) or not state._pool_usable(pos):
                        continue
                    c.free += 1
                    c.usable += stage == STAGE_OK
                out[(claim, alt.name)] = c
    return out


def _exclusions(
    state: Any, alt: Any, counts: CandidateCounts, *, free_only: bool = False
) -> list[SelectorExclusion]:
    """For each device of the class's drivers (`free_only`: that no other claim holds): the first
    selector (and conjunct) that drops it."""
    consumable = state.features.consumable_capacity
    groups: dict[tuple[str, int, str | None], SelectorExclusion] = {}
    for pos, device in enumerate(state.devices):
        if counts.drivers and device.driver not in counts.drivers:
            continue
        if free_only and state.is_allocated[pos]:
            continue
        for owner, exprs in (
            (f"class {alt.device_class.name}", alt.device_class.selectors),
            (f"request {alt.name}", alt.spec.selectors),
        ):
            bad, err = _passes(exprs, device, consumable)
            if bad is None:
                continue
            expr = exprs[bad]
            conjunct = _failing_conjunct(expr, device, consumable)
            key = (owner, bad, conjunct)
            ex = groups.get(key)
            if ex is None:
                ex = groups[key] = SelectorExclusion(owner, bad, expr, conjunct, 0, error=err)
            ex.excluded += 1
            refs = find_references(conjunct or expr)
            for name in sorted(refs.attributes):
                value = value_text(device.attributes.get(name))
                ex.values.setdefault(name, Counter())[value] += 1
            for name in sorted(refs.capacities):
                ex.values.setdefault(name, Counter())[device.capacity.get(name, MISSING_TEXT)] += 1
            break
    out = sorted(groups.values(), key=lambda e: -e.excluded)
    for ex in out:
        ex.values = {k: dict(v) for k, v in ex.values.items()}
    return out


def _failing_conjunct(expr: str, device: Device, consumable: bool) -> str | None:
    parts = split_conjuncts(expr)
    if len(parts) < 2:
        return None
    for part in parts:
        try:
            if not compile_selector(part, consumable_capacity=consumable).matches(device):
                return part
        except CelError:
            return part
    return None


def _usable_positions(state: Any, alt: Any) -> list[int]:
    return alt.free


def explain_failure(
    state: Any, counts: dict[tuple[str, str], CandidateCounts], *, capped: bool, proof: Proof | None = None
) -> Failure:
    """Why the node failed. With a counting proof (dra/proofs.py) the failure carries it; when no
    single request, counter or constraint explains the failure, the proof is the explanation
    (kind `proven-impossible`, with its counts): the requests then compete for devices nobody holds,
    which `exhausted` (devices held by other claims) would misname."""
    f = state.features
    sched = "cannot allocate all claims"
    if f.version >= 35 and any(p.invalid_reason for p in state.pools):
        sched = "invalid resource pools were encountered"
    failure = _explain(state, counts, capped=capped, sched=sched)
    if proof is None:
        return failure
    # nothing more specific than "no combination" (or requests competing for devices nobody holds)
    if failure.kind == "no-solution" or (failure.kind == "exhausted" and not failure.holders):
        failure = proven_failure(proof)
        failure.scheduler_message = sched
    failure.proof = proof
    return failure


def proven_failure(proof: Proof) -> Failure:
    """The proof in words: how many requests need how many devices or values, and what there is."""
    names = ", ".join(proof.requests)
    values: dict[str, Any] = {
        "count": len(proof.requests),
        "requests": names,
        "needed": proof.needed,
        "available": proof.available,
        "attribute": proof.attribute or "",
        "claim": proof.claim,
    }
    if proof.kind == "match":
        values["values"] = "; ".join(
            f"{proof.attribute}={v}: {n}" for v, n in proof.values.items()
        ) or Phrase("sim-no-candidate-has-it")
    phrase = Phrase(f"sim-proven-{proof.kind}", values)
    if proof.combinations > 1:
        phrase = Phrase(
            "", parts=(phrase, Phrase("sim-proven-every-choice", {"choices": proof.combinations}))
        )
    failure = Failure(
        "proven-impossible",
        "",
        claim=proof.claim,
        request=names,
        attribute=proof.attribute,
        constraint_index=proof.constraint_index,
        constraint_kind={"distinct": "distinctAttribute", "match": "matchAttribute"}.get(proof.kind),
    )
    failure.say(phrase)
    return failure


def _explain(
    state: Any, counts: dict[tuple[str, str], CandidateCounts], *, capped: bool, sched: str
) -> Failure:
    f = state.features
    if capped:
        gave_up = Failure(
            "search-capped",
            f"gave up after {state.steps} search steps without a solution; "
            "Kubernetes 1.34+ stops at its filter timeout (10 s by default) with "
            "`timed out trying to allocate devices`, 1.32/1.33 keep searching",
        )
        if f.version >= 34:
            gave_up.scheduler_message = "timed out trying to allocate devices"
        return gave_up
    for per_claim in state.alts:
        for alts in per_claim:
            failure = _request_failure(state, alts, counts)
            if failure is not None:
                failure.scheduler_message = sched
                return failure
    failure = _counter_failure(state, together=False) or _capacity_failure(state, together=False)
    if failure is not None:
        failure.scheduler_message = sched
        return failure
    for ci in range(len(state.claims)):
        for index in range(len(state.constraints[ci])):
            failure = _constraint_failure(state, ci, index)
            if failure is not None:
                failure.scheduler_message = sched
                return failure
    failure = (
        _counter_failure(state, together=True)
        or _capacity_failure(state, together=True)
        or _competition(state, counts)
        or Failure(
            "no-solution",
            "each request can be met alone, but no combination satisfies all requests and constraints",
        )
    )
    failure.scheduler_message = sched
    return failure


def _request_failure(
    state: Any, alts: list[Any], counts: dict[tuple[str, str], CandidateCounts]
) -> Failure | None:
    """A request none of whose alternatives has enough usable devices even on its own."""
    f = state.features
    verdicts = []
    for alt in alts:
        c = counts[(state.claims[alt.claim].key, alt.name)]
        if alt.all_devices is not None:
            ok = (c.request_match >= 1 or f.version < 33) and c.usable == c.request_match
        else:
            ok = c.usable >= c.needed
        if ok:
            return None
        verdicts.append((alt, c))
    alt, c = verdicts[0]
    claim = state.claims[alt.claim].key
    base = Failure("", "", claim=claim, request=alt.name, details=[Said(v[1].phrase) for v in verdicts])
    drivers = "/".join(c.drivers) or "any driver"
    if c.on_node == 0:
        incomplete = [
            p.id for p in state.pools if p.driver in c.drivers and (p.incomplete or p.invalid_reason)
        ]
        base.kind = "no-devices"
        where = {"request": alt.name, "claim": claim}
        phrase = Phrase("sim-no-device", {**where, "drivers": drivers})
        if incomplete:
            base.kind = "incomplete-pool"
            pools_note = Phrase("sim-pools-skipped", {"pools": ", ".join(incomplete)})
            phrase = Phrase("", parts=(phrase, pools_note), sep=" ")
        base.say(phrase)
        return base
    if c.request_match < c.needed:
        base.kind = "selector"
        base.exclusions = _exclusions(state, alt, c)
        values = {"request": alt.name, "claim": claim, "match": c.request_match, "on": c.on_node}
        phrase = Phrase("sim-selector", {**values, "drivers": drivers, "needed": c.needed})
        if base.exclusions:
            phrase = Phrase(
                "", parts=(phrase, Phrase("sim-then", {"text": base.exclusions[0].phrase})), sep=""
            )
        base.say(phrase)
        return base
    if c.free < c.needed:
        held = [state.devices[p].id for p, o in enumerate(alt.outcome) if o == 1 and state.is_allocated[p]]
        skipped = [
            state.pools[state.pool_of[p]].id
            for p, o in enumerate(alt.outcome)
            if o == 1 and not state._pool_usable(p)
        ]
        if skipped and c.free + len(skipped) >= c.needed:
            base.kind = "incomplete-pool"
            pools = ", ".join(sorted(set(skipped)))
            values = {"request": alt.name, "claim": claim, "pools": pools, "free": c.free}
            base.say(Phrase("sim-incomplete-pools", {**values, "needed": c.needed}))
            return base
        base.kind = "exhausted"
        base.holders = held
        # free devices a selector drops (say, NICs back with rdma=false): "free, but ...", issue 12 4d
        base.exclusions = _exclusions(state, alt, c, free_only=True)
        values = {"request": alt.name, "claim": claim, "match": c.request_match, "held": len(held)}
        base.say(Phrase("sim-exhausted", {**values, "free": c.free, "needed": c.needed}))
        return base
    base.kind = "tainted"
    values = {"request": alt.name, "claim": claim, "free": c.free, "usable": c.usable}
    base.say(Phrase("sim-tainted", {**values, "needed": c.needed}))
    return base


def _counter_failure(state: Any, *, together: bool) -> Failure | None:
    """Shared counters of partitionable devices (dra/counters.py). Alone: a request none of whose
    alternatives has enough usable devices whose counters fit beside the allocated devices (or, with
    DRAPartitionableDevices off, that do not consume counters at all). Together: the requests' cheapest
    picks want more of one counter than is left."""
    f = state.features
    tracker = getattr(state, "counters", None)
    gate_off = not f.partitionable and f.version >= 34
    if tracker is None and not gate_off:
        return None
    if not together:
        for per_claim in state.alts:
            for alts in per_claim:
                failure = _counters_alone(state, alts, tracker, gate_off)
                if failure is not None:
                    return failure
        return None
    if tracker is None:
        return None
    demand: dict[tuple, Any] = {}  # (scope, key) -> [wanted, names]
    for per_claim in state.alts:
        for alts in per_claim:
            alt = alts[0]
            fit = [
                p for p in alt.free if alt.stage[p] == STAGE_OK and tracker.shortfall(p, alone=True) is None
            ]
            scopes = {tracker.scope_of[p] for p in fit}
            if len(scopes) != 1 or None in scopes:
                continue  # devices outside counters, or several pools: no single counter to blame
            (scope,) = scopes
            for key in tracker.total[scope]:
                cheapest = min(tracker.use[p].get(key, 0) for p in fit)
                entry = demand.setdefault((scope, key), [0, []])
                entry[0] += cheapest * alt.count
                entry[1].append(f"{state.claims[alt.claim].key}/{alt.name}")
    for (scope, key), (wanted, names) in demand.items():
        left = tracker.left[scope][key]
        if len(names) > 1 and wanted > left:
            return _counters(
                Failure(
                    "counters",
                    f"requests {', '.join(names)} each fit alone, but together need at least "
                    f"{format_quantity(wanted)} of counter {key[1]} (counter set {key[0]}, "
                    f"{tracker.names[scope]}), {format_quantity(max(left, 0))} left",
                    request=", ".join(names),
                ),
                key,
                wanted,
                left,
                tracker.consumers[scope].get(key, []),
            )
    return None


def _counters(failure: Failure, key: tuple[str, str], needed: Any, left: Any, holders: list[str]) -> Failure:
    failure.counter_set, failure.counter = key
    failure.counter_needed = format_quantity(needed)
    failure.counter_left = format_quantity(max(left, 0))
    failure.holders = list(holders)
    return failure


def _counters_alone(state: Any, alts: list[Any], tracker: Any, gate_off: bool) -> Failure | None:
    verdicts = []
    for alt in alts:
        usable = [p for p in alt.free if alt.stage[p] == STAGE_OK]
        blocked: dict[int, Any]
        if gate_off:
            blocked = {p: None for p in usable if state.devices[p].consumes_counters}
        else:
            blocked = {p: s for p in usable if (s := tracker.shortfall(p, alone=True)) is not None}
        if alt.all_devices is not None:
            ok = not any(p in blocked for p in alt.all_devices)
        else:
            ok = len(usable) - len(blocked) >= alt.count
        if ok or not blocked:
            return None
        verdicts.append((alt, usable, blocked))
    alt, usable, blocked = verdicts[0]
    claim = state.claims[alt.claim].key
    fit = len(usable) - len(blocked)
    base = Failure("counters", "", claim=claim, request=alt.name)
    if gate_off:
        values = {"request": alt.name, "claim": claim, "blocked": len(blocked), "usable": len(usable)}
        base.say(Phrase("sim-counters-gate-off", {**values, "fit": fit, "needed": alt.count}))
        return base
    shortfalls = list(blocked.values())
    first = shortfalls[0]
    values = {"request": alt.name, "claim": claim, "blocked": len(blocked), "usable": len(usable)}
    head = Phrase("sim-counters-alone", {**values, "fit": fit, "needed": alt.count})
    base.say(Phrase("", parts=(head, Phrase("sim-then", {"text": first.phrase})), sep=""))
    base.details = _said_sorted(s.phrase for s in shortfalls)
    return _counters(base, (first.counter_set, first.counter), first.needed, first.left, first.consumers)


def _capacity_failure(state: Any, *, together: bool) -> Failure | None:
    """Consumable capacity (DRAConsumableCapacity, dra/capacity.py). Alone: a request none of whose
    alternatives has enough usable devices with its capacity left beside the allocated claims' shares
    (or whose requestPolicy allows the value, or which have the capacity at all). Together: requests
    that each fit only one shared device want more of its capacity than is left."""
    tracker = getattr(state, "capacity", None)
    if tracker is None:
        return None
    if together:
        return _capacity_together(state, tracker)
    for per_claim in state.alts:
        for alts in per_claim:
            verdicts = []
            for alt in alts:
                if alt.all_devices is not None:
                    break  # `All` already leaves out the devices that do not fit
                usable = [p for p in alt.free if alt.stage[p] == STAGE_OK]
                blocked = {}
                for p in usable:
                    demand, why = tracker.demand(alt.spec, p)
                    short = why if demand is None else tracker.shortfall(p, demand, alone=True)
                    if short is not None:
                        blocked[p] = short
                if len(usable) - len(blocked) >= alt.count or not blocked:
                    break
                verdicts.append((alt, usable, blocked))
            else:
                if verdicts:
                    return _capacity_alone(state, *verdicts[0])
    return None


def _capacity_alone(state: Any, alt: Any, usable: list[int], blocked: dict[int, Any]) -> Failure:
    claim = state.claims[alt.claim].key
    shorts = list(blocked.values())
    first = next((s for s in shorts if s.reason == "capacity"), shorts[0])
    fit = len(usable) - len(blocked)
    values = {"request": alt.name, "claim": claim, "blocked": len(blocked), "usable": len(usable)}
    head = Phrase("sim-capacity-alone", {**values, "fit": fit, "needed": alt.count})
    phrase = Phrase("", parts=(head, Phrase("sim-then", {"text": first.phrase})), sep="")
    base = Failure(
        "capacity",
        say(phrase, "en"),
        phrase=phrase,
        claim=claim,
        request=alt.name,
        details=_said_sorted(s.phrase for s in shorts),
    )
    return _capacity(base, first)


def _said_sorted(phrases: Any) -> list[str]:
    """Detail lines, one per distinct text, sorted by their English; said in the reader's language."""
    unique = {say(p, "en"): p for p in phrases}
    return [Said(unique[text]) for text in sorted(unique)]


def _capacity(failure: Failure, short: Any) -> Failure:
    failure.capacity_device = short.device
    failure.capacity = short.capacity
    failure.capacity_needed = format_quantity(short.needed)
    failure.capacity_left = format_quantity(max(short.left, 0))
    failure.capacity_reason = short.reason
    failure.holders = list(short.claims)
    return failure


def _capacity_together(state: Any, tracker: Any) -> Failure | None:
    wanted: dict[int, list[tuple[Any, dict]]] = {}  # shared device -> (request, demand) it alone fits
    for per_claim in state.alts:
        for alts in per_claim:
            alt = alts[0]
            if alt.all_devices is not None or alt.count != 1:
                continue
            fit = {}
            for p in alt.free:
                if alt.stage[p] != STAGE_OK:
                    continue
                demand, _ = tracker.demand(alt.spec, p)
                if demand is not None and tracker.shortfall(p, demand, alone=True) is None:
                    fit[p] = demand
            if len(fit) == 1:
                ((p, demand),) = fit.items()
                if state.devices[p].allow_multiple_allocations:
                    wanted.setdefault(p, []).append((alt, demand))
    for p, entries in wanted.items():
        if len(entries) < 2:
            continue
        total: dict[str, Any] = {}
        for _, demand in entries:
            for name, value in demand.items():
                total[name] = total.get(name, 0) + value
        short = tracker.shortfall(p, total, alone=True)
        if short is None:
            continue
        names = [f"{state.claims[a.claim].key}/{a.name}" for a, _ in entries]
        failure = Failure("capacity", "", request=", ".join(names))
        failure.say(
            Phrase(
                "sim-capacity-together",
                {
                    "requests": ", ".join(names),
                    "device": short.device,
                    "needed": format_quantity(short.needed),
                    "capacity": short.capacity.rsplit("/", 1)[-1],
                    "left": format_quantity(max(short.left, 0)),
                },
            )
        )
        return _capacity(failure, short)
    return None


def _covered(state: Any, ci: int, requests: list[str]) -> list[Any]:
    """The first alternative of each request a constraint covers."""
    out = []
    for alts in state.alts[ci]:
        for alt in alts:
            if not requests or alt.base in requests or (alt.sub and alt.name in requests):
                out.append(alt)
                break
    return out


def _constraint_failure(state: Any, ci: int, index: int) -> Failure | None:
    from kubectl_rbln.dra.constraints import MatchAttribute

    c = state.constraints[ci][index]
    alts = _covered(state, ci, c.requests)
    if not alts:
        return None
    claim = state.claims[ci].key
    kind = "matchAttribute" if isinstance(c, MatchAttribute) else "distinctAttribute"
    needed = {a.name: a.count for a in alts}
    groups: dict[str, ConstraintGroup] = {}
    members: dict[str, list[int]] = {}  # value -> device positions
    lacking: list[str] = []
    for alt in alts:
        for pos in _usable_positions(state, alt):
            device = state.devices[pos]
            value = lookup_attribute(device, c.attribute)
            if value is None:
                if device.id not in lacking:
                    lacking.append(device.id)
                continue
            text = value_text(value)
            g = groups.setdefault(text, ConstraintGroup(text, {}, needed))
            g.counts[alt.name] = g.counts.get(alt.name, 0) + 1
            g.devices.setdefault(alt.name, []).append(device.name)
            members.setdefault(text, []).append(pos)
    over = ", ".join(c.requests) if c.requests else "all requests"
    failure = Failure(
        "constraint",
        "",
        claim=claim,
        request=", ".join(needed),
        constraint_index=index,
        constraint_kind=kind,
        attribute=c.attribute,
        groups=list(groups.values()),
        lacking=lacking,
    )
    need_text = ", ".join(f"{n} {r}" for r, n in needed.items())
    per_value: Phrase | str = "; ".join(
        f"{c.attribute}={g.value}: " + ", ".join(f"{g.counts.get(r, 0)} {r}" for r in needed)
        for g in groups.values()
    ) or Phrase("sim-no-candidate-has-it")
    where = {"claim": claim, "index": index, "attribute": c.attribute, "over": over, "values": per_value}
    if kind == "matchAttribute":
        if any(g.viable for g in groups.values()):
            return _distinct_within_groups(state, ci, failure, groups, members)
        phrase = Phrase("sim-match-no-value", {**where, "needed": need_text})
    else:
        total = sum(needed.values())
        if len(groups) >= total and all(
            sum(1 for g in groups.values() if g.counts.get(r, 0)) >= n for r, n in needed.items()
        ):
            return None
        phrase = Phrase("sim-distinct-too-few", {**where, "distinct": len(groups), "total": total})
    if lacking:
        lack = Phrase("sim-candidates-lack", {"count": len(lacking), "attribute": c.attribute})
        phrase = Phrase("", parts=(phrase, lack), sep="")
    failure.say(phrase)
    return failure


def _distinct_within_groups(
    state: Any, ci: int, failure: Failure, groups: dict[str, ConstraintGroup], members: dict[str, list[int]]
) -> Failure | None:
    """matchAttribute groups that have the counts but break a distinctAttribute inside the group."""
    from kubectl_rbln.dra.constraints import DistinctAttribute

    viable = [g for g in groups.values() if g.viable]
    for j, other in enumerate(state.constraints[ci]):
        if not isinstance(other, DistinctAttribute):
            continue
        ok = False
        notes = []
        for g in viable:
            covered = _covered(state, ci, other.requests)
            usable = {p for alt in covered for p in _usable_positions(state, alt)}
            distinct = set()
            for pos in members.get(g.value, []):
                v = lookup_attribute(state.devices[pos], other.attribute)
                if pos in usable and v is not None:
                    distinct.add(typed(v))
            need = sum(a.count for a in _covered(state, ci, other.requests))
            notes.append(
                Phrase(
                    "sim-group-distinct",
                    {
                        "group": f"{failure.attribute}={g.value}",
                        "distinct": len(distinct),
                        "attribute": other.attribute,
                        "needed": need,
                    },
                )
            )
            ok = ok or len(distinct) >= need
        if not ok:
            values = {
                "claim": failure.claim,
                "attribute": failure.attribute,
                "other": other.attribute,
                "index": j,
            }
            failure.say(
                Phrase("sim-groups-share", {**values, "notes": Phrase("", parts=tuple(notes), sep="; ")})
            )
            failure.constraint_index = j
            failure.constraint_kind = "distinctAttribute"
            failure.attribute = other.attribute  # the constraint that fails; groups stay per match value
            failure.details = [say(note, "en") for note in notes]
            return failure
    return None


def _competition(state: Any, counts: dict[tuple[str, str], CandidateCounts]) -> Failure | None:
    """Requests that each fit alone but together want more devices than the node has free."""
    demand: dict[frozenset[int], list[Any]] = {}
    for per_claim in state.alts:
        for alts in per_claim:
            alt = alts[0]
            demand.setdefault(frozenset(_usable_positions(state, alt)), []).append(alt)
    pool_union: set[int] = set()
    wanted = 0
    names = []
    for positions, alts in demand.items():
        pool_union |= positions
        wanted += sum(a.count for a in alts)
        names += [f"{state.claims[a.claim].key}/{a.name}" for a in alts]
    if wanted > len(pool_union) and len(names) > 1:
        failure = Failure("exhausted", "")
        failure.say(
            Phrase("sim-competition", {"names": ", ".join(names), "wanted": wanted, "free": len(pool_union)})
        )
        return failure
    return None
