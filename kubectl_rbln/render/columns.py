"""Plain tables that line up in a terminal whatever the language.

tabulate counts characters unless the optional `wcwidth` package is installed, so a Korean header
or cell would push its column out of line. ASCII tables go to tabulate as before (same output);
a table with wide characters is aligned here by display width (text.display_width).
"""

from __future__ import annotations

from typing import Any

import click

from kubectl_rbln.text import display_width


def plain_table(rows: list[list[Any]], headers: list[str], **options: Any) -> list[str]:
    """tabulate(tablefmt="plain") lines, aligned by display columns when a cell is not ASCII."""
    cells = [[str(c) for c in row] for row in rows]
    if all(h.isascii() for h in headers) and all(c.isascii() for row in cells for c in row):
        from tabulate import tabulate  # noqa: PLC0415 - with wcwidth ~40 ms: only when a table is drawn

        return tabulate(rows, headers=headers, tablefmt="plain", **options).splitlines()
    table = [list(headers), *cells]
    widths = [max(_width(row[i]) for row in table if i < len(row)) for i in range(len(headers))]
    return [
        "  ".join(_pad(cell, width) for cell, width in zip(row, widths, strict=False)).rstrip()
        for row in table
    ]


def _width(cell: str) -> int:
    return display_width(click.unstyle(cell))


def _pad(cell: str, width: int) -> str:
    return cell + " " * max(width - _width(cell), 0)
