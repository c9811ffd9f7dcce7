"""A text cut at its holes (dra/text_cuts.py) accepts exactly the texts its pattern describes.

Why: `Cut.match` never runs a pattern; it compares literal pieces where a text of the same layout had
its holes, or scans a new layout hole by hole. Thousands of random fillings (quotes, backslashes,
control characters, empty texts, digits, leading zeros, booleans, non-ASCII text) and edited literal
pieces are matched both ways: by the Cut, in a random order that fills and reuses its layouts, and by
the regular expression of what a hole may hold; the holes read must be the same, or both refuse.
"""

from __future__ import annotations

import random
import re

from kubectl_rbln.dra.text_cuts import Cut, Hole

_GROUP = {
    ("string", True): rb'([^"\\\x00-\x1f]+)',
    ("string", False): rb'([^"\\\x00-\x1f]*)',
    ("int", True): rb"(-?(?:0|[1-9][0-9]{0,17}))",
    ("int", False): rb"(-?(?:0|[1-9][0-9]{0,17}))",
    ("bool", True): rb"(true|false)",
    ("bool", False): rb"(true|false)",
}
FILLS = {
    "string": [
        b"",
        b"a",
        b"abc",
        b'a"b',
        b"a\\b",
        b"a\x01b",
        b"\t",
        "é€😀".encode(),
        b"~0~",
        b"x" * 40,
        b"}",
    ],
    "int": [b"0", b"7", b"-3", b"01", b"-0", b"12345678901234567890", b"1.5", b"1e3", b"", b"x", b"9}"],
    "bool": [b"true", b"false", b"True", b"truex", b"", b"fals"],
}
TEXT = b'{"a":"AAA","n":{"int":12},"b":true,"s":"","tail":[1,2,"SS"]}'


def _holes() -> list[Hole]:
    out = []
    for value, form, filled in (
        (b"AAA", "string", True),
        (b"12", "int", False),
        (b"true", "bool", False),
        (b'""', "string", False),
        (b"SS", "string", True),
    ):
        start = TEXT.index(value) + (1 if value == b'""' else 0)
        end = start + (0 if value == b'""' else len(value))
        out.append(Hole(start, end, form, filled))
    return out


def _pattern(holes: list[Hole]) -> re.Pattern[bytes]:
    pieces, before = [], 0
    for hole in holes:
        pieces += (re.escape(TEXT[before : hole.start]), _GROUP[hole.form, hole.filled])
        before = hole.end
    return re.compile(b"".join([*pieces, re.escape(TEXT[before:])]))


def test_a_cut_matches_what_its_pattern_matches() -> None:
    holes = _holes()
    cut, pattern = Cut(TEXT, holes), _pattern(holes)
    rng = random.Random(26)
    texts = []
    for _ in range(6000):
        pieces, before = [], 0
        for hole in holes:
            pieces += (TEXT[before : hole.start], rng.choice(FILLS[hole.form]))
            before = hole.end
        text = b"".join([*pieces, TEXT[before:]])
        if rng.random() < 0.15:  # an edited literal piece
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice([b"x", b'"', b"", b"1"]) + text[at + 1 :]
        texts.append(text)
    matched = 0
    for text in texts + texts[::-1]:
        found = pattern.fullmatch(text)
        expected = found.groups() if found else None
        got = cut.match(text)
        assert (tuple(map(bytes, got)) if got is not None else None) == expected, text
        got = cut.match(memoryview(text))  # the slice reader passes a view of its text
        assert (tuple(map(bytes, got)) if got is not None else None) == expected, text
        matched += found is not None
    assert matched > 150 and cut.layouts


def test_a_representative_whose_filled_hole_is_empty_teaches_no_layout() -> None:
    text = b'{"a":"","b":"x"}'
    cut = Cut(text, [Hole(6, 6, "string", True), Hole(13, 14, "string", True)])
    assert cut.match(text) is None
    assert cut.match(b'{"a":"q","b":"x"}') == (b"q", b"x")
