"""The pure parts of `pod-devices`: sanitizing, parsing the probe, exec failures, comparison, the audit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from scenario import NS, Cluster, probe_stdout

from kubectl_rbln.cluster.exec_probe import (
    PROBE_COMMAND,
    ProbeParseError,
    ProbeRun,
    ProbeTarget,
    describe_exec_failure,
    from_captures,
    interpret,
    parse_probe,
)
from kubectl_rbln.diagnose.pod_devices import audit_allocation, pod_entry
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.text import one_line, strip_controls

TARGET = ProbeTarget(NS, "p", "modelserver")


def test_strip_controls_removes_sequences_keeps_text() -> None:
    hostile = (
        "ok\x1b[31mred\x1b[0m \x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ "
        "\x9b2J\r\x00\u202eevil\n"
    )
    assert strip_controls(hostile) == "okred link evil\n"
    assert one_line("\n\n  first \x1b[1mline\x1b[0m\nsecond") == "first line"


@given(st.text())
def test_strip_controls_never_leaves_a_control(text: str) -> None:
    out = strip_controls(text)
    assert not any(ord(c) < 32 and c not in "\t\n" or 0x7F <= ord(c) <= 0x9F for c in out)


def test_parse_probe_reads_every_section() -> None:
    text = probe_stdout(
        infiniband=["mlx5_0", "mlx5_1"],
        uverbs=[("uverbs1", "mlx5_1")],
        npus=["rbln10", "rbln2"],
        rsd=["rsd0"],
        rds=["rblnfs0"],
        memlock="8192",
        uid="0",
        netns="Y",
    )
    result = parse_probe(text)
    assert result.npus == ["rbln2", "rbln10"]
    assert result.uverbs_hca == {"uverbs1": "mlx5_1"}
    assert (result.memlock, result.uid, result.netns_mode) == ("8192", 0, "shared")


def test_parse_probe_refuses_foreign_or_cut_output() -> None:
    for text, words in (("hello\n", "header"), (probe_stdout().replace("@@end\n", ""), "incomplete")):
        try:
            parse_probe(text)
        except ProbeParseError as exc:
            assert words in str(exc)
        else:
            raise AssertionError("parsed")


def test_exit_codes_and_missing_captures_are_one_clear_line() -> None:
    _, problem = interpret(ProbeRun(TARGET, "", "sh: not found\n", 127))
    assert (
        problem is not None
        and problem.short == "no shell"
        and "exit code 127: sh: not found" in problem.message
    )
    _, problem = interpret(ProbeRun(TARGET, "", "boom\x1b[2J", 3))
    assert problem is not None and problem.message == "the probe exited with code 3: boom"
    _, problem = interpret(from_captures([], TARGET))
    assert problem is not None and problem.kind == "not-captured" and "kubectl rbln dump" in problem.message


def test_websocket_handshake_failures_are_named() -> None:
    body = 'b\'{"kind":"Status","message":"pods \\"p\\" is forbidden: User \\"u\\" cannot create"}\''
    kind, text = describe_exec_failure(
        f"Handshake status 403 Forbidden -+-+- {{'a': 'b'}} -+-+- {body}", TARGET, 5
    )
    assert (
        kind == "forbidden"
        and "pods/exec" in text
        and "kubectl auth can-i create pods/exec -n serving" in text
    )
    assert describe_exec_failure("Handshake status 404 Not Found", TARGET, 5)[0] == "not-found"
    assert describe_exec_failure("timed out", TARGET, 5) == (
        "timeout",
        "the probe did not finish within 5s (--timeout)",
    )


def _entry(cluster: Cluster, pod: str, **changes: object) -> dict:
    snapshot = build_snapshot(cluster.objects)
    result = parse_probe(probe_stdout(**{**cluster.healthy(pod), **changes}))  # type: ignore[arg-type]
    return pod_entry(snapshot, snapshot.pod(NS, pod), "modelserver", result, None).to_dict("en")  # type: ignore[arg-type]


def test_npu_count_names_and_rsd_group() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    assert _entry(cluster, pod)["verdict"] == "ok"
    short = _entry(cluster, pod, npus=["rbln0", "rbln1", "rbln2"])
    assert [f["title"] for f in short["findings"]] == ["Container modelserver sees 3 NPUs, expected 4"]
    renamed = _entry(cluster, pod, npus=["rbln4", "rbln5", "rbln6", "rbln7"])
    assert (
        "sees NPUs rbln4, rbln5, rbln6, rbln7, the claim allocated rbln0" in renamed["findings"][0]["title"]
    )
    no_rsd = _entry(cluster, pod, rsd=[])
    assert no_rsd["findings"][0]["title"] == "Container modelserver has no /dev/rsd0 for its 4 NPUs"


def test_root_pods_and_korean_words() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("decode")[0]
    assert _entry(cluster, pod, memlock="8192", uid="0")["verdict"] == "ok"  # root may raise its own limit
    snapshot = build_snapshot(cluster.objects)
    result = parse_probe(probe_stdout(**{**cluster.healthy(pod), "memlock": "64"}))
    entry = pod_entry(snapshot, snapshot.pod(NS, pod), "modelserver", result, None).to_dict("ko")  # type: ignore[arg-type]
    assert entry["findings"][0]["title"] == "컨테이너의 memlock 한도를 올릴 수 없습니다: modelserver"


def test_audit_finds_nics_sharing_a_pcie_root_and_numa_mixups() -> None:
    shared_root = Cluster(decode_pending=0, nics_share_pcie_root=True)
    snapshot = build_snapshot(shared_root.objects)
    pod = snapshot.pod(NS, shared_root.pods("prefill")[0])
    found = audit_allocation(snapshot, pod)  # type: ignore[arg-type]
    assert [f.words().title for f in found] == [
        "Allocated devices break a constraint: distinctAttribute resource.kubernetes.io/pcieRoot over nic"
    ]
    assert found[0].evidence["duplicates"]

    mixed = Cluster(decode_pending=0)
    claim = mixed.claim(mixed.pods("prefill")[0])
    other = mixed.claim(mixed.pods("decode")[0])["status"]["allocation"]["devices"]["results"][-1]
    claim["status"]["allocation"]["devices"]["results"][-1] = dict(other, request="nic")
    snapshot = build_snapshot(mixed.objects)
    found = audit_allocation(snapshot, snapshot.pod(NS, mixed.pods("prefill")[0]))  # type: ignore[arg-type]
    assert [f.evidence["constraint"] for f in found] == [
        "matchAttribute resource.kubernetes.io/numaNode over npu, nic"
    ]


def test_the_probe_is_one_constant_command() -> None:
    assert PROBE_COMMAND[:2] == ("sh", "-c") and len(PROBE_COMMAND) == 3
