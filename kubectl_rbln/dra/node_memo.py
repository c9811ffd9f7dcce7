"""One allocator run per kind of node: nodes that differ only by their names share the answer.

Why: a 5,000-node cluster is a few node types repeated. On two nodes whose devices have the same
names, drivers, allocation state and the same values of every attribute and capacity the claims'
selectors and constraints read, the allocator (dra/allocator.py) takes the same steps and reaches
the same result; only the pool names in it differ (`why` at 5,000 nodes spent 0.5 s simulating
every node, issue 16). `simulate_cluster` asks `NodeMemo` before running `allocate`: a node whose
signature was seen gets the first node's result with its own pool names, device ids and node
selectors.

What keeps the answer identical: a node is only shared when nothing node-specific can reach the
result. Every slice of its pools is its own (`nodeName`), no pool is incomplete or invalid, and no
device has taints, binding conditions, counters, a capacity policy, shares or capacity in use;
a selector whose references are not known statically turns the memo off. Only results whose
words carry no name but device ids and pools are reused (fits, and the failure kinds in
`REUSABLE`); an allocator error is never shared. tests/dra/test_node_memo.py compares every
scenario and a generated cluster with and without the memo.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.explain import Failure
from kubectl_rbln.dra.model import AllocationResult, ClaimSpec, Device, DeviceClass, ResourceSlice

# failure kinds whose texts and fields name no pool, slice or node, except device ids (renamed)
REUSABLE = frozenset(
    {"selector", "exhausted", "constraint", "no-devices", "no-solution", "search-capped", "proven-impossible"}
)


_POSITIONS_MAX = 1 << 14


@dataclasses.dataclass(slots=True)
class _Seen:
    """The first node of a signature: its result, and where its device names sit among its devices."""

    result: Any  # allocator.NodeResult
    cap: int  # the step cap it ran with
    capped: bool  # it stopped at that cap
    picked: dict[str, list[int]]  # claim -> positions of the devices allocated
    holders: list[int]  # positions of failure.holders
    lacking: list[int]  # positions of failure.lacking


class NodeMemo:
    """Signatures of nodes already simulated for one set of claims, classes and gates."""

    def __init__(
        self,
        specs: list[ClaimSpec],
        classes: dict[str, DeviceClass],
        consumable: bool,
        allocated: set[tuple[str, str, str]],
        in_use: dict[tuple[str, str, str], Any] | None,
        types: dict[int, frozenset[str]] | None = None,
        by_pool: dict[tuple[str, str], set[str]] | None = None,
    ) -> None:
        self.allocated = allocated
        self.in_use = in_use or {}
        self.seen: dict[tuple, _Seen] = {}
        self.hits = 0
        # node -> the result its own was made from: what is said of a node from its result alone
        # (simulation.py's nodes[] rows) is said once per shared result
        self.shared_with: dict[str, Any] = {}
        self.enabled, self.names, self.capacities, self.own_keys = _plan(specs, classes, consumable)
        # slice type id -> the names read that vary among its slices (dra/node_types.py); None: every
        # node's devices are read one by one
        self.read_varying: dict[int, tuple[str, ...]] | None = None
        self.held: dict[tuple[str, str], frozenset[str]] = {}
        # (a pool's slice type ids, the names held in it) -> the positions held among its devices: the
        # nodes of one type with the same devices held read it once, not device by device
        self._positions: dict[tuple[tuple[int, ...], frozenset[str]], tuple[int, ...]] = {}
        if types is not None and not self.in_use and not self.own_keys:
            read = set(self.names)
            self.read_varying = {i: tuple(sorted(v & read)) for i, v in types.items()}
            held = by_pool  # `allocated` per (driver, pool), when the caller gathered it so
            if held is None:
                held = {}
                for driver, pool, device in allocated:
                    names = held.get((driver, pool))
                    if names is None:
                        held[driver, pool] = {device}
                    else:
                        names.add(device)
            shared: dict[frozenset[str], frozenset[str]] = {}  # one frozenset per distinct set of names
            for key, names in held.items():
                frozen = frozenset(names)
                self.held[key] = shared.setdefault(frozen, frozen)

    def signature(self, node: str, pools: list[Any]) -> tuple | None:
        """What the allocator's answer on this node depends on, names of pools aside; None: not shared."""
        if not self.enabled:
            return None
        if self.read_varying is not None:
            typed = self._typed(node, pools)
            if typed is not None:
                return typed
        parts: list[tuple] = []
        for pool in pools:
            if pool.incomplete or pool.invalid_reason or pool.counter_sets or pool.other_devices:
                return None
            sizes = []
            for s in pool.slices:
                if s.node_name != node or s.per_device_node_selection or s.has_counters:
                    return None
                sizes.append(len(s.devices))
            devices = []
            for s in pool.slices:
                for d in s.devices:
                    key = self._device(d)
                    if key is None:
                        return None
                    devices.append(key)
            parts.append((pool.driver, tuple(sizes), tuple(devices)))
        return tuple(parts)

    def _typed(self, node: str, pools: list[Any]) -> tuple | None:
        """The signature of a node whose slices all have a type: their type ids, which devices are
        held, and the values of the names read that vary in the type. Equal typed signatures mean
        equal signatures device by device (a type fixes names, drivers, capacities, value types and
        every value outside `varying`; typed devices carry no taints, bindings, counters or bad
        attributes), without reading every device; None: read them one by one."""
        assert self.read_varying is not None
        parts: list[Any] = ["typed"]
        for pool in pools:
            if pool.incomplete or pool.invalid_reason or pool.counter_sets or pool.other_devices:
                return None
            ids = []
            values: list[Any] = []
            for s in pool.slices:
                read = self.read_varying.get(s.type_id) if s.node_name == node else None
                if read is None:
                    return None
                ids.append(s.type_id)
                if read:
                    for d in s.devices:
                        found = tuple(map(d.attributes.get, read))
                        values.append((found, tuple(map(type, found))))
            held = self.held.get((pool.driver, pool.name))
            positions: tuple[int, ...] = ()
            if held:
                kinds = tuple(ids)
                spots = self._positions.get((kinds, held))
                if spots is None:
                    names = [name for s in pool.slices for name in s.device_names()]
                    spots = tuple(p for p, name in enumerate(names) if name in held)
                    if len(self._positions) < _POSITIONS_MAX:
                        self._positions[kinds, held] = spots
                positions = spots
            parts.append((pool.driver, tuple(ids), positions, tuple(values)))
        return tuple(parts)

    def _device(self, d: Device) -> tuple | None:
        if (
            d.taints
            or d.rule_taints
            or d.binding_conditions
            or d.binding_failure_conditions
            or d.binds_to_node
            or d.allow_multiple_allocations
            or d.request_policies
            or d.consumes_counters
        ):
            return None
        key = (d.driver, d.pool, d.name)
        if self.in_use and key in self.in_use:
            return None
        # attribute values are never None (normalize drops them), so None reads as absent
        values = tuple(map(d.attributes.get, self.names))
        caps = d.capacity
        return (
            d.name,
            d.driver,
            key in self.allocated,
            tuple(d.bad_attributes) if d.bad_attributes else (),
            values,
            tuple(map(type, values)),
            tuple(sorted(caps.items())) if caps else (),
            tuple([sel.key_of(d) for sel in self.own_keys]) if self.own_keys else (),
        )

    def reuse(
        self,
        signature: tuple,
        node: str,
        pools: list[Any],
        cap: int,
        node_selector: Callable[[list[ResourceSlice | None], str], dict | None],
    ) -> Any:
        """The result of a node seen with this signature, in this node's names; None: run the allocator."""
        seen = self.seen.get(signature)
        if seen is None:
            return None
        result = seen.result
        if (seen.capped and cap != seen.cap) or (not seen.capped and result.steps > cap):
            return None  # another step budget could end the search elsewhere
        results: dict[str, list[AllocationResult]] = {}
        selectors: dict[str, dict | None] = {}
        failure = result.failure
        # (driver, pool, device, slice) of the node's devices, in order, from the slices' names: a
        # typed slice (dra/node_types.py) names its devices without building them
        devices: list[tuple[str, str, str, ResourceSlice]]
        if not result.fits and not seen.holders and not seen.lacking:
            devices = []  # nothing to rename: no need to list the node's devices
        else:
            slices = [s for pool in pools for s in pool.slices]
            devices = [(s.driver, s.pool, name, s) for s in slices for name in s.device_names()]
        if result.fits:
            for claim, entries in result.results.items():
                picked = [devices[p] for p in seen.picked[claim]]
                results[claim] = [
                    dataclasses.replace(e, pool=pool_name, device=name, driver=driver)
                    for e, (driver, pool_name, name, _) in zip(entries, picked, strict=True)
                ]
                selectors[claim] = node_selector([d[3] for d in picked], node)
        if failure is not None:
            failure = _copy_failure(failure)
            failure.holders = ["/".join(devices[p][:3]) for p in seen.holders]
            failure.lacking = ["/".join(devices[p][:3]) for p in seen.lacking]
        self.hits += 1
        self.shared_with[node] = result
        return type(result)(
            node, result.fits, results, selectors, None, failure, dict(result.candidates), result.steps
        )

    def keep(self, signature: tuple, result: Any, pools: list[Any], cap: int) -> None:
        """Remember a node's result when other nodes of its signature may share it."""
        if result.error is not None or signature in self.seen:
            return
        failure = result.failure
        if failure is not None and failure.kind not in REUSABLE:
            return
        if not result.fits and failure is None:
            return
        devices = [d for pool in pools for d in pool.devices]
        position = {d.id: p for p, d in enumerate(devices)}
        at_key = {d.key: p for p, d in enumerate(devices)}
        try:
            picked = {claim: [at_key[e.key] for e in entries] for claim, entries in result.results.items()}
            holders = [position[h] for h in failure.holders] if failure is not None else []
            lacking = [position[x] for x in failure.lacking] if failure is not None else []
        except KeyError:
            return  # a name from outside the node's pools: not this node's alone
        capped = failure is not None and failure.kind == "search-capped"
        self.seen[signature] = _Seen(result, cap, capped, picked, holders, lacking)


_FAILURE_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(Failure)))


def _copy_failure(failure: Failure) -> Failure:
    """A shallow copy (copy.copy took five times as long: thousands of nodes fail alike)."""
    return Failure(*_FAILURE_FIELDS(failure))


def _plan(
    specs: list[ClaimSpec], classes: dict[str, DeviceClass], consumable: bool
) -> tuple[bool, tuple[str, ...], tuple[str, ...], list[Any]]:
    """(enabled, attribute names, capacity names, selectors keyed on their own) the claims can read."""
    names: set[str] = set()
    capacities: set[str] = set()
    own: list[Any] = []
    for spec in specs:
        for constraint in spec.constraints:
            names.update(a for a in (constraint.match_attribute, constraint.distinct_attribute) if a)
        for request in spec.requests:
            for alt in request.alternatives:
                cls = classes.get(alt.device_class)
                for expr in [*(cls.selectors if cls is not None else ()), *alt.selectors]:
                    if not expr:
                        continue
                    try:
                        selector = compile_selector(expr, consumable_capacity=consumable)
                    except CelError:
                        continue  # the same compile error on every node
                    if not selector.references.complete:
                        return False, (), (), []
                    names.update(selector.attribute_names)
                    capacities.update(selector.capacity_names)
                    if selector.keys_more and selector not in own:
                        own.append(selector)
    return True, tuple(sorted(names)), tuple(sorted(capacities)), own
