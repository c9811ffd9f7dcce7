"""`dump` captures what the cluster serves, and a served dump dumps back to itself.

Serve a bundle, `kubectl rbln dump -A` it through kubectl's plugin lookup, and the
dump holds every object the bundle serves plus ClusterInfo, the previous logs of
crashing device Pods and the `pod-devices` probe of running ones. Serving that dump
and dumping again gives the same bundle: the replay server and `dump` agree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND
from kubectl_rbln.replay.server import ReplayServer

BIN = Path(sys.executable).parent
PRIVATE = "kubectl-rbln/v1"

Key = tuple[Any, ...]


def key(item: dict[str, Any]) -> Key:
    meta = item.get("metadata") or {}
    base = (item["kind"], meta.get("namespace", ""), meta["name"])
    if item["kind"] == "PodLog":
        return (*base, item["container"], item["previous"])
    if item["kind"] == "ExecCapture":
        return (*base, item["container"], tuple(item["command"]))
    return base


def dump(
    server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path], home: Path
) -> list[dict[str, Any]]:
    if not (BIN / "kubectl").is_file() or not (BIN / "kubectl-rbln").is_file():
        pytest.skip("needs kubectl and the kubectl-rbln entry point in the venv's bin folder")
    env = {"PATH": str(BIN), "HOME": str(home), "KUBECONFIG": str(kubeconfig_for(server)), "LANG": "C.UTF-8"}
    env.update({k: v for k, v in os.environ.items() if k == "PYTHONPATH"})  # the checkout under test
    result = subprocess.run(
        [str(BIN / "kubectl"), "rbln", "dump", "-A"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)["items"]


def test_dump_holds_the_served_objects_and_round_trips(
    replay_server: Callable[..., ReplayServer],
    basic_objects: list[dict[str, Any]],
    kubeconfig_for: Callable[[ReplayServer], Path],
    tmp_path: Path,
) -> None:
    first = dump(replay_server(basic_objects), kubeconfig_for, tmp_path)
    served = {key(o) for o in basic_objects if o["apiVersion"] != PRIVATE}
    crash_logs = {key(o) for o in basic_objects if o["kind"] == "PodLog" and o["previous"]}
    assert crash_logs == {("PodLog", "serving", "decode-0", "modelserver", True)}
    probes = {("ExecCapture", "serving", "decode-0", "modelserver", PROBE_COMMAND)}  # the running device Pod
    # the replay server serves the namespaces its objects live in (as an API server lists them); dump
    # reads them for their labels (the adminAccess namespace label)
    namespaces = {("Namespace", "", ns) for ns in ("default", "serving")}
    assert {key(o) for o in first} == served | crash_logs | probes | namespaces | {
        ("ClusterInfo", "", "rbln-replay")
    }

    by_key = {key(o): o for o in basic_objects}
    for item in first:
        if item["apiVersion"] != PRIVATE and item["kind"] != "Namespace":
            assert item == by_key[key(item)], f"{key(item)} changed on the way"
    [log] = [o for o in first if o["kind"] == "PodLog"]
    assert log["log"] == by_key[key(log)]["log"]
    [info] = [o for o in first if o["kind"] == "ClusterInfo"]
    assert info["serverVersion"] == "v1.34.2"
    assert info["resourceVersions"] == ["v1", "v1beta1"]
    assert info["problems"] == []
    assert info["readAt"].endswith("Z")  # the server's Date: now, as the basic bundle records no read time

    # serving the dump answers with its readAt as Date: the second dump reads at the first one's time
    second = dump(replay_server(first), kubeconfig_for, tmp_path)
    assert second == first
