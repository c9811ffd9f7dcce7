"""`kubectl rbln why [POD...]`: wires flags to the pure diagnosis and the renderers."""

from __future__ import annotations

import sys

import click

from kubectl_rbln.cli.options import Options, common_options, simulation_options

EXAMPLE_HELP = "Diagnose the bundled example cluster (no cluster needed)."


@click.command()
@click.argument("pods", nargs=-1)
@common_options()
@click.option(
    "--with-rct",
    "with_rct",
    metavar="FILE",
    help="Diagnose as if this ResourceClaimTemplate replaced the Pod's (prove a fix before applying it).",
)
@simulation_options
@click.option("--example", is_flag=True, help=EXAMPLE_HELP)
def why(
    opts: Options,
    pods: tuple[str, ...],
    with_rct: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
    example: bool,
) -> int:
    """Explain why device Pods are Pending or crashing: verdict, evidence, fix.

    \b
    kubectl rbln why decode-7f9c-abcde -n serving
    kubectl rbln why -n serving                  every Pending or crashing device Pod
    kubectl rbln why -f dump.json POD            offline, from a bundle
    kubectl rbln why POD --with-rct fixed.yaml   would this RCT fix it?
    kubectl rbln why --example                   the bundled example cluster
    """
    from kubectl_rbln.cli.why_run import run_why  # noqa: PLC0415 - heavy imports only when running

    if example:
        from kubectl_rbln.example import example_path  # noqa: PLC0415

        opts.filenames = [str(example_path())]
        if not opts.namespace:
            opts.namespace = "serving"
    text, code = run_why(
        opts, list(pods), with_rct=with_rct, k8s_version=k8s_version, feature_gates=feature_gates
    )
    sys.stdout.write(text)
    return code
