"""Issue 13, "Never a false all-clear, never a fix that cannot work": one test per bullet of its list,
each driving the installed `kubectl-rbln` entry point (and, for `dump`, a replay server) as a user
would, and asserting what the user reads. The in-process tests of each point live beside the code
(tests/foundation/test_inputs_scope.py, tests/diagnose/test_fix_*.py, tests/render/test_korean.py,
tests/cli/test_*.py); these prove the installed command says the same.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.catalog import alternative_prefix, sentence
from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from testing.synthetic.scenarios import SCENARIOS
from tests.conftest import EXAMPLES, REPO, serving
from tests.diagnose.fix_walk import table_fix_lines
from tests.diagnose.test_fix_files import unapplicable

sys.path.insert(0, str(REPO / "tests" / "render"))  # test_korean imports its kit as a sibling module
from tests.render.korean_prose import corpus, english_words  # noqa: E402  (the Korean tests' detector)

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
EXAMPLE = EXAMPLES / "pending-decode.json"
POD = "coder-decode-mn5b9k9cc2-l6qbl"
Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(tmp_path: Path) -> Run:
    """`kubectl-rbln ARGS`, the installed entry point, in a clean environment (no colour, English)."""
    entry = BIN / "kubectl-rbln"
    if not entry.is_file():
        pytest.skip("needs the kubectl-rbln entry point in the venv's bin folder")

    def run(*args: str, kubeconfig: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {
            k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL", "LC_MESSAGES")
        }
        env.update({"NO_COLOR": "1", "LANG": "C.UTF-8", "HOME": str(tmp_path)})
        if kubeconfig is not None:
            env["KUBECONFIG"] = str(kubeconfig)
        result = subprocess.run(
            [str(entry), *args], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    return run


def bundle_of(scenario: str, folder: Path) -> str:
    """A scenario's cluster as the bundle `dump` would write."""
    path = folder / f"{scenario}.json"
    items = SCENARIOS[scenario].build("v1")
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def example() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text())


def write(path: Path, document: dict[str, Any]) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def fix_lines(text: str, lang: str = "en") -> list[str]:
    """The lines of every fix block of a `why` table (its label and the indent taken off)."""
    return table_fix_lines(text, lang)


# 1. `why -f bundle.json` without -n read namespace "default": "No Pending ... Pod", exit 0.
def test_f_without_n_reads_the_bundles_namespace_and_finds_a_named_pod(cli: Run) -> None:
    result = cli("why", "-f", str(EXAMPLE))
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("Pod serving/") == 3
    assert "no pending" not in result.stdout.lower()
    named = cli("why", "-f", str(EXAMPLE), POD)
    assert named.returncode == 1, named.stderr
    assert named.stdout.startswith(f"Pod serving/{POD} is Pending")


# 2. `dump` in a context whose namespace is default wrote serving's claims and none of its Pods.
def test_dump_reads_every_device_namespace_and_records_its_scope(
    cli: Run,
    replay_server: Callable[..., ReplayServer],
    kubeconfig_for: Callable[[ReplayServer], Path],
    tmp_path: Path,
) -> None:
    server = replay_server(load_objects([str(EXAMPLE)]))
    result = cli("dump", kubeconfig=kubeconfig_for(server))
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    assert {o["metadata"]["namespace"] for o in items if o["kind"] == "Pod"} == {"serving"}
    info = next(o for o in items if o["kind"] == "ClusterInfo")
    assert info["scope"]["namespaces"] == ["serving"], info["scope"]
    dumped = write(tmp_path / "dump.json", json.loads(result.stdout))
    assert cli("why", "-f", dumped, "-n", "serving").returncode == 1
    outside = cli("why", "-f", dumped, "-n", "team-b")
    assert "team-b" in outside.stderr + outside.stdout and "dump" in (outside.stderr + outside.stdout)


# 3. After the suggested RCT is applied the Pods keep claims of the old one; nothing said so.
def test_a_claim_of_the_old_rct_is_reported_with_the_step_that_re_creates_the_pods(
    cli: Run, tmp_path: Path
) -> None:
    result = cli("why", "-f", bundle_of("rct-fixed-claim-stale", tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "claim-stale" in result.stdout
    assert "kubectl -n serving rollout restart deployment/coder-decode" in fix_lines(result.stdout)


# 4. Fixes applied files (examples/manifests/rct/numa-*.yaml) that exist nowhere.
def test_every_file_a_fix_applies_is_made_by_the_fix(cli: Run, tmp_path: Path) -> None:
    for args in (("why", "-f", str(EXAMPLE)), ("check", "-f", str(EXAMPLE)), ("attrs", "-f", str(EXAMPLE))):
        result = cli(*args)
        assert "examples/manifests" not in result.stdout
        assert not unapplicable(result.stdout.splitlines()), (args, unapplicable(result.stdout.splitlines()))
    recipe = cli("suggest-rct", "--print-recipe", "--recipe", "numa-unaligned", "-n", "serving", "--rct", "x")
    assert recipe.returncode == 0, recipe.stderr
    assert yaml.safe_load(recipe.stdout)["kind"] == "ResourceClaimTemplate"


# 5. A Pod that names its ResourceClaim was told to delete and re-create RCT npu-rdma.
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_pod_naming_its_claim_is_told_to_re_create_that_claim(cli: Run, tmp_path: Path, lang: str) -> None:
    result = cli("why", "-f", bundle_of("direct-claim-attribute-missing", tmp_path), "--lang", lang)
    assert result.returncode == 1, result.stdout + result.stderr
    fix = "\n".join(fix_lines(result.stdout, lang))
    assert "kubectl rbln suggest-rct -n serving --claim npu-rdma-shared --recipe numa-aligned" in fix
    order = [
        "kubectl -n serving delete resourceclaim npu-rdma-shared --wait=false",
        "kubectl -n serving delete pod coder-decode-",  # every Pod naming it (a rollout would keep one)
        "kubectl -n serving wait --for=delete resourceclaim/npu-rdma-shared",
        "kubectl -n serving create -f npu-rdma-shared.suggested.yaml",
    ]
    assert all(step in fix for step in order), fix
    assert [fix.index(step) for step in order] == sorted(fix.index(step) for step in order), fix
    assert "resourceclaimtemplate" not in fix and "--rct npu-rdma" not in fix, fix


# 6. Two bundles in one folder were merged silently, into a SchedulerError neither file holds.
def test_inputs_in_one_folder_are_merged_out_loud_or_refused(cli: Run, tmp_path: Path) -> None:
    same = tmp_path / "same"
    same.mkdir()
    write(same / "a.json", example())
    write(same / "b.json", example())
    merged = cli("why", "-f", str(same))
    assert merged.returncode == 1
    assert "appear more than once" in merged.stderr
    assert "scheduler-error" not in merged.stdout and "SchedulerError" not in merged.stdout
    other = example()
    for obj in other["items"]:
        if obj["kind"] == "Node":
            obj["metadata"]["name"] += "-elsewhere"
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    write(mixed / "a.json", example())
    write(mixed / "b.json", other)
    refused = cli("why", "-f", str(mixed))
    assert refused.returncode == 2
    assert (
        refused.stderr.startswith("error: ")
        and "come from different clusters (no Node in common)" in refused.stderr
    )


# 7. Objects of the wrong shape vanished: "Pending: nothing to fix", exit 0.
def test_a_malformed_object_is_named_and_never_reads_as_nothing_to_fix(cli: Run, tmp_path: Path) -> None:
    bundle = example()
    pod = next(o for o in bundle["items"] if o["kind"] == "Pod" and o["metadata"]["name"] == POD)
    pod["spec"]["resourceClaims"] = {ref["name"]: ref for ref in pod["spec"]["resourceClaims"]}
    result = cli("why", "-f", write(tmp_path / "b.json", bundle), POD)
    assert result.returncode == 1
    assert f"Pod serving/{POD}" in result.stderr and "spec.resourceClaims" in result.stderr
    assert "nothing to fix" not in result.stdout and "source-degraded" in result.stdout


# 8. `attrs --rct nope` fell back to the recipe; `why -n servng` was silent; `wyh` printed click usage.
def test_wrong_names_get_a_one_line_answer_that_points_at_the_right_one(cli: Run) -> None:
    attrs = cli("attrs", "-f", str(EXAMPLE), "--rct", "nope")
    assert attrs.returncode == 2
    assert attrs.stderr.strip().splitlines() == [
        'error: resourceclaimtemplate "nope" not found in namespace "serving"; the namespace has: npu-rdma'
    ]
    typo = cli("why", "-f", str(EXAMPLE), "-n", "servng")
    assert "device Pods are in: serving" in typo.stdout + typo.stderr
    command = cli("wyh")
    assert command.returncode == 2
    assert command.stderr.strip().splitlines() == [
        'error: unknown command "wyh" for "kubectl rbln"; did you mean "why"?'
    ]


# 9. A Pod held by "Insufficient cpu" read "nothing blocks it"; `describe node -`; `[Service]` run.
def test_warning_verdicts_say_what_holds_the_pod_and_fixes_paste_safely(cli: Run, tmp_path: Path) -> None:
    held = cli("why", "-f", bundle_of("taint-not-device-related", tmp_path))
    first = held.stdout.splitlines()[0]
    assert "nothing blocks it" not in first and "Not a device" in first, first
    assert held.returncode == 1  # a Pod held by a taint still does not run
    assert not [line for line in fix_lines(held.stdout) if re.search(r"(^|\s)-(\s|$)", line)]
    crash = cli("why", "-f", bundle_of("memlock-crash", tmp_path))
    fix = fix_lines(crash.stdout)
    remote = next(line for line in fix if line.startswith("ssh -t npu-node-01 ") and "tee" in line)
    script = shlex.split(remote)[3]  # what runs on the node, in order, one line: no heredoc to end
    assert "<<" not in script and "<pod-id>" not in script, script
    drop_in = script.index("LimitMEMLOCK=infinity")
    assert drop_in < script.index("crictl rmp") < script.index("systemctl restart containerd"), script
    assert any(line.startswith(alternative_prefix("en")) for line in fix)


# 10. `--lang ko` was half English: tables, headings, check, attrs, topo, suggest-rct, pod-devices.
@pytest.mark.parametrize("command", ["why", "check", "attrs", "topo", "suggest-rct"])
def test_korean_output_reads_korean(cli: Run, command: str) -> None:
    result = cli(command, "-f", str(EXAMPLE), "--lang", "ko")
    text = result.stdout + (result.stderr if command == "suggest-rct" else "")
    names = corpus([json.loads(EXAMPLE.read_text(encoding="utf-8"))])  # the bundle's own names are not prose
    assert not english_words(text, names), english_words(text, names)[:5]
    assert "을(를)" not in text and "(으)로" not in text and " more" not in text


def test_korean_why_uses_the_catalogs_headings(cli: Run) -> None:
    result = cli("why", "-f", str(EXAMPLE), "--lang", "ko")
    assert sentence("why-nodes-heading", "ko") in result.stdout
    assert sentence("label-fix", "ko") in result.stdout


# 11. `serve --address 0.0.0.0` said it served on 127.0.0.1 and did not warn.
def test_serve_off_loopback_warns_and_prints_the_true_address(cli: Run, tmp_path: Path) -> None:
    entry = BIN / "kubectl-rbln"
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG")} | {"LANG": "C.UTF-8"}
    kubeconfig = tmp_path / "k.yaml"
    argv = [str(entry), "serve", str(EXAMPLE), "--address", "0.0.0.0", "--kubeconfig-out", str(kubeconfig)]
    with serving(argv, kubeconfig, env=env) as served:
        pass
    err = served.stderr
    assert err.startswith("warning: serving on every interface (0.0.0.0:"), err
    assert "without authentication" in err
    assert "serving 25 objects at http://0.0.0.0:" in err


# 12. Output and docs spoke internal jargon ("seed 000", "ecosystem-facts"), and examples drifted.
def test_no_internal_references_and_the_docs_examples_match_the_tool(cli: Run) -> None:
    for command in ("why", "check", "attrs"):
        text = cli(command, "-f", str(EXAMPLE)).stdout
        assert not re.search(r"seed 00\d|ecosystem-facts|harness-facts|§\d|\w+\.py\b", text), command
    drift = subprocess.run(
        [sys.executable, "-m", "testing.docs_examples", "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO))},
        timeout=600,
    )
    assert drift.returncode == 0, drift.stdout[-2000:] + drift.stderr[-2000:]
