"""`kubectl rbln why [POD...]`: wires flags to the pure diagnosis and the renderers."""

from __future__ import annotations

import sys
from typing import Any

import click

from kubectl_rbln.cli.lang import said, warner
from kubectl_rbln.cli.lifetime import keep
from kubectl_rbln.cli.options import (
    Options,
    common_options,
    label_selector,
    parse_timeout,
    simulation_options,
)
from kubectl_rbln.terminal import Pieces

EXAMPLE_HELP = "Diagnose the bundled example cluster (no cluster needed)."


@click.command()
@click.argument("pods", nargs=-1)
@common_options()
@click.option(
    "-l", "--selector", metavar="SELECTOR", help="Only Pods with these labels (app=x,tier in (a,b))."
)
@click.option(
    "--with-rct",
    "with_rct",
    metavar="FILE",
    help="Diagnose as if this ResourceClaimTemplate replaced the Pod's (prove a fix before applying it).",
)
@simulation_options
@click.option("--example", is_flag=True, help=EXAMPLE_HELP)
@click.option(
    "-w",
    "--watch",
    is_flag=True,
    help="Follow one Pod: a line each time it, its claims, the slices or its events change; "
    "stops once it runs (exit 0), at Ctrl-C (130) or at --timeout.",
)
@click.option(
    "--interval",
    default="2s",
    show_default=True,
    metavar="DURATION",
    help="With --watch: how often to read the cluster again.",
)
@click.option(
    "--timeout",
    "watch_timeout",
    default="0",
    show_default=True,
    metavar="DURATION",
    help="With --watch: stop after this long (0: never), exiting with the last diagnosis' code.",
)
def why(
    opts: Options,
    pods: tuple[str, ...],
    selector: str | None,
    with_rct: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
    example: bool,
    watch: bool,
    interval: str,
    watch_timeout: str,
) -> int:
    """Explain why device Pods are Pending or crashing: verdict, evidence, fix.

    \b
    kubectl rbln why decode-7f9c-abcde -n serving
    kubectl rbln why -n serving                  every Pending or crashing device Pod
    kubectl rbln why -f dump.json POD            offline, from a bundle
    kubectl rbln why POD --with-rct fixed.yaml   would this RCT fix it?
    kubectl rbln why --example                   the bundled example cluster
    kubectl rbln why POD -n NS -w                a line per change, until it runs
    """
    if example:
        from kubectl_rbln.example import example_path  # noqa: PLC0415

        opts.filenames = [str(example_path())]
        if not opts.namespace:
            opts.namespace = "serving"
    if watch:
        from kubectl_rbln.cli.why_watch import watch_pod  # noqa: PLC0415

        if with_rct:
            from kubectl_rbln.catalog import sentence  # noqa: PLC0415
            from kubectl_rbln.errors import InputError  # noqa: PLC0415

            raise InputError(sentence("watch-with-rct", opts.lang))
        if selector:
            raise click.UsageError("--watch follows one named Pod; -l chooses several: give one POD")
        return watch_pod(
            opts,
            list(pods),
            interval=max(0.1, parse_timeout(interval, "--interval")),
            timeout=parse_timeout(watch_timeout, "--timeout"),
            k8s_version=k8s_version,
            feature_gates=feature_gates,
        )
    printed, code = _why_pieces(
        opts,
        list(pods),
        with_rct=with_rct,
        k8s_version=k8s_version,
        feature_gates=feature_gates,
        selector=tuple(label_selector(selector) or ()),
        kept=True,
    )
    printed.replay(sys.stdout)
    return code


def run_why(
    opts: Options,
    names: list[str],
    *,
    with_rct: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
) -> tuple[str, int]:
    """Flags to the `why` use case and back to text: (what to print, exit code)."""
    printed, code = _why_pieces(
        opts, names, with_rct=with_rct, k8s_version=k8s_version, feature_gates=feature_gates
    )
    return printed.getvalue(), code


def _why_pieces(
    opts: Options,
    names: list[str],
    *,
    with_rct: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
    selector: tuple[Any, ...] = (),
    kept: bool = False,
) -> tuple[Pieces, int]:
    """`run_why`, its text kept as written: the escaped JSON document stays the object the terminal
    writer was told about (kubectl_rbln/terminal.py `vouch`), so it is not scanned again. `kept`: one
    diagnosis, then the process ends: its Snapshot and report go with it (cli/lifetime.py), not
    freed object by object (never for `--watch`, which reads again and again)."""
    from kubectl_rbln.app.why import WhyRequest, why  # noqa: PLC0415
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415
    from kubectl_rbln.catalog.cli_words import cli_line  # noqa: PLC0415
    from kubectl_rbln.cli.rct_file import load_rct_file  # noqa: PLC0415
    from kubectl_rbln.cluster.source import load_snapshot, namespace_scope  # noqa: PLC0415
    from kubectl_rbln.diagnose.features import clamped_note  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415
    from kubectl_rbln.render.why_table import render_why  # noqa: PLC0415

    replacement = load_rct_file(with_rct) if with_rct else None
    snapshot, collected = load_snapshot(opts.source, warner(opts.lang))
    if kept:
        keep(snapshot)
    scope = namespace_scope(opts.source, collected, snapshot)
    if scope.note:
        click.echo(said(f"note: {scope.note}", opts.lang), err=True)
    request = WhyRequest(tuple(names), scope.namespace, replacement, k8s_version, feature_gates, selector)
    report = why(snapshot, request)
    if kept:
        keep(report)
    if report.hint:
        click.echo(f"{sentence('label-hint', opts.lang)}: {report.hint_in(opts.lang)}", err=True)
    note = clamped_note(report.assumptions, opts.lang)
    if note:  # a minor outside the known ones: said on stderr too, so stdout stays the document
        click.echo(cli_line("warning: {message}", opts.lang, message=note), err=True)
    wide = opts.output == "wide"
    buffer = Pieces()
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_why(
            report.to_document(opts.lang),
            report.closest_views(snapshot),
            color=opts.color,
            wide=wide,
            lang=opts.lang,
            width=opts.width,
        ),
        stream=buffer,
    )
    return buffer, report.exit_code(opts.fail_on)
