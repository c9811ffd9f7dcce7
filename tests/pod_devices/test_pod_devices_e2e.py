"""`kubectl rbln pod-devices` end to end: exec over websocket against the replay server, as a user runs it.

One cluster holds every case as its own Pod, so one run also proves that a failing
Pod never stops the others: a healthy P/D pair (prefill on an RDS node, decode on a
node without RDS), shared RDMA mode showing 4 HCAs for 2 allocated NICs, a missing
RDS device, memlock 8192, a missing container, an image without a shell, a probe
that hangs, output carrying terminal escapes, an RDMA device missing, a Pending Pod.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scenario import NS, Cluster, capture, probe_stdout

from kubectl_rbln.cluster.exec_probe import PROBE_SCRIPT, parse_probe
from kubectl_rbln.replay.faults import Faults
from kubectl_rbln.replay.server import ReplayServer

pytestmark = pytest.mark.slow  # replay servers, the CLI as a subprocess

NO_SHELL = (
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": '
    "executable file not found in $PATH: unknown"
)
ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H\x9b31m"
# The hanging probe answers after HANG seconds; every other Pod answers at once, but a loaded machine
# (five test runs on two cores) can take seconds to start Python and open a websocket: the runs give
# each Pod TIMEOUT, far below HANG and far above a slow answer.
HANG = 40
TIMEOUT = "8s"


def build_cases() -> tuple[list[dict[str, Any]], dict[str, str]]:
    cluster = Cluster(
        npu_nodes=5,
        prefill_running=4,
        decode_running=6,
        decode_pending=1,
        unlabel=("npu-node-03", "npu-node-04", "npu-node-05"),
    )
    p, d = cluster.pods("prefill"), cluster.pods("decode")
    names = {
        "prefill": p[0],
        "decode": d[0],
        "shared": p[1],
        "no-rds": p[2],
        "memlock": d[1],
        "no-shell": d[2],
        "hang": d[3],
        "escapes": p[3],
        "no-container": d[4],
        "nic-mismatch": d[5],
        "pending": cluster.pods("decode", running=False)[0],
    }
    objects = list(cluster.objects)

    def add(case: str, **changes: Any) -> None:
        args = {**cluster.healthy(names[case]), **changes}
        objects.append(capture(names[case], probe_stdout(**args)))

    add("prefill")
    add("decode")
    add("shared", infiniband=["bnxt_re0", "bnxt_re1", "bnxt_re2", "bnxt_re3"], netns="Y")
    add("no-rds", rds=[])
    add("memlock", memlock="8192")
    objects.append(capture(names["no-shell"], "", stderr=NO_SHELL + "\n", exit_code=126))
    objects.append(capture(names["hang"], probe_stdout(**cluster.healthy(names["hang"])), delay=HANG))
    healthy = cluster.healthy(names["escapes"])
    healthy["infiniband"] = [healthy["infiniband"][0] + ESCAPES, *healthy["infiniband"][1:]]
    add("escapes", infiniband=healthy["infiniband"], memlock="unlimited" + ESCAPES)
    cluster.pod(names["no-container"])["spec"]["containers"][0]["name"] = "vllm"
    one = cluster.healthy(names["nic-mismatch"])
    add("nic-mismatch", rdma=one["rdma"][:1], infiniband=one["infiniband"][:1], uverbs=one["uverbs"][:1])
    return objects, names


@pytest.fixture
def cases(
    replay_server: Callable[..., ReplayServer], tmp_path: Path
) -> tuple[ReplayServer, Path, dict[str, str]]:
    objects, names = build_cases()
    server = replay_server(objects)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml(namespace=NS), encoding="utf-8")
    return server, kubeconfig, names


def rbln(*args: str, kubeconfig: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    env.update({"NO_COLOR": "1", "LANG": "C.UTF-8"})
    if kubeconfig is not None:
        env["KUBECONFIG"] = str(kubeconfig)
    return subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def by_pod(report: dict[str, Any], names: dict[str, str]) -> dict[str, dict[str, Any]]:
    entries = {e["name"]: e for e in report["pods"]}
    return {case: entries[name] for case, name in names.items()}


def slugs(entry: dict[str, Any]) -> list[str]:
    return [f["slug"] for f in entry["findings"]]


def test_every_case_in_one_run(cases: tuple[ReplayServer, Path, dict[str, str]]) -> None:
    server, kubeconfig, names = cases
    run = rbln("pod-devices", "-o", "json", "--timeout", TIMEOUT, kubeconfig=kubeconfig)
    assert run.returncode == 1, run.stderr  # error findings present
    report = json.loads(run.stdout)
    assert (report["apiVersion"], report["kind"]) == ("kubectl-rbln/v1", "PodDevicesReport")
    pods = by_pod(report, names)

    assert pods["prefill"]["verdict"] == "ok" and pods["prefill"]["seen"]["rds"] == ["rblnfs0"]
    assert pods["decode"]["verdict"] == "ok" and pods["decode"]["seen"]["rds"] == []
    assert pods["decode"]["expected"]["rds"] is False
    shared = pods["shared"]
    assert (shared["verdict"], shared["rdmaMode"], shared["seen"]["nicCount"]) == ("ok", "shared", 2)
    assert len(shared["seen"]["infiniband"]) == 4
    assert slugs(pods["no-rds"]) == ["rds-devices-missing"]
    assert slugs(pods["memlock"]) == ["memlock-limit"]
    assert pods["memlock"]["findings"][0]["evidence"]["ulimit -H -l"] == "8192"
    assert slugs(pods["nic-mismatch"]) == ["rdma-device-missing"]
    assert pods["nic-mismatch"]["seen"]["nicCount"] == 1

    no_shell = pods["no-shell"]["probe"]
    assert no_shell["reason"] == "no-shell"
    assert (
        "exit code 126" in no_shell["message"]
        and 'exec: "sh": executable file not found' in no_shell["message"]
    )
    assert pods["hang"]["probe"]["reason"] == "timeout" and TIMEOUT in pods["hang"]["probe"]["message"]
    assert pods["no-container"]["probe"]["reason"] == "no-container"
    assert "containers: vllm" in pods["no-container"]["probe"]["message"]
    assert pods["pending"]["probe"]["reason"] == "not-running"
    assert pods["escapes"]["verdict"] == "ok"
    assert pods["escapes"]["seen"]["memlock"] == "unlimited"
    for entry in report["pods"]:  # every finding carries the why schema
        for finding in entry["findings"]:
            assert set(finding) >= {"slug", "severity", "title", "detail", "evidence", "remediation", "docs"}

    audit = server.audit
    assert {e.method for e in audit} == {"GET"}
    execs = [e for e in audit if e.is_exec]
    probed = {
        "prefill",
        "decode",
        "shared",
        "no-rds",
        "memlock",
        "no-shell",
        "hang",
        "escapes",
        "nic-mismatch",
    }
    assert sorted(e.path.split("/")[6] for e in execs) == sorted(names[c] for c in probed)
    assert all(not e.is_write for e in audit)


def test_table_is_sanitized_and_names_each_problem(cases: tuple[ReplayServer, Path, dict[str, str]]) -> None:
    _, kubeconfig, names = cases
    run = rbln("pod-devices", "--timeout", TIMEOUT, kubeconfig=kubeconfig)
    assert run.returncode == 1
    out = run.stdout
    assert not any(ch in out for ch in ("\x1b", "\x07", "\x9b")), "terminal control bytes reached the table"
    assert out.splitlines()[0].split() == ["POD", "NPUS", "NICS", "RDS", "MEMLOCK", "VERDICT"]
    rows = {line.split()[0]: line for line in out.splitlines()[1:12]}
    assert rows[names["shared"]].split()[1:3] == ["4/4", "2/2"]
    assert rows[names["prefill"]].split()[1:] == ["4/4", "2/2", "rblnfs0", "unlimited", "ok"]
    assert rows[names["decode"]].split()[1:] == ["4/4", "2/2", "-", "unlimited", "ok"]
    assert "missing" in rows[names["no-rds"]] and "rds-devices-missing" in rows[names["no-rds"]]
    assert "8192" in rows[names["memlock"]] and "memlock-limit" in rows[names["memlock"]]
    for case, short in (
        ("no-shell", "no shell"),
        ("hang", "timeout"),
        ("no-container", "no container"),
        ("pending", "not running"),
    ):
        assert rows[names[case]].endswith(short), rows[names[case]]
    assert f"probe: the probe did not finish within {TIMEOUT} (--timeout)" in out
    wide = rbln("pod-devices", "--timeout", TIMEOUT, "-o", "wide", kubeconfig=kubeconfig).stdout
    assert "2/2 shared (4 HCAs)" in wide and wide.splitlines()[0].split()[1] == "NODE"
    assert 'probe: container "modelserver" not found in the pod (containers: vllm)' in out


def test_exec_forbidden_names_the_permission(
    replay_server: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    cluster = Cluster(decode_pending=0)
    objects = cluster.objects + [
        capture(p, probe_stdout(**cluster.healthy(p))) for p in cluster.pods("prefill")
    ]
    server = replay_server(objects, faults=Faults(forbid={"pods/exec"}))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml(namespace=NS), encoding="utf-8")
    run = rbln("pod-devices", kubeconfig=kubeconfig)
    assert run.returncode == 3, run.stdout + run.stderr  # nothing could be probed: the cluster refused
    assert "forbidden" in run.stdout
    assert (
        "may not exec into Pods" in run.stdout and "kubectl auth can-i get pods/exec -n serving" in run.stdout
    )


def test_dump_records_the_probe_and_f_reads_it(
    replay_server: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    cluster = Cluster(decode_pending=0, unlabel=())
    running = cluster.pods("prefill") + cluster.pods("decode")
    memlock = {running[-1]: "8192"}
    objects = cluster.objects + [
        capture(p, probe_stdout(**cluster.healthy(p), memlock=memlock.get(p, "unlimited"))) for p in running
    ]
    server = replay_server(objects)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig_yaml(namespace=NS), encoding="utf-8")
    bundle = tmp_path / "dump.json"
    dumped = rbln("dump", "--output-file", str(bundle), kubeconfig=kubeconfig)
    assert dumped.returncode == 0, dumped.stderr
    items = json.loads(bundle.read_text())["items"]
    assert sorted(i["metadata"]["name"] for i in items if i["kind"] == "ExecCapture") == sorted(running)

    live = rbln("pod-devices", "-o", "json", kubeconfig=kubeconfig)
    offline = rbln("pod-devices", "-o", "json", "-f", str(bundle), "-n", NS)
    assert live.returncode == offline.returncode == 1
    assert json.loads(live.stdout)["pods"] == json.loads(offline.stdout)["pods"]


def test_kubectl_plugin_and_kubectl_exec_see_the_same_probe(
    cases: tuple[ReplayServer, Path, dict[str, str]], kubectl_for: Callable[[ReplayServer], Any]
) -> None:
    server, kubeconfig, names = cases
    kubectl = kubectl_for(server)
    kubectl.env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.defpath  # finds kubectl-rbln
    kubectl.env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])  # this checkout's kubectl_rbln
    pod = names["prefill"]
    by_hand = kubectl("exec", "-n", NS, pod, "-c", "modelserver", "--", "sh", "-c", PROBE_SCRIPT)
    assert by_hand.returncode == 0, by_hand.stderr
    plugin = kubectl("rbln", "pod-devices", "-n", NS, pod, names["decode"], "-o", "json")
    assert plugin.returncode == 0, plugin.stderr
    entry = next(e for e in json.loads(plugin.stdout)["pods"] if e["name"] == pod)
    seen = {k: v for k, v in entry["seen"].items() if k not in ("nicCount", "nics")}
    assert seen == parse_probe(by_hand.stdout).to_dict()
    table = kubectl("rbln", "pod-devices", "-n", NS, pod)
    assert table.returncode == 0 and table.stdout.splitlines()[1].split()[-1] == "ok"
