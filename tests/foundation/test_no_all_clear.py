"""Nothing read is never an all-clear (issue 23, 1).

An input with no object is an input error (exit 2, one line naming the file and what it holds
instead); a bundle without Nodes, a live list answered with something that is not that list, or an
empty list while other objects name what it should hold is `source-degraded` (case `missing`, an
error, exit 1); a request count that is not a positive integer is `malformed`, named, and the Pod
that depends on it is an error. Every case runs the CLI as a user does: as a subprocess (the slow
lane), or in this process where a case only reads a bundle (the counts).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import DATA, REPO, run_rbln
from tests.robustness.bundles import NPU_DRIVER, claim_spec, pending_pod_bundle, resource_slice

BASIC = DATA / "replay-basic.json"
READERS = ("why", "check", "attrs", "topo", "suggest-rct", "pod-devices")
EMPTY_FORMS = {
    "zero-bytes": ("", "the file is empty (0 bytes)"),
    "comment": ("# kubectl get pods -o yaml failed\n", "only comments or empty YAML documents"),
    "dashes": ("---\n", "only comments or empty YAML documents"),
    "blank": ("\n  \n", "only blank lines"),
    "empty-list": ('{"apiVersion": "v1", "kind": "List", "items": []}', "an empty list (no item)"),
    "empty-list-yaml": ("apiVersion: v1\nkind: List\nitems: []\n", "an empty list (no item)"),
}


def basic() -> list[dict[str, Any]]:
    return load_objects([str(BASIC)])


def write_bundle(path: Path, objects: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
    return str(path)


def one_error_line(result: Any) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# ---------------------------------------------------------------- 1. no object: exit 2, one line


@pytest.mark.slow
@pytest.mark.parametrize("form", list(EMPTY_FORMS))
@pytest.mark.parametrize("command", READERS)
def test_an_input_without_objects_is_an_input_error(tmp_path: Path, command: str, form: str) -> None:
    text, said = EMPTY_FORMS[form]
    path = tmp_path / ("in.yaml" if "yaml" in form or form in ("comment", "dashes") else "in.json")
    path.write_text(text, encoding="utf-8")
    result = run_rbln(command, "-f", str(path))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert one_error_line(result) == f"error: {path}: {said}: no Kubernetes object to read"
    assert result.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("command", READERS)
def test_empty_stdin_is_an_input_error(command: str) -> None:
    result = run_rbln(command, "-f", "-", stdin="")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert one_error_line(result) == "error: <stdin>: nothing on stdin: no Kubernetes object to read"


@pytest.mark.slow
def test_serve_refuses_an_empty_bundle(tmp_path: Path) -> None:
    path = tmp_path / "dump.json"
    path.write_text("", encoding="utf-8")
    result = run_rbln("serve", str(path), "--port", "0", timeout=20)
    assert result.returncode == 2
    assert (
        one_error_line(result) == f"error: {path}: the file is empty (0 bytes): no Kubernetes object to read"
    )


@pytest.mark.slow
def test_several_empty_lists_name_every_input(tmp_path: Path) -> None:
    first, second = tmp_path / "nodes.json", tmp_path / "pods.json"
    for path in (first, second):
        path.write_text('{"kind": "List", "items": []}', encoding="utf-8")
    result = run_rbln("why", "-f", str(first), "-f", str(second))
    assert result.returncode == 2
    assert one_error_line(result) == (
        f"error: {first}, {second}: empty lists (no item in any): no Kubernetes object to read"
    )


@pytest.mark.slow
def test_an_empty_list_beside_objects_is_read(tmp_path: Path) -> None:
    """A cluster split by kind (`kubectl get X -o json > X.json`) with no claims yet is a real cluster."""
    objects = [o for o in basic() if o["kind"] != "ResourceClaim"]
    claims = tmp_path / "claims.json"
    claims.write_text('{"kind": "ResourceClaimList", "apiVersion": "resource.k8s.io/v1", "items": []}')
    result = run_rbln("why", "-f", write_bundle(tmp_path / "rest.json", objects), "-f", str(claims))
    assert result.returncode in (0, 1), result.stderr
    assert "no Kubernetes object" not in result.stderr


# ---------------------------------------------------------------- 2. a bundle without Nodes: exit 1


def _missing(findings: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        f
        for f in findings
        if f["slug"] == "source-degraded"
        and f["evidence"].get("code") == "missing"
        and f["evidence"]["kind"] == kind
    ]


@pytest.mark.slow
def test_a_bundle_without_nodes_or_pods_is_source_degraded_not_an_all_clear(tmp_path: Path) -> None:
    objects = [o for o in basic() if o["kind"] not in ("Node", "Pod", "PodLog", "ExecCapture")]
    path = write_bundle(tmp_path / "b.json", objects)
    result = run_rbln("why", "-f", path, "-o", "json")
    assert result.returncode == 1, (result.stdout, result.stderr)
    document = json.loads(result.stdout)
    assert "message" not in document  # never "no Pending or crashing device Pod"
    [node] = _missing(document["findings"], "Node")
    assert node["severity"] == "error"
    assert node["title"] == "Checked on partial data: no Node was read"
    assert "npu-node-1" in node["evidence"]["message"]
    [pod] = _missing(document["findings"], "Pod")  # its claims are reserved for Pods the input lacks
    assert "serving/decode-0" in pod["evidence"]["message"]
    assert result.stderr.splitlines() == [
        "warning: the input holds no Node, while ResourceSlices name nodes npu-node-1, npu-node-2: "
        "checked on partial data (source-degraded)",
        "warning: the input holds no Pod, while ResourceClaims are reserved for Pods serving/decode-0: "
        "checked on partial data (source-degraded)",
    ]
    table = run_rbln("why", "-f", path)
    assert table.returncode == 1
    assert "no Pending or crashing device Pod" not in table.stdout
    assert "✗ error   source-degraded  Checked on partial data: no Node was read" in table.stdout


@pytest.mark.slow
def test_a_bundle_without_nodes_makes_every_diagnosed_pod_an_error(tmp_path: Path) -> None:
    objects = [o for o in basic() if o["kind"] != "Node"]
    result = run_rbln(
        "why", "-f", write_bundle(tmp_path / "b.json", objects), "serving/decode-0", "-o", "json"
    )
    assert result.returncode == 1, result.stderr
    [pod] = json.loads(result.stdout)["pods"]
    assert _missing(pod["findings"], "Node")
    assert "Checked on partial data: no Node was read" in pod["verdict"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "topo", "attrs", "suggest-rct"])
def test_every_command_that_needs_nodes_exits_1_without_them(tmp_path: Path, command: str) -> None:
    objects = [o for o in basic() if o["kind"] != "Node"]
    result = run_rbln(command, "-f", write_bundle(tmp_path / "b.json", objects), "-n", "serving")
    assert result.returncode == 1, (command, result.stdout, result.stderr)
    assert (
        "warning: the input holds no Node, while ResourceSlices name nodes npu-node-1, npu-node-2: "
        in result.stderr
    )
    assert "Traceback" not in result.stderr
    if command == "check":  # said first, as a failed item of its own
        [line] = [line for line in result.stdout.splitlines() if line.startswith("N0 ")]
        assert line.split()[1:5] == ["every", "list", "read", "FAIL"], line


@pytest.mark.slow
def test_pod_devices_reads_no_node_and_is_not_degraded_without_them(tmp_path: Path) -> None:
    objects = [o for o in basic() if o["kind"] != "Node"]
    result = run_rbln("pod-devices", "-f", write_bundle(tmp_path / "b.json", objects), "-n", "serving")
    assert "source-degraded" not in result.stderr
    assert result.returncode == run_rbln("pod-devices", "-f", str(BASIC), "-n", "serving").returncode


@pytest.mark.slow
def test_topo_on_a_bundle_without_slices_is_not_an_all_clear(tmp_path: Path) -> None:
    objects = [o for o in basic() if o["kind"] in ("Node", "DeviceClass")]
    result = run_rbln("topo", "-f", write_bundle(tmp_path / "b.json", objects))
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        "warning: the input holds no ResourceSlice, and no ClusterInfo of a dump that found none: "
        "checked on partial data (source-degraded)"
    ]


# ---------------------------------------------------------------- 3. live: a wrong answer to a list


class _Doctored(BaseHTTPRequestHandler):
    """A proxy in front of the replay server that answers some lists (by path) with something else."""

    upstream = ""
    answers: dict[str, Any] = {}

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlsplit(self.path).path
        if path in self.answers:
            self._send(200, json.dumps(self.answers[path]).encode(), "application/json")
            return
        target = urlsplit(self.upstream)
        connection = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=5)
        try:
            connection.request("GET", self.path, headers={"Accept": self.headers.get("Accept", "*/*")})
            reply = connection.getresponse()
            self._send(reply.status, reply.read(), reply.getheader("Content-Type") or "application/json")
        finally:
            connection.close()

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


STATUS = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "etcdserver: request timed out",
    "reason": "Timeout",
    "code": 504,
}


@pytest.fixture
def doctored(tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], Path]]:
    """A kubeconfig for a loopback proxy whose listed paths answer 200 with the given bodies."""
    replay = ReplayServer(basic()).start()
    servers: list[ThreadingHTTPServer] = []

    def start(answers: dict[str, Any]) -> Path:
        handler = type("Handler", (_Doctored,), {"upstream": replay.url, "answers": answers})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "c",
            "clusters": [
                {"name": "c", "cluster": {"server": f"http://127.0.0.1:{server.server_address[1]}"}}
            ],
            "users": [{"name": "u", "user": {"token": "a-token-never-printed"}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "serving"}}],
        }
        path = tmp_path / f"kubeconfig-{len(servers)}"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        return path

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
    replay.stop()


def live(kubeconfig: Path, *args: str) -> Any:
    result = run_rbln(
        *args,
        "--kubeconfig",
        str(kubeconfig),
        "--request-timeout",
        "5s",
        env={"HOME": "/nonexistent"},
        timeout=30,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


PODS = "/api/v1/namespaces/serving/pods"
NODES = "/api/v1/nodes"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "body", "said"),
    [
        (
            PODS,
            STATUS,
            "the server answered 200 with a Status (etcdserver: request timed out), not a PodList",
        ),
        (
            PODS,
            {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": []},
            "the server answered a NodeList, not a PodList",
        ),
        (PODS, [], "the server answered a JSON array, not a PodList"),
        (
            PODS,
            {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": {}},
            "the server answered a PodList whose items are a JSON object, not an array",
        ),
        (
            NODES,
            STATUS,
            "the server answered 200 with a Status (etcdserver: request timed out), not a NodeList",
        ),
    ],
    ids=["pods-status", "pods-wrong-kind", "pods-array", "pods-items-object", "nodes-status"],
)
def test_a_list_answered_with_something_else_is_source_degraded(
    doctored: Callable[[dict[str, Any]], Path], path: str, body: Any, said: str
) -> None:
    kind = "Pod" if path == PODS else "Node"
    result = live(doctored({path: body}), "why", "-o", "json")
    assert result.returncode == 1, (result.stdout, result.stderr)
    document = json.loads(result.stdout)
    findings = document.get("findings") or [f for p in document["pods"] for f in p["findings"]]
    [found] = {f["evidence"]["message"]: f for f in _missing(findings, kind)}.values()
    assert found["severity"] == "error"
    assert found["evidence"]["message"].endswith(said), found["evidence"]["message"]
    assert "message" not in document or document.get("findings")
    assert f"{said}: checked on partial data (source-degraded)" in result.stderr


@pytest.mark.slow
def test_an_empty_node_list_while_slices_name_nodes_is_source_degraded(
    doctored: Callable[[dict[str, Any]], Path],
) -> None:
    empty = {"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}
    result = live(doctored({NODES: empty}), "why", "serving/decode-0", "-o", "json")
    assert result.returncode == 1, result.stderr
    [pod] = json.loads(result.stdout)["pods"]
    [found] = _missing(pod["findings"], "Node")
    assert found["evidence"]["message"] == (
        "the Node list answered no Node, while ResourceSlices name nodes npu-node-1, npu-node-2"
    )


@pytest.mark.slow
def test_an_empty_pod_list_while_claims_are_reserved_is_source_degraded(
    doctored: Callable[[dict[str, Any]], Path],
) -> None:
    empty = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}
    result = live(doctored({PODS: empty}), "why")
    assert result.returncode == 1, result.stderr
    assert "no Pending or crashing device Pod" not in result.stdout
    assert "Checked on partial data: no Pod was read" in result.stdout
    assert (
        "warning: the Pod list answered no Pod in namespace serving, while ResourceClaims are reserved for "
        "Pods serving/decode-0: checked on partial data (source-degraded)"
    ) in result.stderr.splitlines()


@pytest.mark.slow
def test_a_wrong_answer_is_kept_in_the_dump(
    doctored: Callable[[dict[str, Any]], Path], tmp_path: Path
) -> None:
    """`dump` records it as a ClusterInfo problem: the bundle read later says the same."""
    result = live(doctored({NODES: STATUS}), "dump", "-n", "serving")
    assert result.returncode == 0, result.stderr
    info = next(i for i in json.loads(result.stdout)["items"] if i["kind"] == "ClusterInfo")
    [problem] = [p for p in info["problems"] if p["kind"] == "Node"]
    assert problem["code"] == "missing"
    bundle = tmp_path / "dump.json"
    bundle.write_text(result.stdout, encoding="utf-8")
    again = run_rbln("why", "-f", str(bundle), "serving/decode-0", "-o", "json")
    assert again.returncode == 1
    assert _missing(json.loads(again.stdout)["pods"][0]["findings"], "Node")


# ---------------------------------------------------------------- 4. impossible counts: malformed, exit 1

SLICES = [resource_slice("n1", NPU_DRIVER, [{"name": f"npu{i}"} for i in range(4)])]
COUNTS = {
    "nan": "NaN",
    "huge": "1e309",
    "fraction": "1.5",
    "text": '"1"',
    "bool": "true",
    "zero": "0",
    "negative": "-1",
}
SHOWN_QUANTITY = {"1e309": "Infinity"}
Run = Callable[..., tuple[int, str, str]]
EXAMPLE_BUNDLE = REPO / "kubectl_rbln" / "examples" / "pending-decode.json"
SHOWN = {
    "nan": "NaN",
    "huge": "Infinity",
    "fraction": "1.5",
    "text": '"1"',
    "bool": "true",
    "zero": "0",
    "negative": "-1",
}


def _count_bundle(path: Path, count: str, *, flat: bool, running: bool = False) -> str:
    body = {"deviceClassName": NPU_DRIVER, "count": "@COUNT@"}
    request = {"name": "npu", **body} if flat else {"name": "npu", "exactly": body}
    objects = pending_pod_bundle("n1", SLICES, claim_spec([request], []))
    if flat:
        for obj in objects:
            if obj["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
                obj["apiVersion"] = "resource.k8s.io/v1beta1"
    if running:  # allocated and running: nothing else in the bundle is wrong
        claim = next(o for o in objects if o["kind"] == "ResourceClaim")
        claim["status"] = {
            "allocation": {
                "devices": {
                    "results": [{"request": "npu", "driver": NPU_DRIVER, "pool": "n1", "device": "npu0"}]
                }
            },
            "reservedFor": [{"resource": "pods", "name": "big-0", "uid": "uid-big-0"}],
        }
        pod = next(o for o in objects if o["kind"] == "Pod")
        pod["spec"]["nodeName"] = "n1"
        pod["status"] = {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [
                {"name": "main", "ready": True, "restartCount": 0, "state": {"running": {}}}
            ],
            "resourceClaimStatuses": pod["status"]["resourceClaimStatuses"],
        }
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).replace('"@COUNT@"', count)
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("flat", [False, True], ids=["v1-exactly", "v1beta1-flat"])
@pytest.mark.parametrize("label", list(COUNTS))
def test_an_impossible_count_is_malformed_and_the_pod_an_error(
    inprocess_rbln: Run, tmp_path: Path, label: str, flat: bool
) -> None:
    path = _count_bundle(tmp_path / "b.json", COUNTS[label], flat=flat, running=True)
    code, out, err = inprocess_rbln("why", "-f", path, "ml/big-0", "-o", "json")
    assert code == 1, (out, err)
    field = "spec.devices.requests[0].count" if flat else "spec.devices.requests[0].exactly.count"
    assert (
        f"warning: malformed ResourceClaim ml/big-0-devices-x7k2p: {field} is {SHOWN[label]}, "
        "not a positive integer: not simulated"
    ) in err.splitlines()
    [pod] = json.loads(out)["pods"]
    malformed = [
        f for f in pod["findings"] if f["slug"] == "source-degraded" and f["evidence"]["code"] == "malformed"
    ]
    assert malformed and all(f["severity"] == "error" for f in malformed)
    assert "nothing to fix" not in pod["verdict"]


def test_a_valid_count_on_the_same_bundle_is_nothing_to_fix(inprocess_rbln: Run, tmp_path: Path) -> None:
    """The control: the bundle of the cases above, with `count: 1`, is healthy (so they can fail)."""
    code, out, err = inprocess_rbln(
        "why", "-f", _count_bundle(tmp_path / "b.json", "1", flat=False, running=True)
    )
    assert code == 0, (out, err)
    assert err == ""


@pytest.mark.parametrize("label", ["fraction", "zero", "text"])
def test_a_pending_pod_with_an_impossible_count_is_not_simulated(
    inprocess_rbln: Run, tmp_path: Path, label: str
) -> None:
    """Never read as 1 (or 0 devices): no node is said to fit."""
    code, out, err = inprocess_rbln(
        "why", "-f", _count_bundle(tmp_path / "b.json", COUNTS[label], flat=False), "-o", "json"
    )
    assert code == 1, err
    [pod] = json.loads(out)["pods"]
    assert not any(node.get("fits") for node in pod["nodes"])
    assert any(f["slug"] == "source-degraded" and f["severity"] == "error" for f in pod["findings"])


@pytest.mark.parametrize("value", ['"lots"', '"NaN"', "1e309", '"-1Gi"', "true"])
def test_an_impossible_capacity_request_is_malformed(inprocess_rbln: Run, tmp_path: Path, value: str) -> None:
    path = Path(_count_bundle(tmp_path / "b.json", "1", flat=False, running=True))
    text = path.read_text().replace('"count": 1', '"count": 1, "capacity": {"requests": {"memory": @Q@}}')
    path.write_text(text.replace("@Q@", value), encoding="utf-8")
    code, out, err = inprocess_rbln("why", "-f", str(path), "ml/big-0")
    assert code == 1, (out, err)
    assert f"exactly.capacity.requests.memory is {SHOWN_QUANTITY.get(value, value)}" in err
    assert "✗ error   source-degraded" in out


def test_a_stuck_pod_with_an_impossible_count_has_that_verdict_alone(
    inprocess_rbln: Run, tmp_path: Path
) -> None:
    """The malformed claim is the verdict: no cause-not-recognised beside it (the stage's rules could not
    run on a claim that is never simulated, so "no rule knows" would be a second, wrong answer)."""
    path = _count_bundle(tmp_path / "b.json", "1.5", flat=False)
    code, out, _ = inprocess_rbln("why", "-f", path, "-o", "json")
    assert code == 1
    [pod] = json.loads(out)["pods"]
    slugs = [f["slug"] for f in pod["findings"]]
    assert slugs[0] == "source-degraded" and "cause-not-recognised" not in slugs
    assert "is malformed" in pod["verdict"]


@pytest.mark.parametrize("command", [["topo"], ["attrs", "-n", "ml", "--rct", "big"]])
def test_topo_and_attrs_on_an_rct_with_an_impossible_count_exit_1(
    inprocess_rbln: Run, tmp_path: Path, command: list[str]
) -> None:
    code, out, err = inprocess_rbln(*command, "-f", _count_bundle(tmp_path / "b.json", "0", flat=False))
    assert code == 1, (out, err)
    assert "warning: malformed ResourceClaimTemplate ml/big: " in err
    if command[0] == "attrs":
        assert (
            "source-degraded: Checked on partial data: ResourceClaimTemplate ml/big in the input is malformed"
            in out
        )


def test_an_rct_file_with_an_impossible_count_is_an_input_error(inprocess_rbln: Run, tmp_path: Path) -> None:
    bundle = json.loads(Path(_count_bundle(tmp_path / "b.json", "1.5", flat=False)).read_text())
    [template] = [o for o in bundle["items"] if o["kind"] == "ResourceClaimTemplate"]
    rct = tmp_path / "rct.json"
    rct.write_text(json.dumps(template), encoding="utf-8")
    for command in ("topo", "attrs"):
        code, out, err = inprocess_rbln(
            command, "-f", str(EXAMPLE_BUNDLE), "-n", "serving", "--rct-file", str(rct)
        )
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [
            f"error: --rct-file {rct}: devices.requests[0].exactly.count is 1.5, not a positive integer"
        ]
