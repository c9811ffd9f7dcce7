"""`kubectl rbln serve BUNDLE`: a customer's dump as a read-only Kubernetes API on loopback."""

from __future__ import annotations

import os
import sys

import click

from kubectl_rbln.cluster.files import load_objects


@click.command()
@click.argument("bundle", nargs=-1, required=True)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Loopback port (0: a free one).",
)
@click.option(
    "--address", default="127.0.0.1", show_default=True, help="Address to listen on (keep it on loopback)."
)
@click.option(
    "--kubeconfig-out",
    metavar="PATH",
    help="Also write the kubeconfig to this file (never touches ~/.kube/config).",
)
def serve(bundle: tuple[str, ...], port: int, address: str, kubeconfig_out: str | None) -> int:
    """Serve BUNDLE (files, folders, or -) for kubectl and other tools; print a kubeconfig.

    \b
    kubectl rbln serve dump.json --kubeconfig-out /tmp/dump.kubeconfig &
    KUBECONFIG=/tmp/dump.kubeconfig kubectl get pods -A
    Writes are refused (405). Ctrl-C stops it.
    """
    from kubectl_rbln.replay.server import run  # noqa: PLC0415

    objects = load_objects(bundle)

    def ready(server: object) -> None:
        text = server.kubeconfig_yaml()  # type: ignore[attr-defined]
        if kubeconfig_out:
            fd = os.open(kubeconfig_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
        sys.stdout.write(text)
        sys.stdout.flush()
        where = kubeconfig_out or "the kubeconfig above, saved to a file"
        click.echo(
            f"serving {len(objects)} objects at {server.url} (read-only); "  # type: ignore[attr-defined]
            f"use KUBECONFIG={where}; Ctrl-C stops",
            err=True,
        )

    run(objects, address, port, ready)
    return 0
