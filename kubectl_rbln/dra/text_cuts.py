"""A JSON text cut at a few values ("holes"): which texts are that text with other values in them.

Why (issue 26): the `-f` reader reads most slices, Pods, claims and Nodes of a large bundle as a known
text with only some values changed (dra/slice_templates.py, cluster/wire_templates.py). A pattern
(`re`) says so for any text, but matches a literal character at a time (~18 instructions a byte:
90,000 for a 5 KB slice); most texts differ from one matched before only in values of the same
lengths, so `match` first takes the holes where such a text had them, joins the literal pieces
around them and compares the result with the text (a few C calls), and checks that the holes hold
only what the pattern allows; only a text of a new layout goes through the pattern.

What a hole may hold: a string hole a JSON string's content without `"`, `\\` or a control character
(not empty when `filled`: an empty text reads as no value), an integer hole `-?(0|[1-9][0-9]{0,17})`,
a boolean hole `true` or `false`. Both ways accept exactly the same texts.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

_STRING = rb'[^"\\\x00-\x1f]'
_FORMS = {
    ("string", True): rb"(" + _STRING + rb"++)",
    ("string", False): rb"(" + _STRING + rb"*+)",
    ("int", True): rb"(-?(?:0|[1-9][0-9]{0,17}))",
    ("int", False): rb"(-?(?:0|[1-9][0-9]{0,17}))",
    ("bool", True): rb"(true|false)",
    ("bool", False): rb"(true|false)",
}
# the bytes a string hole may hold, deleted by `translate`: what is left must be the `"` between holes
_ALLOWED = bytes(b for b in range(256) if b >= 0x20 and b not in b'"\\')
_INT = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})\Z")
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
        "regex",
        "layouts",
        "strings",
        "ints",
        "bools",
        "quotes",
        "string_quotes",
    )

    def __init__(self, text: bytes, holes: Sequence[Hole]) -> None:
        pieces: list[bytes] = []
        literals: list[bytes] = []
        before = 0
        for hole in holes:
            literals.append(text[before : hole.start])
            pieces += (re.escape(text[before : hole.start]), _FORMS[hole.form, hole.filled])
            before = hole.end
        literals.append(text[before:])
        pieces.append(re.escape(text[before:]))
        self.literals = tuple(literals)
        self.pieces: list[bytes] = [piece for literal in literals for piece in (literal, b"")][:-1]
        self.regex = re.compile(b"".join(pieces))
        # text length -> getters of the hole texts where texts of that length matched before had them
        # (a matched text's filled holes are not empty, so neither are theirs at those places)
        self.layouts: dict[int, list[Callable[[Any], tuple[Any, ...]]]] = {}
        strings = [i for i, h in enumerate(holes) if h.form == "string"]
        self.strings = None if len(strings) == len(holes) else getter(strings)
        self.ints = tuple(i for i, h in enumerate(holes) if h.form == "int")
        self.bools = tuple(i for i, h in enumerate(holes) if h.form == "bool")
        self.quotes = b'"' * (len(holes) - 1)
        self.string_quotes = b'"' * max(len(strings) - 1, 0)

    def match(self, text: bytes | memoryview) -> tuple[Any, ...] | None:
        """Every hole's text when `text` is this text with allowed values in its holes, else None."""
        for layout in self.layouts.get(len(text), ()):
            holes = layout(text)
            pieces = self.pieces.copy()
            pieces[1::2] = holes  # the literal pieces around these holes: is that the text?
            if b"".join(pieces) == text and self._allowed(holes):
                return holes
        found = self.regex.fullmatch(text)
        if found is None:
            return None
        holes = found.groups()
        known = self.layouts.setdefault(len(text), [])
        if len(known) < 4 and sum(map(len, self.layouts.values())) < _LAYOUTS_MAX:
            known.append(getter([slice(*found.span(g)) for g in range(1, len(holes) + 1)]))
        return holes

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
