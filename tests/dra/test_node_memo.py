"""Nodes that differ only by their names share one allocator run, and every answer stays the same.

`simulate_cluster(..., memo=False)` runs the allocator on every node (the reference); with the memo
a node is answered from the first node of its signature (dra/node_memo.py). Both must give equal
NodeResults for every scenario in every API shape and for generated clusters in each failure mode.
"""

from __future__ import annotations

import dataclasses

import pytest

from kubectl_rbln.diagnose.context import pod_context
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.simulation import (
    allocated_devices,
    capacity_in_use,
    claims_to_allocate,
    node_row,
    simulate_pod,
)
from kubectl_rbln.dra import node_memo
from kubectl_rbln.dra.allocator import simulate_cluster
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.scenarios import SCENARIOS

SHAPES = ("v1", "v1beta2", "v1beta1")


def simulate(snapshot, namespace, name, **kwargs):
    """The pending Pod's simulation on every node, as `why` runs it."""
    pod = snapshot.pod(namespace, name)
    assert pod is not None
    features = allocator_features(choose_features(snapshot, None, None))
    claims = [c for _, c in claims_to_allocate(pod_context(snapshot, pod, features))]
    own = {f"{c.namespace}/{c.name}" for c in claims}
    return simulate_cluster(
        sorted(snapshot.nodes.values(), key=lambda n: n.name),
        snapshot.slices,
        snapshot.device_classes,
        claims,
        allocated_devices(snapshot, own, features.consumable_capacity),
        features,
        capacity_in_use=capacity_in_use(snapshot, own, features.consumable_capacity),
        **kwargs,
    )


def comparable(results):
    """NodeResults with each allocator error as its message (exceptions compare by identity)."""
    return [dataclasses.replace(r, error=r.error.message if r.error else None) for r in results]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=lambda s: s.name)
def test_every_scenario_the_same_with_and_without_the_memo(scenario, shape):
    snapshot = build_snapshot(scenario.build(shape))
    shared = simulate(snapshot, *scenario.pending_pod)
    assert comparable(shared) == comparable(simulate(snapshot, *scenario.pending_pod, memo=False))


KNOBS = {
    "every-device-held": {},
    "fits": {"decode_running": 0},
    "half-held": {"decode_running": 6},
    "rdma-off": {"nic_rdma": False, "decode_running": 0},
    "nic-numa-missing": {"nic_numa_standard": False, "decode_running": 0},
    "npu-numa-missing": {"npu_numa": False, "npu_numa_mirror": False, "decode_running": 0},
    "shared-roots": {"nics_share_pcie_root": True, "decode_running": 2},
    "incomplete-pools": {"incomplete_pools": ("dra.net",), "decode_running": 0},
    "tainted": {"device_node_taint": ("maint", "x", "NoSchedule"), "decode_running": 0},
    "dranet-numa-selector": {"npu_selector_dranet_numa": 1, "decode_running": 0},
}


def _generated(knobs: dict, shape: str = "v1"):
    base = Knobs(npu_nodes=8, prefill_running=0, prefill_pending=0, decode_pending=1, captures=False)
    builder = ClusterBuilder(3, shape, base.replace(**{"decode_running": 16, **knobs}))
    snapshot = build_snapshot(list(builder.iter_objects()))
    pending = next(p for p in snapshot.pods if p.phase == "Pending")
    return snapshot, (pending.namespace, pending.name)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", list(KNOBS), ids=str)
def test_generated_clusters_the_same_with_and_without_the_memo(case, shape):
    snapshot, pending = _generated(KNOBS[case], shape)
    shared = simulate(snapshot, *pending)
    alone = simulate(snapshot, *pending, memo=False)
    assert comparable(shared) == comparable(alone)
    for result in shared:  # each node's own names: its pool in every device id and allocation
        names = [
            *(result.failure.holders if result.failure else []),
            *(result.failure.lacking if result.failure else []),
        ]
        names += [f"{r.driver}/{r.pool}/{r.device}" for rs in result.results.values() for r in rs]
        assert all(f"/{result.node}" in n for n in names if "/npu-node-" in n), (result.node, names)


def test_a_uniform_cluster_runs_the_allocator_once_per_kind_of_node():
    """Eight identical nodes, every device held: one run, seven answers shared."""
    snapshot, (namespace, name) = _generated({})
    pod = snapshot.pod(namespace, name)
    features = allocator_features(choose_features(snapshot, None, None))
    claims = [c for _, c in claims_to_allocate(pod_context(snapshot, pod, features))]
    allocated = allocated_devices(snapshot, set(), features.consumable_capacity)
    memo = node_memo.NodeMemo([c.spec for c in claims], snapshot.device_classes, False, allocated, {})
    nodes = sorted(snapshot.nodes.values(), key=lambda n: n.name)
    results = simulate_cluster(
        nodes, snapshot.slices, snapshot.device_classes, claims, allocated, features, memo=memo
    )
    npu_nodes = [r for r in results if r.node.startswith("npu-node-")]
    assert len(npu_nodes) == 8 and memo.hits == 7
    assert {r.failure.kind for r in npu_nodes if r.failure} == {"exhausted"}


def _rows_both_ways(snapshot, namespace, name):
    """The nodes[] rows `why` prints (shared between nodes of one result), and each made alone."""
    pod = snapshot.pod(namespace, name)
    features = allocator_features(choose_features(snapshot, None, None))
    facts = simulate_pod(pod_context(snapshot, pod, features))
    return facts.rows, [node_row(r, facts.excluded[r.node]) for r in facts.results]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=lambda s: s.name)
def test_every_scenario_prints_the_rows_each_node_would_have_alone(scenario, shape):
    snapshot = build_snapshot(scenario.build(shape))
    shared, alone = _rows_both_ways(snapshot, *scenario.pending_pod)
    assert shared == alone


@pytest.mark.parametrize("case", list(KNOBS), ids=str)
def test_generated_clusters_print_the_rows_each_node_would_have_alone(case):
    snapshot, pending = _generated(KNOBS[case])
    shared, alone = _rows_both_ways(snapshot, *pending)
    assert shared == alone and len({row["name"] for row in shared}) == len(shared)
