"""`kubectl rbln version`: the plugin's version, and the cluster's (or the bundle's).

Like `kubectl version`, the plugin's own version is printed even when the cluster
cannot be asked; the failure then ends the command with its exit code (3), so a
script can tell "old cluster" from "no cluster".
"""

from __future__ import annotations

from typing import Any

import click

from kubectl_rbln import __version__
from kubectl_rbln.catalog.cli_words import cli_line, error_text
from kubectl_rbln.cli.lang import LANG_MESSAGES_HELP
from kubectl_rbln.cli.options import Options, common_options
from kubectl_rbln.errors import RblnError


@click.command()
@common_options(all_namespaces=False, lang_help=LANG_MESSAGES_HELP)
def version(opts: Options) -> int:
    """Print the plugin version and the cluster's version (or the bundle's)."""
    from kubectl_rbln.schemas import api_version  # noqa: PLC0415 - reads a package file

    document: dict[str, Any] = {
        "apiVersion": api_version("VersionReport"),
        "kind": "VersionReport",
        "plugin": __version__,
        "cluster": None,
        "resourceAPI": None,
    }
    note = ""
    try:
        note = _offline(document, opts) if opts.offline else _live(document, opts)
    except RblnError:
        _print(document, opts, "")  # what we know, then the error (one line, exit 3 or 2)
        raise
    _print(document, opts, note)
    return 0


def _offline(document: dict[str, Any], opts: Options) -> str:
    from kubectl_rbln.cluster.files import load_objects  # noqa: PLC0415
    from kubectl_rbln.dra.normalize import build_snapshot  # noqa: PLC0415

    snapshot = build_snapshot(load_objects(opts.filenames))
    document["cluster"] = snapshot.server_version
    document["resourceAPI"] = snapshot.resource_api_version
    return "" if snapshot.server_version else cli_line("bundle without ClusterInfo", opts.lang)


def _live(document: dict[str, Any], opts: Options) -> str:
    from kubectl_rbln.cluster.source import LiveCollector  # noqa: PLC0415

    collector = LiveCollector(opts.source)
    document["cluster"] = collector.server_version() or None
    versions = collector.resource_versions()
    document["resourceAPI"] = versions[0] if versions else None
    return "; ".join(error_text(p["message"], opts.lang) for p in collector.problems)


def _print(document: dict[str, Any], opts: Options, note: str) -> None:
    from kubectl_rbln.render.output import emit_document  # noqa: PLC0415 - yaml stays out of --help

    if opts.output in ("json", "yaml") or opts.jq:
        emit_document(document, opts.output, opts.jq, raw_output=opts.jq_raw)
        return
    lang = opts.lang
    click.echo(f"kubectl-rbln: v{__version__}")
    if document["cluster"]:
        click.echo(cli_line("Cluster: {version}", lang, version=document["cluster"]))
    elif note:
        click.echo(cli_line("Cluster: unknown ({note})", lang, note=note))
    if document["cluster"] or document["resourceAPI"]:
        api = document["resourceAPI"] or (
            cli_line("not read ({note})", lang, note=note) if note else cli_line("not served", lang)
        )
        click.echo(f"resource.k8s.io: {api}")
