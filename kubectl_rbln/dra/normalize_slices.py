"""ResourceSlices and their devices, DeviceClasses and DeviceTaintRules -> model objects.

v1beta1 devices nest attributes under `basic`; v1beta2/v1 are flat. Some doc samples say
`apiVersion: v1` and still nest under `basic`: accept both everywhere (dra-facts.md section 4).
A decoded `DeviceWire` (dra/wire.py) normalizes to the same Device as the plain dict, sharing
attribute texts and capacities across devices.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from kubectl_rbln.dra import node_types, slice_templates
from kubectl_rbln.dra.fields import _d, _i, _l, _s
from kubectl_rbln.dra.interning import _INTERNED_MAX
from kubectl_rbln.dra.model import (
    AttrValue,
    Device,
    DeviceClass,
    DeviceTaintRule,
    RequestPolicy,
    ResourceSlice,
    Version,
)
from kubectl_rbln.dra.values import (
    _QUALIFIED_MAX,
    _quantity_text,
    counter_sets,
    qualify,
    request_policy,
    typed_value,
)
from kubectl_rbln.dra.wire import DeviceWire


def normalize_device(raw: Any, driver: str, pool: str, slice_name: str, node: str | None) -> Device:
    if isinstance(raw, DeviceWire):
        if isinstance(raw.basic, dict) and raw.basic:  # v1beta1: only `name` and `basic` are read
            raw = {"name": raw.name, "basic": raw.basic}
        else:
            return _device_from_wire(raw, driver, pool, slice_name, node)
    raw = _d(raw)
    body = _d(raw.get("basic")) or raw  # v1beta1 nests under `basic`
    attributes: dict[str, AttrValue] = {}
    bad: list[str] = []
    for name, entry in _d(body.get("attributes")).items():
        value = typed_value(entry)
        if value is None:
            bad.append(qualify(str(name), driver))
        else:
            attributes[qualify(str(name), driver)] = value
    capacity = {
        qualify(str(name), driver): text
        for name, entry in _d(body.get("capacity")).items()
        if (text := _quantity_text(entry)) is not None
    }
    policies = {
        qualify(str(name), driver): policy
        for name, entry in _d(body.get("capacity")).items()
        if (policy := request_policy(entry)) is not None
    }
    device_node = body.get("nodeName")
    return Device(
        name=_s(raw.get("name")),
        driver=driver,
        pool=pool,
        slice_name=slice_name,
        node_name=device_node if isinstance(device_node, str) and device_node else node,
        attributes=attributes,
        capacity=capacity,
        taints=[t for t in _l(body.get("taints")) if isinstance(t, dict)],
        binding_conditions=[str(c) for c in _l(body.get("bindingConditions"))],
        binding_failure_conditions=[str(c) for c in _l(body.get("bindingFailureConditions"))],
        binds_to_node=body.get("bindsToNode") is True,
        allow_multiple_allocations=body.get("allowMultipleAllocations") is True,
        request_policies=policies,
        bad_attributes=bad,
        consumes_counters=counter_sets(body.get("consumesCounters"), "counterSet"),
    )


# driver -> attribute name as published -> (its qualified name, its texts). A name's texts repeat across
# devices (versions, product names, PCI roots): one string each, not one per device. Kept per name, a
# table stays small (and in the CPU's cache) however many devices there are, and a name whose texts
# are all distinct (serials, UUIDs, MACs) stops collecting them at `_TEXTS_PER_NAME`. Bounded against
# hostile input, which only misses; `SnapshotBuilder.finish` empties it (the Snapshot keeps what it
# uses).
_SHARED_VALUES: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}
_SHARED_MAX = 1 << 18  # texts held in all
_TEXTS_PER_NAME = 256
_DRIVERS_MAX = 256
_held = 0


def _attribute_name(
    names: dict[str, tuple[str, dict[str, str]]], name: str, driver: str
) -> tuple[str, dict[str, str]]:
    """A published name's entry of `_SHARED_VALUES`, made at its first sight."""
    entry: tuple[str, dict[str, str]] = (qualify(name, driver), {})
    if len(names) < _QUALIFIED_MAX:
        names[name] = entry
    return entry


def _driver_names(driver: str) -> dict[str, tuple[str, dict[str, str]]]:
    """A driver's entry of `_SHARED_VALUES`, made at its first sight (after `finish` emptied it, the
    count of texts held starts again)."""
    global _held  # noqa: PLW0603 - a count kept beside the tables, to bound them all at once
    names: dict[str, tuple[str, dict[str, str]]] = {}
    if not _SHARED_VALUES:
        _held = 0
    if len(_SHARED_VALUES) < _DRIVERS_MAX:
        _SHARED_VALUES[driver] = names
    return names


def _share(texts: dict[str, str], text: str) -> str:
    """`text` from now on shared by the devices that publish it under the same name (while room)."""
    global _held  # noqa: PLW0603 - a count kept beside the tables, to bound them all at once
    if len(texts) < _TEXTS_PER_NAME and _held < _SHARED_MAX and text not in texts:  # "" is falsy: held
        texts[text] = text
        _held += 1
    return text


def _device_from_wire(raw: DeviceWire, driver: str, pool: str, slice_name: str, node: str | None) -> Device:
    """`normalize_device` of a decoded `DeviceWire`: the same Device, without a dict per attribute."""
    attributes: dict[str, AttrValue] = {}
    bad: list[str] = []
    if raw.attributes:
        names = _SHARED_VALUES.get(driver)
        if names is None:
            names = _driver_names(driver)
        for name, entry in raw.attributes.items():
            try:
                qualified, texts = names[name]
            except KeyError:
                qualified, texts = _attribute_name(names, name, driver)
            string = entry.string
            if string is not None:
                if entry.int_ is None and entry.bool_ is None and entry.version is None:
                    attributes[qualified] = texts.get(string) or _share(texts, string)
                    continue
            else:
                number, flag, version = entry.int_, entry.bool_, entry.version
                if number is not None:
                    if flag is None and version is None:
                        attributes[qualified] = number
                        continue
                elif flag is not None:
                    if version is None:
                        attributes[qualified] = flag
                        continue
                elif version is not None:
                    attributes[qualified] = Version(version)
                    continue
            bad.append(qualified)
    capacity, policies = _capacity_of(raw.capacity, driver) if raw.capacity else _NO_CAPACITY
    device_node = raw.nodeName
    # positional, in the order of Device's fields (a third cheaper than by keyword, 65,000 times); the
    # wire-vs-plain tests (tests/unit/cluster/test_wire_read.py) compare every field of every device
    return Device(
        _s(raw.name),
        driver,
        pool,
        slice_name,
        device_node if isinstance(device_node, str) and device_node else node,
        attributes,
        capacity,
        [t for t in raw.taints if isinstance(t, dict)] if isinstance(raw.taints, list) else [],
        [],
        [str(c) for c in _l(raw.bindingConditions)] if raw.bindingConditions else [],
        [str(c) for c in _l(raw.bindingFailureConditions)] if raw.bindingFailureConditions else [],
        raw.bindsToNode is True,
        raw.allowMultipleAllocations is True,
        policies,
        bad,
        counter_sets(raw.consumesCounters, "counterSet") if raw.consumesCounters else [],
    )


# capacity text -> its quantities and request policies, per driver (dra/interning.py)
_CAPACITIES: dict[tuple[str, bytes], tuple[dict[str, str], dict[str, RequestPolicy]]] = {}
_NO_CAPACITY: tuple[dict[str, str], dict[str, RequestPolicy]] = ({}, {})


def _capacity_of(raw: msgspec.Raw, driver: str) -> tuple[dict[str, str], dict[str, RequestPolicy]]:
    """A device's `capacity` (its JSON text) -> (quantities, request policies), qualified names; shared
    by every device of the driver that publishes the same text."""
    key = (driver, bytes(raw))
    found = _CAPACITIES.get(key)
    if found is None:
        body = _d(msgspec.json.decode(raw))
        found = (
            {
                qualify(str(name), driver): text
                for name, entry in body.items()
                if (text := _quantity_text(entry)) is not None
            },
            {
                qualify(str(name), driver): policy
                for name, entry in body.items()
                if (policy := request_policy(entry)) is not None
            },
        )
        if len(_CAPACITIES) < _INTERNED_MAX:
            _CAPACITIES[key] = found
    return found


class Matched(NamedTuple):
    """A `-f` slice whose devices text matched its type's pattern: its type and its hole values, in
    place of its devices (`slice_devices_of`)."""

    kind: node_types.SliceType
    own: node_types.HoleText


_DEVICES_WIRE = msgspec.json.Decoder(list[DeviceWire])
_TEXT = "kubectl-rbln/devices-text"  # where a `-f` slice keeps its devices' text for `remember`


def _typed_spec(spec: dict[str, Any]) -> bool:
    """A slice spec that may have a type (`normalize_slice`'s test, before its devices are read)."""
    node_name = spec.get("nodeName")
    return (
        isinstance(node_name, str)
        and bool(node_name)
        and not spec.get("sharedCounters")
        and spec.get("perDeviceNodeSelection") is not True
        and node_types.enabled()
    )


def slice_devices_of(spec: dict[str, Any]) -> None:
    """A `-f` slice's devices, read from their JSON text (dra/wire.py SliceFileSpecWire): its type and
    own values when the text matches the pattern of a type of its driver (dra/slice_templates.py),
    else the devices decoded into their wire shape, the text kept beside them for `remember`. Raises
    msgspec.ValidationError when they do not fit it (the caller reads the slice the plain way)."""
    raw = spec.get("devices")
    if raw.__class__ is not msgspec.Raw:
        return
    text = bytes(raw)
    driver = spec.get("driver")
    if isinstance(driver, str) and text[:1] == b"[" and _typed_spec(spec):
        found = node_types.match(driver, text)
        if found is not None:
            kind, pattern, values = found
            if not pattern.plan:
                pattern.plan.append(_hole_plan(kind, pattern, driver))
            spec["devices"] = Matched(kind, node_types.HoleText(pattern.plan[0], values))
            return
    try:
        spec["devices"] = _DEVICES_WIRE.decode(text)
    except msgspec.DecodeError as exc:  # not JSON: cannot be, as the slice decoded, but read it plainly
        raise msgspec.ValidationError(str(exc)) from None
    spec[_TEXT] = text


def slice_from_text(text: bytes, decode: Any) -> dict[str, Any] | None:
    """A `-f` slice whose devices text, where it lies in the slice's text, matches the pattern of a
    type (dra/slice_templates.py): the slice decoded (`decode`, its wire shape) with `[]` in place of its
    devices, which are then its type and own values; None: decode it whole. Why: decoding a slice only
    to skip its 5 KB of devices was most of its cost (issue 26).

    Sound: the devices text is one whole JSON array (it matched a pattern); put in place of `[]` where
    the slice holds only that one "devices" text and decodes with exactly `[]` as its spec's devices, it
    is the value of that key, so the slice reads as its whole text would."""
    at = text.find(b'"devices":[')
    if at < 0 or not node_types.enabled():
        return None
    start = at + len(b'"devices":')
    end = text.rfind(b',"driver":', start)  # keys sorted (dump, bench/gen): the spec's driver follows

    if end < 0 or text[end - 1 : end] != b"]":
        return None
    length = end - start
    devices = text[start:end]  # a copy compares faster than a memoryview, measured
    for kind in node_types.patterned():
        pattern = kind.pattern
        if length in pattern.cut.layouts:
            values = slice_templates.values_of(pattern, devices)
            if values is None:
                continue
            rest = text[:start] + b"[]" + text[end:]
            if rest.count(b'"devices"') != 1:
                return None
            try:
                obj = decode(rest)
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                return None
            spec = obj.get("spec")
            if (
                obj.get("kind") != "ResourceSlice"
                or spec.__class__ is not dict
                or spec.get("devices") != _EMPTY_LIST
                or spec.get("driver") != kind.driver
                or not _typed_spec(spec)
            ):
                return None
            if not pattern.plan:
                pattern.plan.append(_hole_plan(kind, pattern, kind.driver))
            spec["devices"] = Matched(kind, node_types.HoleText(pattern.plan[0], values))
            return obj
    return None


_EMPTY_LIST = msgspec.Raw(b"[]")


def _hole_plan(
    kind: node_types.SliceType, pattern: slice_templates.Pattern, driver: str
) -> tuple[tuple[tuple[str, str, int], ...], ...]:
    """Per device of the type, its holes in `pattern`: (qualified name, form, index among the holes)."""
    names = _SHARED_VALUES.get(driver)
    if names is None:
        names = _driver_names(driver)
    per_device: list[list[tuple[str, str, int]]] = [[] for _ in kind.keys]
    for index, hole in enumerate(pattern.holes):
        key = kind.keys[hole.device][hole.position]
        try:
            qualified = names[key][0]
        except KeyError:
            qualified = _attribute_name(names, key, driver)[0]
        per_device[hole.device].append((qualified, hole.kind, index))
    return tuple(map(tuple, per_device))


def normalize_slice(obj: dict[str, Any]) -> ResourceSlice:
    spec = _d(obj.get("spec"))
    meta = _d(obj.get("metadata"))
    driver = _s(spec.get("driver"))
    pool = _d(spec.get("pool"))
    pool_name = _s(pool.get("name"))
    node_name = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) else None
    name = _s(meta.get("name"))
    wires = spec.get("devices")
    if wires.__class__ is Matched:  # a `-f` slice read from its text (`slice_devices_of`)
        kind = wires.kind
        kind.slices += 1
        read = node_types.TypedSlice(
            *_slice_head(name, driver, pool_name, pool, node_name, spec),
            node_types.UNBUILT,
            [],
            _s(obj.get("apiVersion")),
            [],
            kind.id,
        )
        read.kind = kind
        read.own = wires.own
        return read
    if (
        node_name
        and type(wires) is list
        and wires
        and not spec.get("sharedCounters")
        and spec.get("perDeviceNodeSelection") is not True
        and node_types.enabled()
    ):
        layout = node_types.layout_of(driver, wires)
        if layout is not None:
            typed = _typed_slice(obj, spec, layout, driver, pool, pool_name, name, node_name)
            if typed is not None:
                return typed
    return ResourceSlice(
        name=name,
        driver=driver,
        pool=pool_name,
        generation=_i(pool.get("generation")),
        resource_slice_count=_i(pool.get("resourceSliceCount"), 1),
        node_name=node_name or None,
        all_nodes=spec.get("allNodes") is True,
        node_selector=spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), dict) else None,
        per_device_node_selection=spec.get("perDeviceNodeSelection") is True,
        devices=[
            _device_from_wire(d, driver, pool_name, name, node_name)
            if type(d) is DeviceWire and d.basic is None  # else `normalize_device` tells v1beta1's
            else normalize_device(d, driver, pool_name, name, node_name)
            for d in _l(spec.get("devices"))
        ],
        shared_counters=[c for c in _l(spec.get("sharedCounters")) if isinstance(c, dict)],
        api_version=_s(obj.get("apiVersion")),
        counter_sets=counter_sets(spec.get("sharedCounters"), "name"),
    )


def _typed_slice(
    obj: dict[str, Any],
    spec: dict[str, Any],
    layout: tuple[Any, ...],
    driver: str,
    pool: dict[str, Any],
    pool_name: str,
    name: str,
    node_name: str,
) -> ResourceSlice | None:
    """A slice of a known layout: a TypedSlice holding only where its devices differ from its type's
    (dra/node_types.py); the first of its layout is built as before and becomes the type. None: built
    as before, untyped."""
    wires: list[DeviceWire] = spec["devices"]
    kind = node_types.type_for(layout)
    args = _slice_head(name, driver, pool_name, pool, node_name, spec)
    if kind is None:
        devices = [_device_from_wire(d, driver, pool_name, name, node_name) for d in wires]
        kind = node_types.remember(layout, driver, wires, devices, spec.get(_TEXT, b""))
        return ResourceSlice(*args, devices, [], _s(obj.get("apiVersion")), [], kind.id if kind else -1)
    own = _own_values(kind, wires, driver)
    if own is None:
        return None
    typed = node_types.TypedSlice(*args, node_types.UNBUILT, [], _s(obj.get("apiVersion")), [], kind.id)
    typed.kind = kind
    typed.own = own
    return typed


_SliceHead = tuple[str, str, str, int, int, "str | None", bool, "dict[str, Any] | None", bool]


def _slice_head(
    name: str, driver: str, pool_name: str, pool: Any, node_name: str | None, spec: Any
) -> _SliceHead:
    """A ResourceSlice's fields before its devices, as every typed or untyped slice is made with them."""
    return (
        name,
        driver,
        pool_name,
        _i(pool.get("generation")),
        _i(pool.get("resourceSliceCount"), 1),
        node_name,
        spec.get("allNodes") is True,
        spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), dict) else None,
        False,
    )


def _own_values(
    kind: node_types.SliceType, wires: list[DeviceWire], driver: str
) -> tuple[tuple[Any, ...], ...] | None:
    """Per device of a slice of `kind`'s layout, the (qualified name, value) pairs, flat, where it
    differs from the representative; None when one is not a well-formed value (the slice is then built
    as before)."""
    out: list[tuple[Any, ...]] = []
    append = out.append
    names = _SHARED_VALUES.get(driver)
    if names is None:
        names = _driver_names(driver)
    known = kind.positions
    for i, (wire, rep_values) in enumerate(zip(wires, kind.wire_values, strict=True)):
        if not wire.attributes:
            append(())
            continue
        values = tuple(wire.attributes.values())
        if values == rep_values:
            append(())
            continue
        seen = known[i]
        if seen:  # the positions that varied before, and only those: one compare in C
            expected = list(rep_values)
            for p in seen:
                expected[p] = values[p]
            if tuple(expected) != values:
                seen = _more_positions(kind, i, values, driver)
        else:
            seen = _more_positions(kind, i, values, driver)
        keys = kind.keys[i]
        own: list[Any] = []
        for p in seen:
            entry = values[p]
            if entry == rep_values[p]:
                continue
            try:
                qualified, texts = names[keys[p]]
            except KeyError:
                qualified, texts = _attribute_name(names, keys[p], driver)
            value = _wire_value(entry, texts)
            if value is None:
                return None
            own += (qualified, value)
        append(tuple(own))
    return tuple(out)


def _more_positions(
    kind: node_types.SliceType, device: int, values: tuple[Any, ...], driver: str
) -> tuple[int, ...]:
    """Every position where a device's values differ from the representative's; the type learns them
    (and their qualified names, `varying`). A new tuple replaces the old: a page normalized in another
    thread reads either, and checks it before trusting it."""
    rep_values = kind.wire_values[device]
    pairs = enumerate(zip(values, rep_values, strict=True))
    differ = tuple(p for p, (entry, before) in pairs if entry != before)
    known = kind.positions[device]
    if not set(differ) <= set(known):
        keys = kind.keys[device]
        kind.varying.update(qualify(keys[p], driver) for p in differ)
        kind.positions[device] = tuple(sorted({*known, *differ}))
        kind.learned += 1
    return differ


def _wire_value(entry: Any, texts: dict[str, str]) -> AttrValue | None:
    """One AttributeWire's value as `_device_from_wire` reads it; None: a bad attribute."""
    string = entry.string
    if string is not None:
        if entry.int_ is None and entry.bool_ is None and entry.version is None:
            return texts.get(string) or _share(texts, string)
        return None
    number, flag, version = entry.int_, entry.bool_, entry.version
    if number is not None:
        return number if flag is None and version is None else None
    if flag is not None:
        return flag if version is None else None
    if version is not None:
        return Version(version)
    return None


def normalize_taint_rule(obj: dict[str, Any]) -> DeviceTaintRule:
    """A DeviceTaintRule (resource.k8s.io v1alpha3 or v1beta2: same spec shape)."""
    spec = _d(obj.get("spec"))
    selector = _d(spec.get("deviceSelector"))

    def field_(name: str) -> str | None:
        value = selector.get(name)
        return value if isinstance(value, str) else None

    taint = _d(spec.get("taint"))
    return DeviceTaintRule(
        name=_s(_d(obj.get("metadata")).get("name")),
        driver=field_("driver"),
        pool=field_("pool"),
        device=field_("device"),
        taint={k: v for k, v in taint.items() if k in ("key", "value", "effect", "timeAdded")},
        api_version=_s(obj.get("apiVersion")),
    )


def apply_taint_rules(slices: list[ResourceSlice], rules: list[DeviceTaintRule]) -> None:
    """Every rule's taint on the devices it selects, kept apart from the slice's own taints
    (tracker.go `applyPatches` appends them to the device's taints, v0.36.2)."""
    for slice_ in slices:
        for device in slice_.devices:
            device.rule_taints = [
                (rule.name, rule.taint)
                for rule in rules
                if rule.matches(slice_.driver, slice_.pool, device.name)
            ]


def normalize_class(obj: dict[str, Any]) -> DeviceClass:
    spec = _d(obj.get("spec"))
    return DeviceClass(
        name=_s(_d(obj.get("metadata")).get("name")),
        selectors=[_s(_d(_d(s).get("cel")).get("expression")) for s in _l(spec.get("selectors"))],
        extended_resource_name=_s(spec.get("extendedResourceName")) or None,
        config=[c for c in _l(spec.get("config")) if isinstance(c, dict)],
        raw=obj,
    )
