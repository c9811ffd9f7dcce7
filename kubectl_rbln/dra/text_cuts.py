"""A JSON text cut at a few values ("holes"): which texts are that text with other values in them.

Why (issue 26): the `-f` reader reads most slices, Pods, claims and Nodes of a large bundle as a known
text with only some values changed (dra/slice_templates.py, cluster/wire_templates.py). A pattern
(`re`) would say so for any text, but matches a literal character at a time (~18 instructions a
byte: 90,000 for a 5 KB slice) and costs ~30 million instructions to compile for a 3 KB text. Most
texts differ from one matched before only in values of the same lengths, so `match` first takes the
holes where such a text had them, joins the literal pieces around them and compares the result with
the text (a few C calls), and checks that the holes hold only what is allowed; a text of a new layout
is scanned hole by hole (`_scan`), and its layout kept.

What a hole may hold: a string hole a JSON string's content without `"`, `\\` or a control character
(not empty when `filled`: an empty text reads as no value), an integer hole `-?(0|[1-9][0-9]{0,17})`,
a boolean hole `true` or `false`. Both ways accept exactly the same texts (tests/dra/test_text_cuts.py).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

# the bytes a string hole may hold, deleted by `translate`: what is left must be the `"` between holes
_ALLOWED = bytes(b for b in range(256) if b >= 0x20 and b not in b'"\\')
_INT = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})\Z")
_INT_AT = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})")
_NONE: list[Any] = []  # no layout known (never filled)
_LAYOUTS_MAX = 64  # layouts kept per cut (4 per text length)


class Hole(NamedTuple):
    start: int
    end: int
    form: str  # "string", "int" or "bool"
    filled: bool  # a string hole that may not be empty


class Cut:
    """`text` with `holes` (in text order, not overlapping)."""

    __slots__ = (
        "literals",
        "pieces",
        "forms",
        "layouts",
        "strings",
        "ints",
        "bools",
        "quotes",
        "string_quotes",
    )

    def __init__(self, text: bytes, holes: Sequence[Hole]) -> None:
        literals: list[bytes] = []
        before = 0
        for hole in holes:
            literals.append(text[before : hole.start])
            before = hole.end
        literals.append(text[before:])
        self.literals = tuple(literals)
        self.pieces: list[bytes] = [piece for literal in literals for piece in (literal, b"")][:-1]
        self.forms = tuple((h.form, h.filled) for h in holes)
        # text length -> getters of the hole texts where texts of that length matched before had them
        # (a matched text's filled holes are not empty, so neither are theirs at those places)
        self.layouts: dict[int, list[Callable[[Any], tuple[Any, ...]]]] = {}
        strings = [i for i, h in enumerate(holes) if h.form == "string"]
        self.strings = None if len(strings) == len(holes) else getter(strings)
        self.ints = tuple(i for i, h in enumerate(holes) if h.form == "int")
        self.bools = tuple(i for i, h in enumerate(holes) if h.form == "bool")
        self.quotes = b'"' * (len(holes) - 1)
        self.string_quotes = b'"' * max(len(strings) - 1, 0)
        if all(h.end > h.start for h in holes if h.form == "string" and h.filled):
            self._learn(len(text), [slice(h.start, h.end) for h in holes])

    def match(self, text: bytes | memoryview) -> tuple[Any, ...] | None:
        """Every hole's text when `text` is this text with allowed values in its holes, else None."""
        known = self.layouts.get(len(text), _NONE)
        for index, layout in enumerate(known):
            holes = layout(text)
            pieces = self.pieces.copy()
            pieces[1::2] = holes  # the literal pieces around these holes: is that the text?
            if b"".join(pieces) == text and self._allowed(holes):
                if index:  # the layout that matched is tried first next time
                    known.insert(0, known.pop(index))
                return holes
        return self._scan(text if text.__class__ is bytes else bytes(text))

    def _scan(self, text: bytes) -> tuple[bytes, ...] | None:
        """`match` for a text of a new layout: each hole read up to where its value ends (a string's
        closing `"`: it holds none; a number's or a boolean's last character), each literal piece
        compared where it falls; the layout is kept for the texts of its length after it."""
        literals = self.literals
        if not text.startswith(literals[0]):
            return None
        pos = len(literals[0])
        spans = []
        for (form, filled), literal in zip(self.forms, literals[1:], strict=True):
            if form == "string":
                end = text.find(b'"', pos)
                if end < 0 or (filled and end == pos):
                    return None
            elif form == "int":
                number = _INT_AT.match(text, pos)
                if number is None:
                    return None
                end = number.end()
            elif text.startswith(b"true", pos):
                end = pos + 4
            elif text.startswith(b"false", pos):
                end = pos + 5
            else:
                return None
            if not text.startswith(literal, end):
                return None
            spans.append(slice(pos, end))
            pos = end + len(literal)
        if pos != len(text):
            return None
        holes = tuple(text[span] for span in spans)
        if not self._allowed(holes):
            return None
        self._learn(len(text), spans)
        return holes

    def _learn(self, size: int, spans: list[slice]) -> None:
        known = self.layouts.setdefault(size, [])
        if len(known) < 4 and sum(map(len, self.layouts.values())) < _LAYOUTS_MAX:
            known.append(getter(spans))

    def _allowed(self, holes: tuple[bytes, ...]) -> bool:
        """Whether the holes hold only what the pattern allows (the literal pieces matched already)."""
        if self.strings is None:
            return b'"'.join(holes).translate(None, _ALLOWED) == self.quotes
        if b'"'.join(self.strings(holes)).translate(None, _ALLOWED) != self.string_quotes:
            return False
        return all(_INT.match(holes[i]) for i in self.ints) and all(
            holes[i] in (b"true", b"false") for i in self.bools
        )


def getter(keys: list[Any]) -> Callable[[Any], tuple[Any, ...]]:
    """itemgetter that always gives a tuple (itemgetter of one key gives the item)."""
    if len(keys) == 1:
        (key,) = keys
        return lambda obj: (obj[key],)
    if not keys:
        return lambda obj: ()
    return operator.itemgetter(*keys)
