"""`kubectl rbln dump`: everything a diagnosis needs, as one kubectl-style List (docs/bundle.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from kubectl_rbln.cli.options import Options, common_options
from kubectl_rbln.errors import InputError


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects}


@click.command()
@common_options(output=False)
@click.option("--output-file", "output_file", metavar="PATH", help="Write the bundle here instead of stdout.")
def dump(opts: Options, output_file: str | None) -> int:
    """Write Nodes, Pods, Events, DRA objects and crash logs as one List (JSON).

    \b
    kubectl rbln dump -n serving > bundle.json
    kubectl rbln dump -A --output-file bundle.json
    kubectl rbln why -f bundle.json POD        (offline, same answer)
    """
    from kubectl_rbln.cluster.source import collect  # noqa: PLC0415

    if opts.offline:
        raise InputError("dump reads a live cluster; -f is for the other commands")
    collected = collect(opts)
    text = json.dumps(as_list(collected.objects), ensure_ascii=False, indent=1)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        click.echo(f"wrote {len(collected.objects)} objects to {output_file}", err=True)
    else:
        sys.stdout.write(text + "\n")
    return 0
