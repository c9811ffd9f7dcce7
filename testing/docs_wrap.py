"""docs/ko pages wrapped by display width: `python -m testing.docs_wrap --write` (or `--check`).

Why: a Korean syllable takes two columns, so a page wrapped at 110 characters showed lines of 200
columns in an editor or a terminal (`kubectl rbln explain`). Each prose paragraph and list item of
docs/ko is filled to WIDTH display columns; code blocks, tables, headings, HTML comments and the
generated pages are left as they are. An inline command (`kubectl ...` up to its `)`, `,` or `;`)
or a backticked one stays on one line (kubectl_rbln.text.wrap_width), so it can be pasted.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from kubectl_rbln.render.width import wrap_width

REPO = Path(__file__).resolve().parents[1]
WIDTH = 100
GENERATED = {"output-schema.md"}  # testing.schema_docs writes it
_CODE = re.compile(r"`[^`]+`")
_JOIN = "\ue000"  # a space inside a code span while the paragraph is filled
_ITEM = re.compile(r"^(\s*)([-*+]|\d+\.)(\s+)")
_KEEP = re.compile(r"^\s*(\||#|<!--|-->|```|~~~)|^\s*$|^ {4,}\S|^\s*\[[^\]]+\]:\s")


def pages() -> list[Path]:
    return sorted(p for p in (REPO / "docs" / "ko").rglob("*.md") if p.name not in GENERATED)


def reflow(text: str) -> str:
    """The page with every paragraph and list item filled to WIDTH display columns."""
    out: list[str] = []
    block: list[str] = []
    indent = ("", "")
    fenced = False

    def flush() -> None:
        if block:
            words = " ".join(line.strip() for line in block)
            # a code span stays on one line: it is read, copied and searched whole
            words = _CODE.sub(lambda m: m.group(0).replace(" ", _JOIN), words)
            out.extend(line.replace(_JOIN, " ") for line in wrap_width(words, WIDTH, *indent))
            block.clear()

    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            flush()
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        continues = block and stripped and line.startswith(indent[1]) and not _ITEM.match(line)
        if continues and not stripped.startswith(("|", "#", "<!--")) and not line.endswith(("  ", "\\")):
            block.append(line)  # the paragraph's or the list item's next line
            continue
        flush()
        if _KEEP.match(line) or line.endswith(("  ", "\\")):
            out.append(line)
            continue
        item = _ITEM.match(line)
        lead = item.group(0) if item else line[: len(line) - len(line.lstrip())]
        indent = (lead, " " * len(lead))
        block.append(line[len(lead) :])
    flush()
    return "\n".join(out)


def main(argv: list[str]) -> int:
    write = "--write" in argv
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        wrapped = reflow(text)
        if wrapped != text:
            stale.append(page.relative_to(REPO).as_posix())
            if write:
                page.write_text(wrapped, encoding="utf-8")
    if stale and not write:
        print("not wrapped by display width (run python -m testing.docs_wrap --write):", *stale, sep="\n  ")
        return 1
    for name in stale:
        print(f"rewrapped {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
