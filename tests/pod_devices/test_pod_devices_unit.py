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
        kind == "forbidden" and "pods/exec" in text and "kubectl auth can-i get pods/exec -n serving" in text
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


def test_npus_by_name_and_rsd_group() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    assert _entry(cluster, pod)["verdict"] == "ok"
    short = _entry(cluster, pod, npus=["rbln0", "rbln1", "rbln2"])
    assert [f["title"] for f in short["findings"]] == [
        "Container modelserver lacks allocated NPUs /dev/rbln3"
    ]
    renamed = _entry(cluster, pod, npus=["rbln4", "rbln5", "rbln6", "rbln7"])
    assert [(f["slug"], f["severity"]) for f in renamed["findings"]] == [
        ("npu-missing", "error"),
        ("npu-not-allocated", "warning"),
    ]
    assert "/dev/rbln4, /dev/rbln5, /dev/rbln6, /dev/rbln7" in renamed["findings"][1]["title"]
    no_rsd = _entry(cluster, pod, rsd=[])
    assert no_rsd["findings"][0]["title"] == "Container modelserver has no /dev/rsd0 for its 4 NPUs"


def test_each_nic_is_matched_by_pci_address_then_by_name() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    healthy = cluster.healthy(pod)
    renamed = [(f"net{i}", s, m, p) for i, (_, s, m, p) in enumerate(healthy["interfaces"])]
    assert _entry(cluster, pod, interfaces=renamed)["verdict"] == "ok"  # renamed, found by PCI address
    no_link = [(n, s, m, "") for n, s, m, _ in healthy["interfaces"]]
    assert _entry(cluster, pod, interfaces=no_link)["verdict"] == "ok"  # no PCI address: by dra.net/ifName
    lost = _entry(cluster, pod, interfaces=[(n, s, m, "") for n, s, m, _ in renamed])
    assert [f["slug"] for f in lost["findings"]] == ["nic-not-in-pod"]  # neither: not in the Pod
    assert lost["seen"]["nicCount"] == 0


def test_two_rdma_nics_and_one_uverbs_is_not_ok_in_any_mode() -> None:
    """The issue's case: both NICs moved in, one /dev/infiniband/uverbsN; libibverbs cannot open the other."""
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    one = cluster.healthy(pod)["uverbs"][:1]
    for netns in ("Y", "N", ""):
        entry = _entry(cluster, pod, uverbs=one, netns=netns)
        assert [f["slug"] for f in entry["findings"]] == ["uverbs-missing"], netns
        assert "/dev/infiniband/uverbs1" in entry["findings"][0]["title"]
        assert entry["seen"]["nicCount"] == 1
    denied = [(u, h, "no") for u, h in cluster.healthy(pod)["uverbs"]]
    entry = _entry(cluster, pod, uverbs=denied)
    assert (entry["findings"][0]["slug"], "does not open" in entry["findings"][0]["title"]) == (
        "uverbs-missing",
        True,
    )


def test_rdma_device_missing_and_port_down() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("decode")[0]
    rdma = cluster.healthy(pod)["rdma"]
    missing = _entry(cluster, pod, rdma=rdma[:1])
    assert [f["slug"] for f in missing["findings"]] == ["rdma-device-missing"]
    name, _, link, pci, uverbs = rdma[1]
    down = _entry(cluster, pod, rdma=[rdma[0], (name, "DOWN", link, pci, uverbs)])
    assert [f["slug"] for f in down["findings"]] == ["rdma-port-down"]
    assert f"{name} (" in down["findings"][0]["title"] and down["findings"][0]["title"].endswith("DOWN")


def test_an_old_v1_capture_still_reads() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    healthy = cluster.healthy(pod)
    v1 = {k: healthy[k] for k in ("infiniband", "uverbs", "npus", "rsd", "rds", "netns")}
    entry = _entry(cluster, pod, **v1, version=1)
    assert (entry["verdict"], entry["seen"]["probeVersion"], entry["seen"]["nicCount"]) == ("ok", 1, 2)
    short = _entry(cluster, pod, **{**v1, "infiniband": v1["infiniband"][:1]}, version=1)
    assert [f["slug"] for f in short["findings"]] == ["nic-count-mismatch"]


def test_unhealthy_device_in_allocated_resources_status() -> None:
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("prefill")[0]
    status = cluster.pod(pod)["status"]["containerStatuses"][0]
    status["allocatedResourcesStatus"] = [
        {
            "name": "claim:npu-rdma",
            "resources": [
                {"resourceID": "npu.rebellions.ai/npu-node-01/rbln0", "health": "Healthy"},
                {
                    "resourceID": "npu.rebellions.ai/npu-node-01/rbln1",
                    "health": "Unhealthy",
                    "message": "ECC error count exceeded threshold",
                },
            ],
        }
    ]
    entry = _entry(cluster, pod)
    assert [f["slug"] for f in entry["findings"]] == ["device-unhealthy"]
    assert (
        'npu.rebellions.ai/npu-node-01/rbln1: "ECC error count exceeded threshold"'
        in entry["findings"][0]["title"]
    )
    assert [h["health"] for h in entry["health"]] == ["Healthy", "Unhealthy"]


def test_recorded_failures_keep_their_cause_offline() -> None:
    from kubectl_rbln.cluster.exec_probe import MAX_OUTPUT, capture_item
    from kubectl_rbln.dra.normalize_others import normalize_exec_capture

    for kind in ("forbidden", "timeout", "too-large"):
        run = ProbeRun(TARGET, error_kind=kind, error=f"the live line for {kind}")
        back = from_captures([normalize_exec_capture(capture_item(run))], TARGET)
        assert (back.error_kind, back.error) == (kind, f"the live line for {kind}")
    big = ProbeRun(TARGET, stdout="x" * (MAX_OUTPUT + 1), exit_code=0)
    assert from_captures([normalize_exec_capture(capture_item(big))], TARGET).error_kind == "too-large"


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


def test_progress_waits_a_second_then_shows_and_clears(capsys) -> None:  # type: ignore[no-untyped-def]
    import time

    from kubectl_rbln.cli.pod_devices import Progress

    with Progress(3, "probing Pods", enabled=True) as progress:
        progress.update(3, 3)  # all done at once
    assert capsys.readouterr().err == ""
    with Progress(3, "probing Pods", enabled=True) as progress:
        progress.update(1, 3)
        time.sleep(Progress.DELAY + 0.5)
        progress.update(2, 3)
    err = capsys.readouterr().err
    # each redraw: a carriage return and erase-line (terminal.redraw_line), the only controls let through
    assert err.startswith("\r\x1b[Kprobing Pods: 1/3\r\x1b[Kprobing Pods: 2/3") and err.endswith("\r\x1b[K")
    with Progress(3, "probing Pods", enabled=False) as progress:  # stderr is not a terminal
        time.sleep(Progress.DELAY + 0.3)
        progress.update(3, 3)
    assert capsys.readouterr().err == ""


def test_a_broken_constraint_names_the_object_the_pod_uses() -> None:
    """The constraint is the RCT's for a Pod of an RCT, the ResourceClaim's own for a Pod that names its
    claim (`resourceClaimName`): the words say which, and the fix gets a shared claim allocated anew as
    a new claim: a copy, the claim deleted without waiting, the Pods naming it deleted (their owners
    create them again), the old claim gone, the copy created (deleting one Pod does not re-allocate it)."""
    cluster = Cluster(decode_pending=0, nics_share_pcie_root=True)
    name = cluster.pods("prefill")[0]
    snapshot = build_snapshot(cluster.objects)
    of_rct = audit_allocation(snapshot, snapshot.pod(NS, name))[0]  # type: ignore[arg-type]
    claim = cluster.claim(name)["metadata"]["name"]
    assert f"ResourceClaim {claim} do not satisfy" in of_rct.words().summary
    assert "of RCT npu-rdma." in of_rct.words().summary.replace("\n", " ")
    assert f"kubectl -n {NS} delete pod {name}" in of_rct.words().remediation

    pod = next(o for o in cluster.objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    pod["spec"]["resourceClaims"] = [{"name": "npu-rdma", "resourceClaimName": claim}]  # its own claim
    pod["status"].pop("resourceClaimStatuses", None)
    snapshot = build_snapshot(cluster.objects)
    direct = audit_allocation(snapshot, snapshot.pod(NS, name))[0]  # type: ignore[arg-type]
    for lang, words in (("en", f"of ResourceClaim {claim}."), ("ko", f"{claim} ResourceClaim의 제약 조건")):
        rendered = direct.words(lang)
        assert words in rendered.summary.replace("\n", " "), rendered.summary
        assert "RCT" not in rendered.summary
        fix = "\n".join(rendered.remediation)
        assert f"get resourceclaim {claim} -o jsonpath='{{.status.reservedFor[*].name}}'" in fix
        steps = [
            f"get resourceclaim {claim} -o json | jq",
            f"delete resourceclaim {claim} --wait=false",
            f"delete pod {name}",
            f"wait --for=delete resourceclaim/{claim} --timeout=10m",
            f"create -f {claim}.json",
        ]
        assert all(step in fix for step in steps), fix
        assert [fix.index(step) for step in steps] == sorted(fix.index(step) for step in steps)


def test_a_timeout_in_dump_names_dumps_limit_not_a_flag_it_lacks() -> None:
    """`dump` has no --timeout: a Pod that outlasts its per-Pod limit reads, live and offline, as that
    limit; `pod-devices`' own timeout keeps naming --timeout."""
    from kubectl_rbln.cluster.exec_probe import _dump_limit, capture_item
    from kubectl_rbln.dra.normalize_others import normalize_exec_capture
    from kubectl_rbln.render.pod_devices_table import probe_message

    live = ProbeRun(TARGET, error_kind="timeout", error="the probe did not finish within 20s (--timeout)",
                    values={"timeout": "20s"})  # fmt: skip
    dumped = from_captures([normalize_exec_capture(capture_item(_dump_limit(live)))], TARGET)
    assert dumped.error_kind == "timeout" and "--timeout" not in dumped.error
    for run, says in ((dumped, "`kubectl rbln dump`"), (live, "(--timeout)"), (dumped, "--request-timeout")):
        probe = {"status": "failed", "reason": "timeout", "message": run.error, "values": run.values}
        entry = {"name": "p", "namespace": NS, "container": "modelserver", "phase": "Running", "probe": probe}
        for lang in ("en", "ko"):
            assert says in probe_message(entry, lang)


def test_a_device_plugin_pod_is_told_about_its_resources_not_a_claim() -> None:
    """Device-plugin mode (`rebellions.ai/ATOM`, `rdma/hca`): the counts are the extended resources'; the
    words and fixes name them, never a ResourceClaim it does not have (`<claim>`), and no RSD group
    (a claim's, made by the DRA driver) is asked for."""
    from testing.pod_devices_cases import device_plugin

    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("decode")[0]
    device_plugin(cluster, pod)  # type: ignore[arg-type]
    healthy = cluster.healthy(pod)
    entry = _entry(cluster, pod, npus=healthy["npus"][:3], uverbs=healthy["uverbs"][:1], rsd=[])
    assert [f["slug"] for f in entry["findings"]] == ["npu-count-mismatch", "nic-count-mismatch"]
    for finding in entry["findings"]:
        text = "\n".join([finding["title"], finding["detail"], *finding["remediation"]])
        assert "resourceclaim" not in text.lower() and "RCT" not in text, text
        limits = '{.spec.containers[?(@.name=="modelserver")].resources.limits}'
        assert f"get pod {pod} -o jsonpath='{limits}'" in text
    assert "rebellions.ai/ATOM" in entry["findings"][0]["detail"]


def test_memlock_binds_only_without_cap_ipc_lock_or_cap_sys_resource() -> None:
    """The kernel's rule (man 2 mlock, RLIMIT_MEMLOCK): a process with CAP_IPC_LOCK locks memory past
    the limit (RDMA registration checks the same, ib_umem_get), one with CAP_SYS_RESOURCE raises the hard
    limit itself (man 2 setrlimit). Both are `capable()` checks of the initial user namespace, so a Pod
    with its own user namespace (uid_map "1000 0 1") gets the finding whatever its CapEff says. The
    CapEff values are what setpriv --ambient-caps=+ipc_lock and a plain non-root sh print."""
    cluster = Cluster(decode_pending=0)
    pod = cluster.pods("decode")[0]

    def slugs(**probe: object) -> list[str]:
        return [f["slug"] for f in _entry(cluster, pod, memlock="64", uid="2000", **probe)["findings"]]

    assert slugs(capeff="0000000000004000") == []  # CAP_IPC_LOCK (bit 14)
    assert slugs(capeff="0000000001000000") == []  # CAP_SYS_RESOURCE (bit 24)
    assert slugs(capeff="0000000000004000", uidmap="1000 0 1") == ["memlock-limit"]  # hostUsers: false
    assert slugs(capeff="0000000000000000") == ["memlock-limit"]
    assert slugs() == ["memlock-limit"]  # CapEff unknown: the limit binds as before
    assert slugs(capeff="00000000a80425fb") == ["memlock-limit"]  # containerd's default set: neither
    evidence = _entry(cluster, pod, memlock="64", capeff="00000000a80425fb")["findings"][0]["evidence"]
    assert evidence["capEff"] == "00000000a80425fb"


def test_every_probe_version_still_reads() -> None:
    """v3 adds @@capeff and @@uidmap; v2 and v1 captures parse as before (examples/healthy.json is v2)."""
    from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND_V2, PROBE_COMMANDS, format_probe_output

    v3 = parse_probe(format_probe_output(capeff="0000000000004000", memlock="64"))
    read = (v3.version, v3.cap_eff, v3.uid_map, v3.memlock_exempt)
    assert read == (3, "0000000000004000", "0 0 4294967295", "CAP_IPC_LOCK")
    v2 = parse_probe(format_probe_output(version=2, memlock="64"))
    assert (v2.version, v2.knows_links, v2.cap_eff, v2.memlock_exempt) == (2, True, "", "")
    assert PROBE_COMMANDS.index(PROBE_COMMAND) < PROBE_COMMANDS.index(PROBE_COMMAND_V2)
    hostile = parse_probe(format_probe_output(capeff="zz\x1b[2J", uidmap="0 0 4294967295 extra"))
    assert hostile.cap_eff == "" and hostile.uid_map == "0 0 4294967295"
    escaped = parse_probe(format_probe_output(uidmap="0\x9b31m 0 1"))
    assert escaped.uid_map == "0 0 1" and not escaped.memlock_exempt  # the CSI sequence removed
