"""`--rct NAME` completes RCT names through the real kubectl, from the cluster or from a bundle."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "pending-decode.json"
PATH = os.pathsep.join([str(REPO / "completions"), str(Path(sys.executable).parent), "/usr/bin", "/bin"])
RCT_COMMANDS = ["attrs", "suggest-rct", "check", "topo"]


def complete(kubectl: str, home: Path, kubeconfig: Path, *words: str) -> list[str]:
    """`kubectl __complete rbln WORDS` as a shell runs it: the offered values, directive line dropped."""
    import subprocess  # noqa: PLC0415

    done = subprocess.run(
        [kubectl, "__complete", "rbln", *words],
        capture_output=True,
        text=True,
        env={"PATH": PATH, "HOME": str(home), "LANG": "C.UTF-8", "KUBECONFIG": str(kubeconfig)},
        timeout=20,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line]
    assert lines and lines[-1].startswith(":"), done.stdout
    return [line.split("\t", 1)[0] for line in lines[:-1]]


@pytest.fixture
def serving_cluster(tmp_path: Path):
    """The example cluster behind the replay server; the kubeconfig's context namespace is `serving`,
    as after `kubectl config set-context --current --namespace=serving`."""
    server = ReplayServer(load_objects([str(EXAMPLE)])).start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml(namespace="serving"), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    try:
        yield server, kubeconfig, home
    finally:
        server.stop()


def test_rct_names_come_from_the_cluster(kubectl_binary: str, serving_cluster) -> None:
    server, kubeconfig, home = serving_cluster
    assert complete(kubectl_binary, home, kubeconfig, "attrs", "--rct", "") == ["npu-rdma"]
    assert any(e.path.endswith("/resourceclaimtemplates") for e in server.audit)
    for command in RCT_COMMANDS[1:]:
        assert complete(kubectl_binary, home, kubeconfig, command, "-n", "serving", "--rct", "npu") == [
            "npu-rdma"
        ], command


def test_rct_names_come_from_the_bundle(kubectl_binary: str, tmp_path: Path) -> None:
    nowhere = tmp_path / "absent-kubeconfig"
    for command in RCT_COMMANDS:
        assert complete(kubectl_binary, tmp_path, nowhere, command, "-f", str(EXAMPLE), "--rct", "") == [
            "npu-rdma"
        ], command
