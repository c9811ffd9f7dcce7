"""One version string, everywhere a user or a tool reads one (issue 15).

`kubectl_rbln.__version__` is the source: `--version`, `version` (text and `-o json`), the krew
manifest, the package metadata (pyproject reads the attribute), and the replay server's `Server`
header and start line. The replay server's `/version` is *not* the plugin's: it answers the
Kubernetes version the bundle recorded, and `serve` says which is which.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from kubectl_rbln import __version__
from tests.conftest import DATA, EXAMPLES, REPO, run_rbln, serving

pytestmark = pytest.mark.slow  # the CLI and `serve` as subprocesses

BASIC = DATA / "replay-basic.json"  # its ClusterInfo records Kubernetes v1.34.2
VERSION_KIND = {"apiVersion": "kubectl-rbln/v1", "kind": "VersionReport"}


def test_the_package_and_the_manifest_read_the_one_version() -> None:
    tomllib = pytest.importorskip("tomllib")  # python >= 3.11
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kubectl_rbln.__version__"}
    manifest = yaml.safe_load((REPO / "plugin.yaml").read_text(encoding="utf-8"))
    assert manifest["spec"]["version"] == f"v{__version__}"


def test_every_command_line_spelling_prints_the_same_version() -> None:
    flag = run_rbln("--version")
    assert flag.returncode == 0 and flag.stdout == f"kubectl-rbln {__version__}\n"
    text = run_rbln("version", "-f", str(EXAMPLES / "pending-decode.json"))
    assert text.returncode == 0 and text.stdout.splitlines()[0] == f"kubectl-rbln: v{__version__}"
    document = run_rbln("version", "-f", str(BASIC), "-o", "json")
    assert document.returncode == 0, document.stderr
    assert json.loads(document.stdout) == {
        **VERSION_KIND,
        "plugin": __version__,
        "cluster": "v1.34.2",
        "resourceAPI": "v1",
    }


def test_serve_reports_the_plugin_version_and_answers_the_bundles_kubernetes_version(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    env.update(NO_COLOR="1", LANG="C.UTF-8")
    argv = [sys.executable, "-m", "kubectl_rbln", "serve", str(BASIC), "--kubeconfig-out", str(kubeconfig)]
    with serving(argv, kubeconfig, env=env, cwd=REPO) as served:
        url = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))["clusters"][0]["cluster"]["server"]
        with urllib.request.urlopen(f"{url}/version", timeout=10) as reply:
            header = reply.headers["Server"]
            answered = json.loads(reply.read())
        assert header == f"kubectl-rbln-replay/{__version__}"
        assert answered["gitVersion"] == "v1.34.2" and (answered["major"], answered["minor"]) == ("1", "34")
        live = run_rbln("version", "--kubeconfig", str(kubeconfig), "-o", "json")
        assert json.loads(live.stdout) == {
            **VERSION_KIND,
            "plugin": __version__,
            "cluster": "v1.34.2",
            "resourceAPI": "v1",
        }
    stderr = served.stderr
    assert (
        f"/version answers Kubernetes v1.34.2, the version the bundle recorded; the replay server is "
        f"kubectl-rbln v{__version__}"
    ) in stderr
