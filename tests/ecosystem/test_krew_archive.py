"""Install like a plugin: the krew manifest passes krew's rules and the archive runs through kubectl."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tarfile
from pathlib import Path

import pytest
import yaml
from krew_validate import has_license, problems, selector_matches

from kubectl_rbln import __version__

REPO = Path(__file__).resolve().parents[2]
MANIFEST = yaml.safe_load((REPO / "plugin.yaml").read_text(encoding="utf-8"))
EXAMPLE = REPO / "examples" / "pending-decode.json"


def test_committed_manifest_passes_every_krew_rule() -> None:
    assert problems(MANIFEST) == []
    assert MANIFEST["metadata"]["name"] == "rbln"


def test_manifest_version_is_the_package_version() -> None:
    assert MANIFEST["spec"]["version"] == f"v{__version__}"


def test_manifest_covers_linux_and_darwin_on_amd64_and_arm64_and_states_python() -> None:
    pairs = {
        (p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"])
        for p in MANIFEST["spec"]["platforms"]
    }
    assert pairs == {("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64")}
    assert "python3 >= 3.10" in MANIFEST["spec"]["caveats"]
    assert MANIFEST["spec"]["description"].strip() and MANIFEST["spec"]["homepage"].startswith("https://")


def test_selectors_match_like_kubernetes_label_selectors() -> None:
    not_windows = {"matchExpressions": [{"key": "os", "operator": "NotIn", "values": ["windows"]}]}
    assert selector_matches(not_windows, "linux", "arm64") and not selector_matches(
        not_windows, "windows", "386"
    )
    assert selector_matches({"matchLabels": {"os": "darwin"}}, "darwin", "arm64")
    assert not selector_matches({"matchLabels": {"os": "darwin", "arch": "amd64"}}, "darwin", "arm64")


@pytest.mark.parametrize(
    ("path", "value", "complaint"),
    [
        (("spec", "version"), "0.1.0", "semver with a v prefix"),
        (("spec", "shortDescription"), "two\nlines", "one non-empty line"),
        (("spec", "platforms", 0, "sha256"), "AB" * 32, "64 lowercase hex"),
        (("spec", "platforms", 0, "selector"), {}, "selector is required"),
        (("spec", "platforms", 0, "uri"), "https://example.com/x.tgz", ".zip or .tar.gz"),
        (("metadata", "name"), "nul", "Windows device name"),
        (
            ("spec", "platforms", 0, "selector"),
            {"matchLabels": {"os": "plan9"}},
            "matches no supported platform",
        ),
        (("spec", "platforms", 1, "selector"), {"matchLabels": {"os": "linux"}}, "overlapping selectors"),
        (
            ("spec", "platforms", 0, "selector"),
            {"matchLabels": {"os": "linux", "arch": "amd64"}, "matchExpressions": []},
            "matchExpressions specified but empty",
        ),
        (
            ("spec", "platforms", 0, "selector"),
            {"matchLabels": {"os": "linux", "cpu": "x"}},
            "only os and arch",
        ),
        (("spec", "platforms", 0, "files"), [{"from": "*"}], "non-empty list of {from, to}"),
        (("spec", "platforms", 0, "bin"), "", "bin is required"),
    ],
)
def test_the_validator_rejects_what_krew_rejects(path: tuple, value: object, complaint: str) -> None:
    broken = copy.deepcopy(MANIFEST)
    target = broken
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert any(complaint in p for p in problems(broken)), problems(broken)


def test_release_manifest_names_its_file_and_matches_the_archive_sha256(release) -> None:
    assert problems(release.manifest, filename=release.manifest_path.name) == []
    assert release.manifest["spec"]["version"] == f"v{__version__}"
    platform = release.manifest["spec"]["platforms"]
    built = [p for p in platform if p["uri"].endswith(release.archive.name)]
    assert len(built) == 1
    assert built[0]["sha256"] == hashlib.sha256(release.archive.read_bytes()).hexdigest()


def test_archive_holds_license_and_an_executable_bin(release) -> None:
    with tarfile.open(release.archive) as archive:
        members = {m.name: m for m in archive.getmembers()}
    assert (
        "LICENSE" in members
        and has_license(list(members))
        and "Apache License" in (REPO / "LICENSE").read_text(encoding="utf-8")
    )
    launcher = members[MANIFEST["spec"]["platforms"][0]["bin"]]
    assert launcher.isfile() and launcher.mode & 0o111
    assert any(name.startswith("lib/kubectl_rbln/docs/findings/") for name in members)


def test_kubectl_runs_the_installed_plugin_version(krew_install) -> None:
    done = krew_install.run("rbln", "version", "-f", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert f"kubectl-rbln: v{__version__}" in done.stdout


def test_kubectl_rbln_why_on_the_example_bundle(krew_install) -> None:
    done = krew_install.run("rbln", "why", "-f", str(EXAMPLE), "-n", "serving")
    assert done.returncode == 1, done.stderr  # findings: the example Pods are Pending
    assert "Pod serving/coder-decode-mn5b9k9cc2-l6qbl is Pending" in done.stdout
    assert done.stderr == ""


def test_installed_plugin_filters_with_jq_and_explains_in_korean(krew_install) -> None:
    done = krew_install.run(
        "rbln", "why", "-f", str(EXAMPLE), "-n", "serving", "-o", "json", "--jq", "[.pods[].pod]"
    )
    assert done.returncode == 1, done.stderr
    assert "serving/coder-prefill-7wrlcwjxk9-8kff8" in json.dumps(json.loads(done.stdout))
    page = krew_install.run("rbln", "explain", "memlock-limit", env={"LANG": "ko_KR.UTF-8"})
    assert page.returncode == 0, page.stderr
    assert "memlock" in page.stdout and "합니다" in page.stdout


def test_installed_plugin_reads_a_live_cluster(krew_install, example_server) -> None:
    _, kubeconfig = example_server
    done = krew_install.run("rbln", "version", env={"KUBECONFIG": str(kubeconfig)})
    assert done.returncode == 0, done.stderr
    assert "resource.k8s.io: v1" in done.stdout


def test_the_archive_uses_its_own_packages_not_the_users(krew_install) -> None:
    python = os.path.realpath(krew_install.bin_dir / "python3")
    assert "venv" not in python or not (Path(python).parent / "kubectl-rbln").exists()
    usage = krew_install.run("rbln", "--help")
    assert usage.returncode == 0 and usage.stdout.startswith("Usage: kubectl rbln")
