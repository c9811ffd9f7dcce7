"""Where the items of a one-item-a-line JSON List are in its bytes, found without decoding it whole.

Why (issue 26): wire_read.py found a bundle's item boundaries with one msgspec call over the whole
mapped file, which made all of its pages resident at once (1.09 GB for the 50,000-node bundle
before one item was normalized). The bundles `bench/gen` writes (testing/synthetic/bundle.py
`write_bundle_stream`) hold the List's head on the first line (`{..."items":[`), one item a line
(`{...},`), and `]}` on the last: a newline never occurs inside a JSON string, so each line can be
cut and decoded where it lies, the pages behind handed back, and the file is never all resident.

Nothing here decides what an item is. `layout_of` only accepts a file whose head and tail, joined
around a marker item, decode as a List holding exactly that marker (so the head's last `[` opens
the List's `items` and the tail's `]` closes it); `lines` cuts the middle by line and says where a
line is not `ITEM,` (or the last `ITEM`). wire_read.py decodes each cut and, at the first cut that
is not one whole item, reads the rest the way it reads any other file, so every object, error and
malformed-object report stays what it was.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from typing import Any, NamedTuple, TypedDict

import msgspec

_HEAD_MAX = 1 << 16  # a List's head line is short: `{"apiVersion":...,"metadata":{...},"items":[`
_TAIL_MAX = 64  # `]}` and the whitespace after it
_COMMA, _NEWLINE = ord(","), ord("\n")
_BLANKS = frozenset(b" \t\r")  # JSON whitespace that may end a line before its newline


class _Marked(TypedDict, total=False):
    kind: Any
    apiVersion: Any
    items: list[Any]


_MARKED = msgspec.json.Decoder(_Marked)


class Layout(NamedTuple):
    """A one-item-a-line List: its head (through the `[` of `items`), the envelope's fields, and the
    middle, `data[start:stop]`, every line of which should be one item (`stop` is the tail's `]`)."""

    head: bytes
    envelope: dict[str, Any]
    start: int
    stop: int


def layout_of(data: Any) -> Layout | None:
    """The layout of a one-item-a-line List, or None (any other layout is read whole, as before)."""
    first = data.find(b"\n", 0, _HEAD_MAX)
    if first < 0:
        return None
    head = bytes(data[:first]).rstrip(b" \t\r")
    if not head.endswith(b"["):
        return None
    low = max(first + 1, len(data) - _TAIL_MAX)
    end = bytes(data[low:]).rstrip(b" \t\r\n")
    stop = low + len(end) - 2  # the tail's `]`
    if not end.endswith(b"]}") or stop <= first or data[stop - 1] != _NEWLINE:
        return None  # `]}` alone on the last line, after the newline that ends the last item
    tail = bytes(data[stop:])
    try:
        head.decode("utf-8")
        tail.decode("utf-8")
        marked = _MARKED.decode(head + b"0" + tail)
    except (UnicodeDecodeError, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    items = marked.pop("items", None)
    kind = marked.get("kind")
    if not (isinstance(kind, str) and kind.endswith("List")) or items != [0] or type(items[0]) is not int:
        return None
    return Layout(head, dict(marked), first + 1, stop)


def lines(data: Any, layout: Layout) -> Iterator[tuple[int, int]]:
    """(start, end) of every item of the middle, in order: `data[start:end]` is the line without
    its comma and trailing whitespace; end -1 for the first line that is not `ITEM,` (or, last,
    `ITEM`), after which nothing more is cut."""
    pos, stop = layout.start, layout.stop
    find = data.find
    while pos < stop:
        newline = find(b"\n", pos, stop)  # found: the middle ends with the newline before `]}`
        end = newline
        while end > pos and data[end - 1] in _BLANKS:
            end -= 1
        if newline + 1 == stop:  # the last item: no comma after it
            if end == pos or data[end - 1] == _COMMA:
                yield pos, -1
                return
            yield pos, end
            return
        if end == pos or data[end - 1] != _COMMA:
            yield pos, -1
            return
        yield pos, end - 1
        pos = newline + 1


class Behind:
    """Hands back the pages of a mapped file below an offset (`madvise(MADV_DONTNEED)`), a step at a
    time: a read-only file mapping loses nothing by it, a page touched again is read from the cache."""

    STEP = 1 << 23

    def __init__(self, data: Any) -> None:
        self.data = data if isinstance(data, mmap.mmap) and hasattr(data, "madvise") else None
        self.dropped = 0

    def upto(self, offset: int) -> None:
        if self.data is None or offset - self.dropped < self.STEP:
            return
        end = (offset // mmap.PAGESIZE) * mmap.PAGESIZE
        try:
            self.data.madvise(mmap.MADV_DONTNEED, self.dropped, end - self.dropped)
        except (OSError, ValueError, AttributeError):
            self.data = None
        self.dropped = end


def count_lines(data: Any, start: int, stop: int) -> int:
    """The newlines of `data[start:stop]` (the items of a layout's middle), for a progress line's
    total; the pages read are handed back as it goes."""
    behind = Behind(data)
    count = 0
    for at in range(start, stop, Behind.STEP):
        count += data[at : min(at + Behind.STEP, stop)].count(b"\n")
        behind.upto(min(at + Behind.STEP, stop))
    return count
