"""`--help` and usage errors in the reader's language, wrapped by display width.

Why: click writes help and its errors in English, and wraps by characters (a Korean syllable takes
two columns, so a Korean line came out twice too wide). Every help page passes this formatter: each
text it is handed (the command's help, each option's, the headings, the usage line) is looked up in
catalog/cli_ko.yaml and wrapped by display columns. English output stays byte for byte click's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import click

from kubectl_rbln.catalog.cli_words import CLI_LANG, click_text, help_text
from kubectl_rbln.render.width import display_width, wrap_width

# click's usage placeholders, as a Korean usage line writes them
USAGE_WORDS = {"[OPTIONS]": "[옵션]", "COMMAND": "명령", "[ARGS]...": "[인수]..."}
_EXTRA = re.compile(r"^(?P<help>.*?)\s*\[(?P<extra>[^\[\]]*)\]$", re.DOTALL)


class RblnFormatter(click.HelpFormatter):
    """click's formatter, speaking the command line's language (CLI_LANG)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lang = CLI_LANG.get()

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        if self.lang != "ko":
            return super().write_usage(prog, args, prefix)
        words = " ".join(USAGE_WORDS.get(word, word) for word in args.split())
        label = click_text("Usage:", self.lang) if prefix is None else click_text(prefix.strip(), self.lang)
        self.write(f"{label:>{self.current_indent}} {prog} {words}".rstrip() + "\n")
        return None

    def write_heading(self, heading: str) -> None:
        super().write_heading(click_text(heading, self.lang))

    def write_text(self, text: str) -> None:
        if self.lang != "ko":
            return super().write_text(text)
        indent = " " * self.current_indent
        self.write("\n".join(_wrapped(help_text(text, self.lang), self.width, indent)) + "\n")
        return None

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        if self.lang != "ko":
            return super().write_dl(rows, col_max, col_spacing)
        rows = [(first, _option_help(second, self.lang)) for first, second in rows]
        first_col = min(max((display_width(f) for f, _ in rows), default=0), col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if display_width(first) <= first_col - col_spacing:
                self.write(" " * (first_col - display_width(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            room = max(self.width - first_col - self.current_indent, 20)
            lines = wrap_width(second, room) or [""]
            pad = " " * (first_col + self.current_indent)
            self.write(lines[0] + "\n" + "".join(f"{pad}{line}\n" for line in lines[1:]))
        return None


def _option_help(text: str, lang: str) -> str:
    """An option's help and click's `[default: x; required]` after it, in `lang`."""
    translated = help_text(text, lang)
    if translated != text or not text:
        return translated
    extra = _EXTRA.match(text)
    if extra is None:
        return click_text(text, lang)  # click's own (`Show this message and exit.`)
    parts = [_extra_part(part.strip(), lang) for part in extra.group("extra").split(";")]
    head = click_text(help_text(extra.group("help"), lang), lang)
    return f"{head}  [{'; '.join(parts)}]" if head else f"[{'; '.join(parts)}]"


def _extra_part(part: str, lang: str) -> str:
    if part.startswith("default: "):
        return click_text("default: {default}", lang).replace("{default}", part[len("default: ") :])
    if part.startswith("env var: "):
        return click_text("env var: {var}", lang).replace("{var}", part[len("env var: ") :])
    return {"required": "필수"}.get(part, part)


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    """click's paragraphs by display width: a paragraph after `\\b` keeps its lines as written."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        if out:
            out.append("")
        if paragraph.startswith("\b"):
            out += [indent + line for line in paragraph[1:].strip("\n").splitlines()]
        else:
            out += wrap_width(" ".join(paragraph.split()), width, indent, indent)
    return out


class RblnContext(click.Context):
    """A click context whose help pages and usage lines pass RblnFormatter."""

    formatter_class = RblnFormatter
