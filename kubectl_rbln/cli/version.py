"""`kubectl rbln version`: the plugin's version, and the cluster's when one answers."""

from __future__ import annotations

import click

from kubectl_rbln import __version__
from kubectl_rbln.cli.options import Options, common_options
from kubectl_rbln.errors import RblnError
from kubectl_rbln.render.output import emit_document


@click.command()
@common_options(all_namespaces=False)
def version(opts: Options) -> int:
    """Print the plugin version and the cluster's version (or the bundle's)."""
    document: dict[str, object] = {"plugin": __version__, "cluster": None, "resourceAPI": None}
    note = ""
    try:
        if opts.offline:
            from kubectl_rbln.cluster.files import load_objects  # noqa: PLC0415
            from kubectl_rbln.dra.normalize import build_snapshot  # noqa: PLC0415

            snapshot = build_snapshot(load_objects(opts.filenames))
            document["cluster"] = snapshot.server_version
            document["resourceAPI"] = snapshot.resource_api_version
        else:
            from kubectl_rbln.cluster.source import LiveCollector  # noqa: PLC0415

            collector = LiveCollector(opts)
            document["cluster"] = collector.server_version() or None
            versions = collector.resource_versions()
            document["resourceAPI"] = versions[0] if versions else None
    except RblnError as exc:
        note = exc.message
    if opts.output in ("json", "yaml") or opts.jq:
        emit_document(document, opts.output, opts.jq)
        return 0
    click.echo(f"kubectl-rbln: v{__version__}")
    if document["cluster"]:
        click.echo(f"Cluster: {document['cluster']}")
        click.echo(f"resource.k8s.io: {document['resourceAPI'] or 'not served'}")
    else:
        click.echo(f"Cluster: not reachable ({note})" if note else "Cluster: unknown (bundle without ClusterInfo)")
    return 0
