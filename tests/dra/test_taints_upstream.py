"""Device taints, ported from upstream: the allocator's taint cases and the tracker's DeviceTaintRule cases.

Allocator: kubernetes/dynamic-resource-allocation `structured/internal/allocatortesting/
allocator_testing.go` at tag v0.36.2 (the same 13 `tainted-*` cases, unchanged, at v0.37.0-alpha.2).
Fixtures as there: taintNone / taintNoSchedule use key `taint-key` value `taint-value`, taintNoExecute
value `taint-value-2`; tolerationNoSchedule is `Exists taint-key NoSchedule`, tolerationNoExecute is
`Equal taint-key=taint-value-2 NoExecute`. The table's `Features{DeviceTaints: true}` leaves the
prioritized list and admin access off unless the case names them.

DeviceTaintRules: `resourceslice/tracker/tracker_test.go` TestListPatchedResourceSlices at v0.36.2
(the scheduler lists slices through this tracker, with the rules' taints appended to each device's).
"""

from __future__ import annotations

import pytest
from dra_factories import (
    NODE_1,
    claim,
    classes,
    device,
    exact,
    first_available,
    node,
    picked,
    request,
    slice_,
)

from kubectl_rbln.dra.allocator import Features, allocate
from kubectl_rbln.dra.constraints import blocking_taint_sources, taint_text, toleration_matches
from kubectl_rbln.dra.model import DeviceTaintRule
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.dra.normalize_slices import apply_taint_rules

N1 = node("node-1", **NODE_1)
KEY, VALUE, VALUE2 = "taint-key", "taint-value", "taint-value-2"
TAINT_NONE = {"key": KEY, "value": VALUE, "effect": "None"}
TAINT_NO_SCHEDULE = {"key": KEY, "value": VALUE, "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": KEY, "value": VALUE2, "effect": "NoExecute"}
TOL_NO_SCHEDULE = {"operator": "Exists", "key": KEY, "effect": "NoSchedule"}
TOL_NO_EXECUTE = {"operator": "Equal", "key": KEY, "value": VALUE2, "effect": "NoExecute"}


def features(taints: bool, *, prioritized: bool = False, admin: bool = False) -> Features:
    return Features(version=35, prioritized_list=prioritized, admin_access=admin, device_taints=taints)


def run(claims, devices, f, allocated=()):
    return allocate(N1, claims, [slice_("slice-1", devices)], classes(), set(allocated), f)


def nothing(result) -> None:
    assert not result.fits and result.error is None


def test_tainted_two_devices():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE]), device("device-2", taints=[TAINT_NO_EXECUTE])]
    r = run([claim("claim-0", request("req-0"))], devices, features(True))
    nothing(r)
    assert r.failure is not None and r.failure.kind == "tainted"


def test_tainted_one_device_two_taints():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE])]
    nothing(run([claim("claim-0", request("req-0"))], devices, features(True)))


def test_tainted_two_devices_tolerated():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE]), device("device-2", taints=[TAINT_NO_EXECUTE])]
    r = run([claim("claim-0", request("req-0", tolerations=[TOL_NO_EXECUTE]))], devices, features(True))
    assert picked(r) == [("req-0", "pool-1", "device-2")]  # only the second device's taint is tolerated


def test_tainted_two_devices_prioritized_list_tolerated():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE]), device("device-2", taints=[TAINT_NO_EXECUTE])]
    c = claim(
        "claim-0",
        first_available(
            "req-0",
            exact("class-a", name="subReq-0"),
            exact("class-a", tolerations=[TOL_NO_EXECUTE], name="subReq-1"),
        ),
    )
    r = run([c], devices, features(True, prioritized=True))
    assert picked(r) == [("req-0/subReq-1", "pool-1", "device-2")]


def test_tainted_no_effect():
    r = run([claim("claim-0", request("req-0"))], [device("device-1", taints=[TAINT_NONE])], features(True))
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def test_tainted_one_device_two_taints_both_tolerated():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE])]
    c = claim("claim-0", request("req-0", tolerations=[TOL_NO_SCHEDULE, TOL_NO_EXECUTE]))
    assert picked(run([c], devices, features(True))) == [("req-0", "pool-1", "device-1")]


def test_tainted_disabled():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE])]
    r = run([claim("claim-0", request("req-0"))], devices, features(False))
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def _prioritized_b_then_a():
    return claim(
        "claim-0",
        first_available("req-0", exact("class-b", name="subReq-0"), exact("class-a", name="subReq-1")),
    )


def test_tainted_prioritized_list():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE])]
    nothing(run([_prioritized_b_then_a()], devices, features(True, prioritized=True)))


def test_tainted_prioritized_list_disabled():
    devices = [device("device-1", taints=[TAINT_NO_SCHEDULE])]
    r = run([_prioritized_b_then_a()], devices, features(False, prioritized=True))
    assert picked(r) == [("req-0/subReq-1", "pool-1", "device-1")]


ALLOCATED_1_2 = [("driver-a", "pool-1", "device-1"), ("driver-a", "pool-1", "device-2")]


def test_tainted_admin_access():
    c = claim("claim-0", request("req-0", admin=True))
    r = run([c], [device("device-1", taints=[TAINT_NO_SCHEDULE])], features(True, admin=True), ALLOCATED_1_2)
    nothing(r)


def test_tainted_admin_access_disabled():
    c = claim("claim-0", request("req-0", admin=True))
    r = run([c], [device("device-1", taints=[TAINT_NO_SCHEDULE])], features(False, admin=True), ALLOCATED_1_2)
    assert picked(r) == [("req-0", "pool-1", "device-1")]
    assert r.results["claim-0"][0].admin_access


def test_tainted_all_devices_single():
    c = claim("claim-0", request("req-0", mode="All"))
    nothing(run([c], [device("device-1", taints=[TAINT_NO_SCHEDULE])], features(True)))


def test_tainted_all_devices_single_disabled():
    c = claim("claim-0", request("req-0", mode="All"))
    r = run([c], [device("device-1", taints=[TAINT_NO_SCHEDULE])], features(False))
    assert picked(r) == [("req-0", "pool-1", "device-1")]


# resourceclaim/devicetoleration.go `ToleratesTaint` (v0.36.2): effect and key empty-or-equal,
# "" or Equal compares values, Exists matches any value, an unknown operator never tolerates.
@pytest.mark.parametrize(
    ("toleration", "taint", "tolerated"),
    [
        ({"key": KEY, "operator": "Exists"}, TAINT_NO_EXECUTE, True),
        ({"operator": "Exists"}, TAINT_NO_SCHEDULE, True),
        ({"key": KEY, "value": VALUE}, TAINT_NO_SCHEDULE, True),
        ({"key": KEY, "value": VALUE}, TAINT_NO_EXECUTE, False),
        ({"key": KEY, "operator": "Exists", "effect": "NoExecute"}, TAINT_NO_SCHEDULE, False),
        ({"key": "other", "operator": "Exists"}, TAINT_NO_SCHEDULE, False),
        ({"key": KEY, "operator": "Lt", "value": VALUE}, TAINT_NO_SCHEDULE, False),
    ],
)
def test_tolerates_taint(toleration, taint, tolerated):
    assert toleration_matches(toleration, taint) is tolerated


def test_effect_none_blocks_before_1_35():
    """1.33/1.34 (v0.33, v0.34): every untolerated taint blocks; 1.35 ignores effect None (dra-facts.md)."""
    d = device("device-1", taints=[TAINT_NONE])
    assert blocking_taint_sources(d, [], 34) and not blocking_taint_sources(d, [], 35)


# ------------------------------------------------------------------ DeviceTaintRules (tracker_test.go)

D1, D2 = "driver1.example.com", "driver2.example.com"
TAINT1 = {"key": "example.com/taint", "value": "tainted", "effect": "NoExecute"}


def _tracker_slices():
    s1 = slice_("s1", [device("device-1", driver=D1)], pool="pool-1", driver=D1)
    s2 = slice_("s2", [device("device-2", driver=D2)], pool="pool-2", driver=D2)
    return [s1, s2]


def _rule(driver=None, pool=None, name=None) -> DeviceTaintRule:
    return DeviceTaintRule("rule", driver, pool, name, dict(TAINT1))


def _tainted(slices) -> dict[str, list[str]]:
    return {s.name: [d.name for d in s.devices if d.rule_taints] for s in slices}


@pytest.mark.parametrize(
    ("case", "rule", "expected"),
    [
        ("patch-all-slices", _rule(), {"s1": ["device-1"], "s2": ["device-2"]}),
        ("add-taint-for-driver", _rule(driver=D1), {"s1": ["device-1"], "s2": []}),
        ("add-taint-for-pool", _rule(pool="pool-1"), {"s1": ["device-1"], "s2": []}),
        ("add-taint-for-device", _rule(name="device-1"), {"s1": ["device-1"], "s2": []}),
        ("filter-all-criteria", _rule(D1, "pool-1", "device-1"), {"s1": ["device-1"], "s2": []}),
        ("update-patch (pool-2)", _rule(pool="pool-2"), {"s1": [], "s2": ["device-2"]}),
    ],
)
def test_tracker_rule_selects_devices(case, rule, expected):
    slices = _tracker_slices()
    apply_taint_rules(slices, [rule])
    assert _tainted(slices) == expected, case


def test_tracker_merge_taints_keeps_the_slice_taint_first():
    """merge-taints: a device the driver tainted gets the rule's taint after its own."""
    taint2 = {"key": "example.com/taint2", "value": "tainted2", "effect": "NoExecute"}
    slices = [slice_("s1", [device("device-1", driver=D1, taints=[taint2])], driver=D1)]
    apply_taint_rules(slices, [_rule()])
    d = slices[0].devices[0]
    sources = blocking_taint_sources(d, [], 36, rules=True)
    assert [(s, taint_text(t)) for s, t in sources] == [
        ("ResourceSlice/s1", "example.com/taint2=tainted2:NoExecute"),
        ("DeviceTaintRule/rule", "example.com/taint=tainted:NoExecute"),
    ]
    assert blocking_taint_sources(d, [], 36, rules=False) == sources[:1]  # DRADeviceTaintRules off


def test_tracker_update_patched_slice_three_devices():
    """update-patched-slice (end state): a device rule taints only that device among three."""
    slices = [slice_("s1", [device(n, driver=D1) for n in ("device-0", "device-1", "device-2")], driver=D1)]
    apply_taint_rules(slices, [_rule(name="device-1")])
    assert _tainted(slices) == {"s1": ["device-1"]}


def test_rule_gate_decides_allocation():
    """A NoSchedule DeviceTaintRule keeps its device only when DRADeviceTaintRules is on."""
    slices = [slice_("slice-1", [device("device-1")])]
    rule = DeviceTaintRule("maintenance", "driver-a", None, None, dict(TAINT_NO_SCHEDULE))
    apply_taint_rules(slices, [rule])
    c = [claim("claim-0", request("req-0"))]
    on = Features(version=35, device_taints=True, device_taint_rules=True)
    off = Features(version=35, device_taints=True, device_taint_rules=False)
    assert not allocate(N1, c, slices, classes(), set(), on).fits
    assert allocate(N1, c, slices, classes(), set(), off).fits


def test_rule_objects_normalize_in_both_served_versions():
    for api_version in ("resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"):
        snap = build_snapshot(
            [
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceSlice",
                    "metadata": {"name": "s1"},
                    "spec": {
                        "driver": D1,
                        "nodeName": "node-1",
                        "pool": {"name": "pool-1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "device-1"}, {"name": "device-2"}],
                    },
                },
                {
                    "apiVersion": api_version,
                    "kind": "DeviceTaintRule",
                    "metadata": {"name": "rule"},
                    "spec": {"deviceSelector": {"driver": D1, "device": "device-2"}, "taint": TAINT1},
                },
            ]
        )
        assert snap.resource_api_version == "v1"  # the rule's version is not the DRA objects' version
        assert [(d.name, d.rule_taints) for d in snap.slices[0].devices] == [
            ("device-1", []),
            ("device-2", [("rule", TAINT1)]),
        ]
