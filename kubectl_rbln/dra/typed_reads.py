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
        return slice_.own[position]
    return ()


def value_at(slice_: ResourceSlice, position: int, name: str, default: Any = None) -> Any:
    """`slice_.devices[position].attributes.get(name, default)`, without building the slice."""
    if isinstance(slice_, TypedSlice):
        own = slice_.own[position]
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


def device_for(slice_: ResourceSlice, position: int, names: Iterable[str] | None) -> Device:
    """A device equal to `slice_.devices[position]` in its name, driver, attribute names, capacity,
    flags and the values of `names` (None: every value): its type's representative when the device
    holds none of those values of its own, so nothing is built; else the slice's own device."""
    if isinstance(slice_, TypedSlice) and names is not None:
        own = slice_.own[position]
        if not own or not set(own[::2]).intersection(names):
            return slice_.kind.devices[position]
    return slice_.devices[position]


def varying_names(slice_: ResourceSlice) -> set[str]:
    """The attribute names whose values differ between slices of its type (none: an untyped slice);
    a name outside it has its representative's value in every slice of the type."""
    if isinstance(slice_, TypedSlice):
        return slice_.kind.varying
    return set()


def positions(snapshot: Snapshot, slice_: ResourceSlice) -> dict[str, int]:
    """Device name -> its position in the slice (the last of a repeated name, as a dict built over
    `slice_.devices` keeps), one table per slice type."""
    if isinstance(slice_, TypedSlice):
        tables: dict[int, dict[str, int]] = snapshot.memo("typed-reads-positions", dict)
        found = tables.get(slice_.type_id)
        if found is None:
            found = tables[slice_.type_id] = {n: p for p, n in enumerate(slice_.kind.names)}
        return found
    return {n: p for p, n in enumerate(slice_.device_names())}


def slices_by_pool(snapshot: Snapshot) -> dict[tuple[str, str], list[ResourceSlice]]:
    """(driver, pool) -> its slices, in the snapshot's order (built once per snapshot)."""

    def build() -> dict[tuple[str, str], list[ResourceSlice]]:
        out: dict[tuple[str, str], list[ResourceSlice]] = {}
        for slice_ in snapshot.slices:
            out.setdefault((slice_.driver, slice_.pool), []).append(slice_)
        return out

    return snapshot.memo("typed-reads-slices-by-pool", build)


def find_device(snapshot: Snapshot, key: tuple[str, str, str]) -> tuple[ResourceSlice, int] | None:
    """The slice and position of the device `key` (driver, pool, device) names: the one a
    `{d.key: d for s in snapshot.slices for d in s.devices}` index holds (the last slice naming
    it), or None when no slice publishes it."""
    for slice_ in reversed(slices_by_pool(snapshot).get(key[:2], ())):
        if isinstance(slice_, TypedSlice):
            at = positions(snapshot, slice_).get(key[2])
            if at is not None:
                return slice_, at
            continue
        for position in range(len(slice_.devices) - 1, -1, -1):
            if slice_.devices[position].name == key[2]:
                return slice_, position
    return None
