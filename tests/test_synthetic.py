"""The synthetic cluster builder: determinism, API shapes, scheduler texts, scenarios, example files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND, parse_probe
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic import (
    ClusterBuilder,
    Knobs,
    dumps_bundle,
    fit_error_message,
    to_list,
    write_bundle,
)
from testing.synthetic.fit_error import event_note
from testing.synthetic.scenarios import SCENARIOS, SLUGS, example_target, example_text

REPO = Path(__file__).resolve().parent.parent
SHAPES = ("v1", "v1beta2", "v1beta1")


def _kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def _pod(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(o for o in _kind(objects, "Pod") if o["metadata"]["name"] == name)


def _scheduled(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"), None)


# ----------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("api_version", SHAPES)
def test_same_seed_gives_identical_bytes(api_version: str) -> None:
    first = dumps_bundle(ClusterBuilder(42, api_version).build())
    second = dumps_bundle(ClusterBuilder(42, api_version).build())
    assert first == second


def test_other_seed_changes_names_and_uids() -> None:
    a = ClusterBuilder(1).build()
    b = ClusterBuilder(2).build()
    assert {o["metadata"]["uid"] for o in _kind(a, "Pod")}.isdisjoint(
        o["metadata"]["uid"] for o in _kind(b, "Pod")
    )


def test_names_do_not_depend_on_build_order_or_shape() -> None:
    builder = ClusterBuilder(5, "v1beta1", decode_pending=2)
    names = {o["metadata"]["name"] for o in _kind(builder.build(), "Pod")}
    assert {name for _, name in builder.pending_pods()} <= names
    assert ClusterBuilder(5, "v1", decode_pending=2).pending_pods() == builder.pending_pods()


def test_uids_are_unique_and_references_resolve() -> None:
    objects = ClusterBuilder(3, decode_running=2, prefill_running=2, decode_pending=1).build()
    real = [o for o in objects if "uid" in o["metadata"]]
    uids = [o["metadata"]["uid"] for o in real]
    assert len(uids) == len(set(uids))
    by_uid = {o["metadata"]["uid"]: o for o in real}
    for sl in _kind(objects, "ResourceSlice"):
        owner = sl["metadata"]["ownerReferences"][0]
        assert by_uid[owner["uid"]]["metadata"]["name"] == owner["name"] == sl["spec"]["nodeName"]
    slices = {(s["spec"]["driver"], s["spec"]["pool"]["name"]): s for s in _kind(objects, "ResourceSlice")}
    for claim in _kind(objects, "ResourceClaim"):
        owner = claim["metadata"]["ownerReferences"][0]
        pod = by_uid[owner["uid"]]
        assert pod["kind"] == "Pod" and owner["controller"] is True
        assert claim["metadata"]["name"].startswith(claim["metadata"]["generateName"])
        entry = pod["status"]["resourceClaimStatuses"][0]
        assert entry == {"name": "npu-rdma", "resourceClaimName": claim["metadata"]["name"]}
        for result in claim.get("status", {}).get("allocation", {}).get("devices", {}).get("results", []):
            names = {d["name"] for d in slices[(result["driver"], result["pool"])]["spec"]["devices"]}
            assert result["device"] in names


# ----------------------------------------------------------------------------- API shapes


def test_v1_shape_is_flat_devices_and_exactly() -> None:
    objects = ClusterBuilder(1, "v1").build()
    sl = _kind(objects, "ResourceSlice")[0]
    assert sl["apiVersion"] == "resource.k8s.io/v1"
    assert "basic" not in sl["spec"]["devices"][0] and "attributes" in sl["spec"]["devices"][0]
    request = _kind(objects, "ResourceClaimTemplate")[0]["spec"]["spec"]["devices"]["requests"][0]
    assert request == {
        "name": "npu",
        "exactly": {"allocationMode": "ExactCount", "count": 4, "deviceClassName": "npu.rebellions.ai"},
    }


def test_v1beta2_differs_from_v1_only_in_api_version() -> None:
    v1 = ClusterBuilder(1, "v1").build()
    beta2 = ClusterBuilder(1, "v1beta2").build()
    for a, b in zip(v1, beta2, strict=True):
        if a["apiVersion"].startswith("resource.k8s.io/"):
            assert b["apiVersion"] == "resource.k8s.io/v1beta2"
            b = dict(b, apiVersion=a["apiVersion"])
        if a["kind"] == "ResourceClaimTemplate":
            annotation = "kubectl.kubernetes.io/last-applied-configuration"
            assert '"resource.k8s.io/v1beta2"' in b["metadata"]["annotations"][annotation]
            continue
        if a["kind"] == "DeviceClass" and "annotations" in a["metadata"]:
            continue
        assert a == b


def test_v1beta1_shape_nests_basic_and_flattens_requests() -> None:
    objects = ClusterBuilder(1, "v1beta1").build()
    for sl in _kind(objects, "ResourceSlice"):
        assert sl["apiVersion"] == "resource.k8s.io/v1beta1"
        for device in sl["spec"]["devices"]:
            assert set(device) == {"name", "basic"}
            assert "attributes" in device["basic"]
    for obj in _kind(objects, "ResourceClaimTemplate") + _kind(objects, "ResourceClaim"):
        spec = obj["spec"]["spec"] if obj["kind"] == "ResourceClaimTemplate" else obj["spec"]
        for request in spec["devices"]["requests"]:
            assert "exactly" not in request
            assert request["deviceClassName"] in ("npu.rebellions.ai", "dranet")
    applied = json.loads(
        _kind(objects, "ResourceClaimTemplate")[0]["metadata"]["annotations"][
            "kubectl.kubernetes.io/last-applied-configuration"
        ]
    )
    assert applied["apiVersion"] == "resource.k8s.io/v1beta1"
    assert "exactly" not in applied["spec"]["spec"]["devices"]["requests"][0]


def test_unknown_api_version_is_refused() -> None:
    with pytest.raises(ValueError, match="api_version"):
        ClusterBuilder(1, "v1alpha3")


# ----------------------------------------------------------------------------- the reference node


def test_reference_node_devices_and_attributes() -> None:
    objects = ClusterBuilder(1).build()
    npu_slice = next(s for s in _kind(objects, "ResourceSlice") if s["spec"]["driver"] == "npu.rebellions.ai")
    nic_slice = next(s for s in _kind(objects, "ResourceSlice") if s["spec"]["driver"] == "dra.net")
    npus = npu_slice["spec"]["devices"]
    assert [d["name"] for d in npus] == [f"rbln{i}" for i in range(8)]
    assert [d["attributes"]["resource.kubernetes.io/numaNode"]["int"] for d in npus] == [0] * 4 + [1] * 4
    roots = [d["attributes"]["resource.kubernetes.io/pcieRoot"]["string"] for d in npus]
    assert len(set(roots)) == 8 and all(r.startswith("pci0000:") for r in roots)
    assert npus[0]["attributes"]["productName"] == {"string": "RBLN-CA25"}
    assert npus[0]["capacity"] == {"memory": {"value": "64Gi"}}
    rdma = [d for d in nic_slice["spec"]["devices"] if d["attributes"]["dra.net/rdma"]["bool"]]
    assert len(rdma) == 4 and len(nic_slice["spec"]["devices"]) == 5
    assert {d["attributes"]["dra.net/pciSubsystem"]["string"] for d in rdma} == {"9140"}
    assert [d["attributes"]["dra.net/rdmaDevice"]["string"] for d in rdma] == [
        f"bnxt_re{i}" for i in range(4)
    ]
    assert len({d["attributes"]["resource.kubernetes.io/pcieRoot"]["string"] for d in rdma}) == 4
    assert all(len(d["attributes"]) + len(d.get("capacity", {})) <= 32 for d in npus + rdma)


def test_knobs_change_only_what_they_name() -> None:
    def nic_attrs(**knobs: Any) -> dict[str, Any]:
        objects = ClusterBuilder(1, **knobs).build()
        nic_slice = next(s for s in _kind(objects, "ResourceSlice") if s["spec"]["driver"] == "dra.net")
        return nic_slice["spec"]["devices"][0]["attributes"]

    base = nic_attrs()
    assert set(base) - set(nic_attrs(nic_numa_standard=False)) == {"resource.kubernetes.io/numaNode"}
    assert set(base) - set(nic_attrs(nic_pcie_root=False)) == {"resource.kubernetes.io/pcieRoot"}
    assert nic_attrs(nic_rdma=False)["dra.net/rdma"] == {"bool": False}
    assert nic_attrs(nic_vendor="mellanox")["dra.net/pciVendor"] == {"string": "Mellanox Technologies"}
    objects = ClusterBuilder(1, npu_pcie_root_format="bdf").build()
    npu = _kind(objects, "ResourceSlice")[0]["spec"]["devices"][0]
    assert npu["attributes"]["resource.kubernetes.io/pcieRoot"]["string"].startswith("0000:")


def test_running_pod_owns_one_numa_node_and_probes_match() -> None:
    objects = ClusterBuilder(1, decode_running=1, prefill_running=0, decode_pending=0).build()
    claim = _kind(objects, "ResourceClaim")[0]
    devices = {
        d["name"]: d["attributes"] for s in _kind(objects, "ResourceSlice") for d in s["spec"]["devices"]
    }
    results = claim["status"]["allocation"]["devices"]["results"]
    assert [r["request"] for r in results] == ["npu"] * 4 + ["nic"] * 2
    numa = {devices[r["device"]]["resource.kubernetes.io/numaNode"]["int"] for r in results}
    assert len(numa) == 1
    pod = _kind(objects, "Pod")[0]
    assert claim["status"]["reservedFor"] == [
        {"name": pod["metadata"]["name"], "resource": "pods", "uid": pod["metadata"]["uid"]}
    ]
    [capture] = _kind(objects, "ExecCapture")
    assert tuple(capture["command"]) == PROBE_COMMAND
    probe = parse_probe(capture["stdout"])
    assert probe.infiniband == ["bnxt_re0", "bnxt_re1"]
    assert probe.memlock == "unlimited"
    assert probe.npus == sorted(r["device"] for r in results if r["request"] == "npu")


# ----------------------------------------------------------------------------- scheduler texts


def test_histogram_is_sorted_as_strings_like_the_scheduler() -> None:
    reasons = [["cannot allocate all claims"]] * 10 + [["node(s) had untolerated taint {a: }"]] * 2
    message = fit_error_message(12, reasons)
    assert message.startswith(
        "0/12 nodes are available: 10 cannot allocate all claims, 2 node(s) had untolerated taint {a: }."
    )
    assert message.endswith(
        "still not schedulable, preemption: 0/12 nodes are available: "
        "12 Preemption is not helpful for scheduling."
    )
    small = fit_error_message(
        3, [["cannot allocate all claims"]] * 2 + [["node(s) had untolerated taint {b: }"]]
    )
    assert "1 node(s) had untolerated taint {b: }, 2 cannot allocate all claims." in small


def test_prefilter_message_replaces_the_histogram() -> None:
    message = fit_error_message(3, [["ignored"]], prefilter="request nic: device class dranet does not exist")
    assert message == (
        "0/3 nodes are available: request nic: device class dranet does not exist. still not schedulable, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_pending_pod_carries_the_real_failedscheduling_text() -> None:
    builder = ClusterBuilder(1, nic_numa_standard=False, prefill_running=0, decode_running=0)
    objects = builder.build()
    name = builder.target_pod()[1]
    expected = (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 cannot allocate all claims. still not schedulable, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )
    condition = _scheduled(_pod(objects, name))
    assert condition is not None
    assert condition["reason"] == "Unschedulable" and condition["message"] == expected
    event = next(e for e in _kind(objects, "Event") if e["involvedObject"]["name"] == name)
    assert event["reason"] == "FailedScheduling" and event["type"] == "Warning"
    assert event["message"] == expected and event["source"] == {"component": "default-scheduler"}
    assert event["count"] >= 1 and event["firstTimestamp"] <= event["lastTimestamp"]


@pytest.mark.parametrize(
    ("knobs", "healthy"),
    [
        ({"nic_numa_standard": False}, {}),
        ({"nic_pcie_root": False}, {}),
        ({"npu_numa": False}, {}),
        ({"nic_vendor": "mellanox"}, {}),
        ({"nic_rdma": False}, {}),
        ({"nics_per_numa": 1}, {}),
        ({"nics_share_pcie_root": True}, {}),
        ({"drop_slices": ("dra.net",)}, {}),
        (
            {"rct": "pcie-paired", "nic_roots_shared_with_npus": True, "npu_pcie_root_format": "bdf"},
            {"npu_pcie_root_format": "pci"},
        ),
    ],
)
def test_each_cause_alone_makes_the_pod_unschedulable(knobs: dict[str, Any], healthy: dict[str, Any]) -> None:
    """The knob, and nothing else, is what blocks the Pod: undo it and the Pod fits."""
    base = {"prefill_running": 0, "decode_running": 0}
    broken = ClusterBuilder(1, **base, **knobs)
    condition = _scheduled(_pod(broken.build(), broken.target_pod()[1]))
    assert condition is not None and "cannot allocate all claims" in condition["message"]
    fixed = ClusterBuilder(1, **base, **({**knobs, **healthy} if healthy else {}))
    assert _scheduled(_pod(fixed.build(), fixed.target_pod()[1])) is None


def test_event_note_is_truncated_to_1024_bytes() -> None:
    short = "0/3 nodes are available: 3 cannot allocate all claims."
    assert event_note(short) == short
    long = "x" * 2000
    note = event_note(long)
    assert len(note.encode()) <= 1024 and note.endswith(" ...") and long.startswith(note[:-4])


# ----------------------------------------------------------------------------- scenarios


def test_scenarios_cover_the_brief() -> None:
    expected = {
        "healthy",
        "deviceclass-missing",
        "slices-missing",
        "slices-empty",
        "rct-missing",
        "claim-not-created",
        "nic-no-numanode",
        "nic-no-pcieroot",
        "npu-no-numanode",
        "nic-vendor-mismatch",
        "rdma-driver-not-loaded",
        "one-nic-per-numa",
        "nics-share-pcieroot",
        "devices-exhausted",
        "distinct-dropped-gate-off",
        "cel-no-such-key",
        "rds-label-missing",
        "memlock-crash",
        "device-plugin-mode",
        "taint-not-device-related",
        "npu-pcieroot-bdf-format",
    }
    assert expected <= set(SCENARIOS)
    for scenario in SCENARIOS.values():
        assert scenario.must <= SLUGS and scenario.must_not <= SLUGS
        assert not scenario.must & scenario.must_not
        assert scenario.expected_slugs == set(scenario.must)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("api_version", SHAPES)
def test_every_scenario_builds_in_every_shape(name: str, api_version: str) -> None:
    scenario = SCENARIOS[name]
    objects = scenario.build(api_version)
    namespace, pod_name = scenario.pending_pod
    pod = _pod(objects, pod_name)
    assert pod["metadata"]["namespace"] == namespace
    for obj in objects:
        if obj["apiVersion"].startswith("resource.k8s.io/") and obj["kind"] != "DeviceTaintRule":
            assert obj["apiVersion"] == f"resource.k8s.io/{api_version}"  # rules: v1alpha3/v1beta2 only
    json.dumps(to_list(objects))  # serialisable


@pytest.mark.parametrize(
    ("name", "reason", "fragment"),
    [
        ("deviceclass-missing", "Unschedulable", "request nic: device class dranet does not exist."),
        ("cel-no-such-key", "SchedulerError", "CEL runtime error: no such key: numaNode"),
        ("rds-label-missing", "Unschedulable", "2 node(s) didn't match Pod's node affinity/selector."),
        ("taint-not-device-related", "Unschedulable", "2 node(s) had untolerated taint {dedicated: batch}."),
        ("device-plugin-mode", "Unschedulable", "2 Insufficient rebellions.ai/ATOM."),
        ("devices-exhausted", "Unschedulable", "2 cannot allocate all claims."),
    ],
)
def test_scenario_scheduler_texts(name: str, reason: str, fragment: str) -> None:
    scenario = SCENARIOS[name]
    condition = _scheduled(_pod(scenario.build("v1"), scenario.pending_pod[1]))
    assert condition is not None
    assert condition["reason"] == reason and fragment in condition["message"]


def test_claim_layer_scenarios_never_reach_the_scheduler() -> None:
    for name in ("rct-missing", "claim-not-created"):
        scenario = SCENARIOS[name]
        objects = scenario.build("v1")
        pod = _pod(objects, scenario.pending_pod[1])
        assert "resourceClaimStatuses" not in pod["status"] and _scheduled(pod) is None
        assert not _kind(objects, "ResourceClaim")
    events = _kind(SCENARIOS["rct-missing"].build("v1"), "Event")
    assert events[0]["reason"] == "FailedResourceClaimCreation"
    assert events[0]["message"] == (
        'PodResourceClaim npu-rdma: resource claim template "npu-rdma": '
        'resourceclaimtemplate.resource.k8s.io "npu-rdma" not found'
    )


def test_memlock_scenario_has_crashloop_and_previous_log() -> None:
    scenario = SCENARIOS["memlock-crash"]
    objects = scenario.build("v1")
    pod = _pod(objects, scenario.pending_pod[1])
    status = pod["status"]["containerStatuses"][0]
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff" and status["restartCount"] > 0
    assert pod["spec"]["securityContext"]["runAsUser"] == 2000
    log = next(o for o in _kind(objects, "PodLog") if o["metadata"]["name"] == pod["metadata"]["name"])
    assert log["previous"] is True and "failed to raise memlock limit" in log["log"]


def test_distinct_dropped_scenario_keeps_evidence_of_the_drop() -> None:
    objects = SCENARIOS["distinct-dropped-gate-off"].build("v1")
    template = _kind(objects, "ResourceClaimTemplate")[0]
    stored = template["spec"]["spec"]["devices"]["constraints"]
    assert all("distinctAttribute" not in c for c in stored)
    applied = json.loads(
        template["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    )
    assert any("distinctAttribute" in c for c in applied["spec"]["spec"]["devices"]["constraints"])


def test_device_plugin_scenario_has_no_dra_objects() -> None:
    objects = SCENARIOS["device-plugin-mode"].build("v1")
    assert not [o for o in objects if o["apiVersion"].startswith("resource.k8s.io/")]
    node = next(n for n in _kind(objects, "Node") if "rebellions.ai/ATOM" in n["status"]["allocatable"])
    assert node["status"]["allocatable"]["rebellions.ai/ATOM"] == "8"
    pod = _kind(objects, "Pod")[0]
    assert "resourceClaims" not in pod["spec"]
    assert pod["spec"]["containers"][0]["resources"]["limits"]["rebellions.ai/ATOM"] == "4"


# ----------------------------------------------------------------------------- bundles and examples


def test_write_bundle_json_and_yaml(tmp_path: Path) -> None:
    objects = ClusterBuilder(1).build()
    write_bundle(str(tmp_path / "c.json"), objects)
    write_bundle(str(tmp_path / "c.yaml"), objects)
    as_json = json.loads((tmp_path / "c.json").read_text())
    as_yaml = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert as_json == as_yaml == to_list(objects)
    assert as_json["kind"] == "List" and as_json["metadata"] == {"resourceVersion": ""}


@pytest.mark.parametrize("name", ["pending-decode", "healthy"])
def test_example_files_match_the_builder(name: str) -> None:
    assert (REPO / "examples" / f"{name}.json").read_text(encoding="utf-8") == example_text(name)


def test_packaged_example_is_identical_to_the_repo_copy() -> None:
    repo_copy = (REPO / "examples" / "pending-decode.json").read_bytes()
    assert (REPO / "kubectl_rbln" / "examples" / "pending-decode.json").read_bytes() == repo_copy
    from kubectl_rbln.example import example_path

    assert example_path().read_bytes() == repo_copy


def test_pending_decode_example_tells_the_documented_story() -> None:
    objects = json.loads((REPO / "examples" / "pending-decode.json").read_text())["items"]
    namespace, name = example_target("pending-decode")
    assert (namespace, name) == ("serving", _pod(objects, name)["metadata"]["name"])
    assert name in (REPO / "examples" / "README.md").read_text()
    assert all(p["status"]["phase"] == "Pending" for p in _kind(objects, "Pod"))
    for sl in _kind(objects, "ResourceSlice"):
        for device in sl["spec"]["devices"]:
            has_std = "resource.kubernetes.io/numaNode" in device["attributes"]
            assert has_std == (sl["spec"]["driver"] == "npu.rebellions.ai")
            assert "dra.net/numaNode" in device["attributes"]


# ----------------------------------------------------------------------------- bench/gen


@pytest.mark.slow  # bench/gen as a subprocess
def test_bench_gen_writes_a_loadable_list(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "gen"),
            "--nodes",
            "20",
            "--seed",
            "3",
            "--out",
            str(out),
            "--api-version",
            "v1beta1",
            "--knob",
            "nic_numa_standard=false",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "20 NPU nodes" in result.stderr
    doc = json.loads(out.read_text())
    kinds = [o["kind"] for o in doc["items"]]
    assert kinds.count("Node") == 21 and kinds.count("ResourceSlice") == 40
    assert kinds.count("Event") == 1
    nic = next(o for o in doc["items"] if o["kind"] == "ResourceSlice" and o["spec"]["driver"] == "dra.net")
    assert "resource.kubernetes.io/numaNode" not in nic["spec"]["devices"][0]["basic"]["attributes"]


def test_knobs_default_is_the_reference_cluster() -> None:
    knobs = Knobs()
    assert (knobs.npu_nodes, knobs.numa_per_node, knobs.npus_per_numa, knobs.nics_per_numa) == (2, 2, 4, 2)
    assert knobs.rct == "numa-aligned" and knobs.namespace == "serving"


def test_the_synthetic_cluster_carries_consistent_owners_and_a_fresh_scheduler_lease():
    builder = ClusterBuilder(7)
    objects = builder.build()
    snapshot = build_snapshot(objects)
    by_key = {(w.kind, w.name): w for w in snapshot.workloads}
    for pod in snapshot.pods:
        replicaset = by_key[("ReplicaSet", pod.owner_name)]
        assert pod.owner_kind == "ReplicaSet" and pod.generate_name == f"{replicaset.name}-"
        assert replicaset.owner_kind == "Deployment" and ("Deployment", replicaset.owner_name) in by_key
        assert replicaset.claim_refs == pod.resource_claims
    raw = {
        (o["kind"], o["metadata"]["name"]): o for o in objects if o["kind"] in ("Deployment", "ReplicaSet")
    }
    for (kind, name), obj in raw.items():
        if kind == "ReplicaSet":
            owner = obj["metadata"]["ownerReferences"][0]
            assert owner["uid"] == raw[("Deployment", owner["name"])]["metadata"]["uid"]
            pods = [p for p in snapshot.pods if p.owner_name == name]
            assert {p.uid for p in pods} and obj["status"]["replicas"] == len(pods)
    [lease] = snapshot.leases
    assert (lease.namespace, lease.name, lease.duration_seconds) == ("kube-system", "kube-scheduler", 15)
    assert snapshot.read_at == "2026-09-14T06:00:00Z" and lease.renew_time.startswith("2026-09-14T05:59:58.")
