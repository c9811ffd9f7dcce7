"""A list the cluster refuses is no list, not a list of none (issue 23): never an all-clear.

The replay server refuses one list (403, or a 500); the CLI runs as a user would. What a user must
see: a refused Pod list is an error, not "no Pending or crashing device Pod"; a refused slice list
skips the checks that read it instead of reporting "no driver publishes slices", and a Pending Pod's
verdict says its simulation could not run, not a cause drawn from nothing read.

From the field: operators run kubectl plugins with roles that refuse cluster-scoped lists
(robscott/kube-capacity#68: `nodes is forbidden: User "..." cannot list resource "nodes" in API
group "" at the cluster scope`, "Is possible to use the tool with my limited RBAC permission?"); the
403 bodies here are kube-apiserver's own (replay/faults.py), as such a role gets them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import Faults
from tests.conftest import REPO

EXAMPLE = REPO / "kubectl_rbln" / "examples" / "pending-decode.json"


def healthy() -> list[dict[str, Any]]:
    """The example cluster without its Pending Pods: nothing is stuck."""
    objects = load_objects([str(EXAMPLE)])
    return [o for o in objects if not (o.get("kind") == "Pod" and o["status"].get("phase") == "Pending")]


BIN = Path(sys.executable).parent  # the venv's kubectl and kubectl-rbln


def kubectl_rbln(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`kubectl rbln ARGS` as a user types it: kubectl's plugin lookup finds kubectl-rbln on PATH."""
    if not (BIN / "kubectl").is_file() or not (BIN / "kubectl-rbln").is_file():
        pytest.skip("needs kubectl and the kubectl-rbln entry point in the venv's bin folder")
    env = {"PATH": str(BIN), "HOME": str(home), "LANG": "C.UTF-8", "NO_COLOR": "1"}
    if os.environ.get("PYTHONPATH"):  # a work tree's code, not the editable install's
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    run = [str(BIN / "kubectl"), "rbln", *args]
    result = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def rbln(replay_server, kubeconfig_for, tmp_path):
    def run(objects: list[dict[str, Any]], faults: Faults, *args: str) -> Any:
        server = replay_server(objects, faults=faults)
        kubeconfig = str(kubeconfig_for(server))
        return kubectl_rbln(*args, "--kubeconfig", kubeconfig, "--request-timeout", "5s", home=tmp_path)

    return run


# The `-o json` finding names no case: a case is told by its title.
UNCHECKED = "Not checked: {} could not be read"
UNREAD = "Not checked: {} was not read"


def slugs(document: dict[str, Any]) -> list[tuple[str, str]]:
    found = [*document.get("findings", []), *(f for p in document.get("pods", []) for f in p["findings"])]
    return [(f["slug"], f["title"]) for f in found]


@pytest.mark.parametrize("scope", [["-A"], ["-n", "serving"]])
def test_a_refused_pod_list_is_an_error_not_an_all_clear(rbln, scope):
    result = rbln(healthy(), Faults(forbid={"pods"}), "why", *scope, "-o", "json")
    assert result.returncode == 1, result.stdout
    document = json.loads(result.stdout)
    assert "message" not in document  # no "no Pending or crashing device Pod"
    assert slugs(document) == [("source-degraded", UNCHECKED.format("Pod"))]
    [finding] = document["findings"]
    assert finding["severity"] == "error" and finding["evidence"]["kind"] == "Pod"
    assert finding["fix"]["steps"][0]["commands"] == ["kubectl auth can-i list pods --all-namespaces"]
    assert "pods is forbidden" in result.stderr and "(source-degraded)" in result.stderr


def test_a_pod_list_that_timed_out_rereads_with_more_time(tmp_path):
    """A dump whose Pod list ran out of time (its ClusterInfo says so): not a permission, so the fix
    reads the same scope again with more time, exactly, and `-f` says what live would."""
    info = {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ClusterInfo",
        "metadata": {"name": "c"},
        "serverVersion": "v1.34.2",
        "resourceVersions": ["v1"],
        "problems": [{"kind": "Pod", "code": "timeout", "message": "list pods: no whole answer within 30s"}],
        "scope": {"allNamespaces": True},
    }
    objects = [o for o in healthy() if o["kind"] not in ("Pod", "ClusterInfo")] + [info]
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
    result = kubectl_rbln("why", "-f", str(bundle), "-A", "-o", "json", home=tmp_path)
    assert result.returncode == 1, result.stdout
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["slug"], finding["title"]) == ("source-degraded", UNREAD.format("Pod"))
    assert finding["severity"] == "error" and finding["evidence"]["code"] == "timeout"
    commands = [c for step in finding["fix"]["steps"] for c in step["commands"]]
    assert commands[-2:] == [
        "kubectl rbln dump -A --request-timeout 5m > bundle.json",
        "kubectl rbln why -f bundle.json -A",
    ]


def test_check_skips_the_items_a_refused_slice_list_would_feed(rbln):
    """A namespace without device Pods: `driver-slices-missing` would be a cause drawn from nothing."""
    result = rbln(healthy(), Faults(forbid={"resourceslices"}), "check", "-n", "empty", "-o", "json")
    assert result.returncode == 1
    items = {item["id"]: item for item in json.loads(result.stdout)["items"]}
    assert items["N0"]["status"] == "fail"
    assert slugs(items["N0"]) == [("source-degraded", UNCHECKED.format("ResourceSlice"))]
    for item in ("2", "5", "N2"):  # the items that read ResourceSlices
        assert items[item]["status"] == "skip" and not items[item]["findings"], items[item]
        assert "ResourceSlice could not be read" in items[item]["found"]
    assert items["1"]["status"] == "pass"  # DeviceClasses were read: that item still runs
    every = [f["slug"] for item in items.values() for f in item["findings"]]
    assert "driver-slices-missing" not in every


def test_a_pending_pod_without_slices_is_not_blamed_on_a_driver(rbln):
    objects = load_objects([str(EXAMPLE)])
    result = rbln(objects, Faults(forbid={"resourceslices"}), "why", "-n", "serving", "-o", "json")
    assert result.returncode == 1
    for pod in json.loads(result.stdout)["pods"]:
        found = slugs(pod)
        assert found[0] == ("source-degraded", UNCHECKED.format("ResourceSlice")), found
        assert not {"driver-slices-missing", "cause-not-recognised"} & {slug for slug, _ in found}
        assert UNCHECKED.format("ResourceSlice") in pod["verdict"]


def test_a_refused_list_no_verdict_rests_on_is_named_but_does_not_fail(rbln):
    """Pods read, none stuck: the Event list refused changes no verdict, and stderr still says so."""
    result = rbln(healthy(), Faults(forbid={"events"}), "why", "-A")
    assert result.returncode == 0, result.stdout
    assert "no Pending or crashing device Pod" in result.stdout
    assert "events is forbidden" in result.stderr and "(source-degraded)" in result.stderr
