"""A docs/ page as a terminal shows it (`kubectl rbln explain`): no markdown left for the reader to parse.

Headings become plain lines, fenced code is indented four columns, `code` and **bold** lose their
marks, a table is aligned in columns, and a link to another page becomes what opens that page here:
`kubectl rbln explain OTHER` for a finding or a topic (with `--lang` when the page is in the other
language), the docs path for any other page, the address for a web page.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

import click

from kubectl_rbln.render.width import display_width

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]+)\)")  # a label may hold `pods[]`
CODE = re.compile(r"`([^`]+)`")
BOLD = re.compile(r"\*\*([^*]+)\*\*")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def terminal_page(
    text: str, page: str, lang: str, *, explainable: Callable[[str], bool], color: bool = False
) -> str:
    """`text`, the markdown of docs/`page` ("findings/x.md", "ko/exit-codes.md"), for a terminal in
    `lang`. `explainable(name)`: whether `kubectl rbln explain name` prints that page. A paragraph's
    lines keep their breaks; its marks and links are read across them (a link's words may wrap)."""
    out: list[str] = []
    table: list[str] = []
    prose: list[str] = []
    fenced = False

    def flush() -> None:
        if table:
            out.extend(_table(table, page, lang, explainable, color))
            table.clear()
        if prose:
            out.extend(_inline("\n".join(prose), page, lang, explainable, color).split("\n"))
            prose.clear()

    for line in text.splitlines():
        if FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        if fenced:
            out.append(f"    {line}" if line.strip() else "")
            continue
        if line.lstrip().startswith("|"):
            if prose:
                flush()
            table.append(line)
            continue
        heading = HEADING.match(line)
        if heading or not line.strip():
            flush()
            if heading:
                words = _inline(heading.group(2), page, lang, explainable, color=False)
                out.append(click.style(words, bold=True) if color else words)
            else:
                out.append("")
            continue
        if table:
            flush()
        prose.append(line)
    flush()
    return "\n".join(out).rstrip("\n") + "\n"


def _inline(line: str, page: str, lang: str, explainable: Callable[[str], bool], color: bool) -> str:
    def link(match: re.Match[str]) -> str:
        return link_text(match.group(1), match.group(2), page, lang, explainable)

    line = LINK.sub(link, line)
    # code is set aside first, so what it quotes (`https://admin:***@host`) is never read as a mark,
    # and a **bold phrase** may still hold code
    quoted: list[str] = []

    def aside(match: re.Match[str]) -> str:
        quoted.append(click.style(match.group(1), fg="cyan") if color else match.group(1))
        return f"\0{len(quoted) - 1}\0"

    line = BOLD.sub(
        lambda m: click.style(m.group(1), bold=True) if color else m.group(1), CODE.sub(aside, line)
    )
    return re.sub(r"\0(\d+)\0", lambda m: quoted[int(m.group(1))], line)


def link_text(label: str, target: str, page: str, lang: str, explainable: Callable[[str], bool]) -> str:
    """One link as the terminal reads it: its label, then where it leads when that is not the label."""
    label = label.strip("`")
    where = link_target(target, page, lang, explainable)
    if not where:
        return label
    if (
        not label
        or label == target
        or label.endswith(".md")
        or where in (label, f"kubectl rbln explain {label}")
    ):
        return where
    return f"{label} ({where})"


def link_target(target: str, page: str, lang: str, explainable: Callable[[str], bool]) -> str:
    """`kubectl rbln explain NAME [--lang L]`, `docs/PATH`, a web address, or "" (an anchor on this page)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return target  # https:, mailto:
    path, _, _anchor = target.partition("#")
    if not path:
        return ""
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    in_korean = resolved.startswith("ko/")
    inner = resolved.removeprefix("ko/")
    name = ""
    if inner.startswith("findings/") and inner.endswith(".md") and inner.count("/") == 1:
        name = inner.removeprefix("findings/").removesuffix(".md")
    elif "/" not in inner and inner.endswith(".md"):
        name = inner.removesuffix(".md")
    if name and explainable(name):
        target_lang = "ko" if in_korean else "en"
        flag = f" --lang {target_lang}" if target_lang != lang else ""
        return f"kubectl rbln explain {name}{flag}"
    return f"docs/{resolved}"


def _table(
    lines: list[str], page: str, lang: str, explainable: Callable[[str], bool], color: bool
) -> list[str]:
    """A markdown table aligned in columns (the `|---|` rule dropped), cells as inline text."""
    rows = [
        [_inline(cell.strip(), page, lang, explainable, color) for cell in _cells(line)]
        for line in lines
        if not TABLE_RULE.match(line)
    ]
    count = max(len(row) for row in rows)
    widths = [max(display_width(click.unstyle(row[i])) for row in rows if i < len(row)) for i in range(count)]
    return ["  ".join(_pad(row, widths)).rstrip() for row in rows]


def _cells(line: str) -> Iterator[str]:
    body = line.strip().removeprefix("|").removesuffix("|")
    for cell in re.split(r"(?<!\\)\|", body):
        yield cell.replace("\\|", "|")  # `en\|ko`: a pipe inside a cell


def _pad(row: list[str], widths: list[int]) -> Iterator[str]:
    for cell, width in zip(row, widths, strict=False):
        yield cell + " " * max(width - display_width(click.unstyle(cell)), 0)
