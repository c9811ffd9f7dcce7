"""Shell completion: kubectl's plugin protocol, and click's scripts for `kubectl-rbln` used directly.

kubectl 1.26+ completes `kubectl rbln ...` by running `kubectl_complete-rbln ARGS... WORD`,
which calls `kubectl-rbln __complete ARGS... WORD`; we answer in Cobra's format: one
candidate per line (`value<TAB>description`), then `:<directive>`. The bash, zsh and fish
scripts are click's own, with click's value lookup replaced by the same resolver, so both
paths offer the same words. Nothing here imports the Kubernetes client.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from kubectl_rbln.catalog.cli_words import cli_line, language_of_arguments
from kubectl_rbln.catalog.cli_words import help_text as help_text_in
from kubectl_rbln.cli import completion_sources as sources
from kubectl_rbln.cli.group import COMMANDS, cli
from kubectl_rbln.cli.lang import chosen_lang, lang_option

# Cobra's ShellCompDirective bits (spf13/cobra completions.go).
DEFAULT, ERROR, NO_SPACE, NO_FILE, FILTER_EXT, FILTER_DIRS, KEEP_ORDER = 0, 1, 2, 4, 8, 16, 32
SHELLS = ("bash", "zsh", "fish")
PROG = "kubectl-rbln"
COMPLETE_VAR = "_KUBECTL_RBLN_COMPLETE"
BUNDLE_EXTENSIONS = ("json", "yaml", "yml")
DEADLINE = 3.0  # the whole answer, dynamic lookups included
PLACEHOLDER = re.compile(r"{(\w+)}")

KUBECTL_COMPLETE_SCRIPT = """\
#!/usr/bin/env sh
# kubectl (1.26+) runs this to complete `kubectl rbln ...`: it passes the words after `rbln`,
# the last one being completed, and reads Cobra's format back (candidates, then :directive).
# Install next to the plugin with `kubectl rbln completion install`.
if command -v kubectl-rbln >/dev/null 2>&1; then
  exec kubectl-rbln __complete "$@"
fi
exec kubectl rbln __complete "$@"
"""


@dataclass(slots=True)
class Answer:
    """Candidates (`value` or `value<TAB>description`) and the directive telling the shell what else to do."""

    candidates: list[str] = field(default_factory=list)
    directive: int = NO_FILE

    def lines(self) -> list[str]:
        return [*self.candidates, f":{self.directive}"]


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0].rstrip(".") if (text or "").strip() else ""


def _matching(candidates: list[str], incomplete: str) -> list[str]:
    return [c for c in candidates if c.split("\t", 1)[0].startswith(incomplete)]


def _option_names(command: click.Command, ctx: click.Context, incomplete: str, lang: str = "en") -> list[str]:
    """`--flag<TAB>help` of a command; short forms too when only `-` was typed, as Cobra does."""
    names = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or param.hidden:
            continue
        help_text = _first_line(help_text_in(param.help or "", lang))
        for name in [*param.opts, *param.secondary_opts]:
            if name.startswith("--") or incomplete in ("", "-"):
                names.append(f"{name}\t{help_text}" if help_text else name)
    return _matching(names, incomplete)


def _command_names(incomplete: str, lang: str = "en") -> list[str]:
    rows = [f"{name}\t{help_text_in(short, lang).rstrip('.')}" for name, (_, _, short) in COMMANDS.items()]
    return _matching(rows, incomplete)


def _subcommand_names(group: click.Group, ctx: click.Context, incomplete: str, lang: str = "en") -> list[str]:
    names = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            short = help_text_in(command.short_help, lang) if command.short_help else ""
            if not short:
                short = _first_line(help_text_in(command.help or "", lang))
            names.append(f"{name}\t{short.rstrip('.')}")
    return _matching(names, incomplete)


def _slugs(lang: str = "en") -> list[str]:
    from kubectl_rbln.catalog import load_catalog  # noqa: PLC0415

    titles = {
        slug: PLACEHOLDER.sub(r"<\1>", entry.title.get(lang, entry.title["en"]))
        for slug, entry in load_catalog().items()
    }
    return [f"{slug}\t{title}" for slug, title in titles.items()]


# Value completers, by parameter name: (lookup, directive). A lookup gets the typed flags.
VALUE_LOOKUPS: dict[str, Callable[[sources.Scope], list[str]]] = {
    "pods": sources.pod_names,
    "pod": sources.pod_names,
    "namespace": sources.namespaces,
    "context": sources.context_names,
    "rct": sources.template_names,
    "nodes": sources.node_names,
}
FILE_PARAMS = {"filenames": BUNDLE_EXTENSIONS, "with_rct": BUNDLE_EXTENSIONS, "bundle": BUNDLE_EXTENSIONS}


def _value_answer(param: click.Parameter, ctx: click.Context, incomplete: str, lang: str = "en") -> Answer:
    """What to offer for the value of `param` (an option's value or a positional argument)."""
    name = param.name or ""
    if name in VALUE_LOOKUPS:
        return Answer(_matching(VALUE_LOOKUPS[name](sources.Scope.from_params(ctx.params)), incomplete))
    if name == "slug":
        return Answer(_matching(_slugs(lang), incomplete))
    if isinstance(param.type, click.Choice):
        return Answer(_matching([str(c) for c in param.type.choices], incomplete))
    if name in FILE_PARAMS:
        return Answer(list(FILE_PARAMS[name]), FILTER_EXT)
    if name == "kubeconfig" or isinstance(param.type, (click.Path, click.File)):
        return Answer([], DEFAULT)
    if isinstance(param.type, click.types.StringParamType) and name.endswith(("file", "path", "dir")):
        return Answer([], DEFAULT)
    return Answer([], NO_FILE)


def resolve(args: list[str], incomplete: str) -> Answer:
    """The answer for `kubectl rbln ARGS... INCOMPLETE`; never raises. Descriptions are in the language
    of `--lang` among ARGS, else the locale's, as the command's `--help` would be."""
    from click.shell_completion import _resolve_context, _resolve_incomplete  # noqa: PLC0415

    lang = language_of_arguments(args)
    try:
        ctx = _resolve_context(cli, {}, "kubectl rbln", list(args))
        target, incomplete = _resolve_incomplete(ctx, list(args), incomplete)
        if isinstance(target, click.Parameter):
            return _value_answer(target, ctx, incomplete, lang)
        if incomplete.startswith("-"):
            return Answer(_option_names(target, ctx, incomplete, lang))
        if target is cli:
            return Answer(_command_names(incomplete, lang))
        if isinstance(target, click.Group):
            return Answer(_subcommand_names(target, ctx, incomplete, lang))
        return Answer()
    except Exception:  # a half-typed command line must never cost the user a traceback
        return Answer()


def resolve_within(args: list[str], incomplete: str, deadline: float = DEADLINE) -> Answer:
    """`resolve`, but give up (offering nothing) when a slow cluster or bundle would hang the shell."""
    result: list[Answer] = []
    worker = threading.Thread(target=lambda: result.append(resolve(args, incomplete)), daemon=True)
    worker.start()
    worker.join(deadline)
    return result[0] if result else Answer()


def run_cobra(words: list[str]) -> int:
    """The hidden `__complete` command: Cobra's protocol on stdout, nothing on stderr."""
    args, incomplete = (words[:-1], words[-1]) if words else ([], "")
    answer = resolve_within(args, incomplete)
    sys.stdout.write("\n".join(answer.lines()) + "\n")
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------ click's shells, our resolver


def _click_items(args: list[str], incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem  # noqa: PLC0415

    answer = resolve_within(args, incomplete)
    if answer.directive & FILTER_EXT or answer.directive == DEFAULT:
        return [CompletionItem(incomplete, type="file")]
    items = []
    for candidate in answer.candidates:
        value, _, help_text = candidate.partition("\t")
        items.append(CompletionItem(value, help=help_text or None))
    return items


def _shell_class(shell: str) -> type:
    from click import shell_completion as sc  # noqa: PLC0415

    base = {"bash": sc.BashComplete, "zsh": sc.ZshComplete, "fish": sc.FishComplete}[shell]

    class Ours(base):  # type: ignore[misc, valid-type]
        def get_completions(self, args: list[str], incomplete: str) -> list[Any]:
            return _click_items(args, incomplete)

    return Ours


def shell_script(shell: str) -> str:
    """click's completion script for `kubectl-rbln` in `shell` (what `completion SHELL` prints)."""

    return str(_shell_class(shell)(cli, {}, PROG, COMPLETE_VAR).source())


def run_click(instruction: str, argv_env: dict[str, str] | None = None) -> int:
    """Answer click's `_KUBECTL_RBLN_COMPLETE=<shell>_complete` protocol (the scripts call it)."""

    shell, _, action = instruction.partition("_")
    if shell not in SHELLS or action != "complete":
        return 1
    completer = _shell_class(shell)(cli, {}, PROG, COMPLETE_VAR)
    click.echo(completer.complete())
    return 0


# ------------------------------------------------------------------ `kubectl rbln completion`


def install_dir(explicit: str | None) -> Path:
    """Where kubectl will find `kubectl_complete-rbln`: --dir, krew's bin, else beside kubectl-rbln."""
    if explicit:
        return Path(explicit).expanduser()
    krew_bin = Path(os.environ.get("KREW_ROOT") or Path.home() / ".krew") / "bin"
    if (krew_bin / PROG).exists():
        return krew_bin
    found = shutil.which(PROG)
    if found:
        return Path(found).parent
    return krew_bin


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@lang_option(expose_value=False)
def completion() -> None:
    """Shell completion for `kubectl rbln` (through kubectl) and for `kubectl-rbln`.

    \b
    kubectl rbln completion install        completes `kubectl rbln <TAB>` (kubectl 1.26+)
    kubectl rbln completion uninstall      removes what install wrote
    source <(kubectl rbln completion bash) completes `kubectl-rbln <TAB>` in bash
    kubectl rbln completion zsh > "${fpath[1]}/_kubectl-rbln"
    kubectl rbln completion fish > ~/.config/fish/completions/kubectl-rbln.fish
    """


def _print_script(shell: str) -> None:
    text = shell_script(shell)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _script_command(shell: str) -> click.Command:
    """`kubectl rbln completion SHELL`: one subcommand per shell, each printing its script."""

    @completion.command(
        name=shell,
        help=f"Print the {shell} completion script for kubectl-rbln.\n\n\b\nkubectl rbln completion {shell}",
    )
    @lang_option(expose_value=False)  # accepted as everywhere; a script has no words to translate
    def command() -> None:
        _print_script(shell)

    return command


for _shell in SHELLS:
    _script_command(_shell)


@completion.command(short_help="Write kubectl_complete-rbln so that kubectl completes `kubectl rbln`.")
@click.option(
    "--dir",
    "directory",
    metavar="DIR",
    help="Directory on PATH to write into (default: krew's bin, else beside kubectl-rbln).",
)
@click.option("--print", "print_only", is_flag=True, help="Print the script instead of writing it.")
@lang_option()
def install(directory: str | None, print_only: bool, lang: str | None) -> int:
    """Write `kubectl_complete-rbln`, which kubectl 1.26+ runs to complete `kubectl rbln`.

    krew installs only `kubectl-rbln` (kubernetes-sigs/krew#812), so this puts the
    completion helper next to it; then `kubectl rbln <TAB>` completes.

    \b
    kubectl rbln completion install
    kubectl rbln completion install --dir ~/bin
    """
    if print_only:
        sys.stdout.write(KUBECTL_COMPLETE_SCRIPT)
        return 0
    target_dir = install_dir(directory)
    target = target_dir / "kubectl_complete-rbln"
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(KUBECTL_COMPLETE_SCRIPT, encoding="utf-8")
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError as exc:
        from kubectl_rbln.errors import InputError  # noqa: PLC0415

        raise InputError(f"cannot write {target}: {exc.strerror or exc}", hint="pass --dir DIR") from None
    language = chosen_lang(lang)
    click.echo(cli_line("wrote {path}", language, path=str(target)))
    path_dirs = {str(Path(p).resolve()) for p in os.environ.get("PATH", "").split(os.pathsep) if p}
    if str(target_dir.resolve()) not in path_dirs:
        warning = "warning: {path} is not on PATH, where kubectl looks for helpers"
        click.echo(cli_line(warning, language, path=str(target_dir)), err=True)
    return 0


@completion.command(short_help="Remove the kubectl_complete-rbln that `completion install` wrote.")
@click.option(
    "--dir",
    "directory",
    metavar="DIR",
    help="Directory it was written into (default: krew's bin, else beside kubectl-rbln).",
)
@lang_option()
def uninstall(directory: str | None, lang: str | None) -> int:
    """Remove `kubectl_complete-rbln`, the helper `completion install` wrote (run it before
    `kubectl krew uninstall rbln`, which removes only the plugin). A file of that name that this
    plugin did not write is left alone.

    \b
    kubectl rbln completion uninstall
    kubectl rbln completion uninstall --dir ~/bin
    """
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415
    from kubectl_rbln.errors import InputError  # noqa: PLC0415

    language = chosen_lang(lang)
    target = install_dir(directory) / "kubectl_complete-rbln"
    if not target.is_file():
        click.echo(sentence("completion-nothing-to-remove", language, path=str(target)))
        return 0
    try:
        ours = target.read_text(encoding="utf-8", errors="replace") == KUBECTL_COMPLETE_SCRIPT
    except OSError as exc:
        raise InputError(f"cannot read {target}: {exc.strerror or exc}") from None
    if not ours:
        raise InputError(sentence("completion-not-ours", language, path=str(target)))
    try:
        target.unlink()
    except OSError as exc:
        raise InputError(f"cannot remove {target}: {exc.strerror or exc}", hint="pass --dir DIR") from None
    click.echo(sentence("completion-removed", language, path=str(target)))
    return 0


# ------------------------------------------------------------------ completions/ in the source tree

SCRIPT_FILES = {"bash": "kubectl-rbln.bash", "zsh": "_kubectl-rbln", "fish": "kubectl-rbln.fish"}


def write_all(directory: Path) -> list[Path]:
    """Regenerate completions/ (`python -m kubectl_rbln.cli.completion completions`); a test keeps it so."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    helper = directory / "kubectl_complete-rbln"
    helper.write_text(KUBECTL_COMPLETE_SCRIPT, encoding="utf-8")
    helper.chmod(0o755)
    written.append(helper)
    for shell, name in SCRIPT_FILES.items():
        text = shell_script(shell)
        (directory / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        written.append(directory / name)
    return written


if __name__ == "__main__":
    for _path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "completions")):
        print(_path)
