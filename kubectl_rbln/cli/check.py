"""`kubectl rbln check`: flags to the `check` use case (app/check.py), then a table or a CheckReport.

`--exit-zero` (ruff's name for it) turns exit 1, "found something", into 0, so a CronJob reports
without failing; 2 (usage, input) and 3 (the cluster) stay errors.

With several `--context` or `--all-contexts` it checks every cluster concurrently (app/fleet.py)
and prints one summary table before each cluster's checklist; the exit code is the worst one.
"""

from __future__ import annotations

import click

from kubectl_rbln.cli.options import Options, common_options, rct_option, simulation_options
from kubectl_rbln.errors import InputError


@click.command()
@common_options(all_namespaces=False, many_contexts=True)
@rct_option("The RCT the chart uses (devices.claimTemplateName).")
@simulation_options
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Report, but exit 0 when the check finds something (a scheduled run); errors still exit 2 or 3.",
)
def check(
    opts: Options, rct: str, k8s_version: str | None, feature_gates: str | None, exit_zero: bool
) -> int:
    """Run the device-allocation checklist of the product docs cluster-wide, with `why` per device Pod.

    \b
    kubectl rbln check -n serving
    kubectl rbln check -f dump.json -n serving -o json
    kubectl rbln check --context prod-a --context prod-b    (or --all-contexts)
    kubectl rbln check -n serving --exit-zero                 in a CronJob (deploy/)
    """
    code = (
        _fleet(opts, rct, k8s_version, feature_gates)
        if opts.fleet
        else _one(opts, rct, k8s_version, feature_gates)
    )
    return 0 if exit_zero and code == 1 else code  # ruff's --exit-zero: findings are not a failure


def _one(opts: Options, rct: str, k8s_version: str | None, feature_gates: str | None) -> int:
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
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_check(
            report.to_document(opts.lang),
            color=opts.color,
            wide=opts.output == "wide",
            lang=opts.lang,
            width=opts.width,
        ),
    )
    return report.exit_code(opts.fail_on)


def _fleet(opts: Options, rct: str, k8s_version: str | None, feature_gates: str | None) -> int:
    from dataclasses import replace  # noqa: PLC0415

    from kubectl_rbln.app.fleet import FleetRequest, check_fleet  # noqa: PLC0415 - heavy imports
    from kubectl_rbln.cluster.kubeconfig import context_names  # noqa: PLC0415
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.dra.model import Snapshot  # noqa: PLC0415
    from kubectl_rbln.render.fleet_table import render_fleet  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415

    if opts.offline:
        from kubectl_rbln.catalog import sentence  # noqa: PLC0415

        raise InputError(sentence("fleet-offline", opts.lang))
    contexts = tuple(context_names(opts.kubeconfig)) if opts.all_contexts else opts.contexts
    contexts = tuple(dict.fromkeys((*contexts, *(opts.contexts if opts.all_contexts else ()))))

    def load(context: str) -> tuple[Snapshot, str]:
        source = replace(opts.source, context=context)
        prefix = f"[{context}] "
        snapshot, collected = load_snapshot(source, lambda line: _warn(prefix + line))
        return snapshot, default_namespace(source, collected, snapshot, lambda line: _warn(prefix + line))

    report = check_fleet(FleetRequest(contexts, rct, k8s_version, feature_gates), load, opts.fail_on)
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_fleet(
            report.to_document(opts.lang),
            color=opts.color,
            wide=opts.output == "wide",
            lang=opts.lang,
            width=opts.width,
        ),
    )
    return report.exit_code()


def _warn(line: str) -> None:
    click.echo(line, err=True)
