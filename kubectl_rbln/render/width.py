"""The width of this output, the width of a text on screen, and wrapping by words (issue 25).

One module owns layout by width so every view agrees on it:

- `output_width(stream)`: the columns the human views lay out for. COLUMNS when it holds a
  number, else the terminal under `stream`, else 100 (a pipe, a file); never narrower than 80, so
  a 60-column pane gets 80-column lines rather than a layout no table fits in. The CLI calls it
  once and passes the number down: renderers stay pure functions of their report and a width.
- `display_width`: the columns a text takes. A terminal gives East Asian Wide and Fullwidth
  characters (Hangul, CJK; `unicodedata.east_asian_width` W and F) two columns, combining marks and
  zero-width characters none. Python's own table is used, not the `wcwidth` package: it is in the
  venv only as another package's optional extra, and W/F is the rule terminals follow for Korean.
- `wrap_width`: prose broken at spaces only, never inside a word, a name or an inline command,
  so what a person may copy (a node, a claim, `kubectl ...`) stays whole on one line.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable
from typing import TextIO

DEFAULT_WIDTH = 100  # a pipe or a file: what the docs' examples show
MIN_WIDTH = 80  # narrower terminals still get 80-column lines


def output_width(stream: TextIO | None = None, environ: dict[str, str] | None = None) -> int:
    """The width to lay out for: COLUMNS, then the terminal of `stream`, then 100; at least 80."""
    env = os.environ if environ is None else environ
    columns = env.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    try:
        if stream is not None and stream.isatty():
            return max(os.get_terminal_size(stream.fileno()).columns, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):  # no fileno (a test's buffer), a closed stream
        pass
    return DEFAULT_WIDTH


def _char_width(char: str) -> int:
    if unicodedata.combining(char) or char in "\u200b\u200c\u200d\ufeff":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The columns `text` takes on a terminal (Hangul and other wide characters count two)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def ljust_width(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns (str.ljust counts characters)."""
    return text + " " * max(width - display_width(text), 0)


def wrap_width(
    text: str, width: int, initial_indent: str = "", subsequent_indent: str = "", *, widow: bool = True
) -> list[str]:
    """`text` wrapped at spaces to lines of at most `width` columns, indents included.

    Like textwrap.wrap(break_long_words=False, break_on_hyphens=False), but counting display
    columns: a word wider than the room (a command, a long name) stays whole on its own line, and an
    inline command (from `kubectl` or `sudo` to the `)`, `,` or `;` that ends it) is never broken,
    so it can still be pasted. `widow=False`: the last line is never one lone short word (`# run`),
    the line before gives it its last word when both then still fit.
    """
    return _wrap_units(_units(text.split()), width, initial_indent, subsequent_indent, " ", widow)


def wrap_items(
    items: list[str], width: int, initial_indent: str = "", subsequent_indent: str = "", sep: str = "  "
) -> list[str]:
    """Items (a legend's `○ free`, `● held`) joined by `sep`, broken only between two items."""
    return _wrap_units([i for i in items if i], width, initial_indent, subsequent_indent, sep, True)


def _wrap_units(units: list[str], width: int, first: str, rest: str, sep: str, widow: bool) -> list[str]:
    lines: list[list[str]] = []
    line: list[str] = []
    used = display_width(first)
    for unit in units:
        size = display_width(unit)
        if line and used + len(sep) + size > width:
            lines.append(line)
            line, used = [], display_width(rest)
        used += size + (len(sep) if line else 0)
        line.append(unit)
    if line:
        lines.append(line)
    if not widow and len(lines) > 1 and len(lines[-1]) == 1 and len(lines[-2]) > 1:
        moved = [lines[-2][-1], *lines[-1]]
        if display_width(rest) + display_width(sep.join(moved)) <= width:
            lines[-2], lines[-1] = lines[-2][:-1], moved
    return [(first if index == 0 else rest) + sep.join(words) for index, words in enumerate(lines)]


def longest_unit(text: str) -> int:
    """The widest piece `wrap_width` never breaks (a word, an inline command): how narrow `text` wraps."""
    return max((display_width(unit) for unit in _units(text.split())), default=0)


COMMAND_STARTS = ("kubectl", "sudo")


_SHORT_FLAG = re.compile(r"^[(`'\"]?-[A-Za-z]$")  # `-o` of `-o wide`: a flag and its value stay together


def _units(words: list[str]) -> list[str]:
    """Words, with an inline command joined into one unbreakable unit (a backticked one ends at its
    closing backtick), and a short flag with its value."""
    units: list[str] = []
    command: list[str] = []
    for word in words:
        if units and not command and _SHORT_FLAG.match(units[-1]) and not word.startswith("-"):
            units[-1] += " " + word
            continue
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


def fit_items(items: list[str], room: int, more: Callable[[str, int], str], sep: str = ", ") -> str:
    """`items` joined by `sep`, all of them when they fit in `room` columns, else as many as fit
    with `more(names, count)` (the catalog's "{names} and {count} more") saying how many are left
    out: a list is summarised by a count, never cut. At least one item is shown, whole."""
    joined = sep.join(items)
    if display_width(joined) <= room or len(items) <= 1:
        return joined
    shown = 1
    while shown < len(items) - 1:
        if display_width(more(sep.join(items[: shown + 1]), len(items) - shown - 1)) > room:
            break
        shown += 1
    return more(sep.join(items[:shown]), len(items) - shown)
