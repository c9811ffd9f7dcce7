"""Pool gathering for one node (dra-facts.md §2.3): which slices count, generations, incomplete and
invalid pools, and the node selectors a network-attached slice may carry."""

from __future__ import annotations

import pytest

from kubectl_rbln.dra.pools import PoolError, gather_pools, node_selector_matches, slice_totals

from .raw import NPU, node, raw_device, slice_

NODE_1 = node("node-1", region="region-1", planet="earth", gpus="8")


def gather(slices, version=34, n=NODE_1, **kw):
    return gather_pools(n, slices, version=version, **kw)


def names(pool):
    return [d.name for d in pool.devices]


def test_pool_collects_every_slice_of_the_node_in_order():
    slices = [
        slice_("s1", [raw_device("rbln0")], count=2),
        slice_("other-node", [raw_device("rbln9")], node="node-2", pool="node-2"),
        slice_("s2", [raw_device("rbln1")], count=2),
    ]
    [pool] = gather(slices)
    assert pool.id == f"{NPU}/node-1"
    assert names(pool) == ["rbln0", "rbln1"]
    assert not pool.incomplete and pool.invalid_reason is None


def test_pools_are_per_driver_and_pool_name():
    slices = [
        slice_("npu", [raw_device("d0")]),
        slice_("nic", [raw_device("d0")], driver="dra.net"),
    ]
    pools = gather(slices)
    assert [p.id for p in pools] == [f"{NPU}/node-1", "dra.net/node-1"]
    assert all(p.invalid_reason is None for p in pools)  # the same device name in two drivers is fine


@pytest.mark.parametrize("newer_first", [False, True])
def test_only_the_highest_generation_is_kept(newer_first):
    old = slice_("old", [raw_device("rbln0")], generation=1)
    new = slice_("new", [raw_device("rbln1")], generation=2)
    [pool] = gather([new, old] if newer_first else [old, new])
    assert [s.name for s in pool.slices] == ["new"]
    assert names(pool) == ["rbln1"]
    assert not pool.incomplete


def test_fewer_slices_than_resource_slice_count_is_incomplete():
    [pool] = gather([slice_("s1", [raw_device("rbln0")], count=2)])
    assert pool.incomplete


def test_more_slices_than_resource_slice_count_is_incomplete_too():
    slices = [slice_("s1", [raw_device("a")]), slice_("s2", [raw_device("b")])]
    [pool] = gather(slices)
    assert pool.incomplete


def test_repeated_device_name_makes_the_pool_invalid():
    slices = [slice_("s1", [raw_device("rbln0")], count=2), slice_("s2", [raw_device("rbln0")], count=2)]
    [pool] = gather(slices)
    assert pool.invalid_reason == "duplicate device name rbln0"
    assert not pool.incomplete


def test_1_35_counts_slices_that_target_other_nodes():
    """A pool spread over a node-1 slice and a node-2 slice: before 1.35 node-1 sees one slice of two
    (incomplete); 1.35 re-checks against every slice of the pool (complete)."""
    slices = [
        slice_("s1", [raw_device("a")], pool="shared", count=2),
        slice_("s2", [raw_device("b")], pool="shared", node="node-2", count=2),
    ]
    totals = slice_totals(slices)
    assert totals == {((NPU, "shared"), 1): 2}
    [before] = gather(slices, version=34, totals=totals)
    [after] = gather(slices, version=35, totals=totals)
    assert before.incomplete and not after.incomplete


def test_all_nodes_and_selector_slices_target_the_node():
    selector = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": ["region-1"]}]}
        ]
    }
    slices = [
        slice_("everywhere", [raw_device("a")], pool="p1", allNodes=True),
        slice_("region", [raw_device("b")], pool="p2", nodeSelector=selector),
        slice_("nowhere", [raw_device("c")], pool="p3", node=None),  # no node selection field at all
    ]
    assert [p.name for p in gather(slices)] == ["p1", "p2"]
    assert [p.name for p in gather(slices, n=node("node-2", region="region-2"))] == ["p1"]


def test_partitionable_slices_are_ignored_while_the_gate_is_off():
    counters = [{"name": "counter-set-1", "counters": {"memory": {"value": "8Gi"}}}]
    s = slice_("s", [raw_device("a")], sharedCounters=counters)
    for version in (33, 35, 36):
        assert gather([s], version=version) == []
        assert [p.name for p in gather([s], version=version, partitionable=True)] == ["node-1"]
    # 1.34 drops only perDeviceNodeSelection slices (pools_incubating.go GatherPools, v0.34.0..v0.34.9);
    # its allocator then refuses the devices that consume counters (allocator_incubating.go)
    assert [p.name for p in gather([s], version=34)] == ["node-1"]


def test_per_device_node_selection():
    s = slice_(
        "s",
        [raw_device("here", nodeName="node-1"), raw_device("there", nodeName="node-2")],
        perDeviceNodeSelection=True,
    )
    assert gather([s], partitionable=False) == []
    assert len(gather([s], partitionable=True)) == 1
    assert gather([s], n=node("node-3"), partitionable=True) == []


def term(*exprs, fields=()):
    return {"nodeSelectorTerms": [{"matchExpressions": list(exprs), "matchFields": list(fields)}]}


def req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        (term(req("region", "In", "region-1", "region-9")), True),
        (term(req("region", "NotIn", "region-1")), False),
        (term(req("zone", "NotIn", "a")), True),  # a missing label is not in any set
        (term(req("planet", "Exists")), True),
        (term(req("zone", "DoesNotExist")), True),
        (term(req("gpus", "Gt", "4")), True),
        (term(req("gpus", "Lt", "4")), False),
        (term(req("region", "Gt", "4")), False),  # not a number: no match, no error
        (term(req("region", "In", "region-1"), req("planet", "In", "mars")), False),  # ANDed
        (term(fields=[req("metadata.name", "In", "node-1")]), True),
        (term(fields=[req("metadata.name", "NotIn", "node-1")]), False),
        ({"nodeSelectorTerms": [{}]}, False),  # an empty term matches nothing
        (
            {"nodeSelectorTerms": [{}, term(req("planet", "In", "earth"))["nodeSelectorTerms"][0]]},
            True,
        ),  # ORed
        ({}, False),
    ],
)
def test_node_selector_semantics(selector, matches):
    assert node_selector_matches(selector, NODE_1, "s") is matches


def test_unknown_operator_and_field_key_are_allocator_errors():
    with pytest.raises(PoolError, match='slice s: "Near" is not a valid label selector operator'):
        node_selector_matches(term(req("region", "Near", "x")), NODE_1, "s")
    with pytest.raises(PoolError, match='"metadata.uid" is not a valid field selector key'):
        node_selector_matches(term(fields=[req("metadata.uid", "In", "x")]), NODE_1, "s")
