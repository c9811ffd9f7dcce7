"""The `kubectl rbln` command group: which commands exist, imported lazily.

Commands are imported only when they run, so `kubectl rbln --help` and shell
completion never pay for the Kubernetes client (about 0.3 s to import). Its own
module because both the entry point (cli/main.py) and shell completion
(cli/completion.py, which walks the group) need it, and neither may need the other.
"""

from __future__ import annotations

import difflib
import importlib

import click

from kubectl_rbln import __version__
from kubectl_rbln.cli.argv import kubectl_style
from kubectl_rbln.cli.help_format import RblnContext
from kubectl_rbln.cli.lang import lang_option
from kubectl_rbln.errors import InputError

# name -> (module, attribute, one-line help shown by --help without importing the module)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "why": ("kubectl_rbln.cli.why", "why", "Explain why a device Pod is Pending or crashing, with the fix."),
    "attrs": (
        "kubectl_rbln.cli.attrs",
        "attrs",
        "Compare the attributes the RCT needs with what drivers publish.",
    ),
    "pod-devices": (
        "kubectl_rbln.cli.pod_devices",
        "pod_devices",
        "Show the NICs, NPUs, RDS devices and memlock limit inside each Pod.",
    ),
    "suggest-rct": (
        "kubectl_rbln.cli.suggest_rct",
        "suggest_rct",
        "Print a ResourceClaimTemplate the cluster can satisfy, proven by simulation.",
    ),
    "check": ("kubectl_rbln.cli.check", "check", "Run the whole device-allocation checklist cluster-wide."),
    "topo": ("kubectl_rbln.cli.topo", "topo", "Draw each node's NUMA layout of NPUs and NICs."),
    "dump": (
        "kubectl_rbln.cli.dump",
        "dump",
        "Write everything a diagnosis needs as one bundle (a kubectl List).",
    ),
    "serve": ("kubectl_rbln.cli.serve", "serve", "Serve a bundle as a read-only Kubernetes API for kubectl."),
    "version": ("kubectl_rbln.cli.version", "version", "Print the plugin version and the cluster's version."),
    "explain": ("kubectl_rbln.cli.explain", "explain", "Print the documentation page of a finding (en/ko)."),
    "completion": (
        "kubectl_rbln.cli.completion",
        "completion",
        "Shell completion for kubectl rbln and bash/zsh/fish.",
    ),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use, their help in the reader's language."""

    context_class = RblnContext

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attribute, _ = entry
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        if command.context_class is click.Context:
            command.context_class = RblnContext  # its help and usage errors speak the reader's language
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                if sub.context_class is click.Context:
                    sub.context_class = RblnContext
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name in COMMANDS or name.startswith("-") or ctx.resilient_parsing:
            found, command, rest = super().resolve_command(ctx, args)
            return found, command, kubectl_style(rest)
        raise InputError(unknown_command_message(name))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, short) for name, (_, _, short) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def unknown_command_message(name: str) -> str:
    """One line for a mistyped command: the closest command names (difflib), else all of them."""
    close = difflib.get_close_matches(name, list(COMMANDS), n=2, cutoff=0.6)
    if close:
        suggestion = "did you mean " + " or ".join(f'"{c}"' for c in close) + "?"
    else:
        suggestion = "commands: " + ", ".join(COMMANDS)
    return f'unknown command "{name}" for "kubectl rbln"; {suggestion}'


EPILOG = """\b
Exit codes: 0 nothing to fix, 1 findings at or above --fail-on,
2 usage or input error, 3 cluster unreachable or refused.
Every command takes --kubeconfig, --context, -n/--namespace, -f/--filename,
-o/--output table|wide|json|yaml and --jq, and kubectl's connection flags
(--as, --token, --server, --certificate-authority, --insecure-skip-tls-verify,
--user, --cluster...). See `kubectl rbln COMMAND --help`."""


@click.group(cls=LazyGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="kubectl-rbln", message="%(prog)s %(version)s")
@lang_option("Language of help and errors (default: from LC_ALL/LANG).", expose_value=False)
def cli() -> None:
    """Diagnose Dynamic Resource Allocation of Rebellions NPUs and RoCE NICs.

    \b
    kubectl rbln why POD            why a device Pod is Pending, and the fix
    kubectl rbln why -f dump.json POD   the same, offline, from a bundle
    kubectl rbln dump -n NS > dump.json
    """
