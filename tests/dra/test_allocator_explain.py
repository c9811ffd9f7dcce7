"""Explanations for the reference workload: 4 Rebellions NPUs + 2 RoCE NICs on one NUMA node."""

from __future__ import annotations

import pytest
from dra_factories import claim, distinct, klass, match, node, request, slice_
from dra_factories import device as make_device

from kubectl_rbln.dra.allocator import Features, allocate, simulate_cluster

NPU = "npu.rebellions.ai"
NET = "dra.net"
NUMA = "resource.kubernetes.io/numaNode"
ROOT = "resource.kubernetes.io/pcieRoot"
NIC_SELECTOR = (
    'device.attributes["dra.net"].rdma == true && device.attributes["dra.net"].pciSubsystem == "9140"'
)
CLASSES = {
    NPU: klass(NPU, f'device.driver == "{NPU}"'),
    "dranet": klass("dranet", f'device.driver == "{NET}"'),
}
ON = Features(version=34, consumable_capacity=True)


def npus(n: int = 8, per_numa: int = 4) -> list:
    return [
        make_device(f"npu-{i}", NPU, {NUMA: i // per_numa, ROOT: f"pci0000:{i // 2:02x}"}) for i in range(n)
    ]


def nic(name: str, numa: int | None, root: str, rdma: bool = True, subsystem: str = "9140"):
    attrs = {"rdma": rdma, "pciSubsystem": subsystem, ROOT: root}
    if numa is not None:
        attrs[NUMA] = numa
    return make_device(name, NET, attrs)


def nics_per_numa(per_numa: int, **kw) -> list:
    return [
        nic(f"nic-{numa}-{j}", numa, f"pci0000:{numa}{j}", **kw) for numa in (0, 1) for j in range(per_numa)
    ]


def rct(constraints=None, nic_selectors=(NIC_SELECTOR,)):
    if constraints is None:
        constraints = [match(NUMA, "npu", "nic"), distinct(ROOT, "nic")]
    return claim(
        "npu-nic",
        request("npu", NPU, 4),
        request("nic", "dranet", 2, *nic_selectors),
        constraints=constraints,
        namespace="ml",
    )


def run(nic_devices, npu_devices=None, *, features=ON, allocated=(), claims=None, node_name="node-1", **kw):
    slices = [
        slice_(
            "npu-slice",
            npu_devices if npu_devices is not None else npus(),
            driver=NPU,
            pool=node_name,
            node=node_name,
        ),
        slice_("nic-slice", nic_devices, driver=NET, pool=node_name, node=node_name),
    ]
    return allocate(node(node_name), claims or [rct()], slices, CLASSES, set(allocated), features, **kw)


def test_fits_on_one_numa_node():
    r = run(nics_per_numa(2))
    assert r.fits and r.failure is None
    devices = [(x.request, x.device) for x in r.results["ml/npu-nic"]]
    assert devices == [
        ("npu", "npu-0"),
        ("npu", "npu-1"),
        ("npu", "npu-2"),
        ("npu", "npu-3"),
        ("nic", "nic-0-0"),
        ("nic", "nic-0-1"),
    ]
    counts = r.candidates[("ml/npu-nic", "nic")]
    assert (counts.on_node, counts.request_match, counts.free, counts.needed) == (4, 4, 4, 2)


def test_one_rdma_nic_per_numa_is_a_constraint_failure():
    r = run(nics_per_numa(1))
    f = r.failure
    assert not r.fits and r.error is None
    assert f.kind == "constraint" and f.attribute == NUMA and f.constraint_kind == "matchAttribute"
    assert f"{NUMA}=0: 4 npu, 1 nic; {NUMA}=1: 4 npu, 1 nic" in f.summary
    assert {g.value: g.counts for g in f.groups} == {"0": {"npu": 4, "nic": 1}, "1": {"npu": 4, "nic": 1}}
    assert r.steps < 100


def test_nics_without_numa_attribute():
    r = run([nic(f"nic-{j}", None, f"pci0000:{j}") for j in range(4)])
    f = r.failure
    assert f.kind == "constraint" and f.attribute == NUMA
    assert f.lacking == [f"{NET}/node-1/nic-{j}" for j in range(4)]
    assert "4 candidate(s) lack resource.kubernetes.io/numaNode" in f.summary


def test_rdma_false_names_the_conjunct():
    r = run(nics_per_numa(2, rdma=False))
    f = r.failure
    assert f.kind == "selector" and f.request == "nic"
    ex = f.exclusions[0]
    assert ex.conjunct == 'device.attributes["dra.net"].rdma == true' and ex.excluded == 4
    assert ex.values == {"dra.net/rdma": {"false": 4}}
    c = r.candidates[("ml/npu-nic", "nic")]
    assert (c.on_node, c.class_match, c.request_match) == (4, 4, 0)


def test_wrong_pci_subsystem_shows_values_seen():
    r = run(nics_per_numa(2, subsystem="0101"))
    ex = r.failure.exclusions[0]
    assert ex.conjunct == 'device.attributes["dra.net"].pciSubsystem == "9140"'
    assert ex.values == {"dra.net/pciSubsystem": {"0101": 4}}
    assert "0 of 4 dra.net devices match its selectors, 2 needed" in r.failure.summary


def test_npus_held_by_other_claims():
    held = {(NPU, "node-1", f"npu-{i}") for i in range(6)}
    r = run(nics_per_numa(2), allocated=held)
    f = r.failure
    assert f.kind == "exhausted" and f.request == "npu"
    assert f.holders == [f"{NPU}/node-1/npu-{i}" for i in range(6)]
    assert r.candidates[("ml/npu-nic", "npu")].free == 2


def test_cel_no_such_key_is_fatal():
    claims = [rct(nic_selectors=('device.attributes["resource.kubernetes.io"].numaNode == 0',))]
    r = run([nic("nic-0", None, "pci0000:00")], claims=claims)
    assert r.error.message == "claim ml/npu-nic: selector #0: CEL runtime error: no such key: numaNode"
    assert r.failure is None


def test_distinct_attribute_needs_consumable_capacity():
    r = run(nics_per_numa(2), features=Features(version=34))
    assert (
        r.error.message == "claim ml/npu-nic, constraint #1: empty constraint (unsupported constraint type?)"
    )


def test_two_nics_on_one_pcie_root():
    r = run([nic("nic-0", 0, "pci0000:00"), nic("nic-1", 0, "pci0000:00")])
    f = r.failure
    assert f.kind == "constraint" and f.constraint_kind == "distinctAttribute"
    assert ROOT in f.summary


def test_large_node_without_solution_is_bounded():
    many_npus = npus(64, per_numa=32)
    nics = [nic(f"nic-{i}", i // 16, "pci0000:00") for i in range(32)]  # every NIC on one root
    r = run(nics, many_npus)
    assert not r.fits and r.error is None
    assert r.failure.kind == "constraint" and r.failure.constraint_kind == "distinctAttribute"
    assert r.steps < 5_000  # bounded by pruning, not by the cap (speed itself is measured in bench/)


def test_search_cap_is_reported():
    r = run([nic("nic-0", 0, "pci0000:00"), nic("nic-1", 0, "pci0000:00")], max_steps=3)
    assert r.failure.kind == "search-capped"
    assert r.failure.scheduler_message == "timed out trying to allocate devices"


@pytest.mark.slow  # 5,000 nodes
def test_simulate_cluster_explains_every_node_of_a_large_cluster():
    nodes, slices = [], []
    for i in range(5000):
        name = f"node-{i}"
        nodes.append(node(name))
        slices.append(slice_(f"npu-{i}", npus(16, per_numa=8), driver=NPU, pool=name, node=name))
        slices.append(
            slice_(
                f"nic-{i}", nics_per_numa(4) if i % 2 else nics_per_numa(1), driver=NET, pool=name, node=name
            )
        )
    results = simulate_cluster(nodes, slices, CLASSES, [rct()], set(), ON)
    assert sum(r.fits for r in results) == 2500
    assert {r.failure.kind for r in results if not r.fits} == {"constraint"}
    assert max(r.steps for r in results) < 100  # pruned by counts, not searched (timings live in bench/)
