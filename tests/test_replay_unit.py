"""The replay server over plain HTTP: discovery, selectors, paging, errors, exec framing, audit."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import websocket
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.errors import InputError
from kubectl_rbln.replay.fields import parse_field_selector
from kubectl_rbln.replay.resources import ALWAYS_GROUPS, guess_plural, version_priority
from kubectl_rbln.replay.server import ReplayServer, run
from kubectl_rbln.replay.store import shell_text
from kubectl_rbln.selectors import SelectorError, match_labels, parse_label_selector

BUNDLE = Path(__file__).resolve().parent / "data" / "replay-basic.json"


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    return load_objects([str(BUNDLE)])


@pytest.fixture(scope="module")
def server(objects: list[dict[str, Any]]) -> Iterator[ReplayServer]:
    with ReplayServer(objects) as srv:
        yield srv


def request(
    server: ReplayServer,
    path: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def get_json(server: ReplayServer, path: str) -> tuple[int, Any]:
    code, headers, body = request(server, path)
    assert headers["Content-Type"] == "application/json"
    return code, json.loads(body)


def item_names(doc: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in doc["items"]]


# ---------------------------------------------------------------- discovery


def test_version_from_cluster_info_else_default(server: ReplayServer) -> None:
    assert get_json(server, "/version")[1]["gitVersion"] == "v1.34.2"
    assert get_json(server, "/version")[1]["minor"] == "34"
    with ReplayServer([]) as empty:
        assert get_json(empty, "/version")[1]["gitVersion"] == "v1.34.0"


def test_the_date_header_is_the_bundles_read_time_else_now() -> None:
    """A live read of a served bundle reads at the time of the bundle (a Lease's age), as `-f` does."""
    info = {"apiVersion": "kubectl-rbln/v1", "kind": "ClusterInfo", "metadata": {"name": "c"}}
    with ReplayServer([{**info, "readAt": "2026-09-14T06:00:00Z"}]) as read:
        assert request(read, "/version")[1]["Date"] == "Mon, 14 Sep 2026 06:00:00 GMT"
        assert request(read, "/api/v1/nodes")[1]["Date"] == "Mon, 14 Sep 2026 06:00:00 GMT"
    for unknown in ([info], [{**info, "readAt": "soon"}], []):
        with ReplayServer(unknown) as now:
            sent = parsedate_to_datetime(request(now, "/version")[1]["Date"])
            assert abs((datetime.now(timezone.utc) - sent).total_seconds()) < 60


def test_api_groups_prefer_newest_version(server: ReplayServer) -> None:
    code, doc = get_json(server, "/apis")
    assert code == 200 and doc["kind"] == "APIGroupList"
    # kubectl-rbln/v1 items are not an API; apps, batch and coordination.k8s.io every cluster serves
    assert [g["name"] for g in doc["groups"]] == [*ALWAYS_GROUPS, "resource.k8s.io"]
    group = doc["groups"][-1]
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"] == {"groupVersion": "resource.k8s.io/v1", "version": "v1"}
    assert get_json(server, "/apis/resource.k8s.io")[1]["kind"] == "APIGroup"
    assert get_json(server, "/api")[1]["versions"] == ["v1"]


def test_version_priority_order() -> None:
    versions = ["v1beta1", "v1alpha3", "v2", "v1", "v1beta2", "weird"]
    assert sorted(versions, key=version_priority) == ["v2", "v1", "v1beta2", "v1beta1", "v1alpha3", "weird"]


def test_core_resource_list_has_pod_subresources(server: ReplayServer) -> None:
    doc = get_json(server, "/api/v1")[1]
    resources = {r["name"]: r for r in doc["resources"]}
    assert {"nodes", "pods", "events", "namespaces", "pods/log", "pods/exec"} <= set(resources)
    assert resources["pods"]["verbs"] == ["get", "list"]
    assert resources["pods"]["namespaced"] is True and resources["nodes"]["namespaced"] is False
    assert resources["pods/exec"]["verbs"] == ["create", "get"]
    assert resources["pods"]["shortNames"] == ["po"]


def test_dra_resources_served_in_every_version(server: ReplayServer) -> None:
    for version in ("v1", "v1beta1"):
        doc = get_json(server, f"/apis/resource.k8s.io/{version}")[1]
        assert doc["groupVersion"] == f"resource.k8s.io/{version}"
        assert {r["name"]: r["namespaced"] for r in doc["resources"]} == {
            "deviceclasses": False,
            "resourceclaims": True,
            "resourceclaimtemplates": True,
            "resourceslices": False,
        }
    assert get_json(server, "/apis/resource.k8s.io/v1beta2")[0] == 404


def test_empty_bundle_serves_empty_core_lists() -> None:
    with ReplayServer([]) as empty:
        code, doc = get_json(empty, "/api/v1/pods")
        assert (code, doc["kind"], doc["items"]) == (200, "PodList", [])
        assert item_names(get_json(empty, "/api/v1/namespaces")[1]) == ["default"]
        # the groups every cluster serves, in v1, with empty lists: what owns Pods, the schedulers' Leases
        groups = get_json(empty, "/apis")[1]["groups"]
        assert [(g["name"], g["preferredVersion"]["version"]) for g in groups] == [
            ("apps", "v1"),
            ("batch", "v1"),
            ("coordination.k8s.io", "v1"),
        ]
        leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
        for path in ("/apis/apps/v1/deployments", leases):
            assert get_json(empty, path)[1]["items"] == []
        assert get_json(empty, "/api/v1/namespaces/serving/resourcequotas")[1]["kind"] == "ResourceQuotaList"
        served = {r["name"] for r in get_json(empty, "/apis/batch/v1")[1]["resources"]}
        assert served == {"jobs", "cronjobs"}


def test_other_groups_and_kinds_are_discovered() -> None:
    objs = [
        {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "a"}},
        {"apiVersion": "example.com/v1alpha1", "kind": "Policy", "metadata": {"name": "p", "namespace": "a"}},
        {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass", "metadata": {"name": "c"}},
    ]
    with ReplayServer(objs) as srv:
        groups = {g["name"] for g in get_json(srv, "/apis")[1]["groups"]}
        assert groups == {"events.k8s.io", "example.com", "resource.k8s.io", *ALWAYS_GROUPS}
        assert item_names(get_json(srv, "/apis/events.k8s.io/v1/namespaces/a/events")[1]) == ["e1"]
        assert item_names(get_json(srv, "/apis/example.com/v1alpha1/policies")[1]) == ["p"]
        assert item_names(get_json(srv, "/api/v1/events")[1]) == []  # core events are another API
        assert item_names(get_json(srv, "/api/v1/namespaces")[1]) == ["a", "default"]


@pytest.mark.parametrize(
    ("kind", "plural"), [("Policy", "policies"), ("Gateway", "gateways"), ("Mesh", "meshes")]
)
def test_guess_plural(kind: str, plural: str) -> None:
    assert guess_plural(kind) == plural


# ---------------------------------------------------------------- list and get


def test_list_shape(server: ReplayServer) -> None:
    code, doc = get_json(server, "/api/v1/namespaces/serving/pods")
    assert code == 200
    assert (doc["kind"], doc["apiVersion"]) == ("PodList", "v1")
    assert doc["metadata"] == {"resourceVersion": "1402"}
    assert all((i["kind"], i["apiVersion"]) == ("Pod", "v1") for i in doc["items"])
    assert item_names(doc) == ["decode-0", "prefill-0"]


def test_get_and_not_found_status(server: ReplayServer) -> None:
    code, pod = get_json(server, "/api/v1/namespaces/serving/pods/decode-0")
    assert (code, pod["metadata"]["name"]) == (200, "decode-0")
    code, doc = get_json(server, "/api/v1/namespaces/serving/pods/x")
    assert code == 404
    assert doc == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "kind": "pods"},
        "code": 404,
    }
    code, doc = get_json(server, "/apis/resource.k8s.io/v1beta1/resourceslices/x")
    assert doc["details"] == {"name": "x", "kind": "resourceslices", "group": "resource.k8s.io"}


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/api/v2/pods",
        "/api/v1/widgets",
        "/api/v1/pods/decode-0",  # a namespaced object needs its namespace
        "/api/v1/namespaces/serving/nodes",  # nodes are cluster-scoped
        "/apis/unknown.io/v1/things",
        "/api/v1/namespaces/serving/pods/decode-0/attach",
    ],
)
def test_unknown_paths_are_404_status(server: ReplayServer, path: str) -> None:
    code, doc = get_json(server, path)
    assert (code, doc["kind"], doc["reason"]) == (404, "Status", "NotFound")


def test_namespace_get_and_status_subresource(server: ReplayServer) -> None:
    assert get_json(server, "/api/v1/namespaces/serving")[1]["status"]["phase"] == "Active"
    assert get_json(server, "/api/v1/nodes/npu-node-1/status")[1]["kind"] == "Node"


def test_pagination_walks_everything_once(server: ReplayServer) -> None:
    seen: list[str] = []
    path = "/api/v1/events?limit=1"
    while True:
        doc = get_json(server, path)[1]
        seen += item_names(doc)
        token = doc["metadata"].get("continue")
        if not token:
            break
        assert doc["metadata"]["remainingItemCount"] >= 1
        path = f"/api/v1/events?limit=1&continue={quote(token)}"
    assert seen == sorted(item_names(get_json(server, "/api/v1/events")[1]))
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=-1", "invalid limit"),
        ("limit=abc", "invalid limit"),
        ("continue=%%%", "continue key is not valid"),
        ("continue=eyJ2IjoxfQ", "continue key is not valid"),
        ("labelSelector=a%20in%20(b", "unable to parse requirement"),
        ("labelSelector=%3D%3Dx", "unable to parse requirement"),
        ("fieldSelector=spec.image%3Dx", "field label not supported: spec.image"),
        ("fieldSelector=nonsense", "invalid selector"),
    ],
)
def test_bad_queries_are_400_status(server: ReplayServer, query: str, message: str) -> None:
    code, doc = get_json(server, f"/api/v1/pods?{query}")
    assert (code, doc["kind"], doc["reason"]) == (400, "Status", "BadRequest")
    assert message in doc["message"]


def test_continue_token_of_another_bundle_is_refused(server: ReplayServer) -> None:
    token = get_json(server, "/api/v1/events?limit=1")[1]["metadata"]["continue"]
    with ReplayServer([]) as other:
        code, doc = get_json(other, f"/api/v1/events?limit=1&continue={token}")
    assert code == 400 and "another resource version" in doc["message"]


def test_a_watch_with_bad_parameters_is_a_400_before_any_stream(server: ReplayServer) -> None:
    """Watches stream (tests/e2e/test_watch_e2e.py); what they cannot start from is refused at once."""
    for query in (
        "watch=true&timeoutSeconds=soon",
        "watch=1&resourceVersion=abc",
        "watch=1&includeObject=All",
    ):
        code, doc = get_json(server, f"/api/v1/pods?{query}")
        assert (code, doc["reason"]) == (400, "BadRequest"), query


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(
        ["/api/v1/pods", "/api/v1/namespaces/serving/events", "/apis/resource.k8s.io/v1/resourceslices"]
    ),
    query=st.text(alphabet="abcdelmnist=!,()&%+ .-_/\\x0123456789", max_size=40),
)
def test_any_query_gets_a_document_never_a_traceback(server: ReplayServer, path: str, query: str) -> None:
    code, headers, body = request(server, f"{path}?{quote(query, safe='=&%')}")
    assert code in (200, 400, 405)
    doc = json.loads(body)
    assert doc["kind"].endswith("List") if code == 200 else doc["kind"] == "Status"


# ---------------------------------------------------------------- selectors


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ("a=b", {"a": "b"}, True),
        ("a==b", {"a": "c"}, False),
        ("a!=b", {}, True),
        ("a in (b, c)", {"a": "c"}, True),
        ("a notin (b,c)", {"a": "c"}, False),
        ("a notin (b,c)", {}, True),
        ("a", {"a": ""}, True),
        ("!a", {"a": ""}, False),
        ("a,!b", {"a": "1"}, True),
        ("app.kubernetes.io/name=x,tier in (web)", {"app.kubernetes.io/name": "x", "tier": "web"}, True),
        ("n>3", {"n": "4"}, True),
        ("n<3", {"n": "x"}, False),
        ("a=", {"a": ""}, True),
        ("", {"a": "b"}, True),
    ],
)
def test_label_selector_semantics(selector: str, labels: dict[str, str], expected: bool) -> None:
    assert match_labels(parse_label_selector(selector), {"metadata": {"labels": labels}}) is expected


@pytest.mark.parametrize("selector", ["a in (b", "a in b", "=b", "a b", "a,", "a=(b)", "a in (b c)"])
def test_label_selector_errors(selector: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(selector)


def test_field_selector_escapes_and_negation() -> None:
    reqs = parse_field_selector(r"metadata.name=a\,b,status.phase!=Failed", "pods")
    assert [(r.field, r.value, r.negate) for r in reqs] == [
        ("metadata.name", "a,b", False),
        ("status.phase", "Failed", True),
    ]
    with pytest.raises(SelectorError, match="field label not supported"):
        parse_field_selector("spec.nodeName=x", "deviceclasses")


def test_shell_text_matches_equivalent_commands() -> None:
    assert shell_text(("sh", "-c", "ls  /dev/rbln*")) == shell_text(("bash", "-c", "ls /dev/rbln*"))
    assert shell_text(("ls", "/sys/class/infiniband/")) == shell_text(
        ("sh", "-c", "ls /sys/class/infiniband/")
    )


# ---------------------------------------------------------------- logs


@pytest.mark.parametrize(
    ("query", "code", "needle"),
    [
        ("container=modelserver&previous=true", 200, "ibv_open_device failed"),
        ("container=modelserver&tailLines=1", 200, "serving on :8000"),
        ("container=modelserver&limitBytes=4", 200, "INFO"),
        (
            "",
            400,
            "a container name must be specified for pod decode-0, choose one of: [modelserver metrics]",
        ),
        ("container=gpu", 400, "container gpu is not valid for pod decode-0"),
        ("container=metrics&previous=true", 400, 'previous terminated container "metrics" in pod "decode-0"'),
        ("container=metrics", 404, "was recorded in the bundle"),
        ("container=modelserver&tailLines=x", 400, "invalid tailLines"),
    ],
)
def test_pod_log(server: ReplayServer, query: str, code: int, needle: str) -> None:
    status, headers, body = request(server, f"/api/v1/namespaces/serving/pods/decode-0/log?{query}")
    assert status == code
    text = body.decode()
    if code == 200:
        assert headers["Content-Type"] == "text/plain"
        assert needle in text
    else:
        assert needle in json.loads(text)["message"]


def test_pod_log_limit_bytes_exact(server: ReplayServer) -> None:
    status, _, body = request(
        server, "/api/v1/namespaces/serving/pods/decode-0/log?container=modelserver&limitBytes=4"
    )
    assert (status, body) == (200, b"INFO")


def test_log_of_missing_pod(server: ReplayServer) -> None:
    code, doc = get_json(server, "/api/v1/namespaces/serving/pods/ghost/log")
    assert (code, doc["message"]) == (404, 'pods "ghost" not found')


# ---------------------------------------------------------------- exec


def exec_url(server: ReplayServer, *command: str, pod: str = "decode-0") -> str:
    args = "&".join(f"command={quote(c)}" for c in command)
    base = server.url.replace("http://", "ws://")
    flags = "container=modelserver&stdout=true&stderr=true"
    return f"{base}/api/v1/namespaces/serving/pods/{pod}/exec?{args}&{flags}"


def collect(ws: websocket.WebSocket, *, base64_protocol: bool = False) -> dict[int, bytes]:
    channels: dict[int, bytes] = {}
    while True:
        try:
            opcode, data = ws.recv_data()
        except websocket.WebSocketConnectionClosedException:
            break
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            break
        if base64_protocol:
            channel, payload = int(chr(data[0])), base64.b64decode(data[1:])
        else:
            channel, payload = data[0], data[1:]
        channels[channel] = channels.get(channel, b"") + payload
    return channels


def test_exec_v4_binary_frames(server: ReplayServer) -> None:
    ws = websocket.create_connection(
        exec_url(server, "sh", "-c", "ls /dev/infiniband/uverbs*"),
        subprotocols=["v4.channel.k8s.io"],
        timeout=5,
    )
    assert ws.subprotocol == "v4.channel.k8s.io"
    ws.send_binary(bytes([255, 0]))  # a v5-style stdin close: ignored, not fatal
    channels = collect(ws)
    ws.close()
    assert b"No such file or directory" in channels[2]
    status = json.loads(channels[3])
    assert status["reason"] == "NonZeroExitCode"
    assert status["details"]["causes"] == [{"reason": "ExitCode", "message": "2"}]
    assert status["message"] == (
        "command terminated with non-zero exit code: error executing command "
        "[sh -c ls /dev/infiniband/uverbs*], exit code 2"
    )


def test_exec_base64_protocol(server: ReplayServer) -> None:
    ws = websocket.create_connection(
        exec_url(server, "sh", "-c", "ls /dev/rbln*"), subprotocols=["base64.channel.k8s.io"], timeout=5
    )
    channels = collect(ws, base64_protocol=True)
    ws.close()
    assert channels[1] == b"/dev/rbln0\n"
    assert 3 not in channels  # the old protocols only write the error channel on failure


def test_exec_prefers_the_clients_first_offer(server: ReplayServer) -> None:
    ws = websocket.create_connection(
        exec_url(server, "ls"), subprotocols=["v5.channel.k8s.io", "v4.channel.k8s.io"], timeout=5
    )
    assert ws.subprotocol == "v5.channel.k8s.io"
    channels = collect(ws)
    ws.close()
    assert json.loads(channels[3])["details"]["causes"][0]["message"] == "126"


def test_exec_refusals_are_400_and_not_writes() -> None:
    objs = load_objects([str(BUNDLE)])
    with ReplayServer(objs) as srv:
        path = "/api/v1/namespaces/serving/pods/decode-0/exec?command=ls&container=modelserver"
        spdy = request(srv, path, "POST", headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"})
        plain = request(srv, path)
        no_command = request(srv, "/api/v1/namespaces/serving/pods/decode-0/exec")
        bad_container = request(srv, path.replace("modelserver", "gpu"))
        ghost = request(srv, path.replace("decode-0", "ghost"))
        with pytest.raises(websocket.WebSocketBadStatusException):
            websocket.create_connection(exec_url(srv, "ls"), subprotocols=["v9.channel.k8s.io"], timeout=5)
        assert [c for c, _, _ in (spdy, plain, no_command, bad_container, ghost)] == [400, 400, 400, 400, 404]
        assert "websocket only" in json.loads(spdy[2])["message"]
        assert "at least 1 command" in json.loads(no_command[2])["message"]
        assert srv.write_attempts() == []
        assert [e.is_exec for e in srv.audit][:1] == [True]


# ---------------------------------------------------------------- methods, audit, robustness


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_writes_are_405_and_audited(objects: list[dict[str, Any]], method: str) -> None:
    with ReplayServer(objects) as srv:
        code, headers, body = request(
            srv, "/api/v1/namespaces/serving/pods/decode-0", method, body=b'{"x":1}'
        )
        doc = json.loads(body)
        assert code == 405
        assert (doc["kind"], doc["reason"], doc["code"]) == ("Status", "MethodNotAllowed", 405)
        assert "read-only" in doc["message"]
        assert headers["Allow"] == "GET, HEAD, OPTIONS"
        assert [(e.method, e.path, e.status, e.is_write) for e in srv.audit] == [
            (method, "/api/v1/namespaces/serving/pods/decode-0", 405, True)
        ]
        # the connection stays usable after a refused write with a body (the body was drained)
        assert get_json(srv, "/version")[0] == 200


def test_head_and_options(server: ReplayServer) -> None:
    code, headers, body = request(server, "/api/v1/pods", "HEAD")
    assert (code, body) == (200, b"")
    assert int(headers["Content-Length"]) > 0
    code, headers, body = request(server, "/api/v1/pods", "OPTIONS")
    assert (code, headers["Allow"], body) == (204, "GET, HEAD, OPTIONS", b"")


def test_malformed_request_line_is_a_status(server: ReplayServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n")
        chunks = []
        while chunk := sock.recv(65536):  # the server closes after a malformed request
            chunks.append(chunk)
        reply = b"".join(chunks).decode()
    head, _, body = reply.partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 501")
    assert json.loads(body)["kind"] == "Status"


def test_keep_alive_connection_serves_many_requests(server: ReplayServer) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    for path in ("/api", "/apis", "/api/v1/nodes", "/api/v1/nodes/none", "/api/v1/nodes"):
        conn.request("GET", path)
        response = conn.getresponse()
        json.loads(response.read())
    conn.close()


def test_concurrent_requests_are_all_answered_and_audited(objects: list[dict[str, Any]]) -> None:
    with ReplayServer(objects) as srv:
        results: list[int] = []
        lock = threading.Lock()

        def worker() -> None:
            for _ in range(10):
                code, _ = get_json(srv, "/apis/resource.k8s.io/v1/resourceslices")
                with lock:
                    results.append(code)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [200] * 80
        assert len(srv.audit) == 80


def test_kubeconfig(server: ReplayServer) -> None:
    config = server.kubeconfig(namespace="serving")
    assert config["current-context"] == "rbln-replay"
    assert config["clusters"][0]["cluster"]["server"] == server.url
    assert server.url.startswith("http://127.0.0.1:")
    assert config["contexts"][0]["context"] == {
        "cluster": "rbln-replay",
        "user": "rbln-replay",
        "namespace": "serving",
    }
    assert config["users"][0]["user"]["token"]
    assert yaml.safe_load(server.kubeconfig_yaml("x"))["current-context"] == "x"


def test_run_serves_until_stopped(objects: list[dict[str, Any]]) -> None:
    answered: list[int] = []

    def ready(srv: ReplayServer) -> None:
        def probe() -> None:
            answered.append(get_json(srv, "/version")[0])
            srv.stop()

        threading.Thread(target=probe, daemon=True).start()

    run(objects, "127.0.0.1", 0, ready)
    assert answered == [200]


def test_stop_is_idempotent(objects: list[dict[str, Any]]) -> None:
    srv = ReplayServer(objects).start()
    srv.stop()
    srv.stop()
    ReplayServer(objects).stop()  # never started


def test_port_in_use_is_an_input_error(server: ReplayServer) -> None:
    with pytest.raises(InputError, match="cannot listen on 127.0.0.1"):
        ReplayServer([], port=server.port)
