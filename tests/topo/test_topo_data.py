"""`topo -o json` as data: its counts agree with the allocator simulation `why` uses, and
`closest_node` picks the node `why` should draw."""

from __future__ import annotations

import pytest

from kubectl_rbln.app.topo import node_view
from kubectl_rbln.diagnose.context import pod_context
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.simulation import allocated_devices, short_reason
from kubectl_rbln.diagnose.topology import REFERENCE_RCT, closest_node
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.allocator import ClaimToAllocate, allocate, simulate_cluster
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.topo_text import render_node
from testing.synthetic import ClusterBuilder
from tests.topo.topo_cases import CASES, NAMESPACE, case_snapshot, topology_of

EXPECTED_FITS = {
    "healthy": 2,
    "half-allocated": 1,
    "one-nic-per-numa": 0,
    "nics-without-numa": 0,
    "rdma-disabled": 0,
}


def simulate(snapshot, claims: int):
    """The allocator on every node with `claims` Pods of the RCT at once, around the held devices."""
    spec = snapshot.template(NAMESPACE, REFERENCE_RCT).spec
    wanted = [ClaimToAllocate(NAMESPACE, f"virtual-{i}", spec) for i in range(claims)]
    features = allocator_features(choose_features(snapshot, None, None))
    nodes = [snapshot.nodes["npu-node-01"]]
    return simulate_cluster(
        nodes, snapshot.slices, snapshot.device_classes, wanted, allocated_devices(snapshot, set()), features
    )[0]


@pytest.mark.parametrize("name", list(CASES))
def test_pods_fit_is_the_most_claims_the_simulation_places_together(name):
    snapshot = case_snapshot(name)
    node = topology_of(snapshot).to_dict()["nodes"][0]
    fits = node["summary"]["podsFit"]
    assert fits == EXPECTED_FITS[name]
    if fits:
        assert simulate(snapshot, fits).fits
    assert not simulate(snapshot, fits + 1).fits


@pytest.mark.parametrize("name", list(CASES))
def test_reason_is_the_simulations_first_reason(name):
    snapshot = case_snapshot(name)
    summary = topology_of(snapshot).to_dict()["nodes"][0]["summary"]
    if summary["podsFit"] == 0:
        assert summary["nextFailsBecause"] == short_reason(simulate(snapshot, 1))


def _devices(node):
    groups = node["numaNodes"] + [{"pcieRoots": node["unplaced"]}]
    return [d for g in groups for r in g["pcieRoots"] for d in r["devices"]]


@pytest.mark.parametrize("name", list(CASES))
def test_counts_agree_with_the_simulations_candidates(name):
    snapshot = case_snapshot(name)
    node = topology_of(snapshot).to_dict()["nodes"][0]
    devices = _devices(node)
    on_node = [d for s in snapshot.slices if s.node_name == "npu-node-01" for d in s.devices]
    assert len(devices) == len(on_node) == sum(node["counts"].values())
    held = {r.key for c in snapshot.claims if c.allocation for r in c.allocation.results}
    assert node["counts"]["held"] == len(held)
    result = simulate(snapshot, 1)
    lacking = set(result.failure.lacking) if result.failure else set()
    for (_, request), counts in result.candidates.items():
        usable = [d for d in devices if d["state"] == "free" and d.get("request") == request]
        gap = [
            d
            for d in devices
            if f"{d['driver']}/{d['pool']}/{d['name']}" in lacking
            and d["driver"] in counts.drivers
            and d["reason"].startswith("no ")
        ]
        assert len(usable) + len(gap) == counts.free, (request, counts)


def test_devices_lacking_the_match_attribute_are_the_ones_the_simulation_lists():
    snapshot = case_snapshot("nics-without-numa")
    node = topology_of(snapshot).to_dict()["nodes"][0]
    unplaced = {
        f"{d['driver']}/{d['pool']}/{d['name']}"
        for r in node["unplaced"]
        for d in r["devices"]
        if d.get("reason") == "no numaNode"
    }
    assert unplaced == set(simulate(snapshot, 1).failure.lacking)


def test_json_names_place_holder_and_next_pod():
    node = topology_of(case_snapshot("half-allocated")).to_dict()["nodes"][0]
    assert [g["numaNode"] for g in node["numaNodes"]] == [0, 1]
    rbln0 = next(d for d in _devices(node) if d["name"] == "rbln0")
    assert rbln0["state"] == "held" and rbln0["heldBy"]["pod"].startswith("serving/coder-prefill-")
    rbln4 = next(d for d in _devices(node) if d["name"] == "rbln4")
    assert (rbln4["state"], rbln4["request"], rbln4["nextPod"]) == ("free", "npu", 1)
    assert rbln4["pcieRoot"] == "pci0000:97" and rbln4["numaNode"] == 1
    eno1 = next(d for d in _devices(node) if d["label"] == "eno1")
    assert (eno1["state"], eno1["reason"]) == ("unusable", "rdma=false")


def _why_rows(**knobs):
    builder = ClusterBuilder(0, **knobs)
    snapshot = build_snapshot(builder.build())
    pod = snapshot.pod(*builder.target_pod())
    features = allocator_features(choose_features(snapshot, None, None))
    return diagnose_pod(snapshot, pod, WhyOptions(features=features)).to_dict()["nodes"]


def test_closest_node_is_the_one_missing_fewest_devices():
    # npu-node-01 has NUMA 0 taken, so it lacks a NIC; npu-node-02 has the counts but not the constraint
    rows = _why_rows(npu_nodes=2, nics_per_numa=1, prefill_running=1, decode_running=0)
    assert {r["name"]: r["fits"] for r in rows if r["name"].startswith("npu")} == {
        "npu-node-01": False,
        "npu-node-02": False,
    }
    assert closest_node(rows) == "npu-node-02"


def test_closest_node_prefers_usable_nodes_and_skips_nodes_without_devices():
    rows = [
        {"name": "cp-01", "fits": None, "candidates": {"c/npu": {"needed": 4, "free": 0, "onNode": 0}}},
        {"name": "a", "fits": None, "candidates": {"c/npu": {"needed": 4, "free": 4, "onNode": 8}}},
        {"name": "b", "fits": False, "candidates": {"c/npu": {"needed": 4, "free": 1, "onNode": 8}}},
        {"name": "c", "fits": False, "candidates": {"c/npu": {"needed": 4, "free": 3, "onNode": 8}}},
    ]
    assert closest_node(rows) == "c"
    assert closest_node(rows[:1]) is None
    assert closest_node([]) is None
    fitting = {"name": "d", "fits": True, "candidates": {"c/npu": {"needed": 4, "free": 4, "onNode": 8}}}
    assert closest_node([*rows, fitting]) is None  # the devices fit: nothing to draw


def test_why_hook_draws_the_closest_node_with_the_pods_claim():
    """The call `why` makes (see render_node_drawing): rows -> closest node -> its drawing."""
    builder = ClusterBuilder(0, npu_nodes=2, nics_per_numa=1, prefill_running=1, decode_running=0)
    snapshot = build_snapshot(builder.build())
    pod = snapshot.pod(*builder.target_pod())
    features = allocator_features(choose_features(snapshot, None, None))
    rows = diagnose_pod(snapshot, pod, WhyOptions(features=features)).to_dict()["nodes"]
    claim = pod_context(snapshot, pod).unallocated[0]
    view = node_view(
        snapshot,
        closest_node(rows),
        namespace=pod.namespace,
        spec=claim.spec,
        rct=claim.ref.resource_claim_template_name,
        features=features,
    )
    drawing = render_node(view.topology, view.rct)
    assert drawing.startswith("npu-node-02: 0 more Pods of serving/npu-rdma fit\n  why not: matchAttribute")
    assert max(len(line) for line in drawing.splitlines()) <= 100


def _allocator_calls(call):
    """How often `call()` enters the allocator module (profiled, nothing patched)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.runcall(call)
    return sum(
        count
        for func, (count, *_rest) in pstats.Stats(profile).stats.items()
        if func[0].endswith("dra/allocator.py") and func[2] == "allocate"
    )


def test_why_drawing_from_its_own_simulation_runs_no_allocator():
    """Given why's NodeResult for the node, the drawing is the same but for the "more Pods" count."""
    builder = ClusterBuilder(0, npu_nodes=2, nics_per_numa=1, prefill_running=1, decode_running=0)
    snapshot = build_snapshot(builder.build())
    pod = snapshot.pod(*builder.target_pod())
    features = allocator_features(choose_features(snapshot, None, None))
    claim = pod_context(snapshot, pod).unallocated[0]
    node = snapshot.nodes["npu-node-02"]
    slices = [s for s in snapshot.slices if s.node_name in (node.name, None)]
    held = {r.key for c in snapshot.claims if c.allocation for r in c.allocation.results}
    to_allocate = ClaimToAllocate(pod.namespace, claim.claim_name or "c", claim.spec)
    result = allocate(node, [to_allocate], slices, snapshot.device_classes, held, features)
    how = dict(
        namespace=pod.namespace,
        spec=claim.spec,
        rct=claim.ref.resource_claim_template_name,
        features=features,
    )
    simulated = node_view(snapshot, "npu-node-02", **how)
    assert _allocator_calls(lambda: node_view(snapshot, "npu-node-02", **how)) > 0
    assert _allocator_calls(lambda: node_view(snapshot, "npu-node-02", result=result, **how)) == 0
    given = node_view(snapshot, "npu-node-02", result=result, **how)
    assert not result.fits and given.topology.summary.pods == 0
    assert render_node(given.topology, given.rct) == render_node(simulated.topology, simulated.rct)
    unknown = node_view(snapshot, "npu-node-02", simulate=False, **how)
    drawn = render_node(unknown.topology, unknown.rct)
    assert drawn.startswith("npu-node-02: devices for serving/npu-rdma\n")
