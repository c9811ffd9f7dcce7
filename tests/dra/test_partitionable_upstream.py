"""Partitionable devices (shared counters), ported from upstream.

Source: kubernetes/dynamic-resource-allocation `structured/internal/allocatortesting/allocator_testing.go`
at tag v0.36.2: the `partitionable-devices-*` cases and `all-devices-with-consumed-counters` (new in
v0.36.2), plus `partitionable-devices-devices-consume-counter-set-in-different-nodes` (new at
v0.37.0-alpha.2; the other cases are unchanged there). Fixtures as there: counter-set-1 /
counter-set-2, devices built with `fromCounters` get a capacity equal to what they consume, pools made
with `resourcePool(pool, n)` have `resourceSliceCount` n, a plain pool name means count 1. Upstream
runs the cases with `Features{PartitionableDevices: true, ...}` only (other gates off) against the
current (1.35+ layout) allocator; here they run as Kubernetes 1.36 with exactly those gates.

Not ported (the simulation does not model shared devices of DRAConsumableCapacity):
`allow-multiple-allocations-with-partitionable-device`,
`allow-multiple-allocations-with-shared-device-counter-cross-cycle`,
`consumable-capacity-with-partitionable-device-multiple-capacity-pools`. `duplicate-slice` and
`invalid-pool-is-error-if-no-other-device-can-be-allocated` only mention counters in passing and are
in test_allocator_table.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from dra_factories import NODE_1, claim, classes, exact, first_available, node, picked, request

from kubectl_rbln.dra.allocator import Features, allocate, simulate_cluster
from kubectl_rbln.dra.model import CounterSet, Device, ResourceSlice
from kubectl_rbln.dra.quantity import parse_quantity

N1 = node("node-1", **NODE_1)
N2 = node("node-2", region="region-1")
CS1, CS2 = "counter-set-1", "counter-set-2"
MEM6 = 'device.capacity["driver-a"].memory.compareTo(quantity("6Gi")) >= 0'
MEM4 = 'device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0'
MEM2 = 'device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0'


def q(counters: dict[str, str] | None) -> dict[str, Fraction]:
    return {k: parse_quantity(v) for k, v in (counters or {}).items()}


def dev(
    name: str,
    consumes: dict[str, dict[str, str] | None] | None = None,
    *,
    from_counters: bool = True,
    attrs: dict | None = None,
    node_name: str | None = None,
    taints: list | None = None,
    binding: list[str] | None = None,
) -> Device:
    """`device(name, fromCounters|nil, attrs).withDeviceCounterConsumption(...)`."""
    uses = [CounterSet(cs, q(c)) for cs, c in (consumes or {}).items()]
    capacity = {f"driver-a/{k}": v for u in (consumes or {}).values() for k, v in (u or {}).items()}
    return Device(
        name=name,
        driver="",
        pool="",
        slice_name="",
        node_name=node_name,
        attributes={f"driver-a/{k}" if "/" not in k else k: v for k, v in (attrs or {}).items()},
        capacity=capacity if from_counters else {},
        taints=list(taints or []),
        binding_conditions=list(binding or []),
        consumes_counters=uses,
    )


def sl(
    name: str,
    devices: list[Device] = (),  # type: ignore[assignment]
    *,
    pool: str = "pool-1",
    count: int = 1,
    driver: str = "driver-a",
    node_: str | None = "node-1",
    per_device: bool = False,
    counters: dict[str, dict[str, str] | None] | None = None,
) -> ResourceSlice:
    """`sliceWithDevices` / `sliceWithCounterSets(name, node|nodeSelectionPerDevice, pool, driver, ...)`."""
    for d in devices:
        d.driver, d.pool, d.slice_name = driver, pool, name
        if not per_device:
            d.node_name = node_
    sets = [CounterSet(n, q(c)) for n, c in (counters or {}).items()]
    return ResourceSlice(
        name=name,
        driver=driver,
        pool=pool,
        generation=1,
        resource_slice_count=count,
        node_name=None if per_device else node_,
        all_nodes=False,
        node_selector=None,
        per_device_node_selection=per_device,
        devices=list(devices),
        shared_counters=[{"name": n} for n in (counters or {})],
        counter_sets=sets,
    )


def feats(*, partitionable: bool = True, prioritized: bool = False, **kw) -> Features:
    return Features(
        version=36,
        prioritized_list=prioritized,
        admin_access=False,
        partitionable=partitionable,
        **kw,
    )


def run(claims, slices, f=None, allocated=(), node_=N1, cls=None):
    return allocate(node_, claims, slices, cls or classes(), set(allocated), f or feats())


def nothing(r) -> None:
    assert not r.fits and r.error is None, (r.error, r.results)


def invalid(r) -> None:
    assert not r.fits and r.failure is not None
    assert r.failure.scheduler_message == "invalid resource pools were encountered"


def mem(v: str) -> dict[str, dict[str, str] | None]:
    return {CS1: {"memory": v}}


def counter_slice(name="slice-2", count=2, pool="pool-1", node_="node-1", per_device=False, **sets):
    return sl(
        name,
        pool=pool,
        count=count,
        node_=node_,
        per_device=per_device,
        counters=sets or {CS1: {"memory": "8Gi"}},
    )


# ---------------------------------------------------------------- v0.36.2 allocator_testing.go


def test_all_devices_with_consumed_counters():
    c = claim("claim-0", request("req-0", mode="All"))
    r = run(
        [c], [sl("slice-1", [dev("device-1", mem("4Gi"), from_counters=False)], count=2), counter_slice()]
    )
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def test_partitionable_devices_single_device():
    r = run(
        [claim("claim-0", request("req-0"))],
        [sl("slice-1", [dev("device-1", mem("4Gi"), from_counters=False)], count=2), counter_slice()],
    )
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def _three_devices_4_6_4():
    return [
        sl(
            "slice-1",
            [dev("device-1", mem("4Gi")), dev("device-2", mem("6Gi")), dev("device-3", mem("4Gi"))],
            count=2,
        ),
        counter_slice(),
    ]


def test_partitionable_devices_prioritized_list():
    c = claim(
        "claim-0",
        request("req-0"),
        first_available(
            "req-1", exact("class-a", 1, MEM6, name="subReq-0"), exact("class-a", 1, MEM4, name="subReq-1")
        ),
    )
    r = run([c], _three_devices_4_6_4(), feats(prioritized=True))
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1/subReq-1", "pool-1", "device-3")]


def test_partitionable_devices_multiple_devices():
    r = run([claim("claim-0", request("req-0"), request("req-1"))], _three_devices_4_6_4())
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1", "pool-1", "device-3")]


def test_partitionable_devices_multiple_capacity_pools():
    def d(name, m, cpus):
        return dev(name, {CS1: {"memory": m}, CS2: {"cpus": cpus}})

    slices = [
        sl(
            "slice-1",
            [d("device-1", "4Gi", "4"), d("device-2", "6Gi", "6"), d("device-3", "4Gi", "4")],
            count=2,
        ),
        sl("slice-2", count=2, counters={CS1: {"memory": "18Gi"}, CS2: {"cpus": "8"}}),
    ]
    c = claim(
        "claim-0",
        request("req-0"),
        first_available(
            "req-1", exact("class-a", 1, MEM6, name="subReq-0"), exact("class-a", 1, MEM4, name="subReq-1")
        ),
    )
    r = run([c], slices, feats(prioritized=True))
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1/subReq-1", "pool-1", "device-3")]


def test_partitionable_devices_multiple_counters():
    def d(name, m1, c1, c2, m2):
        return dev(name, {CS1: {"memory": m1, "cpus": c1}, CS2: {"cpus": c2, "memory": m2}})

    slices = [
        sl(
            "slice-1",
            [
                d("device-1", "4Gi", "6", "4", "2Gi"),
                d("device-2", "6Gi", "4", "6", "6Gi"),
                d("device-3", "4Gi", "4", "4", "4Gi"),
            ],
            count=2,
        ),
        sl(
            "slice-2",
            count=2,
            counters={CS1: {"cpus": "8", "memory": "18Gi"}, CS2: {"cpus": "12", "memory": "18Gi"}},
        ),
    ]
    r = run([claim("claim-0", request("req-0"), request("req-1"))], slices)
    # device-1 takes 6 of cpus 8 in counter-set-1: neither other device fits beside it, so backtrack
    assert picked(r) == [("req-0", "pool-1", "device-2"), ("req-1", "pool-1", "device-3")]


def test_partitionable_devices_multiple_pools():
    def d(name, cpus, m):
        return dev(name, {CS1: {"cpus": cpus, "memory": m}})

    slices = [
        sl(
            "slice-1",
            [d("device-1", "6", "4Gi"), d("device-2", "4", "6Gi"), d("device-3", "4", "4Gi")],
            count=2,
        ),
        sl("slice-2", count=2, counters={CS1: {"cpus": "8", "memory": "18Gi"}}),
        sl(
            "slice-3",
            [d("device-1", "6", "4Gi"), d("device-2", "1", "7Gi"), d("device-3", "1", "7Gi")],
            pool="pool-2",
            count=2,
        ),
        sl("slice-4", pool="pool-2", count=2, counters={CS1: {"cpus": "8", "memory": "18Gi"}}),
    ]
    allocated = [
        ("driver-a", "pool-1", "device-2"),
        ("driver-a", "pool-1", "device-3"),
        ("driver-a", "pool-2", "device-1"),
    ]
    r = run([claim("claim-0", request("req-0"), request("req-1"))], slices, allocated=allocated)
    assert picked(r) == [("req-0", "pool-2", "device-2"), ("req-1", "pool-2", "device-3")]


def test_partitionable_devices_unused_counters_in_counter_set():
    devices = [
        dev(n, mem(m), from_counters=False)
        for n, m in (("device-1", "5Gi"), ("device-2", "4Gi"), ("device-3", "4Gi"))
    ]
    slices = [
        sl("slice-1", devices, count=2),
        sl("slice-2", count=2, counters={CS1: {"memory": "8Gi", "unused": "1Gi"}}),
    ]
    r = run([claim("claim-0", request("req-0", count=2))], slices)
    assert picked(r) == [("req-0", "pool-1", "device-2"), ("req-0", "pool-1", "device-3")]


def test_partitionable_devices_no_capacity_available():
    slices = [
        sl("slice-1", [dev("device-1", mem("4Gi")), dev("device-2", mem("16Gi"))]),
        counter_slice(count=1, **{CS1: {"memory": "18Gi"}}),
    ]
    nothing(run([claim("claim-0", request("req-0"))], slices, allocated=[("driver-a", "pool-1", "device-2")]))


def test_partitionable_devices_no_capacity_available_counters_named():
    """The same case with a complete pool (count 2: upstream's count-1 fixture is also incomplete from
    1.35, dra-facts.md §2.12): 16Gi of 18Gi held by device-2, device-1 needs 4Gi."""
    slices = [
        sl("slice-1", [dev("device-1", mem("4Gi")), dev("device-2", mem("16Gi"))], count=2),
        counter_slice(**{CS1: {"memory": "18Gi"}}),
    ]
    r = run([claim("claim-0", request("req-0"))], slices, allocated=[("driver-a", "pool-1", "device-2")])
    nothing(r)
    assert r.failure is not None and r.failure.kind == "counters"
    assert (r.failure.counter_set, r.failure.counter) == (CS1, "memory")
    assert (r.failure.counter_needed, r.failure.counter_left) == ("4Gi", "2Gi")
    assert r.failure.holders == ["driver-a/pool-1/device-2"]


def test_partitionable_devices_overallocated_capacity_pool():
    slices = [
        sl("slice-1", [dev("device-1", mem("4Gi")), dev("device-2", mem("20Gi"))], count=2),
        counter_slice(**{CS1: {"memory": "18Gi"}}),
    ]
    r = run([claim("claim-0", request("req-0"))], slices, allocated=[("driver-a", "pool-1", "device-2")])
    nothing(r)  # upstream fixture: count-1 pool; with count 2 the over-allocated counter is what blocks
    assert r.failure is not None and r.failure.kind == "counters"


def test_partitionable_devices_disabled_device_consumes_counters():
    slices = [
        sl("slice-1", [dev("device-1", mem("4Gi"), from_counters=False)]),
        counter_slice(count=1, **{CS1: {"memory": "18Gi"}}),
    ]
    nothing(run([claim("claim-0", request("req-0"))], slices, feats(partitionable=False)))
    # upstream's count-1 pool is also incomplete from 1.35; with count 2 the gate is what blocks
    slices = [sl("slice-1", [dev("device-1", mem("4Gi"), from_counters=False)], count=2), counter_slice()]
    r = run([claim("claim-0", request("req-0"))], slices, feats(partitionable=False))
    nothing(r)
    assert r.failure is not None and r.failure.kind == "counters"
    assert "DRAPartitionableDevices" in r.failure.summary


def test_partitionable_devices_disabled_other_device_do_not_consume_counters():
    devices = [dev("device-1", mem("4Gi"), from_counters=False), dev("device-2", from_counters=False)]
    slices = [sl("slice-1", devices, count=2), counter_slice(**{CS1: {"memory": "18Gi"}})]
    r = run([claim("claim-0", request("req-0"))], slices, feats(partitionable=False))
    assert picked(r) == [("req-0", "pool-1", "device-2")]


def test_partitionable_devices_per_device_node_selection_nodename():
    devices = [
        dev("device-1", mem("4Gi"), node_name="node-1"),
        dev("device-2", mem("6Gi"), node_name="node-2"),
    ]
    slices = [
        sl("slice-1", devices, count=2, per_device=True),
        counter_slice(per_device=True, **{CS1: {"memory": "18Gi"}}),
    ]
    c = claim(
        "claim-0",
        first_available(
            "req-0", exact("class-a", 1, MEM6, name="subReq-0"), exact("class-a", 1, MEM4, name="subReq-1")
        ),
    )
    r = run([c], slices, feats(prioritized=True))
    assert picked(r) == [("req-0/subReq-1", "pool-1", "device-1")]


def test_partitionable_devices_per_device_node_selection_node_selector():
    # device-1 selects nodes by region=region-1 (kept as "any node" by the model: node_name None)
    slices = [
        sl("slice-1", [dev("device-1", mem("4Gi"))], count=2, per_device=True),
        counter_slice(per_device=True, **{CS1: {"memory": "18Gi"}}),
    ]
    r = run([claim("claim-0", request("req-0"))], slices, feats(prioritized=True))
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def test_partitionable_devices_per_device_node_selection_node_selector_multiple_devices():
    a = [
        dev("device-1", mem("4Gi")),
        dev("device-2", mem("4Gi"), node_name="node-1"),
        dev("device-3", mem("4Gi")),
    ]
    b = [dev(n, {CS2: {"memory": "4Gi"}}) for n in ("device-1", "device-2", "device-3")]
    slices = [
        sl("slice-1", a, count=2, per_device=True),
        counter_slice(per_device=True, **{CS1: {"memory": "18Gi"}}),
        sl("slice-3", b, pool="pool-2", count=2, driver="driver-b"),
        sl("slice-4", pool="pool-2", count=2, driver="driver-b", counters={CS2: {"memory": "12Gi"}}),
    ]
    c = claim("claim-0", request("req-0", count=3), request("req-1", "class-b", 3))
    r = run([c], slices, feats(prioritized=True))
    assert picked(r) == [("req-0", "pool-1", f"device-{i}") for i in (1, 2, 3)] + [
        ("req-1", "pool-2", f"device-{i}") for i in (1, 2, 3)
    ]


def test_partitionable_devices_with_attribute_selector():
    def d(name, special, cpu):
        return dev(
            name, {CS1: {cpu: "1"}, CS2: {"mem": "10Gi"}}, from_counters=False, attrs={"special": special}
        )

    slices = [
        sl(
            "slice-1",
            [d("device-1", True, "cpu1"), d("device-2", False, "cpu2"), d("device-3", False, "cpu3")],
            count=2,
        ),
        sl("slice-2", count=2, counters={CS1: {"cpu1": "1", "cpu2": "1", "cpu3": "1"}, CS2: {"mem": "30Gi"}}),
    ]
    c = claim(
        "claim-0",
        request("req-0", count=2),
        request("req-1", "class-a", 1, 'device.attributes["driver-a"].special'),
    )
    r = run([c], slices)
    assert picked(r) == [
        ("req-0", "pool-1", "device-2"),
        ("req-0", "pool-1", "device-3"),
        ("req-1", "pool-1", "device-1"),
    ]


def test_partitionable_devices_with_binding_conditions():
    slices = [sl("slice-1", [dev("device-1", mem("4Gi"), binding=["IsPrepare"])], count=2), counter_slice()]
    r = run([claim("claim-0", request("req-0"))], slices, feats(binding_conditions=True))
    assert picked(r) == [("req-0", "pool-1", "device-1")]


def test_partitionable_devices_with_binding_conditions_multiple():
    devices = [
        dev("device-1", mem("4Gi"), binding=["IsPrepare"]),
        dev("device-2", mem("4Gi"), binding=["IsPrepare2"]),
    ]
    r = run(
        [claim("claim-0", request("req-0", count=2))],
        [sl("slice-1", devices, count=2), counter_slice()],
        feats(binding_conditions=True),
    )
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-1", "device-2")]


def test_partitionable_devices_with_binding_conditions_some_devices_no_conditions():
    devices = [
        dev("device-1", mem("2Gi"), binding=["IsPrepare"]),
        dev("device-2", mem("2Gi")),
        dev("device-3", mem("4Gi"), binding=["IsReady"]),
    ]
    r = run(
        [claim("claim-0", request("req-0", count=3))],
        [sl("slice-1", devices, count=2), counter_slice()],
        feats(binding_conditions=True),
    )
    assert picked(r) == [("req-0", "pool-1", f"device-{i}") for i in (1, 2, 3)]


def test_partitionable_devices_with_binding_conditions_multi_slices():
    slices = [
        sl("slice-4", [dev("device-1", {CS1: {"memory": "4Gi"}}, binding=["IsPrepare"])], count=4),
        sl("slice-3", count=4, counters={CS1: {"memory": "8Gi"}}),
        sl("slice-2", [dev("device-2", {CS2: {"memory": "4Gi"}})], count=4),
        sl("slice-1", count=4, counters={CS2: {"memory": "8Gi"}}),
    ]
    r = run([claim("claim-0", request("req-0", count=2))], slices, feats(binding_conditions=True))
    # upstream lists device-2 first: its pools sort slices by name (v0.36.2 buildPool); same devices
    assert sorted(picked(r)) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-1", "device-2")]


TAINT = {"key": "key1", "value": "value1", "effect": "NoSchedule"}
TOLERATE = {"operator": "Exists", "key": "key1", "effect": "NoSchedule"}


def test_partitionable_devices_with_binding_conditions_and_taints():
    devices = [
        dev("device-1", mem("4Gi"), binding=["IsPrepare"], taints=[TAINT]),
        dev("device-2", mem("4Gi")),
    ]
    slices = [sl("slice-1", devices), counter_slice(count=1)]
    nothing(
        run(
            [claim("claim-0", request("req-0", count=2))],
            slices,
            feats(binding_conditions=True, device_taints=True),
        )
    )


def test_partitionable_devices_with_binding_conditions_and_taints_tolerated():
    devices = [
        dev("device-1", mem("4Gi"), binding=["IsPrepare"], taints=[TAINT]),
        dev("device-2", mem("4Gi")),
    ]
    c = claim("claim-0", request("req-0", count=2, tolerations=[TOLERATE]))
    r = run(
        [c],
        [sl("slice-1", devices, count=2), counter_slice()],
        feats(binding_conditions=True, device_taints=True),
    )
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-0", "pool-1", "device-2")]


def test_partitionable_devices_same_counter_set_name_in_different_resource_slices():
    slices = [
        sl("slice-1", [dev("device-1", from_counters=False)], count=4),
        sl("slice-2", count=4, counters={CS1: None}),
        sl("slice-3", [dev("device-2", from_counters=False)], count=4),
        sl("slice-4", count=4, counters={CS1: None}),
    ]
    invalid(run([claim("claim-0", request("req-0"))], slices))


def test_partitionable_devices_device_counter_consumption_references_unknown_counter_set():
    slices = [
        sl("slice-1", [dev("device-1", {CS2: None}, from_counters=False)], count=2),
        sl("slice-2", count=2, counters={CS1: None}),
    ]
    invalid(run([claim("claim-0", request("req-0"))], slices))


def test_partitionable_devices_device_counter_consumption_references_unknown_counter_in_counter_set():
    slices = [
        sl("slice-1", [dev("device-1", mem("8Gi"), from_counters=False)], count=2),
        sl("slice-2", count=2, counters={CS1: {"other-memory": "8Gi"}}),
    ]
    invalid(run([claim("claim-0", request("req-0"))], slices))


def test_partitionable_devices_device_counter_consumption_references_counter_set_in_other_pool():
    slices = [
        sl("slice-1", [dev("device-1", mem("8Gi"), from_counters=False)]),
        sl("slice-2", pool="pool-2", counters={CS1: {"memory": "8Gi"}}),
    ]
    invalid(run([claim("claim-0", request("req-0"))], slices))


def test_partitionable_devices_devices_on_different_nodes_consume_same_counter_set():
    slices = [
        counter_slice("slice-1", count=3),
        sl("slice-2", [dev("device-1", mem("6Gi")), dev("device-2", mem("2Gi"))], count=3),
        sl("slice-3", [dev("device-3", mem("6Gi"), from_counters=False)], count=3, node_="node-2"),
    ]
    c = claim(
        "claim-0",
        first_available(
            "req-0", exact("class-a", 1, MEM6, name="subReq-0"), exact("class-a", 1, MEM2, name="subReq-1")
        ),
    )
    r = run([c], slices, feats(prioritized=True), allocated=[("driver-a", "pool-1", "device-3")])
    # device-3 on node-2 holds 6Gi of the 8Gi: only device-2 (2Gi) fits on node-1
    assert picked(r) == [("req-0/subReq-1", "pool-1", "device-2")]


def test_partitionable_devices_validation_error_on_non_targeting_slice():
    slices = [
        counter_slice("slice-1", count=3),
        sl("slice-2", [dev("device-1", mem("6Gi"))], count=3),
        sl(
            "slice-3",
            [dev("device-3", {CS2: {"memory": "6Gi"}}, from_counters=False)],
            count=3,
            node_="node-2",
        ),
    ]
    invalid(run([claim("claim-0", request("req-0"))], slices))


# ---------------------------------------------------------------- v0.37.0-alpha.2 allocator_testing.go


@pytest.mark.parametrize("version", [36, 37])
def test_partitionable_devices_devices_consume_counter_set_in_different_nodes(version):
    """v0.37.0-alpha.2: the counter slice targets node-1, the Pod goes to node-2; 1.36 reads the counter
    slice everywhere, 1.37 completes the pool from all slices: both see device-1 holding 6Gi."""
    slices = [
        counter_slice("slice-1", count=3),
        sl("slice-2", [dev("device-1", mem("6Gi"))], count=3),
        sl("slice-3", [dev("device-2", mem("6Gi")), dev("device-3", mem("2Gi"))], count=3, node_="node-2"),
    ]
    f = Features(version=version, prioritized_list=False, admin_access=False, partitionable=True)
    results = simulate_cluster(
        [N2], slices, classes(), [claim("claim-0", request("req-0"))], {("driver-a", "pool-1", "device-1")}, f
    )
    assert picked(results[0]) == [("req-0", "pool-1", "device-3")]


# ---------------------------------------------------------------- versions and search


@pytest.mark.parametrize("version", [33, 34])
def test_before_1_35_counters_live_in_the_devices_slice(version):
    """1.33/1.34 fixtures keep sharedCounters in the devices' slice; counters are per slice
    (allocator.go v0.33.0 checkAvailableCapacity, allocator_incubating.go v0.34.0)."""
    s = sl(
        "slice-1",
        [dev("device-1", mem("4Gi")), dev("device-2", mem("6Gi")), dev("device-3", mem("4Gi"))],
        counters={CS1: {"memory": "8Gi"}},
    )
    f = Features(version=version, prioritized_list=False, admin_access=False, partitionable=True)
    r = allocate(N1, [claim("claim-0", request("req-0"), request("req-1"))], [s], classes(), set(), f)
    assert picked(r) == [("req-0", "pool-1", "device-1"), ("req-1", "pool-1", "device-3")]


def test_backtracking_gives_counters_back():
    """req-0 first takes device-1 (6Gi of 8Gi), req-1 then needs 4Gi: backtrack to device-2 (4Gi)."""
    slices = [
        sl(
            "slice-1",
            [dev("device-1", mem("6Gi")), dev("device-2", mem("4Gi")), dev("device-3", mem("4Gi"))],
            count=2,
        ),
        counter_slice(),
    ]
    r = run([claim("claim-0", request("req-0"), request("req-1", "class-a", 1, MEM4))], slices)
    assert picked(r) == [("req-0", "pool-1", "device-2"), ("req-1", "pool-1", "device-3")]


def test_counters_across_claims_fail_together():
    """Each claim fits alone; together they need 12Gi of 8Gi: the failure names the counter."""
    slices = [
        sl("slice-1", [dev("device-1", mem("6Gi")), dev("device-2", mem("6Gi"))], count=2),
        counter_slice(),
    ]
    r = run([claim("claim-0", request("req-0")), claim("claim-1", request("req-0"))], slices)
    nothing(r)
    assert r.failure is not None and r.failure.kind == "counters"
    assert r.failure.counter == "memory" and "together" in r.failure.summary


def test_gate_off_ignores_counters_in_1_33():
    """1.33 drops counter slices with the gate off but has no refusal in allocateDevice (v0.33.0)."""
    s = sl("slice-1", [dev("device-1", mem("4Gi"))])
    f = Features(version=33, prioritized_list=False, admin_access=False, partitionable=False)
    assert picked(allocate(N1, [claim("claim-0", request("req-0"))], [s], classes(), set(), f)) == [
        ("req-0", "pool-1", "device-1")
    ]
