"""`kubectl rbln topo [NODE...]`: wires flags to the pure topology and its three renderers.

`-o svg` is not one of the shared output formats, so this command takes
`common_options(output=False)` and declares its own `-o` and `--jq` (under other parameter
names: the shared wrapper pops `output` and `jq_expr` from the keyword arguments).
"""

from __future__ import annotations

import os

import click

from kubectl_rbln.cli.lang import warner
from kubectl_rbln.cli.options import (
    OUTPUT_FORMATS,
    Options,
    common_options,
    label_selector,
    raw_output_option,
    simulation_options,
)
from kubectl_rbln.domain import DEFAULT_RCT

TOPO_FORMATS = (*OUTPUT_FORMATS, "svg")


@click.command()
@click.argument("nodes", nargs=-1)
@common_options(output=False)
@click.option(
    "-o",
    "--output",
    "fmt",
    type=click.Choice(TOPO_FORMATS),
    default="table",
    show_default=True,
    help="Output format; svg writes a picture of the same layout to stdout.",
)
@click.option("--jq", "jq_filter", metavar="EXPR", help="Filter the JSON output with a jq expression.")
@raw_output_option()
@click.option("-l", "--selector", metavar="SELECTOR", help="Only nodes with these labels (kubectl syntax).")
@click.option(
    "--rct",
    metavar="NAME",
    help="ResourceClaimTemplate whose requests decide usable (default: the one the namespace's "
    f"device Pods use, else {DEFAULT_RCT}).",
)
@click.option("--rct-file", metavar="FILE", help="Decide usable with the ResourceClaimTemplate in this file.")
@simulation_options
def topo(
    opts: Options,
    nodes: tuple[str, ...],
    fmt: str,
    jq_filter: str | None,
    selector: str | None,
    rct: str | None,
    rct_file: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
) -> int:
    """Draw each node's NUMA layout of NPUs and NICs: free, held by whom, or unusable and why.

    \b
    kubectl rbln topo                          every node with devices
    kubectl rbln topo npu-node-01 -n serving   one node, for serving's RCT
    kubectl rbln topo -l rebellions.ai/npu.present=true --rct npu-rdma
    kubectl rbln topo -A                       how many more Pods of each namespace's RCT fit
    kubectl rbln topo -f dump.json -o svg > topo.svg
    """
    if rct and rct_file:
        raise click.UsageError("--rct and --rct-file are exclusive: name one RCT")
    if opts.all_namespaces and not opts.namespace and (rct_file or fmt == "svg"):
        what = "--rct-file is one RCT" if rct_file else "-o svg draws one RCT's layout"
        raise click.UsageError(f"-A counts each namespace's own RCT; {what}: give -n NAMESPACE instead")
    if jq_filter and fmt == "svg":
        raise click.UsageError("--jq filters JSON; it cannot be used with -o svg")
    opts.output = "json" if jq_filter and fmt in ("table", "wide") else fmt
    opts.jq = jq_filter
    if opts.jq_raw and not jq_filter:
        raise click.UsageError("-r/--raw-output prints --jq results; give --jq EXPR with it")
    return run_topo(
        opts,
        list(nodes),
        selector=selector,
        rct=rct,
        rct_file=rct_file,
        k8s_version=k8s_version,
        feature_gates=feature_gates,
    )


def run_topo(
    opts: Options,
    names: list[str],
    *,
    selector: str | None = None,
    rct: str | None = None,
    rct_file: str | None = None,
    k8s_version: str | None = None,
    feature_gates: str | None = None,
) -> int:
    """Read once (and the --rct-file), lay the nodes out (app.topo), print in the chosen format; the exit
    code is 0 but for a read that came back incomplete (cluster/read_gaps.py) or an RCT it counts with
    that the API server would never store (an impossible count: 1)."""
    from kubectl_rbln.app.topo import TopoRequest, topo  # noqa: PLC0415
    from kubectl_rbln.cli.rct_file import load_rct_file  # noqa: PLC0415
    from kubectl_rbln.cluster.read_gaps import NEEDS_DEVICES, degraded_exit  # noqa: PLC0415
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.diagnose.findings import exit_code_for  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415

    template = load_rct_file(rct_file, "--rct-file") if rct_file else None
    requirements = label_selector(selector)
    snapshot, collected = load_snapshot(opts.source, warner(opts.lang), needs=NEEDS_DEVICES)
    request = TopoRequest(
        namespace=default_namespace(opts.source, collected, snapshot, warner(opts.lang)),
        nodes=names,
        selector=requirements,
        namespace_given=bool(opts.namespace),
        rct=rct,
        rct_template=template,
        rct_origin=f"--rct-file {os.path.basename(rct_file)}" if rct_file else "",
        k8s_version=k8s_version,
        feature_gates=feature_gates,
        all_namespaces=opts.all_namespaces,
    )
    report = topo(snapshot, request)

    def text() -> str:
        if opts.output == "svg":
            from kubectl_rbln.render.topo_svg import render_svg  # noqa: PLC0415

            return render_svg(report.topology)
        from kubectl_rbln.render.topo_text import render_topology  # noqa: PLC0415

        return render_topology(
            report.topology, color=opts.color, wide=opts.output == "wide", lang=opts.lang, width=opts.width
        )

    emit(report, output=opts.output, jq_expr=opts.jq, lang=opts.lang, text=text, raw_output=opts.jq_raw)
    return degraded_exit(snapshot, exit_code_for(report.findings, "error"))
