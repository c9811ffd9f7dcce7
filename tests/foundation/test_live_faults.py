"""The live path against a hostile cluster: the replay server plays each fault, the CLI runs as a user would.

Every case asserts what a user sees (the one-line message and the exit code), that
the kubeconfig's bearer token appears nowhere in the output, that the kubeconfig
is never written, and that no write verb reached the server.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import Faults, ReplayServer
from tests.conftest import DATA, run_rbln

pytestmark = pytest.mark.slow  # a replay server per test, the CLI as a subprocess

TOKEN = "s3cr3t-Bearer-T0KEN-do-not-print"
WRITE_VERBS = {"POST", "PUT", "PATCH", "DELETE"}
USER = "system:serviceaccount:rbln:diagnose"


def kubeconfig_text(server: str, token: str = TOKEN, namespace: str | None = None) -> str:
    context: dict[str, Any] = {"cluster": "c", "user": "u"}
    if namespace:
        context["namespace"] = namespace
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "c",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {"token": token}}],
            "contexts": [{"name": "c", "context": context}],
        }
    )


class Cluster:
    """A replay server with faults, and a kubeconfig holding a secret token that must never print."""

    def __init__(self, tmp: Path, server: ReplayServer | None, url: str | None = None) -> None:
        self.server = server
        self.kubeconfig = tmp / f"kubeconfig-{id(self)}"
        self.kubeconfig.write_text(kubeconfig_text(url or (server.url if server else "")), encoding="utf-8")
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)
        self._digest = hashlib.sha256(self.kubeconfig.read_bytes()).hexdigest()

    def rbln(self, *args: str, timeout: str = "2s") -> Any:
        result = run_rbln(
            *args,
            "--kubeconfig",
            str(self.kubeconfig),
            "--request-timeout",
            timeout,
            env={"HOME": str(self.home)},
            timeout=30,
        )
        output = result.stdout + result.stderr
        assert TOKEN not in output, "the bearer token was printed"
        assert "Traceback" not in result.stderr, result.stderr
        assert hashlib.sha256(self.kubeconfig.read_bytes()).hexdigest() == self._digest, "kubeconfig written"
        return result

    def paths(self) -> list[tuple[str, str, int]]:
        assert self.server is not None
        return [(e.path, e.query, e.status) for e in self.server.audit]


@pytest.fixture(scope="module")
def basic() -> list[dict[str, Any]]:
    return load_objects([str(DATA / "replay-basic.json")])


@pytest.fixture
def cluster(tmp_path: Path, basic: list[dict[str, Any]]) -> Iterator[Callable[..., Cluster]]:
    servers: list[ReplayServer] = []

    def start(faults: Faults | None = None, objects: list[dict[str, Any]] | None = None) -> Cluster:
        server = ReplayServer(objects if objects is not None else basic, faults=faults).start()
        servers.append(server)
        return Cluster(tmp_path, server)

    yield start
    for server in servers:
        server.stop()
        assert not [e for e in server.audit if e.method in WRITE_VERBS], "a write verb reached the server"


def bundle(result: Any) -> dict[tuple[str, str, str], dict[str, Any]]:
    items = json.loads(result.stdout)["items"]
    return {(i["kind"], i["metadata"].get("namespace", ""), i["metadata"]["name"]): i for i in items}


def cluster_info(result: Any) -> dict[str, Any]:
    return next(i for i in json.loads(result.stdout)["items"] if i["kind"] == "ClusterInfo")


def error_line(result: Any) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def many_events(count: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"noise-{i:04d}", "namespace": "serving"},
            "involvedObject": {"kind": "Pod", "name": "decode-0", "namespace": "serving"},
            "reason": "Noise",
            "message": "filler",
            "type": "Normal",
        }
        for i in range(count)
    ]


# ---------------------------------------------------------------- 403: one list degrades, the rest run


def test_forbidden_claims_degrade_only_that_list(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(forbid={"resourceclaims"}))
    result = c.rbln("dump", "-n", "serving")
    assert result.returncode == 0, result.stderr
    cluster_scope = (
        f'resourceclaims.resource.k8s.io is forbidden: User "{USER}" cannot list resource '
        f'"resourceclaims" in API group "resource.k8s.io" at the cluster scope'
    )
    in_namespace = cluster_scope.replace("at the cluster scope", 'in the namespace "serving"')
    note = "; claims in other namespaces are invisible, devices they hold look free"
    assert result.stderr.splitlines() == [f"warning: {cluster_scope}{note}", f"warning: {in_namespace}"]
    problems = cluster_info(result)["problems"]
    assert problems == [
        {"kind": "ResourceClaim", "code": "forbidden", "message": cluster_scope + note},
        {"kind": "ResourceClaim", "code": "forbidden", "message": in_namespace},
    ]
    kinds = {kind for kind, _, _ in bundle(result)}
    assert {"Node", "Pod", "Event", "DeviceClass", "ResourceSlice", "ResourceClaimTemplate"} <= kinds
    assert "ResourceClaim" not in kinds


def test_forbidden_at_cluster_scope_falls_back_to_the_namespace(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(forbid={"resourceclaims"}, forbid_namespaced_ok=True))
    result = c.rbln("dump", "-n", "serving")
    assert result.returncode == 0, result.stderr
    assert ("ResourceClaim", "serving", "decode-0-accel-x7k2p") in bundle(result)
    [problem] = cluster_info(result)["problems"]
    assert problem["code"] == "forbidden" and problem["message"].endswith("devices they hold look free")


def test_forbidden_pod_log_is_a_problem_not_the_end(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(forbid={"pods/log"}))
    result = c.rbln("dump", "-A")
    assert result.returncode == 0, result.stderr
    assert not [key for key in bundle(result) if key[0] == "PodLog"]
    [problem] = cluster_info(result)["problems"]
    assert problem["kind"] == "PodLog" and problem["code"] == "forbidden"
    assert problem["message"].startswith("logs of serving/decode-0 container ")
    assert 'cannot get resource "pods/log" in API group "" in the namespace "serving"' in problem["message"]


def test_forbidden_owners_and_leases_are_problems_of_their_kinds(cluster: Callable[..., Cluster]) -> None:
    """A role from before the owners and Leases were read: `dump` names each refused list and writes the
    rest; `why` still answers (exit 1: the basic bundle's Pending Pod has a cause)."""
    c = cluster(Faults(forbid={"deployments", "leases"}))
    result = c.rbln("dump", "-n", "serving")
    assert result.returncode == 0, result.stderr
    denied = (
        'is forbidden: User "{user}" cannot list resource "{plural}" in API group "{group}" in the namespace'
    )
    deployments = denied.format(user=USER, plural="deployments", group="apps")
    leases = denied.format(user=USER, plural="leases", group="coordination.k8s.io")
    assert result.stderr.splitlines() == [
        f'warning: deployments.apps {deployments} "serving"',
        f"warning: the schedulers' leader election in kube-system: leases.coordination.k8s.io {leases} "
        '"kube-system"',
        f'warning: the drivers\' Deployments in kube-system: deployments.apps {deployments} "kube-system"',
        f'warning: the drivers\' Deployments in rbln-system: deployments.apps {deployments} "rbln-system"',
    ]
    info = cluster_info(result)
    assert [(p["kind"], p["code"]) for p in info["problems"]] == [
        ("Deployment", "forbidden"),
        ("Lease", "forbidden"),
    ] + [("Deployment", "forbidden")] * 2
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", info["readAt"])
    assert {"Pod", "ResourceClaim", "Event"} <= {kind for kind, _, _ in bundle(result)}
    why = c.rbln("why", "-n", "serving", "prefill-0")
    assert why.returncode == 1, why.stderr
    assert why.stdout.startswith("Pod serving/prefill-0 ")


# ---------------------------------------------------------------- 404: DRA not served


def test_hidden_dra_group_is_not_served(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(hide_groups={"resource.k8s.io"}))
    result = c.rbln("dump", "-A")
    assert result.returncode == 0, result.stderr
    message = (
        "the cluster does not serve resource.k8s.io (Dynamic Resource Allocation): "
        "GET /apis/resource.k8s.io answered 404"
    )
    assert result.stderr.splitlines() == [f"warning: {message}"]
    info = cluster_info(result)
    assert info["problems"] == [{"kind": "resource.k8s.io", "code": "not-served", "message": message}]
    assert info["resourceVersions"] == []
    assert not {"DeviceClass", "ResourceSlice", "ResourceClaim"} & {kind for kind, _, _ in bundle(result)}
    version = c.rbln("version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.splitlines()[1:] == ["Cluster: v1.34.2", f"resource.k8s.io: not read ({message})"]


# ---------------------------------------------------------------- 5xx, 429, broken bodies


def test_server_error_is_one_line_exit_3(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(status_for={"/api/v1/pods": 500}))
    result = c.rbln("dump", "-A")
    assert result.returncode == 3
    assert error_line(result) == (
        "error: list pods at the cluster scope: the server answered "
        "500 Internal Server Error: injected fault: InternalError"
    )
    assert result.stdout == ""
    assert len([p for p, _, _ in c.paths() if p == "/api/v1/pods"]) == 1, "a 500 without Retry-After is final"


def test_server_that_disappears_mid_command_is_one_line_exit_3(cluster: Callable[..., Cluster]) -> None:
    """The cluster answers discovery, then goes away while the lists are read."""
    c = cluster(Faults(vanish_after=2))
    for command in (["dump", "-A"], ["why", "-n", "serving"]):
        result = c.rbln(*command)
        assert result.returncode == 3, result.stderr
        line = error_line(result)
        assert line.startswith("error: ") and ("broke" in line or "cannot reach" in line), line
        assert "Traceback" not in result.stderr
        assert result.stdout == ""


def test_throttled_list_is_retried_after_retry_after(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(status_for={"/api/v1/pods": 429}, fail_times=1))
    started = time.monotonic()
    result = c.rbln("dump", "-A", timeout="5s")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started >= 1, "Retry-After: 1 was not honoured"
    assert [s for p, _, s in c.paths() if p == "/api/v1/pods"] == [429, 200]
    assert ("Pod", "serving", "decode-0") in bundle(result)


def test_throttling_gives_up_after_three_tries(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(status_for={"/api/v1/pods": 429}))
    result = c.rbln("dump", "-A", timeout="5s")
    assert result.returncode == 3
    assert error_line(result) == (
        "error: list pods at the cluster scope: the server answered "
        "429 Too Many Requests 3 times: injected fault: TooManyRequests"
    )
    assert len([p for p, _, _ in c.paths() if p == "/api/v1/pods"]) == 3


def test_throttling_never_waits_past_the_request_timeout(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(status_for={"/api/v1/pods": 429}))
    started = time.monotonic()
    result = c.rbln("dump", "-A", timeout="1s")
    assert result.returncode == 3
    assert error_line(result) == (
        "error: list pods at the cluster scope: the server answered "
        "429 Too Many Requests: injected fault: TooManyRequests"
    )
    assert time.monotonic() - started < 3


def test_truncated_body_is_a_cluster_error(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(truncate_body={"resourceslices"}))
    result = c.rbln("dump", "-A")
    assert result.returncode == 3
    line = error_line(result)
    prefix = (
        f"error: list resourceslices.resource.k8s.io at the cluster scope: the answer of "
        f"{c.server.url} is not valid JSON (cut short?): "
    )
    assert line.startswith(prefix), line


# ---------------------------------------------------------------- pagination, 410, resourceVersion


def test_pages_use_resource_version_0_only_without_continue(
    cluster: Callable[..., Cluster], basic: list[dict[str, Any]]
) -> None:
    c = cluster(objects=basic + many_events(1100))
    result = c.rbln("dump", "-A")
    assert result.returncode == 0, result.stderr
    assert len([k for k in bundle(result) if k[0] == "Event"]) == 1102
    pages = [q for p, q, _ in c.paths() if p == "/api/v1/events"]
    assert len(pages) == 3
    assert "resourceVersion=0" in pages[0] and "continue=" not in pages[0]
    for query in pages[1:]:
        assert "continue=" in query and "resourceVersion" not in query


def many_pods(count: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"idle-{i:04d}", "namespace": "serving", "uid": f"u{i}"},
            "spec": {"containers": [{"name": "c"}], "nodeName": "npu-node-1"},
            "status": {"phase": "Running"},
        }
        for i in range(count)
    ]


def test_pages_read_ahead_ask_each_page_once_in_order(
    cluster: Callable[..., Cluster], basic: list[dict[str, Any]]
) -> None:
    """The next page is asked for while one is normalized (issue 16): still one GET per page, each with
    the token of the page before it, and every Pod read, as `dump` reads them one page at a time."""
    c = cluster(objects=basic + many_pods(1100))
    shown = c.rbln("why", "-A", "-o", "json")
    assert shown.returncode in (0, 1), shown.stderr
    pages = [q for p, q, s in c.paths() if p == "/api/v1/pods"]
    assert all(s == 200 for p, _, s in c.paths() if p == "/api/v1/pods")
    assert len(pages) == 3 and "continue=" not in pages[0]
    assert all("continue=" in q for q in pages[1:]) and len(set(pages)) == 3
    dumped = c.rbln("dump", "-A")
    assert dumped.returncode == 0, dumped.stderr
    assert len([k for k in bundle(dumped) if k[0] == "Pod" and k[2].startswith("idle-")]) == 1100


def test_expired_continue_token_restarts_the_list_once(
    cluster: Callable[..., Cluster], basic: list[dict[str, Any]]
) -> None:
    c = cluster(Faults(gone_on_continue=True), objects=basic + many_events(600))
    result = c.rbln("dump", "-A")
    assert result.returncode == 0, result.stderr
    assert len([k for k in bundle(result) if k[0] == "Event"]) == 602
    statuses = [(("continue=" in q), s) for p, q, s in c.paths() if p == "/api/v1/events"]
    assert statuses == [(False, 200), (True, 410), (False, 200), (True, 200)]


def test_a_list_that_expires_twice_ends_the_command(
    cluster: Callable[..., Cluster], basic: list[dict[str, Any]]
) -> None:
    c = cluster(Faults(gone_on_continue=True, gone_times=2), objects=basic + many_events(600))
    result = c.rbln("dump", "-A")
    assert result.returncode == 3
    assert error_line(result) == (
        "error: list events at the cluster scope: the continue token expired (410 Gone), twice; "
        "the cluster changes faster than we can list, try again"
    )


# ---------------------------------------------------------------- credentials, TLS, network


@pytest.mark.parametrize("command", ["dump", "version"])
def test_rejected_token_is_exit_3_and_never_printed(cluster: Callable[..., Cluster], command: str) -> None:
    c = cluster(Faults(require_token="the-right-one"))
    result = c.rbln(command)
    assert result.returncode == 3
    assert result.stderr.splitlines() == [
        f"error: the cluster at {c.server.url} refused our credentials (401 Unauthorized)",
        'hint: the credentials of context c (user "u") were rejected: log in again or pick another --context',
    ]
    assert [s for _, _, s in c.paths()] == [401]


def test_accepted_token_reads_the_cluster(cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    c = cluster(Faults(require_token=TOKEN))
    result = c.rbln("version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["Cluster: v1.34.2", "resource.k8s.io: v1"]


def test_https_against_plain_http_is_a_tls_failure(cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    plain = cluster()
    assert plain.server is not None
    url = plain.server.url.replace("http://", "https://")
    c = Cluster(tmp_path, None, url)
    result = c.rbln("dump", "-A")
    assert result.returncode == 3
    assert re.fullmatch(rf"error: TLS handshake with {re.escape(url)} failed: \S.*", error_line(result))
    assert result.stderr.count("\n") == 1


def test_closed_port_is_unreachable_quickly(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    c = Cluster(tmp_path, None, f"http://127.0.0.1:{port}")
    started = time.monotonic()
    result = c.rbln("dump", "-A", timeout="10s")
    assert result.returncode == 3
    assert result.stderr == (
        f"error: cannot reach the cluster at http://127.0.0.1:{port}: connection refused\n"
    )
    assert time.monotonic() - started < 5


def test_a_server_that_never_answers_times_out(cluster: Callable[..., Cluster]) -> None:
    c = cluster(Faults(delay=30))
    started = time.monotonic()
    result = c.rbln("dump", "-A", timeout="1s")
    elapsed = time.monotonic() - started
    assert result.returncode == 3
    assert result.stderr == (
        f"error: the cluster at {c.server.url} did not answer within 1s (--request-timeout)\n"
    )
    assert elapsed < 1 + 3, f"took {elapsed:.1f}s"
