"""Generated example blocks in the docs: find the drift of each block, rewrite the drifted ones.

One pair of functions for every generator (testing/docs_examples.py for the diagnosing commands,
testing/docs_pod_devices.py for pod-devices): a block is the lines between `start` and `end` of a
page, and `render(block, workdir)` is what the tool prints for it now.
"""

from __future__ import annotations

import difflib
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from kubectl_rbln.render.width import display_width


class Block(Protocol):
    @property
    def page(self) -> Path: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


B = TypeVar("B", bound=Block)


def cut_width(text: str, width: int, mark: str = "…") -> str:
    """`text` cut to at most `width` display columns, ending with `mark` when something was cut: how
    a page shortens a finding's summary to one line. The tool itself never cuts (render/width.py)."""
    if display_width(text) <= width:
        return text
    room = max(width - display_width(mark), 0)
    out = ""
    for char in text:
        if display_width(out + char) > room:
            break
        out += char
    return out + mark


def fenced_commands(
    repo: Path, folders: Iterable[str], command: re.Pattern[str]
) -> Iterator[tuple[Path, int, int, re.Match[str]]]:
    """(page, start, end, match) of every line of the pages that matches `command` and opens a fenced
    block (the line before it is a fence); `end` is the block's closing fence."""
    for folder in folders:
        for page in sorted((repo / folder).glob("*.md")):
            lines = page.read_text(encoding="utf-8").split("\n")
            for index, line in enumerate(lines):
                match = command.match(line)
                if not match or index == 0 or not lines[index - 1].startswith("```"):
                    continue
                end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("```")), None)
                if end is None:
                    raise ValueError(f"{page}:{index + 1}: the example's block is never closed")
                yield page, index, end, match


def drift_of(blocks: Sequence[B], render: Callable[[B, Path], list[str]]) -> dict[Path, list[str]]:
    """Page -> a unified diff of each drifted block (empty: no drift)."""
    out: dict[Path, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for block in blocks:
            lines = block.page.read_text(encoding="utf-8").split("\n")
            current = lines[block.start + 1 : block.end]
            wanted = render(block, Path(tmp))
            if current != wanted:
                diff = difflib.unified_diff(current, wanted, str(block.page), "tool", lineterm="")
                out.setdefault(block.page, []).extend(diff)
    return out


def rewrite(blocks: Sequence[B], render: Callable[[B, Path], list[str]]) -> list[Path]:
    """Rewrite every drifted block; bottom-up per page so earlier indexes stay valid."""
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        by_page: dict[Path, list[B]] = {}
        for block in blocks:
            by_page.setdefault(block.page, []).append(block)
        for page, items in by_page.items():
            lines = page.read_text(encoding="utf-8").split("\n")
            before = list(lines)
            for block in sorted(items, key=lambda b: b.start, reverse=True):
                lines[block.start + 1 : block.end] = render(block, Path(tmp))
            if lines != before:
                page.write_text("\n".join(lines), encoding="utf-8")
                changed.append(page)
    return changed


FIX_LABEL = re.compile(r"^(?P<indent> +)(?:fix|해결):$")  # `fix:` on its own line, its blocks deeper


def in_fix_block(line: str, label_indent: int | None) -> int | None:
    """The fix label's indent while `line` is in a fix block (the label, a deeper line, a blank line
    between its blocks), else None: those lines are commands to paste and are never cut."""
    label = FIX_LABEL.match(line)
    if label:
        return len(label.group("indent"))
    if label_indent is not None and (not line.strip() or len(line) - len(line.lstrip(" ")) > label_indent):
        return label_indent
    return None
