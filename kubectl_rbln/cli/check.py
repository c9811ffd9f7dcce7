"""`kubectl rbln check`: flags to `diagnose.checklist`, then a table or a CheckReport document."""

from __future__ import annotations

import sys

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
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415 - heavy imports
    from kubectl_rbln.diagnose.checklist import run_checklist  # noqa: PLC0415
    from kubectl_rbln.diagnose.features import allocator_features, choose_features  # noqa: PLC0415
    from kubectl_rbln.diagnose.why import WhyOptions  # noqa: PLC0415
    from kubectl_rbln.render.check_table import render_check  # noqa: PLC0415
    from kubectl_rbln.render.output import emit_document  # noqa: PLC0415

    snapshot, collected = load_snapshot(opts.source)
    namespace = default_namespace(opts.source, collected)
    choice = choose_features(snapshot, k8s_version, feature_gates)
    options = WhyOptions(lang=opts.lang, features=allocator_features(choice), assumptions=choice.describe())
    report, code = run_checklist(snapshot, namespace, rct, options, opts.fail_on)
    if opts.jq or opts.output in ("json", "yaml"):
        emit_document(report, opts.output, opts.jq)
    else:
        sys.stdout.write(render_check(report, color=opts.color, wide=opts.output == "wide"))
    return code
