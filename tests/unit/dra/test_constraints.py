"""matchAttribute / distinctAttribute and taint tolerations, as the allocator checks one device at a time.

dra-facts.md §2.8: all devices of the covered requests must carry the attribute with the same type and
value (a device without it is rejected); distinctAttribute remembers one value per request name.
"""

from __future__ import annotations

import pytest

from kubectl_rbln.dra.constraints import (
    DistinctAttribute,
    MatchAttribute,
    applies,
    blocking_taints,
    lookup_attribute,
    toleration_matches,
)
from kubectl_rbln.dra.model import Version

from .raw import NPU, NUMA, device

MODEL = f"{NPU}/productName"


def test_unqualified_slice_attribute_is_found_under_the_driver_domain():
    d = device("rbln0", {"productName": "RBLN-CA25", NUMA: 0})
    assert lookup_attribute(d, MODEL) == "RBLN-CA25"
    assert lookup_attribute(d, NUMA) == 0
    # another domain is only an exact name, never the driver's unqualified id
    assert lookup_attribute(d, "other.example.com/productName") is None


def test_match_first_device_fixes_the_value():
    c = MatchAttribute(NUMA, [])
    assert c.add("npu", "", device("rbln0", {NUMA: 0}))
    assert c.add("npu", "", device("rbln1", {NUMA: 0}))
    assert not c.add("npu", "", device("rbln4", {NUMA: 1}))


def test_match_rejects_a_device_lacking_the_attribute():
    c = MatchAttribute(NUMA, [])
    assert not c.add("npu", "", device("nic0", {"rdma": True}))
    assert c.add("npu", "", device("rbln0", {NUMA: 0}))
    assert not c.add("npu", "", device("nic1", {"rdma": True}))


def test_an_attribute_with_two_value_types_matches_nothing():
    bad = device("rbln0", {NUMA: {"int": 0, "string": "0"}})
    assert lookup_attribute(bad, NUMA) is None
    assert not MatchAttribute(NUMA, []).add("npu", "", bad)
    assert not DistinctAttribute(NUMA, []).add("npu", "", bad)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (1, True),  # int 1 is not bool true
        (0, "0"),  # int 0 is not string "0"
        (("version", "1.0.0"), "1.0.0"),  # a version is not the string with the same text
        (("version", "1.0.0"), ("version", "1.0")),  # versions compare as text, not as semver
    ],
    ids=["int-vs-bool", "int-vs-string", "version-vs-string", "version-text"],
)
def test_match_compares_type_and_value(first, second):
    c = MatchAttribute("npu.rebellions.ai/x", [])
    assert c.add("npu", "", device("a", {"x": first}))
    assert not c.add("npu", "", device("b", {"x": second}))


def test_equal_versions_and_typed_values_match():
    a, b = device("a", {"v": ("version", "1.2.3")}), device("b", {"v": ("version", "1.2.3")})
    assert lookup_attribute(a, f"{NPU}/v") == Version("1.2.3")
    c = MatchAttribute(f"{NPU}/v", [])
    assert c.add("npu", "", a) and c.add("npu", "", b)


def test_match_only_covers_the_named_requests_and_subrequests():
    c = MatchAttribute(NUMA, ["npu", "nic/rdma"])
    assert c.add("npu", "", device("rbln0", {NUMA: 0}))
    # a request not in the list is never checked, even without the attribute
    assert c.add("other", "", device("x", {}))
    # the subrequest named in full is covered; another subrequest of the same parent is not
    assert not c.add("nic", "rdma", device("nic1", {NUMA: 1}))
    assert c.add("nic", "tcp", device("nic2", {NUMA: 1}))


def test_applies():
    assert applies([], "anything", "")
    assert applies(["nic"], "nic", "rdma")  # the parent name covers whichever subrequest is chosen
    assert applies(["nic/rdma"], "nic", "rdma")
    assert not applies(["nic/rdma"], "nic", "")
    assert not applies(["npu"], "nic", "")


def test_match_forgets_its_value_once_every_device_is_removed():
    c = MatchAttribute(NUMA, [])
    d0, d1 = device("rbln0", {NUMA: 0}), device("rbln4", {NUMA: 1})
    assert c.add("npu", "", d0)
    assert not c.add("npu", "", d1)
    c.remove("npu", "", d0)
    assert c.add("npu", "", d1)  # backtracking off rbln0 lets NUMA 1 fix the value
    assert c.state() == ("m", ("int", 1))


def test_distinct_rejects_a_repeated_value_and_a_missing_attribute():
    root = "resource.kubernetes.io/pcieRoot"
    c = DistinctAttribute(root, [])
    assert c.add("nic-a", "", device("nic0", {root: "pci0000:4a"}))
    assert not c.add("nic-b", "", device("nic1", {root: "pci0000:4a"}))
    assert c.add("nic-b", "", device("nic2", {root: "pci0000:5b"}))
    assert not c.add("nic-c", "", device("nic3", {}))


def test_distinct_keeps_only_the_latest_value_per_request_as_upstream():
    """Upstream remembers values per request name: with count 3, the third device is only compared
    against the second (dra-facts.md §2.8), so a, b, a is accepted."""
    root = "resource.kubernetes.io/pcieRoot"
    c = DistinctAttribute(root, [])
    assert c.add("nic", "", device("n0", {root: "a"}))
    assert not c.add("nic", "", device("n1", {root: "a"}))
    assert c.add("nic", "", device("n2", {root: "b"}))
    assert c.add("nic", "", device("n3", {root: "a"}))


def test_distinct_remove_forgets_the_request():
    c = DistinctAttribute(NUMA, [])
    d0 = device("rbln0", {NUMA: 0})
    assert c.add("a", "", d0)
    c.remove("a", "", d0)
    assert c.add("b", "", device("rbln1", {NUMA: 0}))


TAINT = {"key": "rebellions.ai/unhealthy", "value": "ecc", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("toleration", "tolerated"),
    [
        ({"key": "rebellions.ai/unhealthy", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),  # empty key and effect: every taint
        ({"key": "rebellions.ai/unhealthy", "value": "ecc"}, True),  # operator defaults to Equal
        ({"key": "rebellions.ai/unhealthy", "operator": "Equal", "value": "other"}, False),
        ({"key": "rebellions.ai/unhealthy", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "other", "operator": "Exists"}, False),
    ],
)
def test_toleration_matching(toleration, tolerated):
    assert toleration_matches(toleration, TAINT) is tolerated


def test_taints_that_block_differ_from_1_35():
    d = device("rbln0", {}, taints=[TAINT, {"key": "maintenance", "effect": "None"}])
    assert blocking_taints(d, [], 34) == d.taints
    assert blocking_taints(d, [], 35) == [TAINT]  # effect None is ignored from 1.35
    assert blocking_taints(d, [{"key": "rebellions.ai/unhealthy", "operator": "Exists"}], 35) == []
    assert blocking_taints(d, [{"operator": "Exists"}], 34) == []
