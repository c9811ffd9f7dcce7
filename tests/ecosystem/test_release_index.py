"""The real release: `scripts/release` resolves every target from the package index.

pip decides environment markers for the Python it runs on, so the script resolves the closure
itself with the markers evaluated for each target; these tests hold it to that. The built
archives are a foreign platform (linux/arm64, checked file by file: the right machine code for
every CPython minor) and linux/amd64, unpacked and run by the system python3 alone.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from krew_validate import has_license, problems

from kubectl_rbln import __version__

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "release"
EXAMPLE = REPO / "examples" / "pending-decode.json"
SYSTEM_PYTHON = Path("/usr/bin/python3")
ELF_MACHINE = {"x86_64": 62, "aarch64": 183}  # e_machine of the ELF header


def load_script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("rbln_release", str(SCRIPT))
    spec = importlib.util.spec_from_loader("rbln_release", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


release_script = load_script()


def marker_holds(text: str, os_name: str, arch: str, python: str) -> bool:
    from packaging.requirements import Requirement

    marker = Requirement(text).marker
    assert marker is not None
    return marker.evaluate(release_script.target_environment(os_name, arch, python))


def test_markers_are_decided_for_the_target_python_not_the_running_one() -> None:
    pytest.importorskip("tomllib")  # the script reads pyproject.toml with it (python >= 3.11)
    cel = next(r for r in release_script.requirements() if r.startswith("common-expression-language"))
    assert not marker_holds(cel, "linux", "amd64", "3.10")  # no 3.10 wheel: cel-python serves 3.10
    assert marker_holds(cel, "linux", "amd64", "3.11") and marker_holds(cel, "darwin", "arm64", "3.14")
    assert marker_holds('tomli; python_version < "3.11"', "linux", "arm64", "3.10")
    assert not marker_holds('tomli; python_version < "3.11"', "linux", "arm64", "3.12")


def test_markers_are_decided_for_the_target_platform() -> None:
    assert marker_holds('x; sys_platform == "darwin"', "darwin", "arm64", "3.12")
    assert not marker_holds('x; sys_platform == "darwin"', "linux", "arm64", "3.12")
    assert marker_holds('x; platform_machine == "aarch64"', "linux", "arm64", "3.12")
    assert marker_holds('x; platform_machine == "arm64"', "darwin", "arm64", "3.12")
    assert not marker_holds('x; platform_system == "Windows"', "linux", "amd64", "3.12")


def test_a_release_writes_github_release_uris_and_a_local_build_file_uris() -> None:
    assert release_script.RELEASES.format(version=__version__).endswith(f"/releases/download/v{__version__}")


@dataclass(frozen=True)
class IndexRelease:
    out: Path
    manifest: dict

    def archive(self, os_name: str, arch: str) -> Path:
        return self.out / f"kubectl-rbln_v{__version__}_{os_name}_{arch}.tar.gz"


@pytest.fixture(scope="session")
def index_release(tmp_path_factory: pytest.TempPathFactory) -> IndexRelease:
    """linux/arm64 and linux/amd64 built from the index, every CPython minor, with their manifest."""
    out = tmp_path_factory.mktemp("index-release")
    manifest = out / "rbln.yaml"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--platform", "linux/arm64", "--platform", "linux/amd64",
         "--out", str(out), "--manifest", str(manifest)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if done.returncode == 4:  # the script's own code for "the package index is unreachable"
        pytest.skip(f"the package index is unreachable from here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return IndexRelease(out, yaml.safe_load(manifest.read_text(encoding="utf-8")))


def members(archive: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(archive) as tar:
        return {m.name: m for m in tar.getmembers()}


def elf_machine(archive: Path, name: str) -> int:
    with tarfile.open(archive) as tar:
        handle = tar.extractfile(name)
        assert handle is not None
        header = handle.read(20)
    assert header[:4] == b"\x7fELF", name
    return int.from_bytes(header[18:20], "little")


@pytest.mark.slow
def test_the_manifest_names_each_archive_by_its_release_uri_and_sha256(index_release: IndexRelease) -> None:
    assert problems(index_release.manifest, filename="rbln.yaml") == []
    assert index_release.manifest["spec"]["version"] == f"v{__version__}"
    for platform in index_release.manifest["spec"]["platforms"]:
        labels = platform["selector"]["matchLabels"]
        if labels["os"] != "linux":
            continue
        archive = index_release.archive(labels["os"], labels["arch"])
        assert platform["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
        assert platform["uri"] == f"{release_script.RELEASES.format(version=__version__)}/{archive.name}"


@pytest.mark.slow
def test_the_arm64_archive_holds_aarch64_code_for_every_python_and_each_pythons_own_choices(
    index_release: IndexRelease,
) -> None:
    archive = index_release.archive("linux", "arm64")
    names = members(archive)
    assert has_license(list(names)) and names["kubectl-rbln"].mode & 0o111
    assert (
        "lib/kubectl_rbln/cli/main.py" in names and "lib/kubectl_rbln/docs/findings/memlock-limit.md" in names
    )
    for python in release_script.PYTHONS:
        abi = "cp" + python.replace(".", "")
        compiled = [n for n in names if n.startswith(f"lib/{abi}/") and n.endswith(".so")]
        assert any(re.search(rf"jq\.cpython-{abi[2:]}-aarch64-linux-gnu\.so$", n) for n in compiled), abi
        assert any(n.startswith(f"lib/{abi}/yaml/") for n in names), abi
        assert all(elf_machine(archive, n) == ELF_MACHINE["aarch64"] for n in compiled[:5]), abi
        # common-expression-language only where its marker holds (>= 3.11); cel-python everywhere
        assert any(n.startswith(f"lib/{abi}/cel/") for n in names) == (python != "3.10"), abi
        # the backports of the standard library only where the standard library lacks them
        assert any(n.startswith(f"lib/{abi}/tomli/") for n in names) == (python == "3.10"), abi
    assert any(n.startswith("lib/celpy/") for n in names)
    assert not [n for n in names if "x86_64" in n or n.startswith(("lib/aiohttp/", "lib/typer/"))]
    assert not [n for n in names if re.match(r"lib/(cp3\d+/)?[^/]+\.data/", n)]  # scripts of wheels stay out


@pytest.mark.slow
def test_the_amd64_archive_runs_with_the_system_python_alone(
    index_release: IndexRelease, tmp_path: Path
) -> None:
    if not SYSTEM_PYTHON.is_file():
        pytest.skip("no /usr/bin/python3 on this machine")
    with tarfile.open(index_release.archive("linux", "amd64")) as tar:
        tar.extractall(tmp_path, filter="data")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8", "NO_COLOR": "1"}
    for flags in (["-I"], ["-I", "-S"]):  # -S: not even the system's site-packages
        launcher = [str(SYSTEM_PYTHON), *flags, str(tmp_path / "kubectl-rbln")]
        version = subprocess.run(
            [*launcher, "version", "-f", str(EXAMPLE)],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert version.returncode == 0, version.stderr
        assert version.stdout.startswith(f"kubectl-rbln: v{__version__}\n")
        why = subprocess.run(
            [*launcher, "why", "-f", str(EXAMPLE), "-n", "serving"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert why.returncode == 1, why.stderr  # findings: the example Pods are Pending
        assert "Pod serving/coder-decode-mn5b9k9cc2-l6qbl is Pending" in why.stdout and why.stderr == ""
