"""Bad input ends in one clear message and the documented exit code, never a traceback.

Each case runs `python -m kubectl_rbln` as a user would (HOME pointed at an empty
folder, no KUBECONFIG unless the case sets one) and asserts stderr exactly.
Kubeconfig files handed to the CLI must be byte-identical afterwards: the plugin
never writes them (refreshed tokens are not persisted).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import DATA, run_rbln

pytestmark = pytest.mark.slow  # the CLI as a subprocess

BASIC = DATA / "replay-basic.json"
USAGE_EXIT = 2
CLUSTER_EXIT = 3


class Kubeconfigs:
    """Kubeconfig files written by a test, checked unchanged after every run."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.files: dict[Path, bytes] = {}

    def write(self, name: str, text: str) -> Path:
        path = self.tmp / name
        path.write_text(text, encoding="utf-8")
        self.files[path] = path.read_bytes()
        return path

    def assert_unchanged(self) -> None:
        for path, original in self.files.items():
            assert path.read_bytes() == original, f"{path} was written"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def kubeconfigs(tmp_path: Path) -> Iterator[Kubeconfigs]:
    configs = Kubeconfigs(tmp_path)
    yield configs
    configs.assert_unchanged()


def rbln(home: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    result = run_rbln(*args, env={"HOME": str(home), **(env or {})}, timeout=30)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def config(contexts: dict[str, str], current: str, token: str = "t0ken") -> str:
    """A kubeconfig with one cluster and user per context; values are server URLs."""
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": current,
            "clusters": [{"name": f"{n}-cluster", "cluster": {"server": url}} for n, url in contexts.items()],
            "users": [{"name": f"{n}-user", "user": {"token": token}} for n in contexts],
            "contexts": [
                {"name": n, "context": {"cluster": f"{n}-cluster", "user": f"{n}-user"}} for n in contexts
            ],
        }
    )


# ---------------------------------------------------------------- kubeconfig: exit 3


@pytest.mark.parametrize("command", [["dump"], ["why", "-n", "serving"], ["version"]])
def test_no_kubeconfig_names_where_it_looked(home: Path, command: list[str]) -> None:
    result = rbln(home, *command)
    assert result.returncode == CLUSTER_EXIT
    assert result.stderr == (
        f"error: no kubeconfig found (looked at {home}/.kube/config)\n"
        "hint: set KUBECONFIG or pass --kubeconfig (or --server), run in a Pod, or read a bundle with -f\n"
    )


def test_kubeconfig_flag_naming_a_missing_file(home: Path) -> None:
    result = rbln(home, "dump", "--kubeconfig", "/nope")
    assert result.returncode == CLUSTER_EXIT
    assert result.stderr == "error: kubeconfig /nope does not exist\n"


def test_unknown_context_lists_the_known_ones(home: Path, kubeconfigs: Kubeconfigs) -> None:
    urls = {"prod": "http://127.0.0.1:1", "lab": "http://127.0.0.1:2"}
    path = kubeconfigs.write("config", config(urls, "lab"))
    result = rbln(home, "dump", "--kubeconfig", str(path), "--context", "nope")
    assert result.returncode == CLUSTER_EXIT
    assert result.stderr == f'error: context "nope" not found in {path} (contexts: lab, prod)\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "clusters: [\n",
            "is not valid YAML at line 2, column 1: expected the node content, but found '<stream end>'",
        ),
        ("just a string\n", "is not a kubeconfig: a str, not a mapping"),
        ("- a\n- b\n", "is not a kubeconfig: a list, not a mapping"),
        ("contexts: 5\n", "is not a kubeconfig: `contexts` is not a list of entries"),
    ],
    ids=["broken-yaml", "string", "list", "contexts-not-a-list"],
)
def test_malformed_kubeconfig(home: Path, kubeconfigs: Kubeconfigs, text: str, message: str) -> None:
    path = kubeconfigs.write("config", text)
    result = rbln(home, "dump", "--kubeconfig", str(path))
    assert result.returncode == CLUSTER_EXIT
    assert result.stderr == f"error: kubeconfig {path} {message}\n"


def test_context_naming_a_missing_cluster(home: Path, kubeconfigs: Kubeconfigs) -> None:
    contexts = [{"name": "c", "context": {"cluster": "gone"}}]
    text = yaml.safe_dump({"current-context": "c", "contexts": contexts})
    path = kubeconfigs.write("config", text)
    result = rbln(home, "dump", "--kubeconfig", str(path))
    assert result.returncode == CLUSTER_EXIT
    assert result.stderr.startswith(f"error: cannot read kubeconfig {path}: ")
    assert result.stderr.count("\n") == 1


def test_kubeconfig_env_with_two_files_merges_contexts(
    home: Path, kubeconfigs: Kubeconfigs, tmp_path: Path
) -> None:
    with ReplayServer(load_objects([str(BASIC)])) as server:
        first = kubeconfigs.write("first", config({"elsewhere": "http://127.0.0.1:1"}, "elsewhere"))
        second = kubeconfigs.write("second", config({"replay": server.url}, "replay"))
        env = {"KUBECONFIG": f"{first}:{second}"}
        result = rbln(home, "version", "--context", "replay", env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[1:] == ["Cluster: v1.34.2", "resource.k8s.io: v1"]
        unknown = rbln(home, "version", "--context", "nope", env=env)
        assert unknown.returncode == CLUSTER_EXIT
        assert unknown.stderr == (
            f'error: context "nope" not found in {first}:{second} (contexts: elsewhere, replay)\n'
        )
        default = rbln(home, "dump", env=env)  # the first file's current-context wins, as in kubectl
        assert default.returncode == CLUSTER_EXIT
        assert default.stderr == "error: cannot reach the cluster at http://127.0.0.1:1: connection refused\n"
        assert not server.write_attempts()


# ---------------------------------------------------------------- usage and input: exit 2


def test_unknown_flag_shows_kubectl_rbln_usage(home: Path) -> None:
    result = rbln(home, "dump", "--qqq")
    assert result.returncode == USAGE_EXIT
    assert result.stderr.splitlines() == [
        "Usage: kubectl rbln dump [OPTIONS]",
        "Try 'kubectl rbln dump --help' for help.",
        "",
        "Error: No such option '--qqq'.",
    ]


def test_bad_output_format(home: Path) -> None:
    result = rbln(home, "why", "-f", str(BASIC), "-o", "xml")
    assert result.returncode == USAGE_EXIT
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '-o' / '--output': 'xml' is not one of 'table', 'wide', 'json', 'yaml'."
    )
    assert result.stderr.startswith("Usage: kubectl rbln why ")


def test_bad_request_timeout(home: Path) -> None:
    result = rbln(home, "dump", "--request-timeout", "soon")
    assert result.returncode == USAGE_EXIT
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for --request-timeout: 'soon' is not a duration such as 30s, 1m30s or 500ms "
        "(or whole seconds)"
    )


def test_truncated_bundle_names_file_line_and_column(home: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text(BASIC.read_text(encoding="utf-8")[:300], encoding="utf-8")
    result = rbln(home, "why", "-f", str(cut), "-n", "serving")
    assert result.returncode == USAGE_EXIT
    assert result.stderr == (
        f"error: {cut}: invalid JSON at line 15, column 5: "
        "Expecting property name enclosed in double quotes\n"
    )


def test_missing_bundle(home: Path, tmp_path: Path) -> None:
    result = rbln(home, "why", "-f", str(tmp_path / "nope.json"))
    assert result.returncode == USAGE_EXIT
    assert result.stderr == f"error: {tmp_path / 'nope.json'}: no such file or folder\n"


def test_jq_syntax_error(home: Path) -> None:
    result = rbln(home, "why", "-f", str(BASIC), "-n", "serving", "--jq", ".[")
    assert result.returncode == USAGE_EXIT
    assert result.stderr == (
        "error: --jq: syntax error, unexpected end of file at <top-level>, line 1, column 2\n"
    ), result.stderr


def test_pod_that_does_not_exist(home: Path) -> None:
    result = rbln(home, "why", "-f", str(BASIC), "-n", "serving", "nope-pod")
    assert result.returncode == USAGE_EXIT
    assert result.stderr == f'error: pod "nope-pod" not found in namespace "serving" (files {BASIC})\n'


def test_dump_refuses_files(home: Path) -> None:
    result = rbln(home, "dump", "-f", str(BASIC))
    assert result.returncode == USAGE_EXIT
    assert result.stderr == "error: dump reads a live cluster; -f is for the other commands\n"


def test_bad_duration_names_the_flag_the_user_typed(home: Path) -> None:
    """pod-devices --timeout and why --interval take durations too; the error names that flag."""
    probe = rbln(home, "pod-devices", "-f", str(BASIC), "--timeout", "soon")
    assert probe.returncode == USAGE_EXIT
    assert probe.stderr.splitlines()[-1] == (
        "Error: Invalid value for --timeout: 'soon' is not a duration such as 30s, 1m30s or 500ms "
        "(or whole seconds)"
    )
    watch = rbln(home, "why", "POD", "-f", str(BASIC), "-w", "--interval", "often")
    assert watch.returncode == USAGE_EXIT
    assert watch.stderr.splitlines()[-1].startswith("Error: Invalid value for --interval: 'often'")


def test_a_catalog_that_does_not_load_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """A broken copy of the Korean words (a YAML typo in catalog/cli_ko.yaml) breaks the error path
    itself: still one line, exit 2. Run from a copy of the package with the typo, not the real one."""
    import os
    import shutil
    import subprocess
    import sys

    package = Path(__file__).resolve().parents[2] / "kubectl_rbln"
    copy = tmp_path / "kubectl_rbln"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "catalog" / "cli_ko.yaml").write_text("errors: [unclosed\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("RBLN_DEBUG", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", "--lang", "ko", "why", "-f", str(tmp_path / "missing.json")],
        env=env | {"PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == USAGE_EXIT, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: internal error:"), done.stderr
    assert "RBLN_DEBUG=1" in lines[0]
