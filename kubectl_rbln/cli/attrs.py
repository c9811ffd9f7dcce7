"""`kubectl rbln attrs`: flags to `app.attrs`, then a table or an AttrsReport document."""

from __future__ import annotations

from dataclasses import replace

import click
from click.core import ParameterSource

from kubectl_rbln.cli.lang import warner
from kubectl_rbln.cli.options import Options, common_options, rct_option

# what `attrs` reads of a live cluster: devices, classes and RCTs, and what the fix of an RCT needs to
# be the one `why` prints (issue 22): the namespace's Pods and claims (whose owners are re-created),
# and the Nodes the suggested RCT is proven on (a file is read whole, as before)
ATTRS_KINDS = frozenset(
    {"DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim", "Pod", "Node"}
)


@click.command()
@common_options()
@rct_option("The RCT to check, read back from the cluster (what the API server stored).")
@click.option("--rct-file", metavar="FILE", help="Check this RCT file instead (before applying it).")
def attrs(opts: Options, rct: str, rct_file: str | None) -> int:
    """Compare the attributes the RCT requires with what every driver's devices publish.

    \b
    kubectl rbln attrs -n serving
    kubectl rbln attrs -n serving --rct-file numa-aligned.yaml     before installing
    kubectl rbln attrs -f dump.json -n serving -o json
    kubectl rbln attrs -A                                          every RCT of every namespace
    """
    from kubectl_rbln.app.attrs import AttrsRequest  # noqa: PLC0415 - heavy imports only when running
    from kubectl_rbln.app.attrs import attrs as run_attrs  # noqa: PLC0415
    from kubectl_rbln.cli.rct_file import load_rct_file  # noqa: PLC0415
    from kubectl_rbln.cluster.read_gaps import NEEDS_DEVICES, degraded_exit  # noqa: PLC0415
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.diagnose.findings import exit_code_for  # noqa: PLC0415
    from kubectl_rbln.render.attrs_table import render_attrs  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415

    every = opts.all_namespaces
    if every and rct_file:
        raise click.UsageError("-A compares every stored RCT; --rct-file is one RCT not applied yet")
    from_file = load_rct_file(rct_file, "--rct-file") if rct_file else None
    snapshot, collected = load_snapshot(
        replace(opts.source, kinds=ATTRS_KINDS), warner(opts.lang), needs=NEEDS_DEVICES
    )
    named = click.get_current_context().get_parameter_source("rct") is not ParameterSource.DEFAULT
    namespace = default_namespace(opts.source, collected, snapshot, warner(opts.lang))
    request = AttrsRequest(namespace, rct, from_file, rct_named=named)
    if every:
        from kubectl_rbln.app.attrs import attrs_every_namespace  # noqa: PLC0415
        from kubectl_rbln.render.attrs_table import render_attrs_list  # noqa: PLC0415

        listed = attrs_every_namespace(snapshot, request)
        emit(
            listed,
            output=opts.output,
            jq_expr=opts.jq,
            raw_output=opts.jq_raw,
            lang=opts.lang,
            text=lambda: render_attrs_list(
                listed, lang=opts.lang, color=opts.color, wide=opts.output == "wide"
            ),
        )
        return degraded_exit(snapshot, exit_code_for(listed.findings, opts.fail_on))
    report = run_attrs(snapshot, request)
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_attrs(
            report, lang=opts.lang, color=opts.color, wide=opts.output == "wide", width=opts.width
        ),
    )
    return degraded_exit(snapshot, exit_code_for(report.findings, opts.fail_on))
