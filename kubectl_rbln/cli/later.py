"""Commands whose issue has not landed yet: listed in --help, and honest about it when run."""

from __future__ import annotations

import click

from kubectl_rbln.errors import EXIT_USAGE

ISSUES = {
    "attrs": 4,
    "pod-devices": 5,
    "suggest-rct": 4,
    "check": 4,
    "topo": 8,
}


def _not_yet_built(name: str) -> click.Command:
    @click.command(name=name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    @click.pass_context
    def command(ctx: click.Context) -> int:
        click.echo(
            f"error: `kubectl rbln {name}` is not yet built (issue #{ISSUES[name]}); "
            "`kubectl rbln why` and `kubectl rbln dump` work today",
            err=True,
        )
        return EXIT_USAGE

    command.help = f"Not yet built (issue #{ISSUES[name]})."
    return command


attrs = _not_yet_built("attrs")
pod_devices = _not_yet_built("pod-devices")
suggest_rct = _not_yet_built("suggest-rct")
check = _not_yet_built("check")
topo = _not_yet_built("topo")
