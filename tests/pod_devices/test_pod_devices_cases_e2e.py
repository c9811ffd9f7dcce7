"""Every pod-devices finding from real dranet and RBLN device shapes (testing/pod_devices_cases.py),
offline (`pod-devices -f`) and through `kubectl rbln serve` with exec over websocket, as a user runs
both; then `dump` against that server records the captures so that `-f` says what the live run said.

Healthy Pods (exclusive and shared RDMA mode, renamed NICs found by name, an old v1 capture) stay
clean; nothing a Pod printed reaches the terminal unescaped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testing.pod_devices_cases import EXPECTED, FAILING, NS, build_cases
from testing.synthetic.builder import write_bundle
from tests.conftest import serving

pytestmark = pytest.mark.slow  # `kubectl rbln serve` and the CLI as subprocesses

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
TIMEOUT = "6s"  # the hanging case waits 30 s; every other Pod answers at once, even under load


def env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "PYTHONPATH": str(REPO),  # this checkout's kubectl_rbln
    }


def rbln(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", *args],
        capture_output=True,
        text=True,
        env=env(tmp_path),
        timeout=180,
        check=False,
    )


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """The bundle on disk, a running `kubectl rbln serve` of it (its kubeconfig), case -> Pod."""
    tmp = tmp_path_factory.mktemp("cases")
    objects, names = build_cases()
    bundle = tmp / "cases.json"
    write_bundle(bundle, objects)
    kubeconfig = tmp / "serve.kubeconfig"
    argv = [sys.executable, "-m", "kubectl_rbln", "serve", str(bundle), "--kubeconfig-out", str(kubeconfig)]
    with serving(argv, kubeconfig, tries=300, env=env(tmp), stderr=subprocess.DEVNULL):
        yield bundle, kubeconfig, names


def by_case(report: dict[str, Any], names: dict[str, str]) -> dict[str, dict[str, Any]]:
    entries = {e["name"]: e for e in report["pods"]}
    return {case: entries[pod] for case, pod in names.items()}


def check_findings(pods: dict[str, dict[str, Any]]) -> None:
    for case, slugs in EXPECTED.items():
        entry = pods[case]
        assert [f["slug"] for f in entry["findings"]] == slugs, (case, entry["findings"], entry["probe"])
        assert entry["probe"]["status"] == "ok", case


def test_offline_every_finding_and_clean_healthy_pods(cases: tuple[Path, Path, dict[str, str]]) -> None:
    bundle, _, names = cases
    run = rbln(bundle.parent, "pod-devices", "-f", str(bundle), "-n", NS, "-o", "json")
    assert run.returncode == 1, run.stderr
    pods = by_case(json.loads(run.stdout), names)
    check_findings(pods)
    for case in ("forbidden", "no-shell", "too-large", "pending"):
        assert pods[case]["probe"]["reason"] == FAILING[case], case
    assert "may not" not in pods["forbidden"]["probe"]["message"]  # the recorded line, as dump wrote it
    assert pods["old-capture"]["seen"]["probeVersion"] == 1
    assert pods["renamed"]["seen"]["nics"][0]["interface"]["name"] == "net1"


def test_live_through_serve_says_the_same(cases: tuple[Path, Path, dict[str, str]]) -> None:
    bundle, kubeconfig, names = cases
    args = ["pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS, "--timeout", TIMEOUT]
    run = rbln(bundle.parent, *args, "-o", "json")
    assert run.returncode == 1, run.stderr
    pods = by_case(json.loads(run.stdout), names)
    check_findings(pods)
    for case, reason in FAILING.items():
        assert pods[case]["probe"]["reason"] == reason, (case, pods[case]["probe"])
    assert "kubectl auth can-i get pods/exec -n serving" in pods["forbidden"]["probe"]["message"]
    assert f"within {TIMEOUT}" in pods["hang"]["probe"]["message"]
    assert "64 KiB" in pods["too-large"]["probe"]["message"]
    offline = rbln(bundle.parent, "pod-devices", "-f", str(bundle), "-n", NS, "-o", "json")
    offline_pods = by_case(json.loads(offline.stdout), names)
    for case in EXPECTED:  # the same findings, word for word
        assert pods[case]["findings"] == offline_pods[case]["findings"], case


def test_table_is_clean_and_says_each_thing_once(cases: tuple[Path, Path, dict[str, str]]) -> None:
    bundle, kubeconfig, names = cases
    args = ["pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS, "--timeout", TIMEOUT]
    run = rbln(bundle.parent, *args)
    out = run.stdout
    assert not any(ch in out for ch in ("\x1b", "\x07", "\x9b")), "terminal control bytes reached the table"
    assert run.stderr == "", run.stderr  # not a terminal: no progress line
    lines = out.splitlines()
    assert lines[0].split() == ["POD", "NPUS", "NICS", "RDS", "MEMLOCK", "HEALTH", "VERDICT"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1 : len(names) + 1]}
    assert rows[names["pending"]] == ["-", "-", "-", "-", "-", "not", "running"]  # no ?/0
    assert rows[names["healthy-prefill"]] == ["4/4", "2/2", "rblnfs0", "unlimited", "-", "ok"]
    assert rows[names["unhealthy"]][4:] == ["1", "Unhealthy", "✗", "device-unhealthy"]
    assert rows[names["uverbs-missing"]][:2] == ["4/4", "1/2"]
    pending = [line for line in lines if line.startswith(f"serving/{names['pending']}")]
    assert len(pending) == 1 and "pod is Pending, not Running" in pending[0]
    assert all(len(line) <= 100 for line in lines[: len(names) + 1])
    wide = rbln(bundle.parent, *args, "-o", "wide").stdout
    assert not any(ch in wide for ch in ("\x1b", "\x07", "\x9b")), "terminal control bytes in -o wide"
    assert 'executable file not found in $PATH: unknown"' in out  # quoted, its escapes removed
    assert wide.splitlines()[0].split()[1] == "NODE"
    assert "NIC pci-0000-" in wide and "in the Pod as net1 (UP, MTU 9000), RDMA bnxt_re" in wide
    assert "not in the Pod" in wide and "NPUs: allocated rbln0, rbln1, rbln2, rbln3; seen /dev/rbln0" in wide
    korean = rbln(bundle.parent, *args, "--lang", "ko").stdout
    assert korean.splitlines()[0].split() == ["POD", "NPU", "NIC", "RDS", "MEMLOCK", "상태", "판정"]


def test_dump_records_every_probe_and_f_reads_it_as_live(cases: tuple[Path, Path, dict[str, str]]) -> None:
    bundle, kubeconfig, names = cases
    dumped = bundle.parent / "dump.json"
    run = rbln(
        bundle.parent, "dump", "--kubeconfig", str(kubeconfig), "-n", NS, "--output-file", str(dumped),
        "--request-timeout", TIMEOUT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "recorded as failed" in run.stderr
    items = [i for i in json.loads(dumped.read_text())["items"] if i["kind"] == "ExecCapture"]
    recorded = {i["metadata"]["name"]: i for i in items}
    assert recorded[names["forbidden"]]["error"]["reason"] == "forbidden"
    assert recorded[names["hang"]]["error"]["reason"] == "timeout"
    assert recorded[names["too-large"]]["error"]["reason"] == "too-large"
    live = rbln(bundle.parent, "pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS, "--timeout", TIMEOUT)
    offline = rbln(bundle.parent, "pod-devices", "-f", str(dumped), "-n", NS)
    assert live.returncode == offline.returncode == 1
    # the same table and the same failure lines; a timeout names the limit of the command that hit it
    # (dump's own, not pod-devices' --timeout), so that one line is compared with its words swapped
    dump_limit = "(`kubectl rbln dump` waits at most 20s per Pod, less with --request-timeout)"
    words = " ".join(offline.stdout.replace("-f)", "").split())
    assert f"within {TIMEOUT} {dump_limit}" in words
    assert words.replace(dump_limit, "(--timeout)") == " ".join(live.stdout.split())


def _on_a_terminal(tmp_path: Path, *args: str) -> tuple[str, float]:
    """Run the CLI with stderr on a pseudo-terminal; what it wrote there, and how long it took."""
    import pty  # noqa: PLC0415

    leader, follower = pty.openpty()
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_rbln", *args],
        env=env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - started


def test_progress_on_a_terminal_when_slow(cases: tuple[Path, Path, dict[str, str]]) -> None:
    bundle, kubeconfig, names = cases
    base = ["pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS]
    slow, took = _on_a_terminal(
        bundle.parent, *base, names["hang"], names["healthy-prefill"], "--timeout", "3s"
    )
    assert took >= 3 and "probing Pods: 1/2" in slow  # the quick Pod done, the hanging one waited for
    assert slow.endswith("\r\x1b[K")  # the line is cleared (carriage return, erase-line) before the table


def test_pods_are_probed_concurrently_within_the_bound(cases: tuple[Path, Path, dict[str, str]]) -> None:
    """The hanging Pod holds one worker for its whole --timeout; the other Pods finish meanwhile."""
    bundle, kubeconfig, names = cases
    args = ["pod-devices", "--kubeconfig", str(kubeconfig), "-n", NS, "--timeout", "4s", "-o", "json"]
    started = time.monotonic()
    run = rbln(bundle.parent, *args, "--parallel", "2")
    took = time.monotonic() - started
    report = json.loads(run.stdout)
    assert by_case(report, names)["hang"]["probe"]["reason"] == "timeout"
    assert all(
        e["probe"]["status"] == "ok" for e in report["pods"] if e["name"] in {names[c] for c in EXPECTED}
    )
    assert took < 4 * 3, took  # one worker on the hang, the other on 20 quick Pods: not 4 s each
