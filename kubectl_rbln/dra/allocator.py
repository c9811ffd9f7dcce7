"""Offline simulation of the structured DRA allocator for one node (dra-facts.md §2).

Follows k8s.io/dynamic-resource-allocation `structured/internal/*/allocator_*.go`:
pools (§2.3) -> per-request preparation with the upstream error texts (§2.4) ->
depth-first search over claims, requests, device slots, candidates in pool x
slice x device order, with backtracking; the first complete solution wins (§2.5).
Shared counters of partitionable devices are taken and given back with each pick (dra/counters.py).
Consumable capacity (DRAConsumableCapacity, dra/capacity.py): with the gate on every pick is checked
against each device capacity left, a shared device (`allowMultipleAllocations`) serves several requests
and claims while its capacity lasts, and backtracking gives the capacity back; with the gate off shared
devices are exclusive and capacity requests are ignored or refused as the running variant does.

Speed-ups that keep the first solution identical:
- within one request only increasing candidate positions are tried
  (combinations, as upstream master's `startLocation` does);
- a candidate whose subtree failed makes later *interchangeable* candidates
  (same free/pool state, same candidacy for every later request, same values
  for every constraint that can see it) fail without search;
- failures are memoized at request boundaries by (constraint states, devices
  in use that later requests could pick);
- when no CEL error or invalid pool could surface, requests with too few
  candidates, or matchAttribute constraints no value group can satisfy, fail
  before any search; so do claims a counting proof rules out (dra/proofs.py: Hall's
  condition over devices, distinct values, one matchAttribute value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.dra.budget import CEL_WORK, WorkBudget
from kubectl_rbln.dra.capacity import CapacityTracker, InUse
from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.constraints import Constraint, DistinctAttribute, MatchAttribute, blocking_taints, typed
from kubectl_rbln.dra.constraints import lookup_attribute as _lookup
from kubectl_rbln.dra.counters import CounterTracker
from kubectl_rbln.dra.explain import CandidateCounts, Failure, candidate_counts, explain_failure
from kubectl_rbln.dra.gates import gate_defaults
from kubectl_rbln.dra.model import (
    AllocationResult,
    ClaimSpec,
    Device,
    DeviceClass,
    ExactRequest,
    Node,
    ResourceSlice,
)
from kubectl_rbln.dra.node_memo import NodeMemo
from kubectl_rbln.dra.pools import Pool, PoolError, gather_pools, slice_totals
from kubectl_rbln.dra.proofs import Proof, prove_impossible
from kubectl_rbln.dra.quantity import format_quantity
from kubectl_rbln.dra.stages import (
    CANDIDATE,
    ERROR,
    NOT_CANDIDATE,
    OUTCOME,
    STAGE_BINDING,
    STAGE_CLASS,
    STAGE_ERROR,
    STAGE_OK,
    STAGE_REQUEST,
    STAGE_TAINT,
)

MAX_RESULTS = 32  # resourceapi.AllocationResultsMaxSize


@dataclass(frozen=True, slots=True)
class Features:
    """Scheduler-side feature gates that change allocation (dra-facts.md §5). Defaults: Kubernetes 1.34."""

    version: int = 34  # Kubernetes minor version, 32..37 (dra/gates.py); 1.36 and 1.37 take the 1.35 paths
    prioritized_list: bool = True
    admin_access: bool = True
    consumable_capacity: bool = False
    device_taints: bool = False
    # DRADeviceTaintRules (beta, off by default in 1.36): DeviceTaintRule taints join the slices'
    # (the scheduler lists slices through the tracker with EnableDeviceTaintRules, tracker.go v0.36.2)
    device_taint_rules: bool = False
    partitionable: bool = False
    binding_conditions: bool = False
    extended_resource: bool = False  # DRAExtendedResource: reported, not read by the allocator

    @classmethod
    def defaults(cls, version: int) -> Features:
        """The default gates of a Kubernetes 1.<version> scheduler (dra/gates.py, with sources)."""
        return cls(version=version, **gate_defaults(version))


@dataclass(slots=True)
class ClaimToAllocate:
    namespace: str
    name: str
    spec: ClaimSpec

    @property
    def key(self) -> str:
        """klog.KObj formatting: "ns/name", or just the name without a namespace."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


class AllocatorError(Exception):
    """A fatal allocator error: the scheduler fails the whole attempt with
    `running "DynamicResources" filter plugin: <message>` (dra-facts.md §1.3)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(slots=True)
class NodeResult:
    node: str
    fits: bool
    results: dict[str, list[AllocationResult]] = field(default_factory=dict)  # claim key -> results
    node_selectors: dict[str, dict | None] = field(
        default_factory=dict
    )  # claim key -> allocation nodeSelector
    error: AllocatorError | None = None
    failure: Failure | None = None
    candidates: dict[tuple[str, str], CandidateCounts] = field(default_factory=dict)  # (claim, request) ->
    steps: int = 0
    work: int = field(default=0, compare=False)  # selector evaluation, WorkBudget units (dra/budget.py)
    reached: bool = True  # False: the command's work budget ran out before this node was simulated


class _Capped(Exception):
    pass


@dataclass(slots=True)
class _Alt:
    """One way to satisfy one request ("requestData" upstream)."""

    claim: int
    request: int
    base: str  # request name
    sub: str  # subrequest name, "" for `exactly`
    spec: ExactRequest
    device_class: DeviceClass
    count: int = 0
    stage: list[int] = field(default_factory=list)  # per device position: STAGE_*
    outcome: list[int] = field(default_factory=list)  # per device position: CANDIDATE / NOT_CANDIDATE / ERROR
    free: list[int] = field(default_factory=list)  # candidates not allocated elsewhere, in usable pools
    errors: dict[int, str] = field(default_factory=dict)  # position -> fatal message
    all_devices: list[int] | None = None
    order: int = 0  # global index among all alternatives

    @property
    def name(self) -> str:
        return f"{self.base}/{self.sub}" if self.sub else self.base

    @property
    def msg_name(self) -> str:
        return self.sub or self.base  # upstream `request.name()` is the subrequest's own name


class _Allocation:
    """State of one Allocate call."""

    def __init__(
        self,
        node: Node,
        claims: list[ClaimToAllocate],
        pools: list[Pool],
        classes: dict[str, DeviceClass],
        allocated: set[tuple[str, str, str]],
        features: Features,
        max_steps: int,
        capacity_in_use: dict[tuple[str, str, str], InUse] | None = None,
    ) -> None:
        self.node = node
        self.claims = claims
        self.pools = pools
        self.classes = classes
        self.allocated = allocated
        self.features = features
        self.max_steps = max_steps
        self.devices: list[Device] = []
        self.pool_of: list[int] = []
        for pi, pool in enumerate(pools):
            per_device = {sl.name for sl in pool.slices if sl.per_device_node_selection}
            for d in pool.devices:
                if d.slice_name in per_device and d.node_name not in (None, node.name):
                    continue  # per-device node selection for another node (isSelectable, v0.36.2)
                self.devices.append(d)
                self.pool_of.append(pi)
        self.is_allocated = [d.key in allocated for d in self.devices]
        # DRAPartitionableDevices (1.33+): shared counters per pool (1.35+) or slice (dra/counters.py)
        self.counters: CounterTracker | None = None
        if features.partitionable and features.version >= 33:
            tracker = CounterTracker(pools, self.devices, self.pool_of, allocated, features.version)
            self.counters = tracker if tracker.active else None
        # DRAConsumableCapacity (1.34+ with the gate, default from 1.36): capacity checked on every pick,
        # shared devices (allowMultipleAllocations) stay available (allocateDevice, allocator_incubating.go
        # v0.36.2; allocator_experimental.go v0.34.0/v0.35.0)
        self.capacity: CapacityTracker | None = None
        self.shared = [False] * len(self.devices)
        if features.consumable_capacity and features.version >= 34:
            self.capacity = CapacityTracker(self.devices, capacity_in_use or {})
            self.shared = [d.allow_multiple_allocations for d in self.devices]
        self.alts: list[list[list[_Alt]]] = []  # claim -> request -> alternatives
        self.constraints: list[list[Constraint]] = []
        self.using: dict[int, set[int]] = {}  # position -> claims allocating it
        self.results: list[list[tuple[_Alt, int]]] = [[] for _ in claims]
        # per result: (counters taken, capacity consumed by a shared device or None)
        self.picks: list[list[tuple[bool, dict | None]]] = [[] for _ in claims]
        self.steps = 0
        self.work = 0  # selector evaluations, in WorkBudget units
        self._sig_cache: dict[tuple[int, int], tuple] = {}
        self._memo: set[tuple] = set()
        self._future: list[set[int]] = []

    # ------------------------------------------------------------ preparation (§2.4)

    def prepare(self) -> None:
        f = self.features
        order = 0
        for ci, claim in enumerate(self.claims):
            per_claim: list[list[_Alt]] = []
            min_total = 0
            for ri, request in enumerate(claim.spec.requests):
                if request.first_available and not f.prioritized_list:
                    raise AllocatorError(
                        f"claim {claim.key}, request {request.name}: has subrequests, "
                        "but the DRAPrioritizedList feature is disabled"
                    )
                self._capacity_gate(claim, request)
                alternatives = []
                for spec in request.alternatives:
                    alt = self._validate(
                        ci, ri, request.name, spec if request.first_available else spec, request
                    )
                    alt.order = order
                    order += 1
                    alternatives.append(alt)
                min_total += min((a.count for a in alternatives), default=0)
                per_claim.append(alternatives)
            if min_total > MAX_RESULTS:
                raise AllocatorError(
                    f"claim {claim.key}: number of requested devices {min_total} "
                    f"exceeds the claim limit of {MAX_RESULTS}"
                )
            constraints: list[Constraint] = []
            for i, c in enumerate(claim.spec.constraints):
                if c.match_attribute:
                    constraints.append(MatchAttribute(c.match_attribute, list(c.requests)))
                elif c.distinct_attribute and f.consumable_capacity:
                    constraints.append(DistinctAttribute(c.distinct_attribute, list(c.requests)))
                else:
                    raise AllocatorError(
                        f"claim {claim.key}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    )
            self.alts.append(per_claim)
            self.constraints.append(constraints)

    def _capacity_gate(self, claim: ClaimToAllocate, request) -> None:
        """Capacity requests with DRAConsumableCapacity off: refused by the allocator variants that
        carry the capacity code (experimental in 1.34/1.35, which runs when DRADeviceBindingConditions
        is on; incubating from 1.36, which runs when binding conditions are on, the stable copy
        otherwise), ignored by the others (allocator_experimental.go v0.34.0/v0.35.0,
        allocator_incubating.go v0.36.2; case `consumable-capacity-disabled-feature`)."""
        f = self.features
        if f.consumable_capacity or f.version < 34 or not f.binding_conditions:
            return
        if request.exactly is not None and request.exactly.capacity is not None:
            raise AllocatorError(
                f"claim {claim.key}, request {request.name}: has capacity requests, "
                "but the DRAConsumableCapacity feature is disabled"
            )
        for sub in request.first_available:
            if sub.capacity is not None:
                raise AllocatorError(
                    f"claim {claim.key}, subrequest {sub.name}: has capacity requests, "
                    "but the DRAConsumableCapacity feature is disabled"
                )

    def _capacity_fits(self, alt: _Alt, pos: int, *, alone: bool = False) -> dict | None:
        """The request's consumption of the device when it fits the capacity left, else None."""
        assert self.capacity is not None
        demand, _ = self.capacity.demand(alt.spec, pos)
        if demand is None or self.capacity.shortfall(pos, demand, alone=alone) is not None:
            return None
        return demand

    def _validate(self, ci: int, ri: int, base: str, spec: ExactRequest, request) -> _Alt:
        claim = self.claims[ci]
        sub = spec.name if request.first_available else ""
        name = sub or base
        for i, expr in enumerate(spec.selectors):
            if not expr:
                raise AllocatorError(
                    f"claim {claim.key}, request {name}, selector #{i}: "
                    "CEL expression empty (unsupported selector type?)"
                )
        if spec.admin_access and not self.features.admin_access:
            raise AllocatorError(
                f"claim {claim.key}, request {name}: admin access is requested, but the feature is disabled"
            )
        if not spec.device_class:
            raise AllocatorError(
                f"claim {claim.key}, request {name}: missing device class name (unsupported request type?)"
            )
        cls = self.classes.get(spec.device_class)
        if cls is None:
            raise AllocatorError(
                f"claim {claim.key}, request {name}: could not retrieve device class "
                f'{spec.device_class}: deviceclass.resource.k8s.io "{spec.device_class}" not found'
            )
        alt = _Alt(ci, ri, base, sub, spec, cls)
        selectors = self._selectors(alt)
        alt.stage = [self._selectable(alt, pos, selectors) for pos in range(len(self.devices))]
        alt.outcome = [OUTCOME[st] for st in alt.stage]
        admin = spec.admin_access
        alt.free = [
            pos
            for pos, o in enumerate(alt.outcome)
            if o == CANDIDATE and (admin or not self.is_allocated[pos]) and self._pool_usable(pos)
        ]
        if spec.allocation_mode == "ExactCount":
            if spec.count < 1:  # an impossible count is read as 0 (dra/impossible.py), never as 1
                raise AllocatorError(
                    f"claim {claim.key}, request {name}: the count is not a positive integer"
                )
            alt.count = spec.count
        elif spec.allocation_mode == "All":
            alt.all_devices = []
            for pi, pool in enumerate(self.pools):
                if pool.incomplete:
                    raise AllocatorError(
                        f"claim {claim.key}, request {name}: asks for all devices, "
                        f"but resource pool {pool.id} is currently being updated"
                    )
                if pool.invalid_reason and self.features.version >= 35:
                    raise AllocatorError(
                        f"claim {claim.key}, request {name}: asks for all devices, "
                        f"but resource pool {pool.id} is currently invalid"
                    )
                for pos in range(len(self.devices)):
                    if self.pool_of[pos] != pi:
                        continue
                    if alt.outcome[pos] == ERROR:
                        raise AllocatorError(alt.errors[pos])
                    if alt.outcome[pos] == CANDIDATE:
                        # with the gate on, devices whose capacity does not fit are left out
                        if self.capacity is not None and self._capacity_fits(alt, pos, alone=True) is None:
                            continue
                        alt.all_devices.append(pos)
            alt.count = len(alt.all_devices)
        else:
            raise AllocatorError(
                f"claim {claim.key}, request {name}: unsupported count mode {spec.allocation_mode}"
            )
        return alt

    def _selectors(self, alt: _Alt) -> list[tuple[int, int, Any]]:
        """(stage, index, compiled selector or its compile error): class selectors, then the request's;
        compiled once per request, not once per device."""
        out: list[tuple[int, int, Any]] = []
        consumable = self.features.consumable_capacity
        for stage, exprs in ((STAGE_CLASS, alt.device_class.selectors), (STAGE_REQUEST, alt.spec.selectors)):
            for i, expr in enumerate(exprs):
                try:
                    out.append((stage, i, compile_selector(expr, consumable_capacity=consumable)))
                except CelError as err:
                    out.append((stage, i, err))
        return out

    def _selectable(self, alt: _Alt, pos: int, selectors: list[tuple[int, int, Any]]) -> int:
        """Class selectors, then request selectors, then binding/taint filters (isSelectable);
        returns the stage that rejected the device (STAGE_*), kept for the explanation."""
        device = self.devices[pos]
        f = self.features
        for stage, i, selector in selectors:
            error = selector if isinstance(selector, CelError) else None
            if error is None:
                before = selector.evaluations
                try:
                    ok = selector.matches(device)
                except CelError as err:
                    error = err
                self.work += 1 + CEL_WORK * (selector.evaluations - before)
            if error is not None:
                claim = self.claims[alt.claim]
                owner = f"class {alt.device_class.name}" if stage == STAGE_CLASS else f"claim {claim.key}"
                alt.errors[pos] = f"{owner}: selector #{i}: {error}"
                return STAGE_ERROR
            if not ok:
                return stage
        if f.version >= 34 and device.binding_conditions and not f.binding_conditions:
            return STAGE_BINDING
        if (
            f.device_taints
            and f.version >= 33
            and blocking_taints(device, alt.spec.tolerations, f.version, f.device_taint_rules)
        ):
            return STAGE_TAINT
        return STAGE_OK

    # ------------------------------------------------------------ pruning

    def _flat_alts(self) -> list[_Alt]:
        return [a for per_claim in self.alts for alts in per_claim for a in alts]

    def prunable(self) -> bool:
        """Early failure is exact only when the search could not have hit a fatal error first."""
        if self.features.version < 35 and any(p.invalid_reason for p in self.pools):
            return False
        for ci, per_claim in enumerate(self.alts):
            if self.constraints[ci] and any(a.all_devices is not None for alts in per_claim for a in alts):
                return False  # an `All` request may hit the constraint error first
        return not any(a.errors for a in self._flat_alts())

    def hopeless(self) -> bool:
        """True when some request cannot be met even alone, or a matchAttribute has no value group."""
        for ci, per_claim in enumerate(self.alts):
            for alts in per_claim:
                if not any(self._alone_ok(a) for a in alts):
                    return True
            for c in self.constraints[ci]:
                if isinstance(c, MatchAttribute) and not self._some_group(ci, c):
                    return True
        return False

    def _alone_ok(self, alt: _Alt) -> bool:
        if alt.all_devices is None:
            return len(alt.free) >= alt.count
        if not alt.all_devices and self.features.version >= 33:
            return False
        return alt.spec.admin_access or not any(self.is_allocated[p] for p in alt.all_devices)

    def _some_group(self, ci: int, c: MatchAttribute) -> bool:
        """Some value of the attribute has enough free candidates for every covered request."""
        covered = [alts for alts in self.alts[ci] if any(_covers(c.requests, a) for a in alts)]
        per_alt: dict[int, dict[tuple, int]] = {}
        values: set[tuple] = set()
        for alts in covered:
            for a in alts:
                counts: dict[tuple, int] = {}
                for pos in a.free:
                    v = _lookup(self.devices[pos], c.attribute)
                    if v is not None:
                        t = typed(v)
                        counts[t] = counts.get(t, 0) + 1
                per_alt[a.order] = counts
                values.update(counts)
        if not covered:
            return True
        return any(
            all(
                any(
                    a.all_devices is not None
                    or not _covers(c.requests, a)
                    or per_alt[a.order].get(v, 0) >= a.count
                    for a in alts
                )
                for alts in covered
            )
            for v in values
        )

    def _pool_usable(self, pos: int) -> bool:
        pool = self.pools[self.pool_of[pos]]
        if self.features.version >= 35:
            return not pool.incomplete and not pool.invalid_reason
        return True

    # ------------------------------------------------------------ search (§2.5)

    def search(self) -> bool:
        flat = self._flat_alts()
        # devices that alternatives from a given global position onwards could pick
        self._future = [set() for _ in range(len(flat) + 1)]
        for i in range(len(flat) - 1, -1, -1):
            a = flat[i]
            self._future[i] = self._future[i + 1] | {p for p, o in enumerate(a.outcome) if o != NOT_CANDIDATE}
        self._flat = flat
        return self._claim(0)

    def _claim(self, ci: int) -> bool:
        if ci >= len(self.claims):
            return True
        return self._request(ci, 0)

    def _request(self, ci: int, ri: int) -> bool:
        if ri >= len(self.alts[ci]):
            return self._claim(ci + 1)
        alts = self.alts[ci][ri]
        first = alts[0].order
        future = self._future[first]
        key = (
            ci,
            ri,
            tuple(c.state() for c in self.constraints[ci]),
            len(self.results[ci]),
            frozenset((p, tuple(sorted(cs))) for p, cs in self.using.items() if cs and p in future),
            self.counters.state() if self.counters is not None else (),
            self.capacity.state() if self.capacity is not None else (),
        )
        if key in self._memo:
            return False
        for alt in alts:
            if self._slot(alt, 0, 0):
                return True
        self._memo.add(key)
        return False

    def _slot(self, alt: _Alt, slot: int, start: int) -> bool:
        ci = alt.claim
        if alt.all_devices is not None and not alt.all_devices and self.features.version >= 33:
            return False  # "At least one device is required for 'All' allocation mode"
        if slot >= alt.count:
            return self._request(ci, alt.request + 1)
        if len(self.results[ci]) + alt.count - slot > MAX_RESULTS:
            return False
        if alt.all_devices is not None:
            pos = alt.all_devices[slot]
            if not self._allocate(alt, pos, must=True):
                return False
            if self._slot(alt, slot + 1, 0):
                return True
            self._release(alt, pos)
            return False
        failed: set[tuple] = set()
        version = self.features.version
        admin = alt.spec.admin_access
        for pos in range(start, len(self.devices)):
            self.steps += 1
            if self.steps > self.max_steps:
                raise _Capped()
            pool = self.pools[self.pool_of[pos]]
            if version >= 35 and (pool.incomplete or pool.invalid_reason):
                continue
            if pool.invalid_reason and 33 <= version <= 34:
                raise AllocatorError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            users = self.using.get(pos)
            if admin and version >= 34 and users and ci in users:
                continue
            if not admin and (self.is_allocated[pos] or (users and not self.shared[pos])):
                continue
            outcome = alt.outcome[pos]
            if outcome == ERROR:
                raise AllocatorError(alt.errors[pos])
            if outcome != CANDIDATE:
                continue
            if pool.invalid_reason and version <= 32:
                raise AllocatorError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            sig = self._signature(alt, pos)
            if self.capacity is not None:
                sig = (sig, self.capacity.signature(pos))
            if sig in failed:
                continue
            if not self._allocate(alt, pos, must=False):
                continue
            if self._slot(alt, slot + 1, pos + 1):
                return True
            self._release(alt, pos)
            failed.add(sig)
        return False

    def _signature(self, alt: _Alt, pos: int) -> tuple:
        """What makes two candidates interchangeable for everything after this slot."""
        cached = self._sig_cache.get((alt.order, pos))
        if cached is not None:
            return cached
        device = self.devices[pos]
        later = self._flat[alt.order + 1 :]
        membership = tuple(a.outcome[pos] for a in later if a.claim != alt.claim or a.request != alt.request)
        seen_by = [alt] + [a for a in later if a.outcome[pos] != NOT_CANDIDATE]
        values = []
        for ci in range(alt.claim, len(self.claims)):
            for c in self.constraints[ci]:
                if any(a.claim == ci and _covers(c.requests, a) for a in seen_by):
                    v = _lookup(device, c.attribute)
                    values.append(None if v is None else typed(v))
        sig = (
            self.is_allocated[pos],
            bool(self.pools[self.pool_of[pos]].invalid_reason),
            membership,
            tuple(values),
            self.counters.signature(pos) if self.counters is not None else (),
        )
        self._sig_cache[(alt.order, pos)] = sig
        return sig

    def _allocate(self, alt: _Alt, pos: int, must: bool) -> bool:
        device = self.devices[pos]
        ci = alt.claim
        users = self.using.get(pos)
        shared = self.shared[pos]
        if alt.spec.admin_access:
            if self.features.version >= 34 and users and ci in users and not shared:
                return False
        elif self.is_allocated[pos] or (users and not shared):
            return False
        f = self.features
        capacity = self.capacity
        demand: dict | None = None
        # capacity (allocateOne checks it before allocateDevice; an `All` pick only after the constraints)
        if capacity is not None and not must:
            demand = self._capacity_fits(alt, pos)
            if demand is None:
                return False
        # counters (allocateDevice, allocator_incubating.go v0.36.2): refused with the gate off (1.34+),
        # else taken when they fit, given back on any later refusal (kubernetes#140431); 1.35+: not
        # checked for a shared device whose capacity is already in use (skipCounterCheck)
        if device.consumes_counters and not f.partitionable and f.version >= 34:
            return False
        counters = self.counters if self.counters is not None and self.counters.scope_of[pos] else None
        if (
            counters is not None
            and shared
            and f.version >= 35
            and capacity is not None
            and capacity.in_use(pos)
        ):
            counters = None
        if counters is not None:
            if counters.shortfall(pos) is not None:
                return False
            counters.take(pos)
        if (
            f.device_taints
            and f.version >= 33
            and blocking_taints(device, alt.spec.tolerations, f.version, f.device_taint_rules)
        ):
            if counters is not None:
                counters.give(pos)
            return False
        added: list[Constraint] = []
        for c in self.constraints[ci]:
            if not c.add(alt.base, alt.sub, device):
                for done in reversed(added):
                    done.remove(alt.base, alt.sub, device)
                if counters is not None:
                    counters.give(pos)
                if must:
                    raise AllocatorError(
                        f"claim {self.claims[ci].key}, request {alt.msg_name}: cannot add device "
                        f"{device.id} because a claim constraint would not be satisfied"
                    )
                return False
            added.append(c)
        if capacity is not None and must:
            demand = self._capacity_fits(alt, pos)
            if demand is None:
                for done in reversed(added):
                    done.remove(alt.base, alt.sub, device)
                if counters is not None:
                    counters.give(pos)
                return False
        taken: dict | None = None
        if capacity is not None and shared and demand is not None:
            capacity.take(pos, demand)
            taken = demand
        else:
            self.using.setdefault(pos, set()).add(ci)
        self.results[ci].append((alt, pos))
        self.picks[ci].append((counters is not None, taken))
        return True

    def _release(self, alt: _Alt, pos: int) -> None:
        ci = alt.claim
        self.results[ci].pop()
        took_counters, taken = self.picks[ci].pop()
        if taken is not None and self.capacity is not None:
            self.capacity.give(pos, taken)
        else:
            self.using[pos].discard(ci)
        device = self.devices[pos]
        for c in reversed(self.constraints[ci]):
            c.remove(alt.base, alt.sub, device)
        if self.counters is not None and took_counters:
            self.counters.give(pos)

    # ------------------------------------------------------------ results (§2.10)

    def claim_results(self) -> tuple[dict[str, list[AllocationResult]], dict[str, dict | None]]:
        out: dict[str, list[AllocationResult]] = {}
        selectors: dict[str, dict | None] = {}
        slices = {s.name: s for p in self.pools for s in p.slices}
        for ci, claim in enumerate(self.claims):
            res = []
            for (alt, pos), (_, taken) in zip(self.results[ci], self.picks[ci], strict=True):
                d = self.devices[pos]
                entry = AllocationResult(
                    alt.name, d.driver, d.pool, d.name, admin_access=alt.spec.admin_access
                )
                if taken is not None:  # a share of a shared device: shareID and consumedCapacity
                    entry.share_id = "simulated"
                    entry.consumed_capacity = {k: format_quantity(v) for k, v in taken.items()}
                res.append(entry)
            out[claim.key] = res
            selectors[claim.key] = _node_selector(
                [slices.get(self.devices[p].slice_name) for _, p in self.results[ci]], self.node.name
            )
        return out, selectors


def _covers(requests: list[str], alt: _Alt) -> bool:
    if not requests:
        return True
    return alt.base in requests or (bool(alt.sub) and alt.name in requests)


def _node_selector(slices: list[ResourceSlice | None], node: str) -> dict | None:
    """createNodeSelector: node-local if any device is, else the union of single-term selectors."""
    expressions: list[dict] = []
    fields: list[dict] = []
    for s in slices:
        if s is None:
            continue
        if s.node_name:
            return {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                ]
            }
        terms = (s.node_selector or {}).get("nodeSelectorTerms") or []
        if len(terms) == 1:
            for req in terms[0].get("matchExpressions") or []:
                if req not in expressions:
                    expressions.append(req)
            for req in terms[0].get("matchFields") or []:
                if req not in fields:
                    fields.append(req)
    if not expressions and not fields:
        return None
    term: dict = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


# Search steps for a whole `simulate_cluster` (about 1 µs each): ten pathological nodes searched to
# their own cap, the rest not at all, rather than hours over thousands of them.
CLUSTER_MAX_STEPS = 2_000_000


def allocate(
    node: Node,
    claims: list[ClaimToAllocate],
    slices: list[ResourceSlice],
    classes: dict[str, DeviceClass],
    allocated: set[tuple[str, str, str]],
    features: Features,
    *,
    max_steps: int = 200_000,
    pools: list[Pool] | None = None,
    capacity_in_use: dict[tuple[str, str, str], InUse] | None = None,
) -> NodeResult:
    """Simulate `Allocate` for one node; explain the failure when nothing fits.

    `allocated` holds driver/pool/device keys of every allocated claim's results,
    without adminAccess results (dra-facts.md §2.2). `pools` may be passed when
    the caller gathered them already (simulate_cluster).
    """
    result = NodeResult(node=node.name, fits=False)
    try:
        if pools is None:
            pools = gather_pools(
                node,
                slices,
                version=features.version,
                partitionable=features.partitionable,
                totals=slice_totals(slices),
            )
    except PoolError as err:
        wording = "add node slice" if features.version <= 32 else "gather pool information"
        result.error = AllocatorError(f"{wording}: {err}")
        return result
    state = _Allocation(node, claims, pools, classes, allocated, features, max_steps, capacity_in_use)
    capped = False
    proof: Proof | None = None
    try:
        state.prepare()
        # counts/groups prove failure without searching only when no fatal error could come first
        if state.prunable() and (state.hopeless() or (proof := prove_impossible(state)) is not None):
            fits = False
        else:
            fits = state.search()
    except AllocatorError as err:
        result.error = err
        fits = False
    except _Capped:
        capped = True
        fits = False
    result.steps = state.steps
    result.work = state.work
    if fits:
        result.fits = True
        result.results, result.node_selectors = state.claim_results()
    if state.alts:
        result.candidates = candidate_counts(state)
    if not fits and result.error is None:
        result.failure = explain_failure(state, result.candidates, capped=capped, proof=proof)
    return result


def simulate_cluster(
    nodes: list[Node],
    slices: list[ResourceSlice],
    classes: dict[str, DeviceClass],
    claims: list[ClaimToAllocate],
    allocated: set[tuple[str, str, str]],
    features: Features,
    *,
    max_steps: int = 200_000,
    total_steps: int = CLUSTER_MAX_STEPS,
    capacity_in_use: dict[tuple[str, str, str], InUse] | None = None,
    memo: bool | NodeMemo = True,
    budget: WorkBudget | None = None,
    pod: str = "",
) -> list[NodeResult]:
    """`allocate` on every node. Slices are indexed by node once; selectors are memoized
    per distinct device signature (cel.Selector), and nodes that differ only by their names
    share one allocator run (dra/node_memo.py; `memo=False` runs every node, a NodeMemo given is
    used and keeps its counts), so large uniform clusters stay cheap.

    `total_steps` bounds the search over the whole cluster (issue 16): thousands of nodes that each
    search to `max_steps` would take hours; once the budget is spent, the nodes left are searched
    for no step at all (counts and value groups still prove what they can) and read `search-capped`.

    `budget` is the command's (dra/budget.py, issue 26): every Pod's selector evaluations and search
    steps spend it; once it is spent, the nodes left are not simulated at all (`reached=False`, read
    `search-capped`) and `budget.not_reached` names them with `pod`."""
    by_node: dict[str, list[ResourceSlice]] = {}
    shared: list[ResourceSlice] = []
    # counter slices go to every node in 1.35/1.36 (NewAllocator, allocator_incubating.go v0.36.2)
    counters_shared = features.partitionable and features.version in (35, 36)
    for s in slices:
        if s.node_name and not s.per_device_node_selection and not (counters_shared and s.has_counters):
            by_node.setdefault(s.node_name, []).append(s)
        else:
            shared.append(s)
    totals = slice_totals(slices) if features.version >= 35 else None
    out = []
    left = total_steps
    shared_runs = memo if isinstance(memo, NodeMemo) else None
    if memo is True:
        specs = [c.spec for c in claims]
        shared_runs = NodeMemo(specs, classes, features.consumable_capacity, allocated, capacity_in_use)
    for node in nodes:
        if budget is not None and budget.left <= 0:
            out.append(_not_reached(node.name))
            budget.not_reached.append((pod, node.name))
            continue
        node_slices = by_node.get(node.name, []) + shared if shared else by_node.get(node.name, [])
        try:
            pools = gather_pools(
                node,
                node_slices,
                version=features.version,
                partitionable=features.partitionable,
                totals=totals,
                all_slices=slices,
            )
        except PoolError:
            pools = None  # allocate() reports it
        cap = max(min(max_steps, left, budget.left if budget is not None else left), 0)
        signature = shared_runs.signature(node.name, pools) if shared_runs and pools is not None else None
        result = None
        if signature is not None:
            assert shared_runs is not None and pools is not None
            result = shared_runs.reuse(signature, node.name, pools, cap, _node_selector)
        if result is None:
            result = allocate(
                node,
                claims,
                node_slices,
                classes,
                allocated,
                features,
                max_steps=cap,
                pools=pools,
                capacity_in_use=capacity_in_use,
            )
            if signature is not None:
                assert shared_runs is not None and pools is not None
                shared_runs.keep(signature, result, pools, cap)
        left -= result.steps
        if budget is not None:
            budget.spend(result.steps + result.work)
        out.append(result)
    return out


def _not_reached(node: str) -> NodeResult:
    """A node the command's work budget did not reach: no selector ran, no step was searched."""
    failure = Failure(
        "search-capped",
        "not simulated: the command's work budget (selector evaluations and search steps over every "
        "Pod) ran out before this node",
    )
    return NodeResult(node=node, fits=False, failure=failure, reached=False)
