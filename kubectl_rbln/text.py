"""Make untrusted text safe to print on a terminal.

Output read from a Pod (exec stdout/stderr, logs) or from objects users can write
(annotations, event messages) may carry escape sequences that move the cursor,
rewrite earlier lines, set the window title, plant OSC 8 hyperlinks or OSC 52
clipboard writes. Printing them verbatim lets a workload forge or hide what a
diagnosis says. Everything here removes, never interprets: the result holds no
ESC, no C0 control other than newline and tab, no C1 control, no DEL and no
Unicode bidirectional override (the "Trojan Source" reordering characters).

A bottom module that imports nothing from the package: the source layer
(cluster/exec_probe.py) cleans what a Pod printed before anything else sees it,
and render/ cleans what it draws; both need the same rules, neither may depend
on the other. Colour-aware and whole-report variants are render's
(render/sanitize.py).
"""

from __future__ import annotations

import re
import unicodedata

# ESC-introduced sequences, most specific first:
#   OSC / DCS / SOS / PM / APC: ESC ] P X ^ _ ... up to BEL or ST (ESC \), or to the end if unterminated;
#   CSI: ESC [ parameter bytes, intermediate bytes, one final byte;
#   anything else: ESC, optional intermediates, one final byte (ESC ( B, ESC 7, ESC c ...).
_ESC_STRING = r"\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"
_ESC_CSI = r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
_ESC_OTHER = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
# The same introducers as single 8-bit C1 code points (U+009B CSI, U+009D OSC, U+0090 DCS ...).
_C1_STRING = r"[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"
_C1_CSI = r"\x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
_SEQUENCE = re.compile("|".join((_ESC_STRING, _ESC_CSI, _ESC_OTHER, _C1_STRING, _C1_CSI)))
# Left over once sequences are gone: C0 but \t and \n, DEL, C1, bidi embeddings/overrides/isolates.
_SINGLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ONE_LINE_MAX = 300


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences; newlines and tabs survive, \\r is dropped."""
    if not text:
        return ""
    if text.isascii() and text.isprintable():  # the usual case: nothing to strip (no ESC, no C0/C1)
        return text
    if _SINGLE.search(text) is None:  # every sequence starts with ESC or a C1 introducer: none here
        return text
    return _SINGLE.sub("", _SEQUENCE.sub("", text))


def one_line(text: str, limit: int = _ONE_LINE_MAX) -> str:
    """The first non-empty line of `text`, sanitized and cut to `limit` characters, for a one-line message."""
    for line in strip_controls(text).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 3] + "..."
    return ""


def safe_token(text: str, limit: int = 64) -> str:
    """A short name read from a Pod (a device entry), reduced to printable characters without spaces."""
    cleaned = "".join(strip_controls(text).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."


# --------------------------------------------------------------------------- display width
# A terminal gives East Asian wide and fullwidth characters (Hangul, CJK) two columns; combining
# marks and zero-width characters none. Everything that wraps, cuts or pads for a terminal counts
# these columns, not characters, so Korean lines end at 100 columns as English ones do.


def _char_width(char: str) -> int:
    if unicodedata.combining(char) or char in "\u200b\u200c\u200d\ufeff":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The columns `text` takes on a terminal (Hangul and other wide characters count two)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def cut_width(text: str, width: int, mark: str = "…") -> str:
    """`text` cut to at most `width` columns, ending with `mark` when something was cut."""
    if display_width(text) <= width:
        return text
    room = max(width - display_width(mark), 0)
    used, out = 0, []
    for char in text:
        size = _char_width(char)
        if used + size > room:
            break
        out.append(char)
        used += size
    return "".join(out) + mark


def ljust_width(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns (str.ljust counts characters)."""
    return text + " " * max(width - display_width(text), 0)


def wrap_width(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> list[str]:
    """`text` wrapped at spaces to lines of at most `width` columns, indents included.

    Like textwrap.wrap(break_long_words=False, break_on_hyphens=False), but counting display
    columns: a word wider than the room (a command, a long name) stays whole on its own line, and an
    inline command (from `kubectl` or `sudo` to the `)`, `,` or `;` that ends it) is never broken,
    so it can still be pasted.
    """
    words = _units(text.split())
    lines: list[str] = []
    line, used = initial_indent, display_width(initial_indent)
    empty = True
    for word in words:
        size = display_width(word)
        if not empty and used + 1 + size > width:
            lines.append(line)
            line, used, empty = subsequent_indent, display_width(subsequent_indent), True
        if empty:
            line, used, empty = line + word, used + size, False
        else:
            line, used = line + " " + word, used + 1 + size
    if not empty:
        lines.append(line)
    return lines


COMMAND_STARTS = ("kubectl", "sudo")


def _units(words: list[str]) -> list[str]:
    """Words, with an inline command joined into one unbreakable unit (a backticked one ends at its
    closing backtick)."""
    units: list[str] = []
    command: list[str] = []
    for word in words:
        if command:
            command.append(word)
            if word.endswith((")", ",", ";")) or (command[0].startswith("`") and "`" in word):
                units.append(" ".join(command))
                command = []
            continue
        if word.lstrip("(`'\"") in COMMAND_STARTS:
            command = [word]
            continue
        units.append(word)
    if command:
        units.append(" ".join(command))
    return units
