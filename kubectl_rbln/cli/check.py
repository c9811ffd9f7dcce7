"""`kubectl rbln check`: flags to the `check` use case (app/check.py), then a table or a CheckReport.

`--exit-zero` (ruff's name for it) turns exit 1, "found something", into 0, so a CronJob reports
without failing; 2 (usage, input) and 3 (the cluster) stay errors.

With several `--context` or `--all-contexts` it checks every cluster concurrently (app/fleet.py)
and prints one summary table before each cluster's checklist; the exit code is the worst one.

`-A` checks every namespace that holds a device Pod or the chart's RCT (the cluster's items once,
then one section per namespace); `-l` keeps the Pods' `why` (and items 4 and N1) to matching Pods.
"""

from __future__ import annotations

import click
from click.core import ParameterSource

from kubectl_rbln.cli.lang import warner
from kubectl_rbln.cli.lifetime import keep
from kubectl_rbln.cli.options import (
    Options,
    common_options,
    label_selector,
    rct_option,
    simulation_options,
)
from kubectl_rbln.errors import InputError


@click.command()
@common_options(many_contexts=True)
@rct_option("The RCT the chart uses (devices.claimTemplateName).")
@click.option(
    "-l",
    "--selector",
    metavar="SELECTOR",
    help="Only device Pods with these labels get a `why` and count in items 4 and N1 (kubectl syntax).",
)
@simulation_options
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Report, but exit 0 when the check finds something (a scheduled run); errors still exit 2 or 3.",
)
def check(
    opts: Options,
    rct: str,
    selector: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
    exit_zero: bool,
) -> int:
    """Run the device-allocation checklist of the product docs cluster-wide, with `why` per device Pod.

    \b
    kubectl rbln check -n serving
    kubectl rbln check -A                      every namespace with device Pods or the RCT
    kubectl rbln check -n serving -l app=decode   only these Pods' why
    kubectl rbln check -f dump.json -n serving -o json
    kubectl rbln check --context prod-a --context prod-b    (or --all-contexts)
    kubectl rbln check -n serving --exit-zero                 in a CronJob (deploy/)
    """
    request = _Asked(rct, k8s_version, feature_gates, selector or "")
    named = click.get_current_context().get_parameter_source("rct") is not ParameterSource.DEFAULT
    request.rct_named = named
    code = _fleet(opts, request) if opts.fleet else _one(opts, request)
    return 0 if exit_zero and code == 1 else code  # ruff's --exit-zero: findings are not a failure


class _Asked:
    """The check's own flags, handed to a single run and to each cluster of a fleet alike."""

    def __init__(self, rct: str, k8s_version: str | None, feature_gates: str | None, selector: str) -> None:
        self.rct, self.k8s_version, self.feature_gates = rct, k8s_version, feature_gates
        self.selector = selector
        self.requirements = tuple(label_selector(selector) or ())  # exit 2 on a bad -l, before reading
        self.rct_named = False  # --rct given: with -A, every namespace is checked against it


def _every_namespace(opts: Options) -> bool:
    """-A (it wins over -n, as in kubectl: cli/options.py)."""
    return opts.all_namespaces and not opts.namespace


def _one(opts: Options, asked: _Asked) -> int:
    from kubectl_rbln.app.check import CheckRequest, run_check  # noqa: PLC0415 - heavy imports
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.render.check_table import MAX_PASSING_POD_ROWS, render_check  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415

    snapshot, collected = keep(load_snapshot(opts.source, warner(opts.lang)))
    every = _every_namespace(opts)
    namespace = "" if every else default_namespace(opts.source, collected, snapshot, warner(opts.lang))
    request = CheckRequest(
        namespace,
        asked.rct,
        asked.k8s_version,
        asked.feature_gates,
        all_namespaces=every,
        selector=asked.requirements,
        selector_text=asked.selector,
        rct_named=asked.rct_named,
    )
    report = keep(run_check(snapshot, request))  # 40,000 diagnoses at 20,000 nodes: not freed one by one
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_check(
            keep(report.to_document(opts.lang, None if opts.output == "wide" else MAX_PASSING_POD_ROWS)),
            color=opts.color,
            wide=opts.output == "wide",
            lang=opts.lang,
            width=opts.width,
        ),
    )
    return report.exit_code(opts.fail_on)


def _fleet(opts: Options, asked: _Asked) -> int:
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
        snapshot, collected = load_snapshot(source, warner(opts.lang, prefix))
        if _every_namespace(opts):
            return snapshot, ""
        return snapshot, default_namespace(source, collected, snapshot, warner(opts.lang, prefix))

    fleet = FleetRequest(
        contexts,
        asked.rct,
        asked.k8s_version,
        asked.feature_gates,
        all_namespaces=_every_namespace(opts),
        selector=asked.requirements,
        selector_text=asked.selector,
        rct_named=asked.rct_named,
    )
    report = check_fleet(fleet, load, opts.fail_on)
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
