"""`--lang en|ko`: one option, the same on every command, group and subcommand.

Why its own module: the command group (cli/group.py, which `kubectl rbln --help` imports) takes it
too, and must not import the shared flags' module (cli/options.py pulls in the source layer). The
entry point reads `--lang` before click parses (cli/main.py), so help and click's own errors speak
it; this option makes click accept it wherever it stands and remembers it for the command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

LANGS = ("en", "ko")
LANG_FINDINGS_HELP = "Language of findings (default: from LANG)."
LANG_MESSAGES_HELP = "Language of messages, help and errors (default: from LC_ALL/LANG)."
_GIVEN = "kubectl_rbln.lang"  # ctx.meta key (shared by a context and its children): the --lang given


def _remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value:
        ctx.meta[_GIVEN] = value
    return value


def lang_option(help_text: str = LANG_MESSAGES_HELP, *, expose_value: bool = True) -> Callable[..., Any]:
    """`--lang en|ko` on a command or group; a command reads its value with `chosen_lang`."""
    return click.option(
        "--lang",
        type=click.Choice(LANGS),
        default=None,
        callback=_remember,
        expose_value=expose_value,
        help=help_text,
    )


def chosen_lang(flag: str | None = None) -> str:
    """The language a command speaks: its `--lang`, else one given before it (`kubectl rbln --lang ko
    why`, `completion --lang ko install`), else the locale's (LC_ALL, LC_MESSAGES, LANG)."""
    from kubectl_rbln.catalog import pick_language  # noqa: PLC0415 - what the entry point decided by

    if flag:
        return flag
    ctx = click.get_current_context(silent=True)
    given = ctx.meta.get(_GIVEN) if ctx is not None else None
    return pick_language(str(given) if given else None)


def said(line: str, lang: str) -> str:
    """A `warning: ...` or `note: ...` line of the source or a use case, in `lang`: its label and its
    message, whose pieces are translated as an error's are (catalog/cli_ko.yaml `errors`)."""
    from kubectl_rbln.catalog.cli_words import cli_line, error_text  # noqa: PLC0415

    for label, template, name in (
        ("warning: ", "warning: {message}", "message"),
        ("note: ", "note: {note}", "note"),
    ):
        if line.startswith(label):
            return cli_line(template, lang, **{name: error_text(line[len(label) :], lang)})
    return error_text(line, lang)


def warner(lang: str, prefix: str = "") -> Callable[[str], None]:
    """Where the source's and the use cases' `warning:` and `note:` lines go: stderr, in `lang`
    (`prefix`: a fleet run's `[context] `)."""

    def warn(line: str) -> None:
        click.echo(prefix + said(line, lang), err=True)

    return warn
