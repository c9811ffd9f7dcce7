"""Every probe script that shipped still reads, byte for byte (issue 24).

`dump` records the probe under its argv and `-f` and `serve` find it by that argv, so the plugin must
know each released script exactly. tests/data/probes/ holds them as the git history has them
(testing/probe_history.py evaluates each commit's string literal); here they are held against today's
constants and the history, and a bundle recorded with each released argv (testing/pod_devices_releases.py)
is read offline and through `kubectl rbln serve` with exec over websocket, with the real kubectl too.
v1 captures are judged like v3 where they hold the same facts: a missing uverbs device is never ok.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster import exec_probe
from testing.pod_devices_releases import CASES, NS, SAME_FACT, argv, build_release_cases, released, version
from testing.probe_history import PROBE_FILE, RELEASED, fixture_text, from_history, git_show, probe_scripts
from testing.probe_sim import fake_pod, run
from testing.synthetic.builder import write_bundle
from tests.conftest import serving
from tests.e2e.conftest import find_kubectl

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rel", RELEASED, ids=lambda r: r.fixture)
def test_todays_constant_is_the_released_text_byte_for_byte(rel: Any) -> None:
    text = fixture_text(rel)
    assert getattr(exec_probe, rel.constant) == text
    assert text.splitlines()[0] == f"echo '@@rbln-probe {rel.header}'"
    assert ("sh", "-c", text) in exec_probe.PROBE_COMMANDS  # -f and serve accept its argv


def test_the_v1_texts_differ_only_by_the_backslash_newline_of_the_uverbs_loop() -> None:
    sent, kept = (fixture_text(r) for r in RELEASED if r.header == "v1")
    assert sent != kept and kept.replace("d=''; \\\nread", "d=''; read") == sent
    assert ("sh", "-c", sent) == exec_probe.PROBE_COMMAND_V1


def _history_or_skip() -> None:
    if git_show(RELEASED[0].commit) is None:
        pytest.skip("this checkout has no git history of the probe (a shallow clone or an archive)")


@pytest.mark.parametrize("rel", RELEASED, ids=lambda r: r.fixture)
def test_the_fixture_is_the_text_of_its_commit(rel: Any) -> None:
    _history_or_skip()
    assert from_history(rel) == fixture_text(rel)


def test_every_probe_text_ever_committed_is_a_fixture() -> None:
    """No release tags: every revision of a probe text committed on this branch counts as shipped."""
    _history_or_skip()
    revs = subprocess.run(
        ["git", "-C", str(REPO), "rev-list", "HEAD", "--", PROBE_FILE],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    fixtures = {fixture_text(r) for r in RELEASED}
    seen = 0
    for rev in revs:
        for name, text in probe_scripts(git_show(rev) or "").items():
            assert text in fixtures, (rev, name)
            seen += 1
    assert seen >= len(revs)  # each revision had at least its PROBE_SCRIPT


V1_CASES = [c for c in CASES if version(c) == 1]


@pytest.mark.parametrize("case", V1_CASES)
def test_v1_cases_are_what_the_released_v1_script_prints(case: str, tmp_path: Path) -> None:
    """The released v1 script, run by sh on a fake /sys and /dev, prints the case's recorded output."""
    objects, names, facts = build_release_cases()
    capture = next(o for o in objects if o["kind"] == "ExecCapture" and o["metadata"]["name"] == names[case])
    printed = run(
        fixture_text(released(case)), fake_pod(**facts[case]), tmp_path, memlock="unlimited", uid="2000"
    )
    assert printed.stdout == capture["stdout"]
    assert printed.memlock and printed.uid.isdigit()  # the script's own lines were there, replaced


def rbln(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.defpath}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", *args], capture_output=True, text=True, env=env, timeout=180
    )


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("releases")
    objects, names, _ = build_release_cases()
    path = tmp / "releases.json"
    write_bundle(path, objects)
    return path, names


def _by_case(stdout: str, names: dict[str, str]) -> dict[str, dict[str, Any]]:
    entries = {e["name"]: e for e in json.loads(stdout)["pods"]}
    return {case: entries[pod] for case, pod in names.items()}


def _check(pods: dict[str, dict[str, Any]]) -> None:
    for case, (_, slugs) in CASES.items():
        entry = pods[case]
        assert entry["probe"]["status"] == "ok", (case, entry["probe"])
        assert entry["seen"]["probeVersion"] == version(case), case
        assert [f["slug"] for f in entry["findings"]] == slugs, (case, entry["findings"])
    for v1, v3 in SAME_FACT:  # the same fact, the same slug and severity
        said = [[(f["slug"], f["severity"]) for f in pods[c]["findings"]] for c in (v1, v3)]
        assert said[0] == said[1], (v1, v3)


@pytest.mark.slow
def test_every_released_probe_reads_offline(bundle: tuple[Path, dict[str, str]]) -> None:
    path, names = bundle
    done = rbln(path.parent, "pod-devices", "-f", str(path), "-n", NS, "-o", "json")
    assert done.returncode == 1, done.stderr  # findings
    pods = _by_case(done.stdout, names)
    _check(pods)
    assert pods["v1-healthy"]["verdict"] == "ok"
    second = pods["v1-second-hca-no-uverbs"]
    assert second["seen"]["nicCount"] == 1  # NICS 1/2: the HCA without uverbs is not usable
    assert "bnxt_re" in second["findings"][0]["title"] and "uverbs?" in second["findings"][0]["title"]
    assert pods["v1-no-uverbs"]["seen"]["nicCount"] == 0


@pytest.fixture(scope="module")
def served(bundle: tuple[Path, dict[str, str]]) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    path, names = bundle
    kubeconfig = path.parent / "serve.kubeconfig"
    command = [sys.executable, "-m", "kubectl_rbln", "serve", str(path), "--kubeconfig-out", str(kubeconfig)]
    env = {"PATH": f"{BIN}{os.pathsep}{os.defpath}", "HOME": str(path.parent), "PYTHONPATH": str(REPO)}
    with serving(command, kubeconfig, tries=300, env=env, stderr=subprocess.DEVNULL):
        yield path, kubeconfig, names


@pytest.mark.slow
def test_every_released_probe_reads_through_serve(served: tuple[Path, Path, dict[str, str]]) -> None:
    path, kubeconfig, names = served
    live = rbln(path.parent, "pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS, "-o", "json")
    assert live.returncode == 1, live.stderr
    pods = _by_case(live.stdout, names)
    _check(pods)
    offline = _by_case(
        rbln(path.parent, "pod-devices", "-f", str(path), "-n", NS, "-o", "json").stdout, names
    )
    for case in CASES:
        assert pods[case]["findings"] == offline[case]["findings"], case


@pytest.mark.slow
@pytest.mark.parametrize("case", ["v3-healthy", "v2-healthy", "v1-healthy", "v1-kept-healthy"])
def test_kubectl_exec_with_the_released_argv_gets_the_recorded_output(
    served: tuple[Path, Path, dict[str, str]], case: str
) -> None:
    """The replay server matches the exact argv: the real kubectl sending a released script byte for byte."""
    kubectl = find_kubectl()
    if kubectl is None:
        pytest.skip("no kubectl binary")
    path, kubeconfig, names = served
    objects, _, _ = build_release_cases()
    recorded = next(o for o in objects if o["kind"] == "ExecCapture" and o["metadata"]["name"] == names[case])
    pod = names[case]
    done = subprocess.run(
        [
            kubectl,
            "--kubeconfig",
            str(kubeconfig),
            "exec",
            "-n",
            NS,
            pod,
            "-c",
            "modelserver",
            "--",
            *argv(case),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == recorded["stdout"]
