"""`kubectl rbln pod-devices [POD...]`: flags wired to the probe, the comparison and the renderers."""

from __future__ import annotations

import sys
import threading
from typing import Any

import click

from kubectl_rbln.cli.lang import said, warner
from kubectl_rbln.cli.options import Options, common_options, label_selector, parse_timeout
from kubectl_rbln.terminal import redraw_line


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

    Runs one fixed, read-only probe per Pod through exec (network interfaces,
    RDMA devices with their port state, /dev/infiniband/uverbs* and whether
    each opens, /dev/rbln*, /dev/rsd*, /dev/rblnfs* and `ulimit -H -l`), then
    matches each allocated NPU and NIC (by PCI address, then by name) with
    what the Pod sees, beside the device health in the Pod's status.
    -o wide adds the nodes, device names and PCI addresses.

    \b
    kubectl rbln pod-devices -n serving               every device Pod in the namespace
    kubectl rbln pod-devices -n serving POD -c sidecar
    kubectl rbln pod-devices -A -l app.kubernetes.io/component=prefill
    kubectl rbln pod-devices -f dump.json -n serving  offline, from the probes `dump` recorded
    """
    timeout = parse_timeout(probe_timeout, "--timeout")
    requirements = label_selector(selector)
    return run_pod_devices(opts, list(pods), container, requirements, timeout, parallel)


def run_pod_devices(
    opts: Options, names: list[str], container: str, selector: list[Any] | None, timeout: float, parallel: int
) -> int:
    """Read once, probe the Pods (the I/O), compare (app.pod_devices), print; returns the exit code."""
    from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices, probe_targets  # noqa: PLC0415
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415
    from kubectl_rbln.cluster.exec_probe import ExecProbeRunner, from_captures  # noqa: PLC0415
    from kubectl_rbln.cluster.read_gaps import degraded_exit  # noqa: PLC0415
    from kubectl_rbln.cluster.source import load_snapshot, namespace_scope  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415
    from kubectl_rbln.render.pod_devices_table import render_report  # noqa: PLC0415

    snapshot, collected = load_snapshot(opts.source, warner(opts.lang), needs=("Pod",))
    scope = namespace_scope(opts.source, collected, snapshot)
    if scope.note:
        click.echo(said(f"note: {scope.note}", opts.lang), err=True)
    namespace = scope.namespace
    request = PodDevicesRequest(names, container, namespace, selector)
    targets = probe_targets(snapshot, request)
    if opts.offline:
        runs = [from_captures(snapshot.captures, t) for t in targets]
    else:
        assert collected.context is not None  # load_snapshot resolves one whenever it reads a cluster
        runner = ExecProbeRunner(collected.context, timeout=timeout, workers=parallel)
        label = sentence("pod-devices-progress", opts.lang)
        with Progress(len(targets), label, enabled=sys.stderr.isatty()) as progress:
            runs = runner.run_all(targets, progress=progress.update)
    report = pod_devices(snapshot, request, runs)
    color = opts.color and sys.stdout.isatty()
    emit(
        report,
        output=opts.output,
        jq_expr=opts.jq,
        raw_output=opts.jq_raw,
        lang=opts.lang,
        text=lambda: render_report(
            report.to_document(opts.lang),
            color=color,
            wide=opts.output == "wide",
            lang=opts.lang,
            width=opts.width,
        ),
    )
    return degraded_exit(snapshot, report.exit_code(opts.fail_on))


class Progress:
    """`probing Pods: 3/20` on stderr, only on a terminal and only once probing has taken more than
    DELAY seconds: a quick run prints nothing, a slow one shows it is alive. Cleared at the end."""

    DELAY = 1.0

    def __init__(self, total: int, label: str, *, enabled: bool) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled and total > 0
        self.done = 0
        self.shown = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            self._timer = threading.Timer(self.DELAY, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self.enabled = False
            if self.shown:
                redraw_line(sys.stderr, "")

    def update(self, done: int, total: int) -> None:
        with self._lock:
            self.done = done
            if self.shown and self.enabled:
                self._write()

    def _show(self) -> None:
        with self._lock:
            if self.enabled:
                self.shown = True
                self._write()

    def _write(self) -> None:
        redraw_line(sys.stderr, f"{self.label}: {self.done}/{self.total}")
