"""device-tainted and device-taint-eviction: which devices, which taint, from which object, what to add."""

from __future__ import annotations

import copy

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenarios import SCENARIOS

DRIVER = SCENARIOS["npu-tainted-by-driver"]
RULE = SCENARIOS["npu-devicetaintrule-noexecute"]


def _why(objects, namespace, name, gates=None):
    snapshot = build_snapshot(objects)
    choice = choose_features(snapshot, None, gates)
    return diagnose_pod(
        snapshot,
        snapshot.pod(namespace, name),
        WhyOptions(features=allocator_features(choice), assumptions=choice.describe()),
    )


def _finding(report, slug):
    return next((f for f in report.findings if f.slug == slug), None)


def test_driver_taint_names_devices_taint_slice_and_toleration():
    report = _why(DRIVER.build("v1"), *DRIVER.pending_pod)
    found = _finding(report, "device-tainted")
    assert found is not None
    values = found.values
    assert values["taint"] == "npu.rebellions.ai/unhealthy=device-lost:NoSchedule"
    assert values["request"] == "npu"
    assert len(values["devices"]) == 4 and all(
        d.startswith("npu.rebellions.ai/npu-node-02/") for d in values["devices"]
    )
    assert values["sources"][0].startswith("ResourceSlice/npu-node-02-npu.rebellions.ai-")
    assert values["slices"] and not values["rules"] and values["from_driver"] and not values["from_rule"]
    assert values["tolerations"] == [
        '{key: "npu.rebellions.ai/unhealthy", operator: Equal, value: "device-lost", effect: NoSchedule}'
    ]
    assert "insufficient-devices" not in {f.slug for f in report.findings}


def test_rule_taint_names_the_rule_and_the_eviction():
    report = _why(RULE.build("v1"), *RULE.pending_pod)
    found = _finding(report, "device-tainted")
    assert found is not None
    assert found.values["taint"] == "example.com/maintenance=firmware-upgrade:NoExecute"
    assert found.values["sources"] == ["DeviceTaintRule/npu-maintenance"]
    assert found.values["rules"] == ["npu-maintenance"] and found.values["no_execute"]
    assert found.evidence["gates"] == {"DRADeviceTaints": True, "DRADeviceTaintRules": True}
    evicted = _finding(report, "device-taint-eviction")
    assert evicted is not None and list(evicted.values["evicted"]) == ["coder-decode-5f9vnmhcjt-q7k2m"]


def test_rule_ignored_when_the_gate_is_off():
    """DRADeviceTaintRules is beta and off by default in 1.36: with it off the rule taints nothing, and
    the only error left is that the recorded scheduler event (which saw the rule) disagrees."""
    report = _why(RULE.build("v1"), *RULE.pending_pod, gates="DRADeviceTaintRules=false")
    assert _finding(report, "device-tainted") is None
    assert {f.slug for f in report.findings if f.severity == "error"} <= {"simulation-disagrees"}


def test_tolerated_taint_is_not_blamed():
    objects = copy.deepcopy(RULE.build("v1"))
    for obj in objects:
        if obj["kind"] == "ResourceClaimTemplate":
            for req in obj["spec"]["spec"]["devices"]["requests"]:
                req["exactly"]["tolerations"] = [{"key": "example.com/maintenance", "operator": "Exists"}]
        if obj["kind"] == "ResourceClaim" and not obj.get("status", {}).get("allocation"):
            for req in obj["spec"]["devices"]["requests"]:
                req["exactly"]["tolerations"] = [{"key": "example.com/maintenance", "operator": "Exists"}]
    report = _why(objects, *RULE.pending_pod)
    assert _finding(report, "device-tainted") is None


def test_effect_none_is_informational_from_1_35():
    objects = copy.deepcopy(DRIVER.build("v1"))
    for obj in objects:
        for device in obj.get("spec", {}).get("devices", []) if obj["kind"] == "ResourceSlice" else []:
            for taint in device.get("taints", []):
                taint["effect"] = "None"
    report = _why(objects, *DRIVER.pending_pod, gates=None)
    assert _finding(report, "device-tainted") is not None  # 1.34 (the bundle's kubelets) still counts it
    snapshot = build_snapshot(objects)
    choice = choose_features(snapshot, "1.35", None)
    report = diagnose_pod(
        snapshot, snapshot.pod(*DRIVER.pending_pod), WhyOptions(features=allocator_features(choice))
    )
    assert _finding(report, "device-tainted") is None
