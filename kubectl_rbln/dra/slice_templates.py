"""A slice type's devices text with holes where its values vary: a typed slice read from its bytes.

Why (issue 26): at 20,000 nodes decoding every device into structs and comparing its values with its
type's (dra/node_types.py) was 3 s of a 6.6 s `why -f`, though two slices of a type differ only in a
few values (serials, UUIDs, MACs, addresses). The representative's devices text (`SliceType.text`)
is cut at the values known to vary (`SliceType.positions`) into a pattern: the text between them
literally, each value a group of what may stand there (a string without escapes or control
characters, an integer, a boolean). A slice whose devices text matches it has the representative's
devices with only those values its own, which are read from the groups; it is never decoded.

Why it is sound: before a pattern is used, the representative's text with a distinct marker in every
hole is decoded: each marker must come back as the value of its device's attribute, and everything
else as the representative's (names, attribute names and values, capacities, no other field). A hole
then lies inside one JSON string (or number, or literal) token, and any filling the group allows
leaves every other token where it was, so a matching slice decodes to exactly those devices. A slice
that does not match, or a type whose text cannot be cut so (escapes, an odd layout), is decoded as
before. Only the `-f` reader uses it (cluster/wire_read.py); the tests compare both ways.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import msgspec

from kubectl_rbln.dra import text_cuts
from kubectl_rbln.dra.wire import AttributeWire, DeviceWire

_DEVICES = msgspec.json.Decoder(list[DeviceWire])
TEXT_MAX = 1 << 20  # a representative's devices text longer than this is not cut (its pattern would be large)


class Hole(NamedTuple):
    device: int
    position: int  # among the device's attribute values
    kind: str  # "string", "version", "int" or "bool"


class Pattern(NamedTuple):
    """A type's devices text cut at its holes, `holes` in text order (device by device, each device's
    in the order of its attributes); `plan` is what the normalizer keeps per hole (normalize_slices)."""

    cut: text_cuts.Cut  # the text with a hole at every varying value (string, int or bool)
    holes: tuple[Hole, ...]
    plan: list[Any]


def _kind_of(wire: Any) -> str | None:
    if type(wire) is not AttributeWire:
        return None
    set_ = [n for n in ("int_", "bool_", "string", "version") if getattr(wire, n) is not None]
    if len(set_) != 1:
        return None
    return {"int_": "int", "bool_": "bool", "string": "string", "version": "version"}[set_[0]]


class _RawAttrs(msgspec.Struct):
    attributes: dict[str, msgspec.Raw] | None = None


_RAW_DEVICES = msgspec.json.Decoder(list[_RawAttrs])


def make(text: bytes, positions: list[tuple[int, ...]]) -> Pattern | None:
    """The pattern of a representative's devices `text` with holes at `positions`, proven by markers;
    None when it cannot be cut so."""
    if len(text) > TEXT_MAX:
        return None
    try:
        raws = _RAW_DEVICES.decode(text)
        wires = _DEVICES.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if len(raws) != len(wires):
        return None
    spans: list[tuple[int, int, Hole]] = []
    cursor = 0
    for i, (raw, wire) in enumerate(zip(raws, wires, strict=True)):
        values = list(raw.attributes.values()) if raw.attributes else []
        wanted = set(positions[i])
        wire_values = list(wire.attributes.values()) if wire.attributes else []
        if len(values) != len(wire_values):
            return None
        for p, value in enumerate(values):
            piece = bytes(value)
            at = text.find(piece, cursor)
            if at < 0:
                return None
            cursor = at + len(piece)
            if p not in wanted:
                continue
            kind = _kind_of(wire_values[p])
            if kind is None:
                return None
            inner = _inner(piece, kind)
            if inner is None:
                return None
            spans.append((at + inner[0], at + inner[1], Hole(i, p, kind)))
    holes = tuple(h for _, _, h in spans)
    if not _proven(text, spans, wires):
        return None
    cut = text_cuts.Cut(
        text,
        [
            text_cuts.Hole(start, end, "string" if hole.kind == "version" else hole.kind, False)
            for start, end, hole in spans
        ],
    )
    return Pattern(cut, holes, [])


def _inner(piece: bytes, kind: str) -> tuple[int, int] | None:
    """Where the value's own text lies in an attribute's text (`{"string":"x"}` -> the x)."""
    body = piece.rstrip()
    if not body.endswith(b"}"):
        return None
    body = body[:-1].rstrip()
    if kind in ("string", "version"):
        if not body.endswith(b'"'):
            return None
        close = len(body) - 1
        open_ = body.rfind(b'"', 0, close)
        if open_ < 0 or b"\\" in body[open_:close]:
            return None
        return open_ + 1, close
    found = re.search(rb"(-?[0-9]+|true|false)\Z", body)
    return (found.start(), found.end()) if found else None


def _marker(j: int, hole: Hole, wire: AttributeWire) -> tuple[bytes, Any]:
    """A filling of hole `j` unlike the representative's value, and the wire value it must decode to."""
    if hole.kind == "string":
        return f"~{j}~".encode(), AttributeWire(string=f"~{j}~")
    if hole.kind == "version":
        return f"~{j}~".encode(), AttributeWire(version=f"~{j}~")
    if hole.kind == "int":
        number = 900_000_001 + j
        return str(number).encode(), AttributeWire(int_=number)
    return (b"false", AttributeWire(bool_=False)) if wire.bool_ else (b"true", AttributeWire(bool_=True))


def _proven(text: bytes, spans: list[tuple[int, int, Hole]], wires: list[Any]) -> bool:
    """Whether the text with a marker in every hole decodes to the representative's devices with only
    the markers changed: each hole is then the whole of its attribute's value token."""
    expected = [[*(w.attributes.values() if w.attributes else ())] for w in wires]
    filled: list[bytes] = []
    before = 0
    for j, (start, end, hole) in enumerate(spans):
        marker, value = _marker(j, hole, expected[hole.device][hole.position])
        filled += (text[before:start], marker)
        expected[hole.device][hole.position] = value
        before = end
    filled.append(text[before:])
    try:
        got = _DEVICES.decode(b"".join(filled))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    if len(got) != len(wires):
        return False
    for device, wire, values in zip(got, wires, expected, strict=True):
        if (
            device.name != wire.name
            or list(device.attributes or {}) != list(wire.attributes or {})
            or list((device.attributes or {}).values()) != values
            or bytes(device.capacity) != bytes(wire.capacity)
            or any(getattr(device, f) != getattr(wire, f) for f in _OTHER_FIELDS)
        ):
            return False
    return True


_OTHER_FIELDS = tuple(f for f in DeviceWire.__struct_fields__ if f not in ("name", "attributes", "capacity"))


def values_of(pattern: Pattern, text: bytes | memoryview) -> str | None:
    """The hole values of a devices text that matches `pattern`, in its holes' order, as their JSON
    text joined by NUL (which no hole holds: a hole holds no control character), or None."""
    found = pattern.cut.match(text)
    if found is None:
        return None
    try:
        return b"\x00".join(found).decode("utf-8")
    except UnicodeDecodeError:  # the reader checked the file's UTF-8: cannot be, but decode it then
        return None
