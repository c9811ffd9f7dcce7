"""Plain tables that line up in a terminal whatever the language, and fit the width they are given.

The layout is tabulate's "plain" one (columns two spaces apart, numbers right-aligned, text left),
counted in display columns (render/width.py), so a Korean header or cell does not push its column
out of line; it is drawn here because fitting a width needs to know where each cell may wrap.

A table wider than its `width` is fitted (issue 25), never cut:
1. cells wrap at spaces, the widest column first, each down to its longest word; a wrapped cell
   goes on under its column, the other cells of the row blank below;
2. when the words still do not allow it (node and attribute names, IDs cannot be broken), the
   column with the longest word leaves the table: the first column goes on a line of its own
   above each row's other cells, another column on lines of its own below them, indented.
A single word wider than the width is shown whole and passes it: nothing is lost.
"""

from __future__ import annotations

import re
from typing import Any

import click

from kubectl_rbln.render.width import display_width, longest_unit, wrap_width

GAP = 2  # the spaces between two columns
STACK_INDENT = "  "  # the other columns under a row's first cell, when the table is stacked
BELOW_INDENT = "    "  # a column moved under its row's other cells
_SGR = re.compile(r"^((?:\x1b\[[0-9;]*m)+)(.*?)((?:\x1b\[[0-9;]*m)*)$", re.DOTALL)


def plain_table(
    rows: list[list[Any]], headers: list[str], width: int | None = None, **_options: Any
) -> list[str]:
    """The table's lines, aligned by display columns; with `width`, fitted to it when its words allow.
    (`disable_numparse` and other tabulate options are accepted and change nothing: only int and float
    values are numbers here, a string of digits is text.)"""
    return [line for group in _layout(rows, headers, width) for line in group]


def _layout(rows: list[list[Any]], headers: list[str], width: int | None) -> list[list[str]]:
    """The header's lines, then each row's lines (a wrapped or stacked row has several)."""
    if width is not None and _natural(rows, headers) > width:
        fitted = fit_cells(rows, headers, width)
        if _natural(fitted, headers) > width and len(headers) > 1 and rows:
            return _stacked(rows, headers, width)
        rows = fitted
    return _draw(rows, headers)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _natural(rows: list[list[Any]], headers: list[str]) -> int:
    """The table's width as drawn: its widest cell of each column, and the gaps between them."""
    return sum(_widths(rows, headers)) + GAP * (len(headers) - 1)


def _widths(rows: list[list[Any]], headers: list[str]) -> list[int]:
    table = [list(headers), *([str(c) for c in row] for row in rows)]
    return [max((_width(r[i]) for r in table if i < len(r)), default=0) for i in range(len(headers))]


def _draw(rows: list[list[Any]], headers: list[str]) -> list[list[str]]:
    numeric = [bool(rows) and all(i < len(r) and _is_number(r[i]) for r in rows) for i in range(len(headers))]
    widths = _widths(rows, headers)
    groups = []
    for index, row in enumerate([list(headers), *rows]):
        split = [str(cell).split("\n") for cell in row]
        lines = []
        for depth in range(max((len(parts) for parts in split), default=1)):
            parts = [p[depth] if depth < len(p) else "" for p in split]
            cells = [
                _pad(cell, w, right=numeric[i] and index > 0)
                for i, (cell, w) in enumerate(zip(parts, widths, strict=False))
            ]
            lines.append((" " * GAP).join(cells).rstrip())
        groups.append(lines)
    return groups


def _stacked(rows: list[list[Any]], headers: list[str], width: int) -> list[list[str]]:
    """The column with the longest word out of the table, on lines of its own: the first column
    above each row's other cells (indented), another one below them (indented deeper); the rest fitted."""
    texts = [[str(c) for c in row] for row in rows]
    floors = [
        max(longest_unit(click.unstyle(r[i])) for r in texts if i < len(r)) for i in range(len(headers))
    ]
    column = max(range(len(headers)), key=lambda i: (floors[i], -i))
    if column == 0:
        rest = _layout([row[1:] for row in rows], headers[1:], width - len(STACK_INDENT))
        groups = [[str(headers[0]), *(STACK_INDENT + line for line in rest[0])]]
        for row, lines in zip(rows, rest[1:], strict=True):
            groups.append([str(row[0]), *(STACK_INDENT + line if line else line for line in lines)])
        return groups
    others = [row[:column] + row[column + 1 :] for row in rows]
    rest = _layout(others, headers[:column] + headers[column + 1 :], width)
    groups = [[*rest[0], BELOW_INDENT + str(headers[column])]]
    for row, lines in zip(rows, rest[1:], strict=True):
        cell = str(row[column]) if column < len(row) else ""
        room = width - len(BELOW_INDENT)
        below = [BELOW_INDENT + line for line in _wrap_cell(cell, room).split("\n")] if cell.strip() else []
        groups.append([*lines, *below])
    return groups


def fit_cells(rows: list[list[Any]], headers: list[str], width: int) -> list[list[Any]]:
    """`rows` with cells wrapped (lines joined by newlines) so the table fits `width` columns."""
    count = len(headers)
    texts = [[str(c) for c in row] for row in rows]
    table = [list(headers), *texts]
    widths = [max((_width(r[i]) for r in table if i < len(r)), default=0) for i in range(count)]
    floors = [
        max([_width(headers[i]), *(longest_unit(click.unstyle(r[i])) for r in texts if i < len(r))])
        for i in range(count)
    ]
    target = list(widths)
    while sum(target) + GAP * (count - 1) > width:
        shrinkable = [i for i in range(count) if target[i] > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: target[i])
        excess = sum(target) + GAP * (count - 1) - width
        lower = [target[i] for i in shrinkable if target[i] < target[widest]]
        # down to the next widest at most, so two wide columns give up room in turn
        target[widest] = max(target[widest] - excess, max(lower, default=0), floors[widest])
    if target == widths:
        return rows
    return [[_fitted(cell, target[i]) if i < count else cell for i, cell in enumerate(row)] for row in rows]


def _fitted(cell: Any, width: int) -> Any:
    return _wrap_cell(cell, width) if _width(str(cell)) > width else cell


def _wrap_cell(cell: Any, width: int) -> str:
    """A cell's text over lines of at most `width` columns; a cell coloured as a whole stays coloured
    on each of its lines."""
    text = str(cell)
    styled = _SGR.match(text)
    if styled and styled.group(3):
        start, body, end = styled.groups()
        return "\n".join(start + line + end for line in wrap_width(body, width))
    return "\n".join(wrap_width(click.unstyle(text) if "\x1b" in text else text, width))


def _width(cell: str) -> int:
    return max((display_width(click.unstyle(part)) for part in cell.split("\n")), default=0)


def _pad(cell: str, width: int, right: bool = False) -> str:
    room = " " * max(width - _width(cell), 0)
    return room + cell if right else cell + room
