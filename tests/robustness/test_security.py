"""Security, as a user would check it: read-only, no Secrets, a constant exec, clean terminals, no leaks.

Why: operators run this with cluster-admin credentials against production clusters, on text that
any workload can write (event messages, attribute values, labels). One place per promise, over
every command at once, on top of the per-test audit of tests/e2e.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
import yaml

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND
from kubectl_rbln.replay.server import ReplayServer
from testing.synthetic.builder import ClusterBuilder
from tests.conftest import run_rbln

pytestmark = pytest.mark.slow  # replay and echo servers, the CLI as a subprocess

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[8mhidden\x1b[0m\u202eevil\x1b]52;c;Y3VybA==\x07"
TOKEN = "sekret-bearer-0123456789abcdef"
KEY_TEXT = "-----BEGIN PRIVATE KEY-----\nMIIEsecretkeymaterial\n-----END PRIVATE KEY-----\n"
CERT_TEXT = "-----BEGIN CERTIFICATE-----\nMIIBcertmaterial\n-----END CERTIFICATE-----\n"
COMMANDS = [
    ["why", "-n", "serving"],
    ["attrs", "-n", "serving"],
    ["check", "-n", "serving"],
    ["topo"],
    ["pod-devices", "-n", "serving"],
    ["suggest-rct", "-n", "serving"],
    ["version"],
]


@pytest.fixture(scope="module")
def scenario() -> tuple[list[dict[str, Any]], tuple[str, str]]:
    builder = ClusterBuilder(5)
    return builder.build(), builder.target_pod()


def _poisoned(objects: list[dict[str, Any]], pod: tuple[str, str]) -> list[dict[str, Any]]:
    """Control sequences where a workload or a driver can put them: events, attribute values, labels."""
    out = json.loads(json.dumps(objects))
    for obj in out:
        if obj["kind"] == "ResourceSlice":
            for device in obj["spec"].get("devices", []):
                for entry in device.get("attributes", {}).values():
                    if "string" in entry:
                        entry["string"] += HOSTILE
        if obj["kind"] == "Node":
            obj["metadata"].setdefault("labels", {})["note"] = HOSTILE
    namespace, name = pod
    out.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "hostile", "namespace": namespace},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": namespace},
            "reason": "FailedScheduling" + HOSTILE,
            "message": "0/3 nodes are available" + HOSTILE,
            "type": "Warning",
        }
    )
    return out


def test_table_views_strip_terminal_controls(
    tmp_path: Path, scenario: tuple[list[dict[str, Any]], tuple[str, str]]
) -> None:
    objects, pod = scenario
    bundle = tmp_path / "hostile.json"
    bundle.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": _poisoned(objects, pod)}))
    for command in (
        ["why", "-n", pod[0], pod[1]],
        ["check", "-n", pod[0]],
        ["attrs", "-n", pod[0]],
        ["topo"],
    ):
        for output in (["-o", "table"], ["-o", "wide"]):
            done = run_rbln(*command, "-f", str(bundle), *output)
            assert done.returncode in (0, 1), (command, done.stderr)
            assert "\x1b" not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout, (
                command
            )
    why_json = run_rbln("why", "-n", pod[0], pod[1], "-f", str(bundle), "-o", "json").stdout
    assert "\\u001b]0;owned" in why_json  # JSON keeps the text, escaped: nothing is lost for scripts
    table = run_rbln("why", "-n", pod[0], pod[1], "-f", str(bundle)).stdout
    assert "0/3 nodes are available" in table and "hidden" in table  # stripped, not dropped


def test_every_command_only_reads_and_never_touches_secrets(
    tmp_path: Path, scenario: tuple[list[dict[str, Any]], tuple[str, str]]
) -> None:
    objects, _ = scenario
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "registry", "namespace": "serving"},
        "data": {"token": base64.b64encode(b"do-not-read").decode()},
    }
    with ReplayServer([*objects, secret]).start() as server:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        env = {"KUBECONFIG": str(kubeconfig), "HOME": str(tmp_path)}
        outputs = []
        for command in [*COMMANDS, ["dump", "-A"]]:
            done = run_rbln(*command, env=env)
            assert done.returncode in (0, 1), (command, done.stderr)
            outputs.append(done.stdout + done.stderr)
        audit = server.audit
    assert audit, "the commands reached the server"
    assert {entry.method for entry in audit} == {"GET"}
    assert not [entry for entry in audit if entry.is_write]
    assert not [entry.path for entry in audit if "secret" in entry.path.lower()]
    execs = [entry for entry in audit if entry.is_exec]
    assert execs, "pod-devices and dump ran their probe"
    for entry in execs:
        assert parse_qs(entry.query)["command"] == list(PROBE_COMMAND)
    assert not any("do-not-read" in text or "ZG8tbm90LXJlYWQ" in text for text in outputs)


class _Echo(BaseHTTPRequestHandler):
    """A failing API server that repeats the request's headers back, as some proxies do."""

    status = 500

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        headers = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
        body = json.dumps({"kind": "Status", "message": f"proxy failure, you sent {headers}"}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Unauthorized(_Echo):
    status = 401


@pytest.fixture(params=[_Echo, _Unauthorized], ids=["500", "401"])
def echo_server(request: pytest.FixtureRequest) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _kubeconfig(server: str) -> dict[str, Any]:
    encode = lambda text: base64.b64encode(text.encode()).decode()  # noqa: E731
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [
            {
                "name": "admin",
                "user": {
                    "token": TOKEN,
                    "client-certificate-data": encode(CERT_TEXT),
                    "client-key-data": encode(KEY_TEXT),
                },
            }
        ],
        "contexts": [{"name": "prod", "context": {"cluster": "c", "user": "admin", "namespace": "serving"}}],
        "current-context": "prod",
    }


@pytest.mark.parametrize("unreachable", [False, True], ids=["failing-server", "closed-port"])
def test_credentials_never_printed(tmp_path: Path, echo_server: str, unreachable: bool) -> None:
    server = "http://127.0.0.1:9" if unreachable else echo_server
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(_kubeconfig(server)), encoding="utf-8")
    secrets = [
        TOKEN,
        "MIIEsecretkeymaterial",
        "MIIBcertmaterial",
        base64.b64encode(KEY_TEXT.encode()).decode()[:24],
    ]
    for command in [*COMMANDS, ["dump"]]:
        done = run_rbln(*command, "--request-timeout", "5s", env={"KUBECONFIG": str(kubeconfig)})
        text = done.stdout + done.stderr
        assert done.returncode == 3, (command, text)
        assert done.stderr.startswith("error: ") and "Traceback" not in text, (command, text)
        for secret in secrets:
            assert secret not in text, (command, text)
