"""A JSON bundle's objects decoded into their wire shapes (dra/wire.py): the fast way to read `-f` files.

Why: `json.load` of a 5,000-node bundle builds every field of every object, then the normalizers read
a tenth of them (issue 16). Here the file's bytes are scanned once for the item boundaries
(`msgspec.Raw`), and each item is decoded into only the fields the Snapshot reads. Whatever does
not fit (YAML, stdin, a top-level array, an item of the wrong shape) goes the plain way of
files.py, so every result, error and malformed-object report stays what it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypedDict

import msgspec

from kubectl_rbln.cluster.files import flatten, parse_documents, read_text
from kubectl_rbln.dra.wire import WIRE_SHAPES, HeadWire
from kubectl_rbln.errors import InputError

Checked = tuple[dict[str, Any], bool]  # (object, decoded into its wire shape: well-formed)


class _Envelope(TypedDict, total=False):
    kind: Any
    apiVersion: Any
    items: list[msgspec.Raw]


_ENVELOPE = msgspec.json.Decoder(_Envelope)
_HEAD = msgspec.json.Decoder(HeadWire)
_DECODERS = {kind: msgspec.json.Decoder(shape) for kind, shape in WIRE_SHAPES.items()}
_MISSING = object()


def iter_checked(path: str, progress: Any = None) -> Iterator[Checked]:
    """Every object of one input (`-` is stdin), each with whether it was decoded into its wire shape."""
    name = "<stdin>" if path == "-" else path
    data = None if path == "-" else _read_bytes(path)
    envelope = _envelope(data) if data is not None else None
    if data is None or envelope is None:  # the plain way: same objects, same errors
        for document in parse_documents(read_text(path), name):
            for obj in flatten(document, name):
                yield obj, False
        return
    kind = envelope.get("kind")
    items = envelope.get("items", _MISSING)
    if not (isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)):
        yield _item(data, None, None, name, "")
        return
    item_kind = kind[: -len("List")] if kind != "List" else None
    total = len(items)
    for index in range(total):
        raw = items[index]
        items[index] = None  # decoded: its slice of the file can go
        if progress is not None:
            progress(index + 1, total)
        yield _item(raw, item_kind, envelope.get("apiVersion", ""), name, kind)


def _read_bytes(path: str) -> bytes | None:
    """The file's bytes when it looks like one JSON object; None sends it the plain way."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if data[:4096].lstrip()[:1] != b"{":
        return None
    if not data.isascii():  # msgspec does not check the text it skips: files.py names the bad byte
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return data


def _envelope(data: bytes) -> dict[str, Any] | None:
    try:
        return dict(_ENVELOPE.decode(data))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # not valid JSON, or not a list we know: files.py says what is wrong, as before


def _item(raw: Any, item_kind: str | None, api_version: Any, name: str, list_kind: str) -> Checked:
    """One item: into its wire shape when it fits, else decoded whole (and checked by the Snapshot)."""
    checked = False
    obj: Any = None
    try:
        kind = _HEAD.decode(raw).get("kind", _MISSING)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        kind = None  # not an object: decoded whole below, and refused as files.py refuses it
    decoder = _DECODERS.get(kind if kind is not _MISSING else item_kind)  # type: ignore[arg-type]
    if decoder is not None:
        try:
            obj, checked = decoder.decode(raw), True
        except (msgspec.ValidationError, RecursionError):
            obj = None
    if obj is None:
        try:
            obj = json.loads(bytes(raw))
        except RecursionError:
            raise InputError(f"{name}: JSON nests too deeply") from None
    if list_kind:
        if not isinstance(obj, dict):
            raise InputError(f"{name}: a {list_kind} item is a {type(obj).__name__}, not an object")
        if item_kind and "kind" not in obj:
            obj = {"kind": item_kind, "apiVersion": api_version, **obj}
        return obj, checked
    return next(iter(flatten(obj, name))), checked
