"""The command line's own words in the reader's language: help, click's messages, errors (cli_ko.yaml).

Why: a Korean operator reads `--help`, a usage error and a file error as much as a finding. Those
texts are written in English where they are made (click's decorators, click itself, the plugin's
`raise InputError(...)`), so they are translated where they are shown, the way gettext does: the
English text is the key. The language is decided once, before click parses anything (`--lang` in
the arguments, else the locale), because click's own errors come before any option is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

from kubectl_rbln.catalog.fill import fill

CLI_WORDS_FILE = "cli_ko.yaml"
# The language the command line speaks in this run: set by the entry point from the arguments.
CLI_LANG: ContextVar[str] = ContextVar("cli_lang", default="en")


def language_of_arguments(args: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """`--lang X` / `--lang=X` among the arguments (before `--`), else the locale's language."""
    from kubectl_rbln.catalog import pick_language  # noqa: PLC0415 - the package imports this module

    flag = None
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(args):
            flag = args[index + 1]
        elif arg.startswith("--lang="):
            flag = arg.split("=", 1)[1]
    return pick_language(flag, environ)


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    import yaml  # noqa: PLC0415 - English `--help` translates nothing: yaml stays out of its start

    text = (Path(__file__).parent / CLI_WORDS_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:  # a shipped file broken: say which one (the error path reads it too)
        raise ValueError(f"{CLI_WORDS_FILE} does not load: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{CLI_WORDS_FILE}: needs help, click and errors lists")
    return data


def _key(text: str) -> str:
    """A help text as a lookup key: click's `\\b` marker and the line breaks do not count."""
    return " ".join(text.replace("\b", " ").replace("\\b", " ").split())


@lru_cache(maxsize=1)
def _help() -> dict[str, str]:
    # filled once: the Korean may carry particles (`{|을}`); braces of a jq example stay as they are
    return {_key(e["en"]): fill(e["ko"], {}).replace("\\b", "\b") for e in _document().get("help") or []}


def help_text(text: str, lang: str) -> str:
    """A command's or an option's help in `lang` (as written when it has no translation)."""
    if lang != "ko" or not text:
        return text
    return _help().get(_key(text), text)


def has_help(text: str) -> bool:
    return _key(text) in _help()


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(!r)?\}")


def _pattern(template: str, quoted: bool) -> re.Pattern[str]:
    """An English template as a regular expression: each `{name}` captures a value (`{name!r}`, and
    `"{name}"`, a quoted one)."""
    out, start, seen = [], 0, set()
    for match in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[start : match.start()]))
        name = match.group(1)
        if name in seen:
            out.append(f"(?P={name})")  # the same value again (`-n {namespace}, or {namespace}/...`)
        elif match.group(2):
            out.append(rf"(?P<{name}>'[^']*'|\"[^\"]*\")")
        elif match.end() == len(template):
            out.append(rf"(?P<{name}>.+)")  # the message's last value runs to its end
        elif quoted and out and out[-1].endswith('"'):
            out.append(rf"(?P<{name}>[^\"]*?)")
        else:
            out.append(rf"(?P<{name}>.+?)")
        seen.add(name)
        start = match.end()
    out.append(re.escape(template[start:]))
    body = "".join(out)
    if not quoted:
        return re.compile(rf"^{body}$", re.DOTALL)
    # a piece is whole words: `socket` is not the end of `websocket`
    head = r"(?<![A-Za-z0-9])" if template[:1].isalnum() else ""
    tail = r"(?![A-Za-z0-9])" if template[-1:].isalnum() else ""
    return re.compile(head + body + tail, re.DOTALL)


@lru_cache(maxsize=2)
def _table(section: str) -> list[tuple[re.Pattern[str], str, str]]:
    entries = _document().get(section) or []
    pieces = section == "errors"
    rows = [(_pattern(e["en"], pieces), e["ko"], e["en"]) for e in entries]
    # the longest English first: `cannot reach ...: unknown host` before `cannot reach ...: {reason}`
    return sorted(rows, key=lambda row: -len(_PLACEHOLDER.sub("", row[2])))


def _filled(ko: str, match: re.Match[str]) -> str:
    values = {name: value for name, value in match.groupdict().items() if value is not None}
    if "message" in values:  # click's `Invalid value for X: {message}` holds another of its messages
        values["message"] = click_text(values["message"], "ko")
    return fill(ko, values)


def click_text(message: str, lang: str) -> str:
    """One of click's messages in `lang`; a message made of several (`No such option '--x'. Did you
    mean '--y'?`) is translated piece by piece. A usage error the plugin raises itself
    (`click.UsageError("--rct and --rct-file are exclusive...")`) is one of its errors."""
    if lang != "ko" or not message:
        return message
    for pattern, ko, _ in _table("click"):
        match = pattern.match(message)
        if match:
            return _filled(ko, match)
    plugin = error_text(message, lang)
    if plugin != message:
        return plugin
    pieces = re.split(r"(?<=[.?])\s+", message)
    if len(pieces) > 1:
        return " ".join(click_text(piece, lang) for piece in pieces)
    return message


def error_text(message: str, lang: str) -> str:
    """An error or hint of the plugin in `lang`: each known piece of it replaced, longest first (a
    message is often a few pieces: `pod "x" not found in namespace "y" (the cluster)`)."""
    if lang != "ko" or not message:
        return message
    for pattern, ko, _ in _table("errors"):
        message = _substitute(pattern, ko, message)
    return message


def cli_line(template: str, lang: str, **values: Any) -> str:
    """A line the entry point writes (`error: {message}`), in `lang`, filled with `values`."""
    texts = {entry["en"]: entry["ko"] for entry in _document().get("lines") or []}
    return fill(texts.get(template, template) if lang == "ko" else template, values)


def _substitute(pattern: re.Pattern[str], ko: str, message: str) -> str:
    match = pattern.search(message)
    if match is None:
        return message
    whole = pattern.fullmatch(message)
    if whole is not None:
        return _filled(ko, whole)
    return message[: match.start()] + _filled(ko, match) + message[match.end() :]
