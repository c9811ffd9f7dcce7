"""`kubectl rbln why POD --watch`: re-diagnose as the Pod, its claims, the slices and events change.

kubectl's `-w` habit: one line per change, until the Pod is scheduled and Running (exit 0),
Ctrl-C (exit 130, no traceback) or `--timeout` (the exit code of the last diagnosis). On a cluster
it lists once and then follows the watch API (cluster/follow.py), re-diagnosing on each change; a
server that refuses to watch (403, 405) is polled every --interval instead, and a line on stderr
says so. `-f` files are read again every --interval.
"""

from __future__ import annotations

import gc
import json
import time
from datetime import datetime
from typing import Any

import click

from kubectl_rbln.cli.lang import warner
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
    from kubectl_rbln.cluster.source import namespace_scope  # noqa: PLC0415
    from kubectl_rbln.diagnose.context import split_pod_ref  # noqa: PLC0415

    deadline = time.monotonic() + timeout if timeout > 0 else None
    reader = _Reader(opts, interval)
    before: Look | None = None
    code = 0
    first = True
    try:
        snapshot, collected = reader.first()
        while True:
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
            following = _next_snapshot(reader, deadline)
            if following is None:
                if opts.output != "json":
                    click.echo(sentence("watch-timeout", opts.lang, time=stamp, pod=f"{namespace}/{short}"))
                return code
            snapshot = following
    finally:
        reader.close()


def _next_snapshot(reader: _Reader, deadline: float | None) -> Any:
    """The Snapshot after the next change, or None at the deadline (--timeout)."""
    while deadline is None or time.monotonic() < deadline:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        following = reader.next(left)
        if following is not None:
            return following
    return None


class _Reader:
    """Where each look comes from: the watch API of a cluster (listed once), else a poll."""

    def __init__(self, opts: Options, interval: float) -> None:
        self.opts = opts
        self.interval = interval
        self.follower: Any = None  # cluster/follow.py Follower while the server streams watches

    def first(self) -> tuple[Any, Any]:
        from kubectl_rbln.cluster.source import load_snapshot  # noqa: PLC0415

        if self.opts.source.offline:
            return load_snapshot(self.opts.source, warner(self.opts.lang))
        return self._follow()

    def _follow(self) -> tuple[Any, Any]:
        from kubectl_rbln.cluster.follow import Follower  # noqa: PLC0415
        from kubectl_rbln.cluster.source import input_warnings  # noqa: PLC0415
        from kubectl_rbln.errors import ClusterError  # noqa: PLC0415

        self.follower = Follower(self.opts.source)
        snapshot, collected = self.follower.first()
        for line in input_warnings(snapshot):
            warner(self.opts.lang)(line)
        if snapshot.resource_api_version is None and not snapshot.problem_for("resource.k8s.io"):
            raise ClusterError("the cluster answered, but resource.k8s.io could not be read")
        return snapshot, collected

    def next(self, left: float | None) -> Any:
        """The next Snapshot once something changed, or None after waiting at most ~1 s (so a
        deadline and Ctrl-C are noticed); polling: after --interval, always."""
        from kubectl_rbln.cluster.source import load_snapshot  # noqa: PLC0415

        if self.follower is not None:
            from kubectl_rbln.cluster.follow import WatchRefused  # noqa: PLC0415

            try:
                changed = self.follower.wait(min(1.0, left if left is not None else 1.0))
            except WatchRefused as refused:
                self._poll_instead(refused.message)
                return None
            return self.follower.snapshot() if changed else None
        wait = self.interval if left is None else min(self.interval, left)
        time.sleep(wait)
        return load_snapshot(self.opts.source, None)[0]

    def _poll_instead(self, reason: str) -> None:
        from kubectl_rbln.catalog import sentence  # noqa: PLC0415

        self.close()
        seconds = f"{self.interval:g}s"
        _stderr(sentence("watch-polling", self.opts.lang, reason=reason, interval=seconds))

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
            self.follower = None


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
