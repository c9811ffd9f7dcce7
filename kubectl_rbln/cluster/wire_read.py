"""A JSON bundle's objects decoded into their wire shapes (dra/wire.py): the fast way to read `-f` files.

Why: `json.load` of a 5,000-node bundle builds every field of every object, then the normalizers read
a tenth of them (issue 16). Here the file's bytes are scanned once for the item boundaries
(`msgspec.Raw`), and each item is decoded into only the fields the Snapshot reads. Whatever does
not fit (YAML, stdin, a top-level array, an item of the wrong shape) goes the plain way of
files.py, so every result, error and malformed-object report stays what it was.
"""

from __future__ import annotations

import codecs
import functools
import json
import mmap
import os
import re
from collections.abc import Callable, Generator, Iterator
from typing import Any, TypedDict

import msgspec

from kubectl_rbln import progress as progress_line
from kubectl_rbln.cluster import sigbus, wire_lines, wire_templates
from kubectl_rbln.cluster.files import AliasBudget, documents_of, flatten, open_regular, read_text
from kubectl_rbln.dra.branch_texts import branch_texts
from kubectl_rbln.dra.normalize import NORMALIZERS
from kubectl_rbln.dra.normalize_claims import claim_spec_of
from kubectl_rbln.dra.normalize_pods import pod_parts_of
from kubectl_rbln.dra.normalize_slices import slice_devices_of, slice_from_text
from kubectl_rbln.dra.wire import FILE_SHAPES, HeadWire
from kubectl_rbln.errors import InputError

Checked = tuple[dict[str, Any], bool]  # (object, decoded into its wire shape: well-formed)


class _Envelope(TypedDict, total=False):
    kind: Any
    apiVersion: Any
    items: list[msgspec.Raw]


_ENVELOPE = msgspec.json.Decoder(_Envelope)
_HEAD = msgspec.json.Decoder(HeadWire)
_DECODERS = {kind: msgspec.json.Decoder(shape) for kind, shape in FILE_SHAPES.items()}
_MISSING = object()
_NO_FIELDS: dict[str, Any] = {}
# An item's kind as its first bytes say it (`{"apiVersion": ..., "kind": "Pod", ...`: kubectl's order):
# only a guess, as a nested `kind` may come first; the decoded object's own kind confirms it.
_KIND_AHEAD = re.compile(
    rb'"kind"\s*:\s*"(?:' + rb"|".join(rb"(?P<%s>%s)" % (k.encode(), k.encode()) for k in _DECODERS) + rb')"'
)
_KIND_WINDOW = 256
_BATCH = 64  # items between two progress reports (and checks for pages to hand back)


def iter_checked(path: str, progress: Any = None, budget: AliasBudget | None = None) -> Iterator[Checked]:
    """Every object of one input (`-` is stdin), each with whether it was decoded into its wire shape;
    `budget` bounds YAML aliases across the inputs of one read (files.py)."""
    name = "<stdin>" if path == "-" else path
    opened = None if path == "-" else _read_bytes(path)
    if opened is not None:
        data, before = opened
        templates = (
            wire_templates.Templates(_template_decode, _branches()) if wire_templates.enabled() else None
        )
        with sigbus.guarded(path):  # from here on the mapping is read: a truncation is exit 2
            layout = wire_lines.layout_of(data) if name.endswith(".json") else None
            if layout is not None:  # one item a line: read where it lies, never all resident
                went_plain = yield from _by_line(data, layout, path, progress, budget, templates)
                if not went_plain:
                    _unchanged(path, before)
                return
            envelope = _envelope(data) if _utf8(data) else None  # not UTF-8: files.py names the byte
            if envelope is not None:
                yield from _items(data, envelope, name, progress, templates)
                _unchanged(path, before)
                return
    for document in documents_of(read_text(path), name, budget):  # the plain way: same objects, errors
        for obj in flatten(document, name):
            yield obj, False


def _by_line(
    data: Any,
    layout: wire_lines.Layout,
    path: str,
    progress: Any,
    budget: AliasBudget | None,
    templates: wire_templates.Templates | None,
) -> Generator[Checked, None, bool]:
    """A one-item-a-line List (cluster/wire_lines.py), each line copied out of the mapping, UTF-8
    checked (msgspec does not check the text it skips, and a template reads none) and decoded, the
    pages behind handed back. The bytes between the lines are the commas and blanks cut around them.
    From the first line that is not one whole item (or not UTF-8), the rest is read as a whole file
    is: the objects, errors and reports are those of reading it whole. Returns whether the rest went
    the plain way (files.py)."""
    envelope = layout.envelope
    kind = envelope["kind"]
    item_kind = kind[: -len("List")] if kind != "List" else None
    api_version = envelope.get("apiVersion", "")
    behind = wire_lines.Behind(data)
    total = 0
    if progress is not None and progress_line.enabled():
        total = wire_lines.count_lines(data, layout.start, layout.stop)
    done = 0
    for start, end in wire_lines.lines(data, layout):
        if end < 0:
            return (yield from _rest(data, layout, start, path, progress, budget, done, templates))
        raw = data[start:end]
        if not raw.isascii() and not _utf8(raw):
            return (yield from _rest(data, layout, start, path, progress, budget, done, templates))
        try:
            checked = _guessed(raw, templates) or _item(raw, item_kind, api_version, path, kind)
        except (InputError, ValueError, RecursionError, msgspec.DecodeError):
            # not one whole item (or one the whole file's reading refuses): read from here as a whole
            return (yield from _rest(data, layout, start, path, progress, budget, done, templates))
        done += 1  # noqa: SIM113 - the items yielded, not the lines cut
        if not done % _BATCH:
            if total:
                progress(done, total)
            behind.upto(start)
        yield checked
    return False


def _rest(
    data: Any,
    layout: wire_lines.Layout,
    start: int,
    path: str,
    progress: Any,
    budget: AliasBudget | None,
    done: int,
    templates: wire_templates.Templates | None,
) -> Generator[Checked, None, bool]:
    """The items from `data[start:]` on, as reading the whole file gives them after the `done` already
    read: the head joined to the rest is the whole file less those items (each was `ITEM,` on its line),
    so it decodes, or fails, as the whole file would; failing, the plain way reads the whole file."""
    rest = layout.head + data[start:]
    if _utf8(rest):
        envelope = _envelope(rest)
        if envelope is not None:
            yield from _items(rest, envelope, path, progress, templates)
            return False
    del rest
    skip = done
    for document in documents_of(read_text(path), path, budget):
        for obj in flatten(document, path):
            if skip:
                skip -= 1
                continue
            yield obj, False
    return True


def _items(
    data: Any, envelope: dict[str, Any], name: str, progress: Any, templates: wire_templates.Templates | None
) -> Iterator[Checked]:
    kind = envelope.get("kind")
    items = envelope.get("items", _MISSING)
    if not (isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)):
        yield _item(data, None, None, name, "")
        return
    item_kind = kind[: -len("List")] if kind != "List" else None
    total = len(items)
    behind = _Release(data)
    passed = 0
    api_version = envelope.get("apiVersion", "")
    for index in range(total):
        raw = items[index]
        items[index] = None  # decoded: its slice of the file can go
        passed += len(raw)
        if not index % _BATCH or index + 1 == total:  # the line is redrawn a few times a second at most
            if progress is not None:
                progress(index + 1, total)
            behind.passed(passed)
            passed = 0
        yield _guessed(raw, templates) or _item(raw, item_kind, api_version, name, kind)


_Identity = tuple[int, int, int, int]  # (device, inode, size, mtime in ns)


def _read_bytes(path: str) -> tuple[Any, _Identity] | None:
    """The file mapped into memory (bytes when it cannot be mapped) and what identifies its version,
    when it looks like one JSON object; None sends it the plain way. Mapped, its pages are the page
    cache's: `_Release` hands back those already decoded, so a 112 MB bundle is never all resident
    next to the Snapshot built from it. Only a regular file is mapped (files.py refuses the others)."""
    try:
        with open_regular(path) as handle:  # a FIFO or a device: the one-line InputError
            info = os.fstat(handle.fileno())
            if handle.read(4096).lstrip()[:1] != b"{":
                return None
            try:
                data: Any = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):  # a file that cannot be mapped: read it
                handle.seek(0)
                data = handle.read()
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    return data, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _unchanged(path: str, before: _Identity) -> None:
    """Refuse what was read if the file was written while it was read: a mapping shows the writes,
    so the objects may mix two versions. A file replaced (renamed over) is fine: the old one was read."""
    try:
        info = os.stat(path)
    except OSError:
        return  # removed: what was mapped stayed whole
    now = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if now[:2] == before[:2] and now != before:
        raise InputError(f"{path}: the file changed while it was read; read it again once it is written")


def _utf8(data: Any, chunk: int = 1 << 18) -> bool:
    """Whether the whole buffer is UTF-8, checked a chunk at a time (ASCII chunks at C speed; a chunk
    small enough to stay in the CPU's cache between its copy and its check). Its pages stay mapped:
    the envelope's scan reads them all next, then `_Release` hands them back behind the items."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), chunk):
            piece = data[start : start + chunk]
            if piece.isascii() and not decoder.getstate()[0]:
                continue
            decoder.decode(piece)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


class _Release:
    """Hands back the pages of a mapped file below what was decoded (`madvise(MADV_DONTNEED)`): a
    read-only file mapping loses nothing by it, a page touched again is read back from the cache."""

    STEP = 1 << 23  # every 8 MB decoded

    def __init__(self, data: Any) -> None:
        self.data = data if isinstance(data, mmap.mmap) and hasattr(data, "madvise") else None
        self.seen = 0  # bytes of items passed: a lower bound of the offset reached
        self.dropped = 0

    def passed(self, size: int) -> None:
        self.seen += size
        if self.data is not None and self.seen - self.dropped >= self.STEP:
            self.drop(self.seen)

    def drop(self, upto: int) -> None:
        if self.data is None:
            return
        end = (upto // mmap.PAGESIZE) * mmap.PAGESIZE
        if end > 0:
            try:
                self.data.madvise(mmap.MADV_DONTNEED, 0, end)
            except (OSError, ValueError, AttributeError):
                self.data = None
        self.dropped = upto


def _envelope(data: bytes) -> dict[str, Any] | None:
    try:
        return dict(_ENVELOPE.decode(data))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # not valid JSON, or not a list we know: files.py says what is wrong, as before


def _item(raw: Any, item_kind: str | None, api_version: Any, name: str, list_kind: str) -> Checked:
    """One item: into its wire shape when it fits, else decoded whole (and checked by the Snapshot)."""
    obj, checked = _decoded(raw, item_kind, name)
    if list_kind:
        if not isinstance(obj, dict):
            raise InputError(f"{name}: a {list_kind} item is a {type(obj).__name__}, not an object")
        if item_kind and "kind" not in obj:
            obj = {"kind": item_kind, "apiVersion": api_version, **obj}
        return obj, checked
    return next(iter(flatten(obj, name))), checked


def _guessed(raw: Any, templates: wire_templates.Templates | None = None) -> Checked | None:
    """A list item in the wire shape of the kind its first bytes name, without a scan for its kind
    first: kept only when the decoded object's own `kind` is that one, so that it is what `_item`
    would have made of it; None sends the item to `_item`."""
    found = _KIND_AHEAD.search(raw, 0, _KIND_WINDOW)
    kind = found.lastgroup if found is not None else None
    if kind is None:
        return None
    obj = item_of(raw, kind, templates)
    return None if obj is None else (obj, True)


Listed = tuple[str, Any]  # a live page's (item kind, apiVersion): what an item without its own has
Decode = Callable[[Any], Any]


def item_of(
    raw: Any, kind: str, templates: wire_templates.Templates | None, decode: Decode | None = None
) -> dict[str, Any] | None:
    """One item of `kind` from its text, the way both feeders read it (a `-f` file's line or List
    item, a live page's item: cluster/wire_pages.py): a Pod, claim or Node whose text matches a
    template (cluster/wire_templates.py), or a slice whose devices text matches its type's pattern, is
    not decoded (it comes with its model made); any other is decoded into its wire shape and its
    parts checked. None: not an object of `kind` in that shape (the caller reads it its own way).
    `decode`: `kind`'s wire decoder, or a live page's (`filling`: an item takes the list's kind and
    apiVersion where it has none)."""
    text = None
    if decode is None:
        decode = _DECODERS[kind].decode
    if templates is not None and kind == "ResourceSlice":  # its devices from their text
        sliced = slice_from_text(bytes(raw), decode)
        if sliced is not None:
            return sliced
    elif templates is not None and kind in wire_templates.KINDS:
        text = bytes(raw)
        made = templates.read(kind, text)
        if made is not None:
            return made
    try:
        obj = decode(raw)
        if obj.get("kind") != kind:
            return None  # a nested `kind` came first, or the item has none (the list's kind is its)
        _parts(kind, obj)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # read again by the caller, which says the same as without a guess
    if text is not None:
        templates.learn(kind, text)  # type: ignore[union-attr]
    return obj


@functools.cache
def _branches() -> frozenset[bytes]:
    """The texts `_template_decode`'s code may test a value against (dra/branch_texts.py)."""
    return branch_texts([_parts, *(NORMALIZERS[kind] for kind in wire_templates.KINDS)])


def filling(kind: str, listed: Listed) -> Decode:
    """`kind`'s wire decoder, whose object takes the list's kind and apiVersion where it has none (the
    API server writes none per item), as the live read always gave them (`LiveClient._take`)."""
    decode = _DECODERS[kind].decode
    item_kind, api_version = listed

    def filled(raw: Any) -> Any:
        obj = decode(raw)
        if obj.__class__ is dict:
            obj.setdefault("kind", item_kind)
            obj.setdefault("apiVersion", api_version)
        return obj

    return filled


def _template_decode(kind: str, text: bytes, listed: Listed | None = None) -> tuple[Any, Any]:
    """An item's wire object and model, read the usual way (`item_of`, then its normalizer): what a
    template is proven against (cluster/wire_templates.py)."""
    obj = (_DECODERS[kind].decode if listed is None else filling(kind, listed))(text)
    if obj.get("kind") != kind:
        raise ValueError("another kind")
    _parts(kind, obj)
    return obj, NORMALIZERS[kind](obj)


def _decoded(raw: Any, item_kind: str | None, name: str) -> tuple[Any, bool]:
    """The item read by its kind (its `kind` field, else the list's): in that kind's wire shape when it
    fits, else decoded whole."""
    checked = False
    obj: Any = None
    try:
        kind = _HEAD.decode(raw).get("kind", _MISSING)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        kind = None  # not an object: decoded whole below, and refused as files.py refuses it
    if kind is _MISSING:
        kind = item_kind
    decoder = _DECODERS.get(kind) if isinstance(kind, str) else None  # `"kind": []` is no kind
    if decoder is not None:
        try:
            obj = decoder.decode(raw)
            _parts(kind, obj)
            checked = True
        except (msgspec.ValidationError, RecursionError):
            obj = None
    if obj is None:
        try:
            obj = json.loads(bytes(raw))
        except RecursionError:
            raise InputError(f"{name}: JSON nests too deeply") from None
    return obj, checked


def _parts(kind: object, obj: dict[str, Any]) -> None:
    """A wire object's parts normalized once per distinct text (dra/normalize_claims.py,
    normalize_pods.py), now, by both ways of decoding an item: their shapes are checked here, and one
    that does not fit raises, which sends the item the plain way."""
    if kind == "ResourceClaim" and "spec" in obj:
        obj["spec"] = claim_spec_of(obj["spec"])
    elif kind == "Pod":  # its template parts' shapes checked (and interned) now
        pod_parts_of(obj.get("metadata", _NO_FIELDS), obj.get("spec", _NO_FIELDS))
    elif kind == "ResourceSlice" and "spec" in obj:  # its devices read from their text (or decoded)
        slice_devices_of(obj["spec"])
