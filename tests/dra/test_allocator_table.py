"""The upstream allocator test table (dra-facts.md §2.12), case by case, with the versions noted.

Fixtures follow `allocatortesting/allocator_testing.go`: class-a selects driver-a,
class-b driver-b; node-1 has region=region-1, planet=earth.
"""

from __future__ import annotations

import pytest
from dra_factories import (
    NODE_1,
    claim,
    classes,
    device,
    distinct,
    exact,
    first_available,
    match,
    node,
    picked,
    request,
    slice_,
)

from kubectl_rbln.dra.allocator import Features, allocate
from kubectl_rbln.dra.model import Version

N1 = node("node-1", **NODE_1)
N2 = node("node-2", region="region-2")
V = Features.defaults
ALL_VERSIONS = [32, 33, 34, 35]
LOCAL_1 = {
    "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]
}


def run(claims, slices, *, version=34, allocated=(), node_=N1, features=None, cls=None):
    return allocate(
        node_, claims, slices, classes() if cls is None else cls, set(allocated), features or V(version)
    )


def one(name="device-1", **kw):
    return device(name, **kw)


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_01_simple(version):
    r = run([claim("claim-0", request("req-0"))], [slice_("slice-1", [one()])], version=version)
    assert r.fits and picked(r) == [("req-0", "pool-1", "device-1")]
    assert r.node_selectors["claim-0"] == LOCAL_1


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_02_other_node(version):
    slices = [
        slice_("slice-1", [one()], driver="driver-b"),
        slice_("slice-2", [one()], pool="pool-2", node="node-2"),
    ]
    r = run([claim("claim-0", request("req-0"))], slices, version=version, node_=N2)
    assert r.fits and picked(r) == [("req-0", "pool-2", "device-1")]
    assert r.node_selectors["claim-0"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["node-2"]


GE_1GI = 'device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0'
GE_2GI = 'device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0'


def _two_sizes():
    return [
        slice_(
            "slice-1",
            [one("device-2", capacity={"memory": "2Gi"}), one("device-1", capacity={"memory": "1Gi"})],
        )
    ]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_03_small_and_large_backtrack_requests(version):
    c = claim("claim-0", request("req-0", "class-a", 1, GE_1GI), request("req-1", "class-a", 1, GE_2GI))
    r = run([c], _two_sizes(), version=version)
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1", "pool-1", "device-2")]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_04_small_and_large_backtrack_claims(version):
    claims = [
        claim("claim-0", request("req-0", "class-a", 1, GE_1GI)),
        claim("claim-1", request("req-1", "class-a", 1, GE_2GI)),
    ]
    r = run(claims, _two_sizes(), version=version)
    assert picked(r, "claim-0") == [("req-0", "pool-1", "device-1")]
    assert picked(r, "claim-1") == [("req-1", "pool-1", "device-2")]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_05_devices_split_across_different_slices(version):
    slices = [slice_("slice-1", [one()]), slice_("slice-2", [one()], pool="pool-2")]
    r = run([claim("claim-0", request("req-0", "class-a", 2))], slices, version=version)
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-2", "device-1")]


@pytest.mark.parametrize("version", [32, 33, 34])
def test_06_obsolete_slice_before_1_35(version):
    slices = [slice_("slice-1", [one()]), slice_("slice-2", [one()], generation=2)]
    r = run([claim("claim-0", request("req-0"))], slices, version=version)
    assert r.fits and r.results["claim-0"][0].device == "device-1"


def test_06_obsolete_slice_1_35():
    slices = [
        slice_("slice-1", [one()], count=2),
        slice_("slice-2", [one("device-2")], generation=2, count=2),
    ]
    r = run([claim("claim-0", request("req-0"))], slices, version=35)
    assert not r.fits and r.error is None


def _duplicate():
    return [slice_("slice-1", [one()], count=2), slice_("slice-2", [one()], count=2)]


@pytest.mark.parametrize("version", [32, 33, 34])
def test_07_duplicate_slice_is_an_error_before_1_35(version):
    r = run([claim("claim-0", request("req-0"))], _duplicate(), version=version)
    assert r.error and "pool pool-1 is invalid: duplicate device name device-1" in r.error.message


def test_07_duplicate_slice_1_35_is_per_node():
    r = run([claim("claim-0", request("req-0"))], _duplicate(), version=35)
    assert r.error is None and not r.fits
    assert r.failure.scheduler_message == "invalid resource pools were encountered"


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_08_not_enough_suitable_devices(version):
    r = run(
        [claim("claim-0", request("req-0")), claim("claim-1", request("req-0"))],
        [slice_("slice-1", [one()])],
        version=version,
    )
    assert not r.fits and r.error is None
    # two requests, one device nobody else holds: proven by counting (dra/proofs.py), not "held"
    assert r.failure.kind == "proven-impossible" and r.steps == 0
    assert (r.failure.proof.kind, r.failure.proof.needed, r.failure.proof.available) == ("devices", 2, 1)


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_09_unknown_class(version):
    r = run(
        [claim("claim-0", request("req-0", "unknown-class"))], [slice_("slice-1", [one()])], version=version
    )
    assert "could not retrieve device class unknown-class" in r.error.message
    r = run([claim("claim-0", request("req-0"))], [slice_("slice-1", [one()])], version=version, cls={})
    assert "could not retrieve device class class-a" in r.error.message


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_10_empty_class(version):
    r = run([claim("claim-0", request("req-0", ""))], [slice_("slice-1", [one()])], version=version)
    assert (
        r.error.message
        == "claim claim-0, request req-0: missing device class name (unsupported request type?)"
    )


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_11_all_devices_many(version):
    slices = [slice_("slice-1", [one()]), slice_("slice-2", [one()], pool="pool-2")]
    r = run([claim("claim-0", request("req-0", mode="All", count=0))], slices, version=version)
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-2", "device-1")]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_12_all_devices_of_the_incomplete_pool(version):
    r = run(
        [claim("claim-0", request("req-0", mode="All"))],
        [slice_("slice-1", [one()], count=2)],
        version=version,
    )
    assert r.error.message == (
        "claim claim-0, request req-0: asks for all devices, but resource pool "
        "driver-a/pool-1 is currently being updated"
    )


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_13_all_devices_no_solution(version):
    claims = [claim("claim-1", request("req-0")), claim("claim-0", request("req-0", mode="All"))]
    r = run(claims, [slice_("slice-1", [one()])], version=version)
    assert not r.fits and r.error is None


@pytest.mark.parametrize("version", [33, 34, 35])
def test_14_all_devices_slice_without_devices(version):
    r = run([claim("claim-0", request("req-0", mode="All"))], [slice_("slice-1", [])], version=version)
    assert not r.fits and r.error is None


def test_14_all_devices_zero_devices_succeed_in_1_32():
    r = run([claim("claim-0", request("req-0", mode="All"))], [slice_("slice-1", [])], version=32)
    assert r.fits and r.results["claim-0"] == []


@pytest.mark.parametrize("version", [33, 34, 35])
def test_15_all_devices_some_allocated(version):
    slices = [slice_("slice-1", [one(), one("device-2")])]
    held = {("driver-a", "pool-1", "device-1")}
    r = run([claim("claim-0", request("req-0", mode="All"))], slices, version=version, allocated=held)
    assert not r.fits and r.error is None
    r = run(
        [claim("claim-0", request("req-0", mode="All", admin=True))],
        slices,
        version=version,
        allocated=held,
        features=Features(version=version, admin_access=True),
    )
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-1", "device-2")]
    assert all(x.admin_access for x in r.results["claim-0"])


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_16_already_allocated_devices(version):
    held = {("driver-a", "pool-1", "device-1"), ("driver-a", "pool-1", "device-2")}
    r = run(
        [claim("claim-0", request("req-0"))], [slice_("slice-1", [one()])], version=version, allocated=held
    )
    assert not r.fits and r.error is None and r.failure.kind == "exhausted"
    assert r.failure.holders == ["driver-a/pool-1/device-1"]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_17_admin_access(version):
    held = {("driver-a", "pool-1", "device-1")}
    c = [claim("claim-0", request("req-0", admin=True))]
    r = run(
        c,
        [slice_("slice-1", [one()])],
        allocated=held,
        features=Features(version=version, admin_access=False),
    )
    assert (
        r.error.message
        == "claim claim-0, request req-0: admin access is requested, but the feature is disabled"
    )
    r = run(
        c, [slice_("slice-1", [one()])], allocated=held, features=Features(version=version, admin_access=True)
    )
    assert picked(r) == [("req-0", "pool-1", "device-1")] and r.results["claim-0"][0].admin_access


ATTRS = {
    "numa": 1,
    "driverVersion": Version("1.0.0"),
    "stringAttribute": "stringAttributeValue",
    "boolAttribute": True,
}


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_18_with_constraint(version):
    c = claim(
        "claim-0",
        request("req-0"),
        request("req-1"),
        constraints=[
            match(f"driver-a/{a}") for a in ("numa", "driverVersion", "stringAttribute", "boolAttribute")
        ],
    )
    r = run([c], [slice_("slice-1", [one(attrs=ATTRS), one("device-2", attrs=ATTRS)])], version=version)
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1", "pool-1", "device-2")]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_19_with_constraint_non_existent_attribute(version):
    c = claim("claim-0", request("req-0"), constraints=[match("driver-a/NonExistentAttribute")])
    r = run([c], [slice_("slice-1", [one()])], version=version)
    assert not r.fits and r.error is None and r.failure.kind == "constraint"


@pytest.mark.parametrize(
    ("attr", "a", "b"),
    [
        ("numa", 1, 2),
        ("stringAttribute", "stringAttributeValue", "stringAttributeValue2"),
        ("boolAttribute", True, False),
        ("driverVersion", Version("1.0.0"), Version("2.0.0")),
    ],
)
@pytest.mark.parametrize("version", [32, 35])
def test_20_with_constraint_not_matching_attribute(version, attr, a, b):
    c = claim("claim-0", request("req-0", count=2), constraints=[match(f"driver-a/{attr}")])
    slices = [slice_("slice-1", [one(attrs={attr: a}), one("device-2", attrs={attr: b})])]
    r = run([c], slices, version=version)
    assert not r.fits and r.error is None and r.failure.kind == "constraint"
    # 21: the same with `All` is an error
    c = claim("claim-0", request("req-0", mode="All"), constraints=[match(f"driver-a/{attr}")])
    r = run([c], slices, version=version)
    assert r.error.message == (
        "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 "
        "because a claim constraint would not be satisfied"
    )


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_22_with_constraint_for_request_retry(version):
    c = claim(
        "claim-0",
        request("req-0"),
        request("req-1"),
        constraints=[match("driver-a/driverVersion", "req-0"), match("driver-a/stringAttribute")],
    )
    devices = [
        one("device-1", attrs={"driverVersion": Version("1.0.0"), "stringAttribute": "a"}),
        one("device-2", attrs={"driverVersion": Version("2.0.0"), "stringAttribute": "b"}),
        one("device-3", attrs={"driverVersion": Version("3.0.0"), "stringAttribute": "b"}),
    ]
    r = run([c], [slice_("slice-1", devices)], version=version)
    assert picked(r) == [("req-0", "pool-1", "device-2"), ("req-1", "pool-1", "device-3")]


def _network_slices():
    def sel(key, op, *values, field=False):
        req = {"key": key, "operator": op, "values": list(values)}
        return {"nodeSelectorTerms": [{"matchFields" if field else "matchExpressions": [req]}]}

    return [
        slice_("slice-1", [one()], pool="pool-1", node_selector=sel("region", "In", "region-1")),
        slice_("slice-2", [one()], pool="pool-2", all_nodes=True),
        slice_("slice-3", [one()], pool="pool-3", node_selector=sel("planet", "In", "earth")),
        slice_(
            "slice-4", [one()], pool="pool-4", node_selector=sel("metadata.name", "In", "node-1", field=True)
        ),
    ]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_23_many_network_attached_devices(version):
    r = run([claim("claim-0", request("req-0", count=4))], _network_slices(), version=version)
    assert [p for _, p, _ in picked(r)] == ["pool-1", "pool-2", "pool-3", "pool-4"]
    term = r.node_selectors["claim-0"]["nodeSelectorTerms"][0]
    assert [e["key"] for e in term["matchExpressions"]] == ["region", "planet"]
    assert term["matchFields"][0]["key"] == "metadata.name"


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_24_local_and_network_attached_devices(version):
    slices = [_network_slices()[0], slice_("slice-5", [one()], pool="pool-5")]
    r = run([claim("claim-0", request("req-0", count=2))], slices, version=version)
    assert len(r.results["claim-0"]) == 2 and r.node_selectors["claim-0"] == LOCAL_1


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_25_invalid_cel_one_device(version):
    r = run(
        [claim("claim-0", request("req-0", "class-a", 1, "noSuchVar"))],
        [slice_("slice-1", [one()])],
        version=version,
    )
    assert "undeclared reference" in r.error.message
    assert r.error.message.startswith("claim claim-0: selector #0: CEL compile error: ")


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_26_too_many_devices(version):
    r = run([claim("claim-0", request("req-0", count=500))], [slice_("slice-1", [one()])], version=version)
    assert r.error.message == "claim claim-0: number of requested devices 500 exceeds the claim limit of 32"
    r = run(
        [claim("claim-0", request("req-0", count=32), request("req-1"))],
        [slice_("slice-1", [one()])],
        version=version,
    )
    assert "exceeds the claim limit" in r.error.message


@pytest.mark.parametrize("version", [34, 35])
def test_27_prioritized_list_first_unavailable(version):
    c = claim(
        "claim-0",
        first_available("req-0", exact("class-b", name="subReq-0"), exact("class-a", name="subReq-1")),
    )
    r = run([c], [slice_("slice-1", [one()])], version=version)
    assert picked(r) == [("req-0/subReq-1", "pool-1", "device-1")]


def test_28_prioritized_list_subrequests_with_expressions():
    ge4 = 'device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0'
    c = claim(
        "claim-0",
        request("req-0", "class-a", 1, GE_1GI),
        first_available(
            "req-1", exact("class-a", 1, ge4, name="subReq-0"), exact("class-a", 2, GE_2GI, name="subReq-1")
        ),
    )
    devices = [
        one("device-1", capacity={"memory": "2Gi"}),
        one("device-2", capacity={"memory": "2Gi"}),
        one("device-3", capacity={"memory": "1Gi"}),
    ]
    r = run([c], [slice_("slice-1", devices)], features=Features(version=33, prioritized_list=True))
    assert picked(r) == [
        ("req-0", "pool-1", "device-3"),
        ("req-1/subReq-1", "pool-1", "device-1"),
        ("req-1/subReq-1", "pool-1", "device-2"),
    ]


@pytest.mark.parametrize("version", [34, 35])
def test_29_prioritized_list_with_backtracking(version):
    ge8 = 'device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0'
    ge4 = 'device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0'
    c = claim(
        "claim-0",
        first_available(
            "req-0", exact("class-a", 1, ge8, name="subReq-0"), exact("class-a", 1, ge4, name="subReq-1")
        ),
        request("req-1", "class-a", 1, ge8),
    )
    slices = [
        slice_("slice-1", [one("device-1", capacity={"memory": "8Gi"})]),
        slice_("slice-2", [one("device-2", capacity={"memory": "4Gi"})], pool="pool-2"),
    ]
    r = run([c], slices, version=version)
    assert picked(r) == [("req-0/subReq-1", "pool-2", "device-2"), ("req-1", "pool-1", "device-1")]


@pytest.mark.parametrize("version", [33, 34, 35])
def test_30_prioritized_list_disabled(version):
    c = claim("claim-0", first_available("req-0", exact(name="subReq-0")))
    r = run([c], [slice_("slice-1", [one()])], features=Features(version=version, prioritized_list=False))
    assert r.error.message == (
        "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled"
    )


TAINT_1 = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINT_2 = {"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}


@pytest.mark.parametrize("version", [33, 34, 35])
def test_31_tainted_two_devices(version):
    slices = [slice_("slice-1", [one(taints=[TAINT_1]), one("device-2", taints=[TAINT_2])])]
    f = Features(version=version, device_taints=True)
    r = run([claim("claim-0", request("req-0"))], slices, features=f)
    assert not r.fits and r.error is None and r.failure.kind == "tainted"
    tol = {"operator": "Equal", "key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
    r = run([claim("claim-0", request("req-0", tolerations=[tol]))], slices, features=f)
    assert picked(r) == [("req-0", "pool-1", "device-2")]


def test_32_tainted_no_effect_1_35():
    slices = [slice_("slice-1", [one(taints=[{"key": "k", "value": "v", "effect": "None"}])])]
    r = run([claim("claim-0", request("req-0"))], slices, features=Features(version=35, device_taints=True))
    assert picked(r) == [("req-0", "pool-1", "device-1")]
    r = run([claim("claim-0", request("req-0"))], slices, features=Features(version=34, device_taints=True))
    assert not r.fits


def test_34_with_distinct_constraints():
    attrs = [
        {"boolAttribute": b, "driverVersion": Version(v), "numa": n}
        for b, v, n in ((True, "1.0.0", 1), (False, "2.0.0", 2), (True, "3.0.0", 3), (False, "4.0.0", 4))
    ]
    c = claim(
        "claim-0",
        *(request(f"req-{i}") for i in range(4)),
        constraints=[
            distinct("driver-a/boolAttribute", "req-0", "req-1"),
            distinct("driver-a/driverVersion", "req-0", "req-1", "req-2"),
            distinct("driver-a/numa", "req-0", "req-1", "req-2", "req-3"),
        ],
    )
    slices = [slice_("slice-1", [one(f"device-{i + 1}", attrs=a) for i, a in enumerate(attrs)])]
    r = run([c], slices, features=Features(version=34, consumable_capacity=True))
    assert picked(r) == [(f"req-{i}", "pool-1", f"device-{i + 1}") for i in range(4)]
    r = run([c], slices, version=34)
    assert r.error.message == "claim claim-0, constraint #0: empty constraint (unsupported constraint type?)"


def test_35_invalid_pools_1_35():
    dup = [slice_("slice-1", [one()], count=2), slice_("slice-2", [one()], count=2)]
    other = slice_("slice-3", [one("device-2")], pool="pool-2")
    r = run([claim("claim-0", request("req-0"))], [*dup, other], version=35)
    assert picked(r) == [("req-0", "pool-2", "device-2")]
    r = run(
        [claim("claim-0", request("req-0"))],
        [*dup, other],
        version=35,
        allocated={("driver-a", "pool-2", "device-2")},
    )
    assert not r.fits and r.failure.scheduler_message == "invalid resource pools were encountered"


def test_36_no_allocation_from_incomplete_pools_1_35():
    r = run([claim("claim-0", request("req-0"))], [slice_("slice-1", [one()], count=2)], version=35)
    assert not r.fits and r.error is None and r.failure.kind == "incomplete-pool"


@pytest.mark.parametrize("version", [32, 33, 34])
def test_36_incomplete_pool_is_used_before_1_35(version):
    r = run([claim("claim-0", request("req-0"))], [slice_("slice-1", [one()], count=2)], version=version)
    assert r.fits
