"""A slice's devices read by position, without building a typed slice's (dra/node_types.py).

Why (issue 26): a typed slice holds only where its devices differ from its type's first slice (its
representative); `slice.devices` builds ~13 Devices (and a copy of each one's attributes) per slice.
`check`, `topo` and `attrs` read a few facts of every device (a name, the values of two attributes,
which names it publishes); built for that, every slice of a 20,000-node cluster stayed in memory
(~200 MB). Here a device is its position in a slice: its name and attribute names are its type's,
its values its type's but where the slice holds its own (`TypedSlice.own`), its pool and node the
slice's. Untyped slices are read through their built devices, as before.

Every reader gives what the same question asked of `slice.devices` gives (tests/dra/test_node_types.py
compares the commands' output with types on and off).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from kubectl_rbln.dra.model import Device, ResourceSlice, Snapshot
from kubectl_rbln.dra.node_types import TypedSlice


def is_typed(slice_: ResourceSlice) -> bool:
    """A slice whose devices are read from its type (not built, or built already: either way)."""
    return isinstance(slice_, TypedSlice)


def type_devices(slice_: ResourceSlice) -> list[Device]:
    """Per position, the device of its type's representative (a typed slice), else its own devices.
    A representative's name, driver, attribute names, capacity and flags are the typed device's; its
    pool, slice, node and the values in `own_pairs` are not."""
    if isinstance(slice_, TypedSlice):
        return slice_.kind.devices
    return slice_.devices


def own_pairs(slice_: ResourceSlice, position: int) -> tuple[Any, ...]:
    """(qualified name, value) pairs, flat, where the device at `position` differs from its type's
    representative; () for an untyped slice (its devices are its own)."""
    if isinstance(slice_, TypedSlice):
        return slice_.own_tuples()[position]
    return ()


def own_values(slice_: ResourceSlice) -> tuple[tuple[Any, ...], ...]:
    """`own_pairs` of every position of a typed slice (() for an untyped one)."""
    if isinstance(slice_, TypedSlice):
        return slice_.own_tuples()
    return ()


def value_at(slice_: ResourceSlice, position: int, name: str, default: Any = None) -> Any:
    """`slice_.devices[position].attributes.get(name, default)`, without building the slice."""
    if isinstance(slice_, TypedSlice):
        own = slice_.own_tuples()[position]
        for index in range(0, len(own), 2):
            if own[index] == name:
                return own[index + 1]
        return slice_.kind.devices[position].attributes.get(name, default)
    return slice_.devices[position].attributes.get(name, default)


def attribute_types(slice_: ResourceSlice, position: int) -> tuple[type, ...] | None:
    """The types of the device's attribute values, in its attributes' order, when one of its own values
    has another type than its representative's; None: the representative's types are its own."""
    own = own_pairs(slice_, position)
    if not own:
        return None
    rep = type_devices(slice_)[position].attributes
    if all(type(own[i + 1]) is type(rep[own[i]]) for i in range(0, len(own), 2)):
        return None
    mine = dict(zip(own[::2], own[1::2], strict=True))
    return tuple(type(mine.get(name, value)) for name, value in rep.items())


def stands_in(slice_: ResourceSlice, position: int, names: Iterable[str] | None) -> bool:
    """Whether the type's representative (`type_devices(slice_)[position]`) equals the device at
    `position` in its name, driver, attribute names, capacity, flags and the values of `names` (None:
    every value): a typed slice's device that holds none of those values of its own."""
    if not isinstance(slice_, TypedSlice) or names is None:
        return False
    own = slice_.own_tuples()[position]
    return not own or not set(own[::2]).intersection(names)


def varying_names(slice_: ResourceSlice) -> set[str]:
    """The attribute names whose values differ between slices of its type (none: an untyped slice);
    a name outside it has its representative's value in every slice of the type."""
    if isinstance(slice_, TypedSlice):
        return slice_.kind.varying
    return set()


def materialized(slice_: ResourceSlice) -> ResourceSlice:
    """The slice with its devices: a typed slice not built yet comes as an equal plain slice built
    apart from it (`TypedSlice.kind.build`), so a reader that needs every device of one node at a time
    (`topo`) does not leave every slice of the cluster built; any other slice is itself."""
    if isinstance(slice_, TypedSlice) and not slice_.built:
        values = {name: getattr(slice_, name) for name in _SLICE_FIELDS}  # not `devices`: that builds
        return ResourceSlice(**values, devices=slice_.kind.build(slice_))
    return slice_


_SLICE_FIELDS = tuple(f.name for f in fields(ResourceSlice) if f.name != "devices")


class DeviceLocator:
    """Where each device of a snapshot is: (driver, pool, device) -> its slice and position, as an index
    `{d.key: d for s in snapshot.slices for d in s.devices}` would find it (the last slice that names
    it), without building a typed slice: its names are its type's, one table per type."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
        for slice_ in snapshot.slices:
            self.by_pool.setdefault((slice_.driver, slice_.pool), []).append(slice_)
        self._positions: dict[int, dict[str, int]] = {}
        # a pool of one typed slice (the common case): the slice and its names' positions
        self._single: dict[tuple[str, str], tuple[ResourceSlice, dict[str, int]]] = {
            pool: (slices[0], self.positions(slices[0]))
            for pool, slices in self.by_pool.items()
            if len(slices) == 1 and isinstance(slices[0], TypedSlice)
        }

    def positions(self, slice_: ResourceSlice) -> dict[str, int]:
        """Device name -> its position in the slice (the last of a repeated name)."""
        if isinstance(slice_, TypedSlice):
            found = self._positions.get(slice_.type_id)
            if found is None:
                found = self._positions[slice_.type_id] = {n: p for p, n in enumerate(slice_.kind.names)}
            return found
        return {n: p for p, n in enumerate(slice_.device_names())}

    def single(self, pool: tuple[str, str]) -> tuple[ResourceSlice, dict[str, int]] | None:
        """The slice of a pool of one typed slice and its names' positions (None: another pool), for a
        caller that reads many devices of one pool (`find_in` looks the pool up for each)."""
        return self._single.get(pool)

    def find(self, key: tuple[str, str, str]) -> tuple[ResourceSlice, int] | None:
        """The slice and position of the device `key` names, or None when no slice publishes it."""
        return self.find_in(key[:2], key[2])

    def find_in(self, pool: tuple[str, str], name: str) -> tuple[ResourceSlice, int] | None:
        """`find((driver, pool, name))`, the (driver, pool) given as one tuple (a caller reading many
        devices of one pool builds it once)."""
        single = self._single.get(pool)
        if single is not None:
            at = single[1].get(name)
            return None if at is None else (single[0], at)
        for slice_ in reversed(self.by_pool.get(pool, ())):
            if isinstance(slice_, TypedSlice):
                at = self.positions(slice_).get(name)
                if at is not None:
                    return slice_, at
                continue
            devices = slice_.devices
            for position in range(len(devices) - 1, -1, -1):
                if devices[position].name == name:
                    return slice_, position
        return None


def device_locator(snapshot: Snapshot) -> DeviceLocator:
    """The snapshot's DeviceLocator (built once)."""
    return snapshot.memo("typed-reads-locator", lambda: DeviceLocator(snapshot))
