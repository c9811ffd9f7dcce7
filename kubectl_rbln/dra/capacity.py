"""Consumable capacity of devices (DRAConsumableCapacity, KEP-5075), as the allocator counts it.

Source: k8s.io/dynamic-resource-allocation `structured/internal/incubating/consumable_capacity.go` and
`allocator_incubating.go` (`CmpRequestOverCapacity`, `allocateDevice`) at v0.36.2; the same code is
`structured/internal/experimental/` at v0.34.0/v0.35.0 (alpha: only with the gate on). With the gate on:

- every candidate device is checked, shared or not: for **each** capacity of the device, the request
  consumes its `capacity.requests` entry rounded up by the capacity's `requestPolicy` (`validRange`:
  to min, then to min + k*step; `validValues`: to the first value >= the request), or, with no entry,
  the policy's `default`, else the capacity's whole value (`calculateConsumedCapacity`,
  `fillEmptyRequest`). A value the policy does not allow (over `max`, off the step, not a valid value)
  refuses the device (`violatesPolicy`), so does a request naming a capacity the device lacks
  (`requestsContainNonExistCapacity`: the device is skipped, not an error);
- the device is refused when, for some capacity, consumed by allocated claims (their results with a
  `shareID`, summed: the scheduler's `AggregatedCapacity`) + consumed in this Allocate call + this
  request's consumption > the capacity's value;
- only a device with `allowMultipleAllocations: true` records what it consumed (the result gets a
  `shareID` and `consumedCapacity`) and stays available to other requests and claims; backtracking
  gives that back (the rollback function of `allocateDevice`).

Capacity names are compared fully qualified here (a request's `memory` and a device's `memory` of
driver `d` are both `d/memory`); upstream compares the names as written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from kubectl_rbln.catalog import Phrase
from kubectl_rbln.dra.model import Device, ExactRequest, RequestPolicy
from kubectl_rbln.dra.quantity import format_quantity, parse_quantity
from kubectl_rbln.dra.values import qualify

Key = tuple[str, str, str]  # driver/pool/device


@dataclass(slots=True)
class InUse:
    """What the allocated claims' shared results (`shareID` set) consume of one device."""

    consumed: dict[str, Fraction] = field(default_factory=dict)  # qualified capacity name -> sum
    claims: list[str] = field(default_factory=list)  # "ns/claim" of each share


@dataclass(slots=True)
class CapacityShortfall:
    """Why a device cannot serve a request's capacity. reason: `capacity` (not enough left),
    `policy` (the requestPolicy refuses the value), `missing` (the device has no such capacity)."""

    device: str
    capacity: str
    reason: str
    needed: Fraction = Fraction(0)
    left: Fraction = Fraction(0)
    total: Fraction = Fraction(0)
    claims: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        name = self.capacity.rsplit("/", 1)[-1]
        if self.reason == "missing":
            return f"device {self.device} has no capacity {name}"
        if self.reason == "policy":
            return (
                f"device {self.device}: {format_quantity(self.needed)} of {name} is outside its requestPolicy"
            )
        held = f" (consumed by {', '.join(self.claims)})" if self.claims else ""
        return (
            f"device {self.device}: capacity {name} {format_quantity(self.needed)} requested, "
            f"{format_quantity(max(self.left, Fraction(0)))} left of {format_quantity(self.total)}{held}"
        )

    @property
    def phrase(self) -> Phrase:
        """`summary` in any language."""
        values = {"device": self.device, "name": self.capacity.rsplit("/", 1)[-1]}
        if self.reason == "missing":
            return Phrase("capacity-missing", values)
        values["needed"] = format_quantity(self.needed)
        if self.reason == "policy":
            return Phrase("capacity-policy", values)
        values["left"] = format_quantity(max(self.left, Fraction(0)))
        values["total"] = format_quantity(self.total)
        if self.claims:
            return Phrase("capacity-short-held", {**values, "claims": ", ".join(self.claims)})
        return Phrase("capacity-short", values)


def _ceil_int(value: Fraction) -> int:
    """resource.Quantity.Value(): the integer value, rounded up."""
    return math.ceil(value)


def consumed(requested: Fraction | None, value: Fraction, policy: RequestPolicy | None) -> Fraction:
    """calculateConsumedCapacity (consumable_capacity.go v0.36.2)."""
    if requested is None:  # fillEmptyRequest
        return policy.default if policy is not None and policy.default is not None else value
    if policy is None:
        return requested
    if policy.has_range and policy.min is not None:
        if requested < policy.min:
            return policy.min
        if policy.step is None:
            return requested
        req, step, low = _ceil_int(requested), _ceil_int(policy.step), _ceil_int(policy.min)
        n, mod = divmod(req - low, step) if step else (0, 0)
        return Fraction(low + step * (n + (1 if mod else 0)))
    if policy.valid_values:
        return next((v for v in policy.valid_values if requested <= v), requested)
    return requested


def violates(amount: Fraction, policy: RequestPolicy | None) -> bool:
    """violatesPolicy (consumable_capacity.go v0.36.2)."""
    if policy is None:
        return False
    if policy.default is not None and amount == policy.default:
        return False
    if policy.has_range:
        if policy.max is not None and amount > policy.max:
            return True
        if policy.step is not None and policy.min is not None:
            step = _ceil_int(policy.step)
            return bool(step) and (_ceil_int(amount) - _ceil_int(policy.min)) % step != 0
        return False
    if policy.valid_values:
        return amount not in policy.valid_values
    return False


def _values(device: Device) -> dict[str, Fraction]:
    out = {}
    for name, text in device.capacity.items():
        try:
            out[name] = parse_quantity(text)
        except ValueError:
            out[name] = Fraction(0)
    return out


class CapacityTracker:
    """Capacity consumed per device by allocated claims and in the current Allocate call."""

    def __init__(self, devices: list[Device], in_use: dict[Key, InUse]) -> None:
        self.devices = devices
        self.values = [_values(d) for d in devices]
        self.base: list[dict[str, Fraction]] = []
        self.claims: list[list[str]] = []
        self.base_in_use: list[bool] = []
        for d in devices:
            use = in_use.get(d.key)
            self.base.append(dict(use.consumed) if use else {})
            self.claims.append(list(use.claims) if use else [])
            self.base_in_use.append(bool(use and use.consumed))
        self.allocating: dict[int, dict[str, Fraction]] = {}
        self.shares: dict[int, int] = {}  # position -> shares taken in this call
        self._demand: dict[tuple[int, int], tuple[dict[str, Fraction] | None, CapacityShortfall | None]] = {}

    def demand(
        self, spec: ExactRequest, pos: int
    ) -> tuple[dict[str, Fraction] | None, CapacityShortfall | None]:
        """What the request consumes of each capacity of the device (GetConsumedCapacityFromRequest),
        or None and why when the request names a missing capacity or the policy refuses the value."""
        key = (id(spec), pos)
        found = self._demand.get(key)
        if found is not None:
            return found
        device = self.devices[pos]
        values = self.values[pos]
        requested: dict[str, Fraction] = {}
        result: tuple[dict[str, Fraction] | None, CapacityShortfall | None]
        missing = None
        for name, text in spec.capacity_requests.items():
            qualified = qualify(name, device.driver)
            try:
                requested[qualified] = parse_quantity(text)
            except ValueError:
                requested[qualified] = Fraction(0)
            if qualified not in values and missing is None:
                missing = qualified
        if missing is not None:
            result = (None, CapacityShortfall(device.id, missing, "missing"))
        else:
            out: dict[str, Fraction] = {}
            refused = None
            for name in sorted(values):
                policy = device.request_policies.get(name)
                amount = consumed(requested.get(name), values[name], policy)
                if violates(amount, policy) and refused is None:
                    refused = CapacityShortfall(device.id, name, "policy", amount, total=values[name])
                out[name] = amount
            result = (None, refused) if refused is not None else (out, None)
        self._demand[key] = result
        return result

    def shortfall(
        self, pos: int, demand: dict[str, Fraction], *, alone: bool = False
    ) -> CapacityShortfall | None:
        """The first capacity (by name) the demand does not fit into (CmpRequestOverCapacity)."""
        values = self.values[pos]
        base = self.base[pos]
        allocating = {} if alone else self.allocating.get(pos, {})
        for name in sorted(values):
            need = demand.get(name, Fraction(0))
            used = base.get(name, Fraction(0)) + allocating.get(name, Fraction(0))
            if used + need > values[name]:
                return CapacityShortfall(
                    self.devices[pos].id,
                    name,
                    "capacity",
                    need,
                    values[name] - used,
                    values[name],
                    list(self.claims[pos]),
                )
        return None

    def in_use(self, pos: int) -> bool:
        """deviceCapacityInUse (allocator_incubating.go v0.36.2)."""
        return self.base_in_use[pos] or self.shares.get(pos, 0) > 0

    def take(self, pos: int, demand: dict[str, Fraction]) -> None:
        used = self.allocating.setdefault(pos, {})
        for name, value in demand.items():
            used[name] = used.get(name, Fraction(0)) + value
        self.shares[pos] = self.shares.get(pos, 0) + 1

    def give(self, pos: int, demand: dict[str, Fraction]) -> None:
        used = self.allocating[pos]
        for name, value in demand.items():
            used[name] -= value
        self.shares[pos] -= 1
        if not self.shares[pos]:
            del self.shares[pos]
            del self.allocating[pos]

    def state(self) -> tuple:
        """Capacity consumed in this call, for the allocator's memo key."""
        return tuple(sorted((pos, tuple(sorted(u.items()))) for pos, u in self.allocating.items()))

    def signature(self, pos: int) -> tuple:
        """What makes two devices interchangeable capacity-wise (values, policies, consumption)."""
        return (
            self.devices[pos].allow_multiple_allocations,
            tuple(sorted(self.values[pos].items())),
            tuple(sorted((k, repr(v)) for k, v in self.devices[pos].request_policies.items())),
            tuple(sorted(self.base[pos].items())),
            tuple(sorted(self.allocating.get(pos, {}).items())),
        )


def in_use_from_claims(claims: list, skip: set[str]) -> dict[Key, InUse]:
    """The scheduler's AggregatedCapacity with DRAConsumableCapacity on: every allocated claim's
    non-adminAccess results that carry a `shareID` (dynamicresources `foreachAllocatedDevice`)."""
    out: dict[Key, InUse] = {}
    for claim in claims:
        key = f"{claim.namespace}/{claim.name}"
        if claim.allocation is None or key in skip:
            continue
        for r in claim.allocation.results:
            if r.admin_access or r.share_id is None:
                continue
            use = out.setdefault(r.key, InUse())
            use.claims.append(key)
            for name, text in r.consumed_capacity.items():
                qualified = qualify(name, r.driver)
                try:
                    value = parse_quantity(text)
                except ValueError:
                    continue
                use.consumed[qualified] = use.consumed.get(qualified, Fraction(0)) + value
    return out
