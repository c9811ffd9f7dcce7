"""The plugin as kubectl runs it: the real kubectl finds `kubectl-rbln` on PATH and passes the arguments.

PATH holds only the venv's bin folder (the real kubectl and the `kubectl-rbln`
entry point), so nothing else on the machine can answer for either.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_rbln import __version__
from kubectl_rbln.replay.server import Faults, ReplayServer

BIN = Path(sys.executable).parent
TOKEN = "n0t-the-right-t0ken-never-print"


@pytest.fixture
def plugin(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`kubectl rbln ARGS` through kubectl's plugin lookup, with a private HOME and the given kubeconfig."""
    if not (BIN / "kubectl").is_file() or not (BIN / "kubectl-rbln").is_file():
        pytest.skip("needs kubectl and the kubectl-rbln entry point in the venv's bin folder")

    def run(*args: str, kubeconfig: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(BIN), "HOME": str(tmp_path), "LANG": "C.UTF-8", "NO_COLOR": "1"}
        if kubeconfig is not None:
            env["KUBECONFIG"] = str(kubeconfig)
        result = subprocess.run(
            [str(BIN / "kubectl"), "rbln", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
            check=False,
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    return run


def test_help_through_kubectl(plugin: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    result = plugin("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: kubectl rbln [OPTIONS] COMMAND [ARGS]...")
    for command in ("why", "dump", "serve", "version"):
        assert f"\n  {command} " in result.stdout


def test_version_names_plugin_and_served_cluster(
    plugin: Callable[..., subprocess.CompletedProcess[str]],
    basic_server: ReplayServer,
    kubeconfig_for: Callable[[ReplayServer], Path],
) -> None:
    result = plugin("version", kubeconfig=kubeconfig_for(basic_server))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"kubectl-rbln: v{__version__}\nCluster: v1.34.2\nresource.k8s.io: v1\n"
    assert [e.path for e in basic_server.audit] == ["/version", "/apis/resource.k8s.io"]


def test_dump_of_one_namespace(
    plugin: Callable[..., subprocess.CompletedProcess[str]],
    basic_server: ReplayServer,
    kubeconfig_for: Callable[[ReplayServer], Path],
) -> None:
    result = plugin("dump", "-n", "serving", kubeconfig=kubeconfig_for(basic_server))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    document = json.loads(result.stdout)
    assert document["kind"] == "List"
    pods = sorted(i["metadata"]["name"] for i in document["items"] if i["kind"] == "Pod")
    assert pods == ["decode-0", "prefill-0"]
    paths = {e.path for e in basic_server.audit}
    assert "/api/v1/namespaces/serving/pods" in paths and "/api/v1/pods" not in paths
    assert "/apis/resource.k8s.io/v1/resourceclaims" in paths  # claims of every namespace hold devices


def test_rejected_token_through_kubectl(
    plugin: Callable[..., subprocess.CompletedProcess[str]],
    replay_server: Callable[..., ReplayServer],
    basic_objects: list[dict],
    tmp_path: Path,
) -> None:
    server = replay_server(basic_objects, faults=Faults(require_token="the-right-one"))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml().replace("rbln-replay-read-only", TOKEN), encoding="utf-8")
    before = kubeconfig.read_bytes()
    result = plugin("version", kubeconfig=kubeconfig)
    assert result.returncode == 3
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: the cluster at {server.url} refused our credentials (401 Unauthorized)"]
    assert TOKEN not in result.stdout + result.stderr
    assert kubeconfig.read_bytes() == before
