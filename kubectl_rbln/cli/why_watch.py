"""`kubectl rbln why POD --watch`: re-diagnose as the Pod, its claims, the slices and events change.

kubectl's `-w` habit: one line per change, until the Pod is scheduled and Running (exit 0),
Ctrl-C (exit 130, no traceback) or `--timeout` (the exit code of the last diagnosis). Each poll
reads the cluster (or the -f files) again; the API is polled, not watched, so it works through
any proxy and against `kubectl rbln serve`, which re-reads a bundle that changes on disk.
"""

from __future__ import annotations

import gc
import json
import time
from datetime import datetime

import click

from kubectl_rbln.cli.options import Options
from kubectl_rbln.errors import InputError
from kubectl_rbln.render.json_text import json_line


def watch_pod(
    opts: Options,
    names: list[str],
    *,
    interval: float,
    timeout: float,
    k8s_version: str | None,
    feature_gates: str | None,
) -> int:
    """Poll, and print a line whenever what the diagnosis reads changed; the exit code as documented."""
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415

    if len(names) != 1:
        raise InputError(sentence("watch-one-pod", opts.lang))
    if opts.output in ("yaml", "wide"):
        raise InputError(sentence("watch-output", opts.lang))
    # main() turns the cyclic collector off for one-shot commands; a watch reads the cluster again
    # and again for as long as the user likes, so what each round leaves in cycles must be freed
    gc.enable()
    try:
        return _loop(opts, names[0], interval, timeout, k8s_version, feature_gates)
    except KeyboardInterrupt:
        return 130


def _loop(
    opts: Options,
    name: str,
    interval: float,
    timeout: float,
    k8s_version: str | None,
    feature_gates: str | None,
) -> int:
    from kubectl_rbln.app.watch import Look, look  # noqa: PLC0415 - heavy imports only when running
    from kubectl_rbln.app.why import WhyRequest, why  # noqa: PLC0415
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415
    from kubectl_rbln.cluster.source import load_snapshot, namespace_scope  # noqa: PLC0415
    from kubectl_rbln.diagnose.context import split_pod_ref  # noqa: PLC0415

    deadline = time.monotonic() + timeout if timeout > 0 else None
    before: Look | None = None
    code = 0
    first = True
    while True:
        snapshot, collected = load_snapshot(opts.source, _stderr if first else None)  # notes: once
        scope = namespace_scope(opts.source, collected, snapshot)
        namespace, short = split_pod_ref(name, scope.namespace)
        now = look(snapshot, namespace, short)
        changed = now.changed_since(before)
        stamp = datetime.now().strftime("%H:%M:%S")
        if changed and not now.found and not first:
            _echo(
                opts,
                sentence("watch-gone", opts.lang, time=stamp, pod=f"{namespace}/{short}"),
                changed,
                stamp,
            )
        elif changed:
            request = WhyRequest((f"{namespace}/{short}",), namespace, None, k8s_version, feature_gates)
            report = why(snapshot, request)  # the first look of a missing Pod: not found, exit 2
            code = report.exit_code(opts.fail_on)
            document = report.to_document(opts.lang)["pods"][0]
            if opts.output == "json":
                _json_line(stamp, changed if not first else [], document, code)
            else:
                parts = ", ".join(sentence(f"watch-part-{p}", opts.lang) for p in changed)
                key = "watch-first" if first else "watch-line"
                click.echo(sentence(key, opts.lang, time=stamp, verdict=document["verdict"], parts=parts))
        before, first = now, False
        if now.running:
            return 0
        if deadline is not None and time.monotonic() >= deadline:
            if opts.output != "json":
                click.echo(sentence("watch-timeout", opts.lang, time=stamp, pod=f"{namespace}/{short}"))
            return code
        time.sleep(interval if deadline is None else max(0.0, min(interval, deadline - time.monotonic())))


def _stderr(line: str) -> None:
    click.echo(line, err=True)


def _echo(opts: Options, line: str, changed: list[str], stamp: str) -> None:
    if opts.output == "json":
        click.echo(json.dumps({**_watch_kind(), "time": stamp, "changed": changed, "found": False}))
    else:
        click.echo(line)


def _json_line(stamp: str, changed: list[str], pod: dict, code: int) -> None:
    """One compact JSON object per change (JSON Lines): when, what changed, the Pod's diagnosis."""
    entry = {
        **_watch_kind(),
        "time": stamp,
        "changed": changed,
        "found": True,
        "phase": pod["phase"],
        "node": pod["node"],
        "verdict": pod["verdict"],
        "findings": [f["slug"] for f in pod["findings"]],
        "exitCode": code,
    }
    click.echo(json_line(entry))  # DEL, C1 and bidi controls escaped, as in -o json


def _watch_kind() -> dict[str, str]:
    """Each line is a document of its own (JSON Lines): it says what it is, as every -o json does."""
    from kubectl_rbln.schemas import api_version  # noqa: PLC0415

    return {"apiVersion": api_version("WhyWatchEvent"), "kind": "WhyWatchEvent"}
