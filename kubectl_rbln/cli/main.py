"""The `kubectl rbln` entry point: the one place errors become exit codes.

The command group itself is cli/group.py, so that shell completion (which walks
the group) and this entry point (which hands completion requests over) both
import it without importing each other.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any, TextIO

import click

from kubectl_rbln import progress, terminal
from kubectl_rbln.catalog.cli_words import CLI_LANG, cli_line, click_text, error_text, language_of_arguments
from kubectl_rbln.cli import lifetime
from kubectl_rbln.cli.group import cli
from kubectl_rbln.errors import EXIT_USAGE, RblnError
from kubectl_rbln.render.width import display_width, output_width, wrap_width


def _debug() -> bool:
    return os.environ.get("RBLN_DEBUG", "") not in ("", "0")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; expected failures print one line and exit with their documented code.

    Everything it prints passes the terminal writer (kubectl_rbln/terminal.py): no control sequence
    and no registered credential reaches stdout or stderr, from whichever path wrote it."""
    with terminal.guarded():
        _completion_hook(sys.argv[1:] if argv is None else argv)
        if argv is None:  # the process itself: one command, then `_leave`
            # no cyclic GC: what a command builds (a Snapshot of millions of objects, thousands of
            # diagnoses) is acyclic or lives to the end, and the collector walking it again and again
            # cost 10-25% of `why` and `check` at 5,000 nodes (docs/performance.md); `serve` and
            # `why --watch` run until stopped and turn it back on
            gc.disable()
            lifetime.leaving_by_exit()  # what a command keeps (cli/lifetime.py) goes with the process
        code = _run(argv)
        if argv is None:  # the process itself (not a test calling main): leave without tearing down
            _leave(code)
    sys.exit(code)


def _run(argv: list[str] | None) -> int:
    """The command's exit code; every expected failure becomes its one line and code here, in the
    language of `--lang` or the locale (read before click parses: its own errors come first)."""
    lang = language_of_arguments(sys.argv[1:] if argv is None else argv)
    token = CLI_LANG.set(lang)
    try:
        return _run_in(argv, lang)
    except Exception as exc:  # the error path itself failed (its catalog of words did not load)
        if _debug():
            raise
        said = " ".join(str(exc).split())
        _tell(f"error: internal error: {type(exc).__name__}: {said} (RBLN_DEBUG=1 shows the traceback)")
        return EXIT_USAGE
    finally:
        CLI_LANG.reset(token)


def _run_in(argv: list[str] | None, lang: str) -> int:
    try:
        try:
            code = cli.main(args=argv, prog_name="kubectl rbln", standalone_mode=False)
        finally:
            progress.done()  # a progress line still drawn (an error mid-read) is wiped first
    except RblnError as exc:
        _tell(cli_line("error: {message}", lang, message=error_text(exc.message, lang)))
        if exc.hint:
            _tell(cli_line("hint: {hint}", lang, hint=error_text(exc.hint, lang)))
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        _show(exc, lang)
        return EXIT_USAGE
    except click.exceptions.Abort:
        click.echo(cli_line("aborted", lang), err=True)
        return 130
    except KeyboardInterrupt:
        click.echo(cli_line("interrupted", lang), err=True)
        return 130
    except BrokenPipeError:
        _silence_broken_pipe()
    except Exception as exc:  # a bug: one line unless RBLN_DEBUG asks for the traceback
        if _debug():
            raise
        internal = cli_line(
            "internal error: {error} (RBLN_DEBUG=1 shows the traceback)",
            lang,
            error=f"{type(exc).__name__}: {exc}",
        )
        _tell(cli_line("error: {message}", lang, message=internal))
        return EXIT_USAGE
    return code if isinstance(code, int) else 0


def _show(exc: click.ClickException, lang: str) -> None:
    """click's own `exc.show()`, in `lang`: the usage line, where help is, and the error."""
    if lang != "ko":
        exc.show()
        return
    ctx = getattr(exc, "ctx", None)
    lines: list[str] = []
    if isinstance(exc, click.UsageError) and ctx is not None:
        lines.append(ctx.get_usage())
        if ctx.command.get_help_option(ctx) is not None:
            hint = click_text(f"Try '{ctx.command_path} {ctx.help_option_names[0]}' for help.", lang)
            lines.append(hint + "\n")
    lines.append(fitted(click_text(f"Error: {click_text(exc.format_message(), lang)}", lang), sys.stderr))
    click.echo("\n".join(lines), err=True)


def _tell(line: str) -> None:
    click.echo(fitted(line, sys.stderr), err=True)


def fitted(line: str, stream: TextIO) -> str:
    """An error or hint line as `stream` shows it: on a terminal, wrapped at words to its width
    (render/width.py: COLUMNS, else the terminal's), continued under the message; to a pipe or a file
    one line, as docs/exit-codes.md promises scripts that grep it. Why: a terminal breaks a long line
    wherever the width ends, mid-word, and a Korean error is twice as wide as its English."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # a closed stream
        terminal = False
    width = output_width(stream)
    if not terminal or "\n" in line or display_width(line) <= width:
        return line
    label, sep, _ = line.partition(": ")
    indent = " " * (display_width(label) + 2) if sep and display_width(label) <= 12 else "  "
    return "\n".join(wrap_width(line, width, "", indent, widow=False))


def _leave(code: int) -> None:
    """Flush and end the process now. Why: freeing a 5,000-node Snapshot object by object at exit
    took 0.5 s of a 4 s `why` (docs/performance.md). The one exit hook that must run is the
    client's removal of the kubeconfig's key and certificate data from its temp files."""
    from kubectl_rbln.cluster.kubeconfig import remove_credential_files  # noqa: PLC0415

    remove_credential_files()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        _silence_broken_pipe()
    os._exit(code)


def _completion_hook(args: list[str]) -> None:
    """Shell completion, answered before click parses anything: hidden `__complete` (kubectl's
    plugin protocol) and click's `_KUBECTL_RBLN_COMPLETE` (the bash/zsh/fish scripts)."""
    instruction = os.environ.get("_KUBECTL_RBLN_COMPLETE")
    if not instruction and (not args or args[0] != "__complete"):
        return
    from kubectl_rbln.cli import completion  # noqa: PLC0415

    sys.exit(completion.run_click(instruction) if instruction else completion.run_cobra(args[1:]))


def _silence_broken_pipe() -> Any:
    """`kubectl rbln dump | head` closes the pipe early: that is not an error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)
