"""`kubectl rbln check`: flags to the `check` use case (app/check.py), then a table or a CheckReport."""

from __future__ import annotations

import click

from kubectl_rbln.cli.options import Options, common_options, rct_option, simulation_options


@click.command()
@common_options(all_namespaces=False)
@rct_option("The RCT the chart uses (devices.claimTemplateName).")
@simulation_options
def check(opts: Options, rct: str, k8s_version: str | None, feature_gates: str | None) -> int:
    """Run the device-allocation checklist of the product docs cluster-wide, with `why` per device Pod.

    \b
    kubectl rbln check -n serving
    kubectl rbln check -f dump.json -n serving -o json
    """
    from kubectl_rbln.app.check import CheckRequest, run_check  # noqa: PLC0415 - heavy imports
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.render.check_table import render_check  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415

    snapshot, collected = load_snapshot(opts.source)
    namespace = default_namespace(opts.source, collected, snapshot, _warn)
    request = CheckRequest(namespace, rct, k8s_version, feature_gates)
    report = run_check(snapshot, request)
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        lang=opts.lang,
        text=lambda: render_check(
            report.to_document(opts.lang), color=opts.color, wide=opts.output == "wide", lang=opts.lang
        ),
    )
    return report.exit_code(opts.fail_on)


def _warn(line: str) -> None:
    click.echo(line, err=True)
