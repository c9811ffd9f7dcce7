"""Pool gathering for one node, as `GatherPools` does (dra-facts.md §2.3).

Source semantics: k8s.io/dynamic-resource-allocation `structured/pools.go`
(v0.32) and `structured/internal/*/pools_*.go` (v0.33-v0.35): a slice counts
for a node by nodeName, allNodes or nodeSelector; per (driver, pool) only the
highest generation is kept; a pool is incomplete when it has fewer or more
slices than `resourceSliceCount` and invalid when a device name repeats.

Partitionable devices (DRAPartitionableDevices), `structured/internal/incubating/pools_incubating.go`
at v0.36.2: from 1.35 a pool's counter sets come from its slices that carry `sharedCounters` (in
1.35/1.36 such slices count for every node; v0.37 collects them from all slices of the pool, same
sets), devices of the pool's other slices are kept as `other_devices` (their allocated consumption
counts), and a pool is invalid on a duplicate counter set name or a consumption that names an
unknown counter set or counter. 1.33/1.34 keep counters per slice (allocator.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubectl_rbln.dra.model import Device, Node, ResourceSlice


class PoolError(Exception):
    """A slice whose node selection cannot be evaluated (a fatal allocator error)."""


@dataclass(slots=True)
class Pool:
    driver: str
    name: str
    slices: list[ResourceSlice] = field(default_factory=list)
    incomplete: bool = False
    invalid_reason: str | None = None
    # 1.35+ with DRAPartitionableDevices: counter set -> counter -> total, from the pool's
    # `sharedCounters` slices, and the devices of its slices that do not target the node
    counter_sets: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    other_devices: list[Device] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"

    @property
    def devices(self) -> Iterable[Device]:
        for s in self.slices:
            yield from s.devices


def _requirement_matches(req: dict[str, Any], value: str | None, slice_name: str) -> bool:
    op = req.get("operator", "")
    values = req.get("values") or []
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if value is None or len(values) != 1:
            return False
        try:
            left, right = int(value), int(values[0])
        except ValueError:
            return False
        return left > right if op == "Gt" else left < right
    raise PoolError(
        f"failed to perform node selection for slice {slice_name}: "
        f'"{op}" is not a valid label selector operator'
    )


def node_selector_matches(selector: dict[str, Any], node: Node, slice_name: str = "") -> bool:
    """A core/v1 NodeSelector: terms are ORed, requirements ANDed, an empty term matches nothing."""
    for term in selector.get("nodeSelectorTerms") or []:
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not exprs and not fields:
            continue
        ok = all(_requirement_matches(r, node.labels.get(r.get("key", "")), slice_name) for r in exprs)
        for r in fields if ok else []:
            if r.get("key") != "metadata.name":
                raise PoolError(
                    f'failed to perform node selection for slice {slice_name}: "{r.get("key")}" '
                    "is not a valid field selector key"
                )
            ok = ok and _requirement_matches(r, node.name, slice_name)
        if ok:
            return True
    return False


def slice_targets_node(s: ResourceSlice, node: Node, partitionable: bool) -> bool:
    """Whether a slice's devices can be used on `node` (per-device selection: any device)."""
    if s.per_device_node_selection:
        if not partitionable:
            return False
        return any(d.node_name in (None, node.name) for d in s.devices)
    if s.node_name:
        return s.node_name == node.name
    if s.all_nodes:
        return True
    if s.node_selector is not None:
        return node_selector_matches(s.node_selector, node, s.name)
    return False  # none set: a future node-selection field we do not know


def gather_pools(
    node: Node,
    slices: Iterable[ResourceSlice],
    *,
    version: int,
    partitionable: bool = False,
    totals: dict[tuple[tuple[str, str], int], int] | None = None,
    all_slices: Iterable[ResourceSlice] | None = None,
) -> list[Pool]:
    """The pools visible on `node`, in first-seen slice order (Go's map order is random).

    `totals` (from `slice_totals` over all slices) is used from 1.35 on for completeness;
    `all_slices` (default: `slices`) gives a pool's counter sets and its devices on other nodes.
    """
    slices = list(slices)
    pools: dict[tuple[str, str], Pool] = {}
    generation: dict[tuple[str, str], int] = {}
    for s in slices:
        # DRAPartitionableDevices off: such slices are ignored completely (1.33, 1.35+); 1.34 drops
        # only perDeviceNodeSelection slices (pools_incubating.go v0.34.0)
        if not partitionable and (s.per_device_node_selection or (s.has_counters and version != 34)):
            continue
        # 1.35/1.36: "Always include slices with SharedCounters" (pools_incubating.go v0.35.0, v0.36.2)
        counters_everywhere = partitionable and s.has_counters and version in (35, 36)
        if not counters_everywhere and not slice_targets_node(s, node, partitionable):
            continue
        key = (s.driver, s.pool)
        pool = pools.get(key)
        if pool is None:
            pool = pools[key] = Pool(s.driver, s.pool)
            generation[key] = s.generation
        if s.generation > generation[key]:
            pool.slices = []
            generation[key] = s.generation
        if s.generation == generation[key]:
            pool.slices.append(s)
    if version < 35:
        totals = None  # 1.32-1.34 count only the slices that target the node
    for key, pool in pools.items():
        count = len(pool.slices)
        if totals is not None:
            count = totals.get((key, generation[key]), count)
        pool.incomplete = count != pool.slices[0].resource_slice_count
        names: Sequence[str] | None = _single_typed_names(pool.slices)
        repeated = False
        if names is None:
            names = [name for s in pool.slices for name in s.device_names()]
            repeated = len(set(names)) != len(names)
        if repeated:  # the usual pool has none: the first one is looked for only then
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    pool.invalid_reason = f"duplicate device name {name}"
                    break
                seen.add(name)
        if partitionable and version >= 35 and not pool.incomplete and not pool.invalid_reason:
            _pool_counters(pool, generation[key], slices if all_slices is None else all_slices)
    return list(pools.values())


def _single_typed_names(slices: list[ResourceSlice]) -> tuple[str, ...] | None:
    """The device names of a pool that is one typed slice whose type's names are all distinct (known
    once per type, dra/node_types.py); None: look at the names themselves."""
    if len(slices) != 1:
        return None
    kind = getattr(slices[0], "kind", None)
    if kind is None or not kind.distinct_names:
        return None
    return kind.names


def _pool_counters(pool: Pool, generation: int, all_slices: Iterable[ResourceSlice]) -> None:
    """buildPool's counter part (pools_incubating.go v0.36.2): counter sets of the pool, its devices
    on slices that do not target the node, and the validation that makes the pool invalid."""
    mine = {id(s) for s in pool.slices}
    sets: dict[str, dict[str, Fraction]] = {}
    duplicate = None
    for s in all_slices:
        if (s.driver, s.pool) != (pool.driver, pool.name) or s.generation != generation:
            continue
        for cs in s.counter_sets:
            if cs.name in sets and duplicate is None:
                duplicate = f"duplicate counter set name {cs.name}"
            sets.setdefault(cs.name, dict(cs.counters))
        if id(s) not in mine and not s.has_counters:
            pool.other_devices.extend(s.devices)
    pool.counter_sets = sets
    if duplicate:
        pool.invalid_reason = duplicate
        return
    for d in [*pool.devices, *pool.other_devices]:
        for use in d.consumes_counters:
            known = sets.get(use.name)
            if known is None:
                pool.invalid_reason = f"counter set {use.name} not found"
                return
            for counter in use.counters:
                if counter not in known:
                    pool.invalid_reason = f"counter {counter} not found in counter set {use.name}"
                    return


def slice_totals(all_slices: Iterable[ResourceSlice]) -> dict[tuple[tuple[str, str], int], int]:
    """1.35 re-checks completeness against every slice of the pool, not only the node's."""
    totals: dict[tuple[tuple[str, str], int], int] = {}
    for s in all_slices:
        k = ((s.driver, s.pool), s.generation)
        totals[k] = totals.get(k, 0) + 1
    return totals
