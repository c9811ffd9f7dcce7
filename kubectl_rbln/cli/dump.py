"""`kubectl rbln dump`: everything a diagnosis needs, as one kubectl-style List (docs/bundle.md).

Lists that the cluster refuses (403) or does not serve (404) do not end the
dump: they are recorded in the bundle's ClusterInfo and named on stderr, so the
bundle diagnoses like the cluster it came from. `EXTRA_COLLECTORS` is where
more evidence plugs in: the `pod-devices` probe of each running device Pod,
recorded as an ExecCapture so that `pod-devices -f` reads it offline.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from kubectl_rbln.catalog.cli_words import cli_line, error_text
from kubectl_rbln.cli.lang import LANG_MESSAGES_HELP
from kubectl_rbln.cli.options import Options, common_options
from kubectl_rbln.cluster.exec_probe import dump_probes
from kubectl_rbln.errors import InputError
from kubectl_rbln.render.json_text import list_lines
from kubectl_rbln.terminal import vouch

if TYPE_CHECKING:
    from kubectl_rbln.cluster.source import ExtraCollector, LiveCollector

# Run after the lists and crash logs, in order; each returns more bundle items.
EXTRA_COLLECTORS: list[ExtraCollector] = [dump_probes]


ENVELOPE: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}}


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {**ENVELOPE, "items": objects}


def bundle_lines(objects: list[dict[str, Any]]) -> Iterator[str]:
    """The bundle's text, one item a line (docs/bundle.md): `why -f` then reads it by line, never whole,
    and the text is written as it is made, never held whole either. Controls are escaped."""
    return list_lines(ENVELOPE, objects)


def batched_text(lines: Iterator[str], size: int = 1 << 20) -> Iterator[str]:
    """Lines joined into ~1 MB writes: few enough to vouch for one by one, small enough to never hold
    a 100 MB bundle's text."""
    batch: list[str] = []
    held = 0
    for line in lines:
        batch.append(line)
        held += len(line)
        if held >= size:
            yield "".join(batch)
            batch, held = [], 0
    if batch:
        yield "".join(batch)


@click.command()
@common_options(output=False, lang_help=LANG_MESSAGES_HELP)
@click.option("--output-file", "output_file", metavar="PATH", help="Write the bundle here instead of stdout.")
def dump(opts: Options, output_file: str | None) -> int:
    """Write Nodes, Pods, Events, DRA objects and crash logs as one List (JSON).

    \b
    kubectl rbln dump -n serving > bundle.json
    kubectl rbln dump -A --output-file bundle.json
    kubectl rbln why -f bundle.json POD        (offline, same answer)
    """
    from kubectl_rbln.cluster.source import LiveCollector  # noqa: PLC0415

    if opts.offline:
        raise InputError("dump reads a live cluster; -f is for the other commands")
    collector = LiveCollector(opts.source)
    if not opts.namespace and not opts.all_namespaces:
        note = choose_scope(collector, opts.lang)
        if note:
            click.echo(cli_line("note: {note}", opts.lang, note=note), err=True)
    objects = collector.collect(EXTRA_COLLECTORS)
    for problem in collector.problems:
        click.echo(
            cli_line("warning: {message}", opts.lang, message=error_text(problem["message"], opts.lang)),
            err=True,
        )
    lines = bundle_lines(objects)
    if output_file:
        try:
            with open(output_file, "w", encoding="utf-8") as handle:
                handle.writelines(lines)
        except OSError as exc:
            raise InputError(f"--output-file {output_file}: {exc.strerror or exc}") from None
        click.echo(
            cli_line("wrote {count} objects to {path}", opts.lang, count=len(objects), path=output_file),
            err=True,
        )
    else:
        for chunk in batched_text(lines):
            sys.stdout.write(vouch(chunk))
    return 0


def choose_scope(collector: LiveCollector, lang: str = "en") -> str:
    """No -n: every namespace that holds a device Pod or a claim, not only the context's; the line
    that says what was chosen ("" when it is the context's namespace, as without this choice)."""
    context = collector.namespace or "default"
    found = collector.device_namespaces()
    if found is None:
        return cli_line(
            "Pods and ResourceClaims of all namespaces could not be listed: dumping namespace {namespace} "
            "(the context's) only; pass -n NS for another, or -A",
            lang,
            namespace=context,
        )
    if not found or found == [context]:
        return ""
    if len(found) == 1:
        collector.namespace = found[0]
        return cli_line(
            "device Pods and claims are in namespace {namespace} only: dumping it (pass -n to choose)",
            lang,
            namespace=found[0],
        )
    collector.namespace = None
    collector.only = tuple(found)
    return cli_line(
        "device Pods or claims are in namespaces {namespaces}: dumping those (pass -n to choose one)",
        lang,
        namespaces=", ".join(found),
    )
