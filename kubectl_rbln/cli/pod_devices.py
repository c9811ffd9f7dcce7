"""`kubectl rbln pod-devices [POD...]`: flags wired to the probe, the comparison and the renderers."""

from __future__ import annotations

import sys
from typing import Any

import click

from kubectl_rbln.cli.options import Options, common_options, parse_timeout
from kubectl_rbln.domain import NIC_RESOURCE_PREFIX, NPU_RESOURCE_PREFIX

SCHEMA_KIND = "PodDevicesReport"


@click.command(name="pod-devices")
@click.argument("pods", nargs=-1)
@common_options()
@click.option("-c", "--container", default="modelserver", show_default=True, help="Container to probe.")
@click.option(
    "-l", "--selector", metavar="SELECTOR", help="Only Pods with these labels (app=x,tier in (a,b))."
)
@click.option(
    "--timeout",
    "probe_timeout",
    default="20s",
    show_default=True,
    metavar="DURATION",
    help="Give up on one Pod's probe after this long; the others go on.",
)
@click.option(
    "--parallel",
    default=8,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Pods probed at the same time.",
)
def pod_devices(
    opts: Options,
    pods: tuple[str, ...],
    container: str,
    selector: str | None,
    probe_timeout: str,
    parallel: int,
) -> int:
    """Show what each device Pod really received, seen from inside, against what was allocated.

    Runs one fixed, read-only probe per Pod through exec (the entries of
    /sys/class/infiniband, /dev/infiniband/uverbs*, /dev/rbln*, /dev/rsd*,
    /dev/rblnfs* and `ulimit -H -l`), then compares it with the Pod's
    ResourceClaim allocation, the node's RDS label and its run mode.

    \b
    kubectl rbln pod-devices -n serving               every device Pod in the namespace
    kubectl rbln pod-devices -n serving POD -c sidecar
    kubectl rbln pod-devices -A -l app.kubernetes.io/component=prefill
    kubectl rbln pod-devices -f dump.json -n serving  offline, from the probes `dump` recorded
    """
    timeout = parse_timeout(probe_timeout)
    requirements = _parse_selector(selector)
    text, code = run_pod_devices(opts, list(pods), container, requirements, timeout, parallel)
    sys.stdout.write(text)
    return code


def _parse_selector(selector: str | None) -> list[Any] | None:
    if not selector:
        return None
    from kubectl_rbln.selectors import SelectorError, parse_label_selector  # noqa: PLC0415

    try:
        return parse_label_selector(selector)
    except SelectorError as exc:
        raise click.BadParameter(str(exc), param_hint="-l/--selector") from None


def run_pod_devices(
    opts: Options, names: list[str], container: str, selector: list[Any] | None, timeout: float, parallel: int
) -> tuple[str, int]:
    """Read once, probe the Pods, compare, render; returns (text, exit code)."""
    from kubectl_rbln.cluster.exec_probe import ExecProbeRunner, ProbeTarget, from_captures, interpret  # noqa: PLC0415
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.diagnose import pod_devices as diagnose  # noqa: PLC0415
    from kubectl_rbln.diagnose.findings import SCHEMA_VERSION  # noqa: PLC0415
    from kubectl_rbln.errors import EXIT_CLUSTER, NotFoundError  # noqa: PLC0415

    snapshot, collected = load_snapshot(opts.source)
    namespace = None if opts.all_namespaces else default_namespace(opts.source, collected)
    pods, missing = diagnose.select_pods(snapshot, names, namespace, selector)
    if names and not pods:
        raise NotFoundError("; ".join(missing) + f" ({snapshot.source})")
    blockers = {pod.key: diagnose.blocker(pod, container) for pod in pods}
    targets = [ProbeTarget(p.namespace, p.name, container) for p in pods if blockers[p.key] is None]
    if opts.offline:
        runs = [from_captures(snapshot.captures, t) for t in targets]
    else:
        runner = ExecProbeRunner(collected.context, timeout=timeout, workers=parallel)
        runs = runner.run_all(targets, progress=_progress if sys.stderr.isatty() else None)
        _progress_done(len(targets))
    outcomes = {run.target.key: interpret(run) for run in runs}
    entries = []
    for pod in pods:
        result, problem = outcomes.get(pod.key, (None, blockers[pod.key]))
        entries.append(diagnose.pod_entry(snapshot, pod, container, result, problem, opts.lang))
    report: dict[str, Any] = {
        "apiVersion": SCHEMA_VERSION,
        "kind": SCHEMA_KIND,
        "source": snapshot.source,
        "container": container,
        "pods": entries,
        "problems": missing,
    }
    if not pods:
        scope = "any namespace" if namespace is None else f'namespace "{namespace}"'
        report["message"] = (
            f"no device Pod in {scope} (Pods with DRA claims or {NPU_RESOURCE_PREFIX} or "
            f"{NIC_RESOURCE_PREFIX} resources)"
        )
    code = diagnose.exit_code(entries, opts.fail_on)
    if runs and all(run.error_kind == "forbidden" for run in runs) and code == 0:
        code = EXIT_CLUSTER  # nothing could be probed: the cluster refused, which is not "nothing to fix"
    return _render(report, opts), code


def _render(report: dict[str, Any], opts: Options) -> str:
    if opts.jq or opts.output in ("json", "yaml"):
        import io  # noqa: PLC0415

        from kubectl_rbln.render.output import emit_document  # noqa: PLC0415

        buffer = io.StringIO()
        emit_document(report, opts.output, opts.jq, stream=buffer)
        return buffer.getvalue()
    from kubectl_rbln.render.pod_devices_table import render_report  # noqa: PLC0415

    return render_report(report, color=opts.color and sys.stdout.isatty(), wide=opts.output == "wide")


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\rprobing Pods: {done}/{total}")
    sys.stderr.flush()


def _progress_done(total: int) -> None:
    if total and sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 40 + "\r")
        sys.stderr.flush()
