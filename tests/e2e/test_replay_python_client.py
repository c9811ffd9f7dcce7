"""The official Python client (kubernetes 37) against the replay server: typed, custom, dynamic, exec."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient
from kubernetes.stream import stream

from kubectl_rbln.replay.server import ReplayServer

ALL_SLICES = {
    "npu-node-1-dra.net-p8d4x",
    "npu-node-1-npu.rebellions.ai-7kq2m",
    "npu-node-2-npu.rebellions.ai-b9v3t",
}


@pytest.fixture
def api_client(
    basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> Callable[[], client.ApiClient]:
    """A factory: one ApiClient per use (stream() swaps a client's request method; never share it)."""
    path = kubeconfig_for(basic_server)
    return lambda: config.new_client_from_config(config_file=str(path))


def exec_ws(api_client: Callable[[], client.ApiClient], command: list[str]) -> tuple[str, str, int | None]:
    core = client.CoreV1Api(api_client())
    ws = stream(
        core.connect_get_namespaced_pod_exec,
        "decode-0",
        "serving",
        command=command,
        container="modelserver",
        stdin=False,
        stdout=True,
        stderr=True,
        tty=False,
        _preload_content=False,
    )
    ws.run_forever(timeout=10)
    return ws.read_stdout(), ws.read_stderr(), ws.returncode


def test_list_namespaced_pods(api_client: Callable[[], client.ApiClient]) -> None:
    core = client.CoreV1Api(api_client())
    pods = core.list_namespaced_pod("serving")
    assert [p.metadata.name for p in pods.items] == ["decode-0", "prefill-0"]
    running = core.list_namespaced_pod("serving", field_selector="status.phase=Running")
    assert [p.metadata.name for p in running.items] == ["decode-0"]
    assert [p.spec.node_name for p in running.items] == ["npu-node-1"]


def test_list_pods_all_namespaces_with_label_selector(api_client: Callable[[], client.ApiClient]) -> None:
    pods = client.CoreV1Api(api_client()).list_pod_for_all_namespaces(label_selector="role=prefill")
    assert [(p.metadata.namespace, p.metadata.name) for p in pods.items] == [("serving", "prefill-0")]


def test_read_missing_pod_raises_not_found_status(api_client: Callable[[], client.ApiClient]) -> None:
    with pytest.raises(ApiException) as info:
        client.CoreV1Api(api_client()).read_namespaced_pod("nope", "serving")
    assert info.value.status == 404
    body = json.loads(info.value.body)
    assert (body["kind"], body["reason"], body["message"]) == ("Status", "NotFound", 'pods "nope" not found')


def test_read_previous_log(api_client: Callable[[], client.ApiClient]) -> None:
    log = client.CoreV1Api(api_client()).read_namespaced_pod_log(
        "decode-0", "serving", container="modelserver", previous=True
    )
    assert "RDMA device not found" in log


def test_exec_stream_returns_stdout(api_client: Callable[[], client.ApiClient]) -> None:
    core = client.CoreV1Api(api_client())
    out = stream(
        core.connect_get_namespaced_pod_exec,
        "decode-0",
        "serving",
        command=["sh", "-c", "ls /dev/rbln*"],
        container="modelserver",
        stdin=False,
        stdout=True,
        stderr=True,
        tty=False,
    )
    assert out == "/dev/rbln0\n"


@pytest.mark.parametrize(
    ("command", "stdout", "stderr_part", "code"),
    [
        (["sh", "-c", "ls /sys/class/infiniband/"], "mlx5_0\n", "", 0),
        (["sh", "-c", "ls /dev/infiniband/uverbs*"], "", "No such file or directory", 2),
        (["ibv_devinfo"], "", "no exec capture recorded", 126),
    ],
)
def test_exec_websocket_returncode(
    api_client: Callable[[], client.ApiClient], command: list[str], stdout: str, stderr_part: str, code: int
) -> None:
    out, err, returncode = exec_ws(api_client, command)
    assert (out, returncode) == (stdout, code)
    assert stderr_part in err


def test_custom_objects_list_and_page(api_client: Callable[[], client.ApiClient]) -> None:
    custom = client.CustomObjectsApi(api_client())
    whole = custom.list_cluster_custom_object("resource.k8s.io", "v1", "resourceslices")
    assert whole["kind"] == "ResourceSliceList"
    assert {i["metadata"]["name"] for i in whole["items"]} == ALL_SLICES
    seen: list[str] = []
    token = ""
    while True:
        page = custom.list_cluster_custom_object(
            "resource.k8s.io", "v1", "resourceslices", limit=1, _continue=token
        )
        seen += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert seen == sorted(ALL_SLICES)
    by_node = custom.list_cluster_custom_object(
        "resource.k8s.io", "v1", "resourceslices", field_selector="spec.nodeName=npu-node-2"
    )
    assert [i["spec"]["driver"] for i in by_node["items"]] == ["npu.rebellions.ai"]


def test_resource_v1_api_raw_json(api_client: Callable[[], client.ApiClient]) -> None:
    response = client.ResourceV1Api(api_client()).list_resource_claim_template_for_all_namespaces(
        _preload_content=False
    )
    doc = json.loads(response.data)
    assert [(t["metadata"]["namespace"], t["metadata"]["name"]) for t in doc["items"]] == [
        ("serving", "npu-rdma")
    ]


def test_dynamic_client_discovery(api_client: Callable[[], client.ApiClient], tmp_path: Path) -> None:
    dynamic = DynamicClient(api_client(), cache_file=str(tmp_path / "discovery.json"))
    slices = dynamic.resources.get(api_version="resource.k8s.io/v1", kind="ResourceSlice")
    assert slices.namespaced is False
    assert {i.metadata.name for i in slices.get().items} == ALL_SLICES
    pods = dynamic.resources.get(api_version="v1", kind="Pod")
    assert pods.get(name="decode-0", namespace="serving").status.phase == "Running"
    claims = dynamic.resources.get(api_version="resource.k8s.io/v1beta1", kind="ResourceClaim")
    assert claims.namespaced is True


@pytest.mark.replay_write_attempts
def test_delete_is_refused(api_client: Callable[[], client.ApiClient], basic_server: ReplayServer) -> None:
    with pytest.raises(ApiException) as info:
        client.CoreV1Api(api_client()).delete_namespaced_pod("decode-0", "serving")
    assert info.value.status == 405
    assert json.loads(info.value.body)["reason"] == "MethodNotAllowed"
    assert [(w.method, w.status) for w in basic_server.write_attempts()] == [("DELETE", 405)]
