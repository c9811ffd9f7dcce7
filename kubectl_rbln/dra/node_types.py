"""Node types, found while slices are decoded: slices equal but for their node's names share one layout.

Why (issue 26): a 20,000-node cluster is a handful of node types repeated, yet every command built,
normalized and simulated every device of every node (~31 KB and ~0.35 ms a node). Two slices of one
driver whose devices have the same names, the same attribute names in the same order, the same
capacity bytes and nothing else (no taints, binding conditions, counters, per-device nodes) are one
*slice type*; what tells them apart is the values of a few attributes (uuid, serial number, MAC,
address), compared here on the decoded wire structs (dra/wire.py `AttributeWire`) in C, before any
value is normalized.

What it does with a type:
- `typed_devices` builds a typed slice's Devices from its type's first slice (its representative):
  each device's attributes are the representative's, copied, with only the values that differ
  normalized; empty containers are shared (nothing mutates a Device's lists after normalization;
  `apply_taint_rules` assigns a new `rule_taints`).
- It records per type which attribute names ever differed from the representative (`varying`): a
  name the claims, constraints and DeviceClasses read that never varies cannot tell two nodes of the
  type apart, so dra/node_memo.py keys a node by its slices' type ids (and what is held on it),
  without reading each device again.

The tables live for one Snapshot (`SnapshotBuilder.finish` moves them onto it and empties them).
`KUBECTL_RBLN_NODE_TYPES=0` turns types off: tests/dra/test_node_types.py runs every scenario and
docs bundle through why/check/topo/attrs (`-o json` and text) both ways and compares the bytes.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from kubectl_rbln.dra import slice_templates
from kubectl_rbln.dra.interning import _INTERNED_MAX
from kubectl_rbln.dra.model import Device, ResourceSlice, Version
from kubectl_rbln.dra.wire import DeviceWire

ENV = "KUBECTL_RBLN_NODE_TYPES"
DERIVED_KEY = "node-types"  # where a Snapshot keeps its NodeTypes (`Snapshot.derived`)


def enabled() -> bool:
    """Types are on unless `KUBECTL_RBLN_NODE_TYPES=0` (the comparison's switch); read once per
    Snapshot (`finish` forgets it), not once per slice."""
    found = _ENABLED.get("on")
    if found is None:
        found = _ENABLED["on"] = os.environ.get(ENV, "1") != "0"
    return found


_ENABLED: dict[str, bool] = {}


def switch_read_again() -> None:
    """A new Snapshot reads the switch again (a test sets it between two reads)."""
    _ENABLED.clear()


@dataclass(slots=True)
class SliceType:
    """One layout of a slice's devices, the first slice decoded with it, and what varied since."""

    id: int
    driver: str
    wire_values: list[tuple[Any, ...]]  # per device: its AttributeWire values, in order
    devices: list[Any]  # the representative's Devices (dra.model.Device)
    keys: list[tuple[str, ...]]  # per device: its attribute names as published
    varying: set[str] = field(default_factory=set)  # qualified names that differed in some slice
    # per device: the positions among its values that differed in some slice
    positions: list[tuple[int, ...]] = field(default_factory=list)
    slices: int = 1
    names: tuple[str, ...] = ()  # its devices' names
    distinct_names: bool = False  # no name twice (a pool of one such slice has no duplicate)
    # the representative's devices text (a `-f` file's), cut at `positions` into a pattern that reads
    # a slice of the type from its bytes (dra/slice_templates.py); remade when `positions` grow
    text: bytes = b""
    pattern: Any = None
    learned: int = 0  # how often `positions` grew
    made_at: int = -1  # `learned` when `pattern` was made
    makes: int = 0

    def build(self, typed: TypedSlice) -> list[Device]:
        """A typed slice's devices: the representative's, in the slice's names, with its own values."""
        out: list[Device] = []
        empty = _SHARED_EMPTY
        pool, slice_name, node, driver = typed.pool, typed.name, typed.node_name, typed.driver
        owns: Any = typed.own
        if owns.__class__ is HoleText:
            owns = owns.pairs()
        for rep, own in zip(self.devices, owns, strict=True):
            attributes = rep.attributes
            if own:
                attributes = attributes.copy()
                attributes.update(zip(own[::2], own[1::2], strict=True))
            out.append(
                Device(
                    rep.name,
                    driver,
                    pool,
                    slice_name,
                    node,
                    attributes,
                    rep.capacity,
                    empty,
                    empty,
                    empty,
                    empty,
                    False,
                    False,
                    rep.request_policies,
                    empty,
                    empty,
                )
            )
        return out


class HoleText(NamedTuple):
    """A typed slice's own values as read from its devices text (dra/slice_templates.py): every hole's
    value text, NUL-joined, and per device its holes (qualified name, form, index): one string a slice
    until its devices are built, not a tuple of values per device."""

    plan: tuple[tuple[tuple[str, str, int], ...], ...]
    text: str

    def pairs(self) -> list[tuple[Any, ...]]:
        """Per device, the (qualified name, value) pairs, flat, as `TypedSlice.own` holds them."""
        texts = self.text.split("\x00")
        out: list[tuple[Any, ...]] = []
        for holes in self.plan:
            pairs: list[Any] = []
            for qualified, form, index in holes:
                text = texts[index]
                if form == "string":
                    pairs += (qualified, text)
                elif form == "int":
                    pairs += (qualified, int(text))
                elif form == "bool":
                    pairs += (qualified, text == "true")
                else:
                    pairs += (qualified, Version(text))
            out.append(tuple(pairs))
        return out


_DEVICES = ResourceSlice.__dict__["devices"]  # the slot a built slice keeps its devices in
_COMPARED = tuple(f.name for f in fields(ResourceSlice) if f.compare)
UNBUILT: list[Any] = []  # the `devices` a TypedSlice is made with: built when first read
_SHARED_EMPTY: list[Any] = []  # the empty lists of typed devices: never mutated


class TypedSlice(ResourceSlice):
    """A slice of a known type whose devices are built only when something reads them: until then it
    holds, per device, the (qualified name, value) pairs where it differs from its type's
    representative (`own`), or its hole values' text (`HoleText`, a slice read from its bytes).
    Equal to the ResourceSlice it stands for; `device_names` and `any_devices` answer from the type."""

    __slots__ = ("kind", "own")
    kind: SliceType
    own: tuple[tuple[Any, ...], ...] | HoleText

    @property
    def devices(self) -> list[Device]:
        try:
            return _DEVICES.__get__(self, TypedSlice)
        except AttributeError:
            pass
        built = self.kind.build(self)
        _DEVICES.__set__(self, built)
        return built

    @devices.setter
    def devices(self, value: list[Device]) -> None:
        if value is not UNBUILT:
            _DEVICES.__set__(self, value)

    @property
    def built(self) -> bool:
        try:
            _DEVICES.__get__(self, TypedSlice)
        except AttributeError:
            return False
        return True

    def own_tuples(self) -> tuple[tuple[Any, ...], ...]:
        """`own` as (qualified name, value) pairs per device: a slice read from its bytes keeps them
        as one text until a reader (check, attrs, topo) asks, then as pairs."""
        own = self.own
        if own.__class__ is HoleText:
            own = self.own = tuple(own.pairs())
        return own  # type: ignore[return-value]

    def any_devices(self) -> bool:
        return bool(self.kind.names)

    def device_names(self) -> list[str]:
        return list(self.kind.names)

    @property
    def devices_plain(self) -> bool:
        return True  # its layout has none of those fields (`layout_of`)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceSlice):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _COMPARED)

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class NodeTypes:
    """What the decoding found: slice types by id (a Snapshot's `node_types`)."""

    types: dict[int, SliceType] = field(default_factory=dict)

    def varying(self) -> dict[int, frozenset[str]]:
        return {i: frozenset(t.varying) for i, t in self.types.items()}


# layout -> its type, for the Snapshot being built (SnapshotBuilder.finish empties it); live reads
# normalize pages in threads, so a type is made under a lock (its id must be its own)
_TYPES: dict[tuple[Any, ...], SliceType] = {}
_MADE = threading.Lock()
# driver -> its types that keep their representative's devices text (a `-f` file's), for `match`
_WITH_TEXT: dict[str, list[SliceType]] = {}
_TEXTS_MAX = 512  # types that keep a text, per Snapshot
_MAKES_MAX = 16  # a type's pattern is made again as its positions grow, at most this often


def layout_of(driver: str, devices: list[Any]) -> tuple[Any, ...] | None:
    """A slice's layout (driver, per device: name, attribute names, capacity bytes), or None when a
    device carries anything a layout does not cover (it is then built as before)."""
    parts: list[tuple[Any, ...]] = [(driver,)]
    for d in devices:
        if (
            type(d) is not DeviceWire
            or d.basic is not None
            or d.taints is not None
            or d.bindingConditions is not None
            or d.bindingFailureConditions is not None
            or d.bindsToNode is not None
            or d.allowMultipleAllocations is not None
            or d.consumesCounters is not None
            or d.nodeName is not None
            or not isinstance(d.name, str)
        ):
            return None
        attributes = d.attributes
        parts.append((d.name, tuple(attributes) if attributes else (), bytes(d.capacity)))
    return tuple(parts)


def type_for(layout: tuple[Any, ...]) -> SliceType | None:
    """The type of a layout seen before (None: the slice is the first of its layout)."""
    found = _TYPES.get(layout)
    if found is not None:
        found.slices += 1
    return found


def remember(
    layout: tuple[Any, ...], driver: str, devices: list[Any], built: list[Any], text: bytes = b""
) -> SliceType | None:
    """The first slice of a layout becomes its type's representative (while the table has room);
    `text`, its devices' JSON text when it was read from a file, lets later slices be matched on theirs."""
    if any(d.bad_attributes for d in built):  # a bad value moves the others in `bad`'s order: not typed
        return None
    with _MADE:
        if len(_TYPES) >= _INTERNED_MAX or layout in _TYPES:
            return None
        kind = SliceType(
            len(_TYPES),
            driver,
            [tuple(d.attributes.values()) if d.attributes else () for d in devices],
            built,
            [tuple(d.attributes) if d.attributes else () for d in devices],
            positions=[() for _ in devices],
            names=tuple(d.name for d in built),
        )
        kind.distinct_names = len(set(kind.names)) == len(kind.names)
        _TYPES[layout] = kind
        if text and len(text) <= slice_templates.TEXT_MAX and sum(map(len, _WITH_TEXT.values())) < _TEXTS_MAX:
            kind.text = text
            _WITH_TEXT.setdefault(driver, []).append(kind)
    return kind


def patterned() -> list[SliceType]:
    """The types whose pattern is made for their positions as they stand (`match` remakes the others)."""
    return [
        k for kinds in _WITH_TEXT.values() for k in kinds if k.pattern is not None and k.made_at == k.learned
    ]


def match(driver: str, text: bytes) -> tuple[SliceType, Any, str] | None:
    """The type of `driver` whose pattern a slice's devices text matches, with the pattern and its hole
    values (dra/slice_templates.py); None: decode the devices."""
    for kind in _WITH_TEXT.get(driver, ()):
        pattern = kind.pattern
        if kind.made_at != kind.learned:
            if kind.makes >= _MAKES_MAX:
                continue
            kind.makes += 1
            kind.made_at = kind.learned
            pattern = kind.pattern = slice_templates.make(kind.text, kind.positions)
        if pattern is None:
            continue
        values = slice_templates.values_of(pattern, text)
        if values is not None:
            return kind, pattern, values
    return None


def finish() -> NodeTypes:
    """The types found, for the Snapshot; the table is emptied for the next one."""
    found = NodeTypes({t.id: t for t in _TYPES.values()})
    for kind in _TYPES.values():
        kind.text, kind.pattern = b"", None  # read from files only while the Snapshot is built
    _TYPES.clear()
    _WITH_TEXT.clear()
    _ENABLED.clear()
    return found
