"""Shared counters of partitionable devices (DRAPartitionableDevices), as the allocator tracks them.

Source: k8s.io/dynamic-resource-allocation `structured/internal/{stable,incubating,experimental}/
allocator_*.go`, `checkAvailableCounters` / `deallocateCountersForDevice`:
- 1.35+ (v0.35.0 .. v0.37.0-alpha.2): per pool. Available = the pool's counter sets (pools.py) minus
  what every *allocated* device of the pool consumes (also devices on slices that do not target the
  node; may go negative). A candidate adds its consumption to the counters consumed in this
  Allocate call; it is refused when, for **any** counter of the pool, available < consumed, and its
  consumption is taken back. Backtracking gives it back too.
- 1.34 (v0.34.0): the same check, but per slice: the device's own slice holds the counter sets.
- 1.33 (v0.33.0 `checkAvailableCapacity`): per slice, only the counters the device consumes are
  checked (a counter missing from the slice refuses the device).

Upstream keys the per-pool maps by pool name only (`pool.PoolID.Pool`, v0.36.2 and v0.37.0-alpha.2):
two drivers publishing a pool of the same name share them. Here they are kept apart (driver, pool).
Upstream up to v0.37.0-alpha.2 also keeps a candidate's counters when a taint or a claim constraint
then rejects it (kubernetes/kubernetes#140436, fixed by #140431); here they are given back, as fixed.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubectl_rbln.catalog import Phrase
from kubectl_rbln.dra.model import Device
from kubectl_rbln.dra.quantity import format_quantity

Key = tuple[str, str]  # (counter set, counter)


def consumption(device: Device) -> dict[Key, Fraction]:
    """What a device consumes, summed per (counter set, counter)."""
    out: dict[Key, Fraction] = {}
    for use in device.consumes_counters:
        for name, value in use.counters.items():
            out[(use.name, name)] = out.get((use.name, name), Fraction(0)) + value
    return out


@dataclass(slots=True)
class Shortfall:
    """One counter a device cannot have: `needed` by the device, `left` after allocated devices and
    the devices picked before it in this attempt."""

    scope: str  # "driver/pool" (1.35+) or "slice <name>" (1.33/1.34)
    counter_set: str
    counter: str
    needed: Fraction
    left: Fraction
    total: Fraction | None  # None: the counter does not exist (1.33)
    consumers: list[str] = field(default_factory=list)  # allocated device ids consuming the counter

    @property
    def summary(self) -> str:
        if self.total is None:
            return f"counter {self.counter} of counter set {self.counter_set} does not exist in {self.scope}"
        used = ", ".join(self.consumers) or "none"
        return (
            f"counter set {self.counter_set}, counter {self.counter} in {self.scope}: "
            f"{format_quantity(self.needed)} needed, {format_quantity(max(self.left, Fraction(0)))} left "
            f"of {format_quantity(self.total)} (allocated devices consuming it: {used})"
        )

    @property
    def phrase(self) -> Phrase:
        """`summary` in any language."""
        scope: Phrase | str = self.scope
        if self.scope.startswith("slice "):
            scope = Phrase("counter-scope-slice", {"slice": self.scope.removeprefix("slice ")})
        where = {"counter": self.counter, "set": self.counter_set, "scope": scope}
        if self.total is None:
            return Phrase("counter-missing", where)
        quantities = {
            "needed": format_quantity(self.needed),
            "left": format_quantity(max(self.left, Fraction(0))),
            "total": format_quantity(self.total),
        }
        used = ", ".join(self.consumers) or Phrase("no-names")
        return Phrase("counter-short", {**where, **quantities, "used": used})


class CounterTracker:
    """Counters available per scope (pool or slice) and consumed in the current Allocate call."""

    def __init__(
        self, pools: list[Any], devices: list[Device], pool_of: list[int], allocated: set, version: int
    ):
        self.version = version
        self.per_pool = version >= 35
        self.scope_of: list[Hashable | None] = []
        self.use: list[dict[Key, Fraction]] = []
        self.total: dict[Hashable, dict[Key, Fraction]] = {}
        self.left: dict[Hashable, dict[Key, Fraction]] = {}
        self.consumers: dict[Hashable, dict[Key, list[str]]] = {}
        self.used: dict[Hashable, dict[Key, Fraction]] = {}
        self.names: dict[Hashable, str] = {}
        slices_by_name = {s.name: s for p in pools for s in p.slices}
        for pos, d in enumerate(devices):
            use = consumption(d)
            self.use.append(use)
            if not use:
                self.scope_of.append(None)
                continue
            pool = pools[pool_of[pos]]
            scope: Hashable
            if self.per_pool:
                scope = ("pool", pool.driver, pool.name)
                if scope not in self.total:
                    self._scope(
                        scope, pool.id, pool.counter_sets, [*pool.devices, *pool.other_devices], allocated
                    )
            else:
                scope = ("slice", d.slice_name)
                if scope not in self.total:
                    s = slices_by_name.get(d.slice_name)
                    sets = {cs.name: cs.counters for cs in s.counter_sets} if s is not None else {}
                    self._scope(scope, f"slice {d.slice_name}", sets, list(s.devices) if s else [], allocated)
            self.scope_of.append(scope)

    def _scope(
        self,
        scope: Hashable,
        name: str,
        sets: dict[str, dict[str, Fraction]],
        devices: list[Device],
        allocated: set,
    ) -> None:
        total = {(cs, c): v for cs, counters in sets.items() for c, v in counters.items()}
        left = dict(total)
        consumers: dict[Key, list[str]] = {}
        for d in devices:
            if d.key not in allocated:
                continue
            for key, value in consumption(d).items():
                if key in left:  # API validation keeps consumption within the sets
                    left[key] -= value
                    consumers.setdefault(key, []).append(d.id)
        self.total[scope], self.left[scope], self.consumers[scope] = total, left, consumers
        self.used[scope] = {}
        self.names[scope] = name

    @property
    def active(self) -> bool:
        return bool(self.total)

    def shortfall(self, pos: int, *, alone: bool = False) -> Shortfall | None:
        """Why the device at `pos` cannot take its counters now (`alone`: with nothing else picked)."""
        scope = self.scope_of[pos]
        if scope is None:
            return None
        use = self.use[pos]
        total, left = self.total[scope], self.left[scope]
        used: dict[Key, Fraction] = {} if alone else self.used[scope]
        # 1.34+: every counter of the scope, so one already over-allocated blocks every consumer
        keys = list(use) if self.version <= 33 else list(use) + sorted(k for k in total if k not in use)
        for key in keys:
            need = use.get(key, Fraction(0))
            if key not in total:
                if self.version <= 33:
                    return Shortfall(self.names[scope], key[0], key[1], need, Fraction(0), None)
                continue  # 1.34+: a consumption outside the sets is never compared
            remaining = left[key] - used.get(key, Fraction(0))
            if remaining < need:
                return Shortfall(
                    self.names[scope],
                    key[0],
                    key[1],
                    need,
                    remaining,
                    total[key],
                    list(self.consumers[scope].get(key, [])),
                )
        return None

    def take(self, pos: int) -> None:
        scope = self.scope_of[pos]
        if scope is None:
            return
        used = self.used[scope]
        for key, value in self.use[pos].items():
            used[key] = used.get(key, Fraction(0)) + value

    def give(self, pos: int) -> None:
        scope = self.scope_of[pos]
        if scope is None:
            return
        used = self.used[scope]
        for key, value in self.use[pos].items():
            used[key] -= value
            if not used[key]:
                del used[key]

    def state(self) -> tuple:
        """The counters consumed in this attempt, for the allocator's memo key."""
        return tuple(sorted((str(scope), tuple(sorted(u.items()))) for scope, u in self.used.items() if u))

    def signature(self, pos: int) -> tuple:
        """What a device consumes and from where, for the allocator's interchangeability test."""
        scope = self.scope_of[pos]
        return () if scope is None else (str(scope), tuple(sorted(self.use[pos].items())))
