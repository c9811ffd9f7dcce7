"""Complete like kubectl: the real kubectl's `__complete` protocol reaches kubectl_complete-rbln."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kubectl_rbln.cli.completion import KUBECTL_COMPLETE_SCRIPT, SCRIPT_FILES, shell_script

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS = REPO / "completions"
EXAMPLE = REPO / "examples" / "pending-decode.json"
VENV_BIN = Path(sys.executable).parent
HOME = tempfile.mkdtemp(prefix="rbln-completion-home-")


def kubectl_complete(
    kubectl_binary: str, *words: str, kubeconfig: Path | None = None, timeout: float = 20
) -> tuple[list[str], str]:
    """`kubectl __complete rbln WORDS`: candidate values and the directive line, as a shell gets them."""
    env = {
        "PATH": os.pathsep.join([str(COMPLETIONS), str(VENV_BIN), "/usr/bin", "/bin"]),
        "HOME": HOME,  # kubectl writes its cache under HOME/.kube
        "LANG": "C.UTF-8",
        "KUBECONFIG": str(kubeconfig) if kubeconfig else "/nonexistent/kubeconfig",
        "PYTHONPATH": str(REPO),  # this checkout, not whichever one the venv's entry point imports
    }
    done = subprocess.run(
        [kubectl_binary, "__complete", "rbln", *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line]
    return [line.split("\t", 1)[0] for line in lines[:-1]], lines[-1]


def test_kubectl_completes_the_command_name(kubectl_binary: str) -> None:
    values, directive = kubectl_complete(kubectl_binary, "wh")
    assert values == ["why"]
    assert directive == ":4"  # NoFileComp


def test_kubectl_lists_every_command_and_flag(kubectl_binary: str) -> None:
    commands, _ = kubectl_complete(kubectl_binary, "")
    assert {"why", "dump", "serve", "version", "explain", "completion"} <= set(commands)
    assert "__complete" not in commands
    flags, _ = kubectl_complete(kubectl_binary, "why", "--na")
    assert flags == ["--namespace"]


def test_output_formats_and_explain_slugs(kubectl_binary: str) -> None:
    formats, _ = kubectl_complete(kubectl_binary, "why", "-o", "")
    assert formats == ["table", "wide", "json", "yaml"]
    assert kubectl_complete(kubectl_binary, "explain", "memlock")[0] == ["memlock-limit"]


def test_pod_names_come_from_the_replay_server(kubectl_binary: str, example_server) -> None:
    server, kubeconfig = example_server
    values, directive = kubectl_complete(kubectl_binary, "why", "-n", "serving", "", kubeconfig=kubeconfig)
    assert values == [
        "coder-decode-mn5b9k9cc2-l6qbl",
        "coder-decode-mn5b9k9cc2-v69sw",
        "coder-prefill-7wrlcwjxk9-8kff8",
    ]
    assert directive == ":4"
    assert any(e.path == "/api/v1/namespaces/serving/pods" for e in server.audit)


def test_the_connection_flags_typed_reach_the_lookup(
    kubectl_binary: str, example_server, tmp_path: Path
) -> None:
    """`why --server URL --as jane --as-group ops -n serving <TAB>` asks where and as whom the command
    will: the kubeconfig's own server is dead, so names come only through `--server`, and the lookup
    carries the impersonation headers (replay/audit.py records them). (A --token goes only over
    HTTPS, as client-go sends it: tests/e2e/test_kubectl_flags_e2e.py.)"""
    server, kubeconfig = example_server
    dead = tmp_path / "dead-kubeconfig"
    dead.write_text(kubeconfig.read_text(encoding="utf-8").replace(server.url, "http://127.0.0.1:9"))
    words = ("why", "--as", "jane", "--as-group", "ops", "--as-group", "dev", "-n", "serving")
    assert kubectl_complete(kubectl_binary, *words, "", kubeconfig=dead)[0] == []
    values, _ = kubectl_complete(kubectl_binary, *words, "--server", server.url, "", kubeconfig=dead)
    assert "coder-decode-mn5b9k9cc2-l6qbl" in values
    asked = [e for e in server.audit if e.path == "/api/v1/namespaces/serving/pods"]
    assert asked and asked[-1].impersonate_user == "jane"
    assert asked[-1].impersonate_groups == ("ops", "dev")


def test_check_with_all_namespaces_completes_pods_of_every_namespace(
    kubectl_binary: str, example_server
) -> None:
    """`-A` typed: the lookup lists Pods of every namespace (the cluster-scope list), not the default's."""
    server, kubeconfig = example_server
    values, _ = kubectl_complete(kubectl_binary, "why", "-A", "coder-p", kubeconfig=kubeconfig)
    assert values == ["coder-prefill-7wrlcwjxk9-8kff8"]
    assert any(e.path == "/api/v1/pods" for e in server.audit)


def test_pod_names_and_namespaces_come_from_the_bundle(kubectl_binary: str) -> None:
    values, _ = kubectl_complete(kubectl_binary, "why", "-f", str(EXAMPLE), "-n", "serving", "coder-p")
    assert values == ["coder-prefill-7wrlcwjxk9-8kff8"]
    # the namespaces the bundle's objects are in: kube-scheduler's Lease is in kube-system, as in a dump
    namespaces, _ = kubectl_complete(kubectl_binary, "why", "-f", str(EXAMPLE), "-n", "")
    assert namespaces == ["kube-system", "serving"]


def test_contexts_come_from_the_kubeconfig(kubectl_binary: str, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncurrent-context: prod-a\n"
        "contexts:\n- {name: prod-a, context: {cluster: a, user: a}}\n"
        "- {name: staging, context: {cluster: b, user: b}}\n",
        encoding="utf-8",
    )
    assert kubectl_complete(kubectl_binary, "why", "--context", "", kubeconfig=kubeconfig)[0] == [
        "prod-a",
        "staging",
    ]


def test_an_unreachable_cluster_completes_nothing_quickly_and_silently(
    kubectl_binary: str, tmp_path: Path
) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(  # 192.0.2.0/24 is TEST-NET-1: packets go nowhere, so only the timeout ends it
        "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: 'https://192.0.2.1:6443'}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n",
        encoding="utf-8",
    )
    started = time.monotonic()
    values, directive = kubectl_complete(kubectl_binary, "why", "-n", "serving", "", kubeconfig=kubeconfig)
    assert values == [] and directive == ":4"
    assert time.monotonic() - started < 6


def test_completion_files_are_generated_from_the_cli() -> None:
    assert (COMPLETIONS / "kubectl_complete-rbln").read_text(encoding="utf-8") == KUBECTL_COMPLETE_SCRIPT
    assert os.access(COMPLETIONS / "kubectl_complete-rbln", os.X_OK)
    for shell, name in SCRIPT_FILES.items():
        assert (COMPLETIONS / name).read_text(encoding="utf-8").rstrip("\n") == shell_script(shell).rstrip(
            "\n"
        ), f"completions/{name} is stale: python -m kubectl_rbln.cli.completion completions"


def test_completion_install_writes_the_helper_where_asked(rbln, tmp_path: Path) -> None:
    done = rbln("completion", "install", "--dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    helper = tmp_path / "kubectl_complete-rbln"
    assert helper.read_text(encoding="utf-8") == KUBECTL_COMPLETE_SCRIPT and os.access(helper, os.X_OK)
    assert f"wrote {helper}" in done.stdout


def test_topo_completes_node_names_from_the_bundle_and_the_cluster(
    kubectl_binary: str, example_server
) -> None:
    values, directive = kubectl_complete(kubectl_binary, "topo", "-f", str(EXAMPLE), "npu-")
    assert values == ["npu-node-01", "npu-node-02"] and directive == ":4"
    server, kubeconfig = example_server
    live, _ = kubectl_complete(kubectl_binary, "topo", "", kubeconfig=kubeconfig)
    assert {"npu-node-01", "npu-node-02"} <= set(live)
    assert any(e.path == "/api/v1/nodes" for e in server.audit)


def test_completion_uninstall_removes_only_its_own_helper(rbln, tmp_path: Path) -> None:
    assert rbln("completion", "install", "--dir", str(tmp_path)).returncode == 0
    helper = tmp_path / "kubectl_complete-rbln"
    done = rbln("completion", "uninstall", "--dir", str(tmp_path))
    assert done.returncode == 0 and done.stdout == f"removed {helper}\n" and not helper.exists()
    again = rbln("completion", "uninstall", "--dir", str(tmp_path))
    assert again.returncode == 0 and "nothing to remove" in again.stdout
    helper.write_text("#!/bin/sh\necho someone else's\n", encoding="utf-8")
    foreign = rbln("completion", "uninstall", "--dir", str(tmp_path))
    assert foreign.returncode == 2 and "left in place" in foreign.stderr and helper.exists()
    korean = rbln("completion", "uninstall", "--dir", str(tmp_path / "none"), env={"LANG": "ko_KR.UTF-8"})
    assert korean.returncode == 0 and "삭제할 것이 없습니다" in korean.stdout


def test_bash_script_loads_and_completes(rbln) -> None:
    script = COMPLETIONS / SCRIPT_FILES["bash"]
    probe = (
        f'source "{script}" && complete -p kubectl-rbln && '
        "COMP_WORDS=(kubectl-rbln wh); COMP_CWORD=1; _kubectl_rbln_completion kubectl-rbln && "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {"PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]), "HOME": "/nonexistent"}
    done = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, env=env, timeout=20, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[-1] == "why"


@pytest.mark.slow  # zsh and fish subprocesses
@pytest.mark.parametrize(
    ("shell", "command"),
    [
        ("zsh", 'autoload -U compinit && compinit -u && source "{script}"'),
        ("fish", 'source "{script}"; and complete -C "kubectl-rbln wh"'),
    ],
)
def test_zsh_and_fish_scripts_load(shell: str, command: str) -> None:
    binary = shutil.which(shell)
    if binary is None:
        pytest.skip(f"{shell} is not installed")
    script = COMPLETIONS / SCRIPT_FILES[shell]
    env = {"PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]), "HOME": HOME, "TERM": "dumb"}
    done = subprocess.run(
        [binary, "-c", command.format(script=script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr.lower()
    if shell == "fish":
        assert "why" in done.stdout.split()
