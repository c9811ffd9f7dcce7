"""Consumable capacity and shared devices (DRAConsumableCapacity, KEP-5075), ported from upstream.

Source: kubernetes/dynamic-resource-allocation `structured/internal/allocatortesting/allocator_testing.go`
at tag v0.36.2: the `consumable-capacity-*`, `allow-multiple-allocations-*` (except the partitionable
ones) and `distinct-constraint-*-multi-allocatable-*` cases, unchanged at v0.37.0-alpha.2. Fixtures as
there: `capacity-0`, quantities `zero`..`four` (plain integers), `withCapacityRequestPolicyRange` gives
a capacity the policy default 2, validRange min 2 / step 2 / max 4; `withCapacityRequestPolicyValidValues
(d, ...)` the default d and validValues [d, extra...]; `classWithAllowMultipleAllocations(c, d, b)`
selects `device.allowMultipleAllocations == b`. Upstream runs each case with only the named gates; here
they run as Kubernetes 1.36 with exactly those gates. Test names are the upstream names.

Not ported: `allow-multiple-allocations-with-partitionable-device`,
`allow-multiple-allocations-with-shared-device-counter-cross-cycle`,
`consumable-capacity-with-partitionable-device-multiple-capacity-pools` (shared devices that consume
counters: the simulation skips the counter check of a shared device whose capacity is in use, 1.35+, but
gives the counters back on backtracking where v0.36.2's rollback does not).
"""

from __future__ import annotations

from fractions import Fraction

from dra_factories import NODE_1, claim, classes, exact, first_available, klass, match, node, request, slice_

from kubectl_rbln.dra.allocator import Features, allocate
from kubectl_rbln.dra.capacity import InUse
from kubectl_rbln.dra.model import Constraint, Device, RequestPolicy

N1 = node("node-1", **NODE_1)
CAP0 = "driver-a/capacity-0"
RANGE = RequestPolicy(default=Fraction(2), has_range=True, min=Fraction(2), step=Fraction(2), max=Fraction(4))


def valid_values(default: int, *extra: int) -> RequestPolicy:
    return RequestPolicy(
        default=Fraction(default), valid_values=tuple(Fraction(v) for v in (default, *extra))
    )


def dev(
    name: str,
    capacity: dict[str, str] | None = None,
    *,
    shared: bool = False,
    policy: RequestPolicy | None = None,
    attrs: dict | None = None,
) -> Device:
    caps = {f"driver-a/{k}": v for k, v in (capacity or {}).items()}
    return Device(
        name=name,
        driver="driver-a",
        pool="",
        slice_name="",
        node_name=None,
        attributes={f"driver-a/{k}": v for k, v in (attrs or {}).items()},
        capacity=caps,
        allow_multiple_allocations=shared,
        request_policies={k: policy for k in caps} if policy is not None else {},
    )


def cap(value: str | None) -> dict | None:
    """`withCapacityRequest(ptr.To(q))`: capacity.requests[capacity-0] = q."""
    return {"requests": {"capacity-0": value} if value is not None else {}}


def req(name: str, value: str | None = None, *, mode: str = "ExactCount", cls: str = "class-a"):
    r = request(name, cls, 1 if mode == "ExactCount" else 0, mode=mode)
    assert r.exactly is not None
    r.exactly.capacity = cap(value)
    return r


def shared_class(multi: bool = True) -> dict:
    """classWithAllowMultipleAllocations(classA, driverA, multi)."""
    flag = "true" if multi else "false"
    return {
        "class-a": klass(
            "class-a", f'device.driver == "driver-a" && device.allowMultipleAllocations == {flag}'
        )
    }


def feats(**kw) -> Features:
    base = dict(version=36, prioritized_list=False, admin_access=False, consumable_capacity=True)
    base.update(kw)
    return Features(**base)  # type: ignore[arg-type]


def run(claims, devices, *, cls=None, f=None, allocated=(), in_use=None, slices=None):
    slices = slices or [slice_("slice-1", devices)]
    return allocate(
        N1, claims, slices, cls or classes(), set(allocated), f or feats(), capacity_in_use=in_use or {}
    )


def got(r) -> list[tuple[str, str, str, dict[str, str], bool]]:
    """(claim, request, device, consumed capacity by short name, has shareID) of every result."""
    assert r.fits, (r.error, r.failure and r.failure.summary)
    return [
        (
            key,
            e.request,
            e.device,
            {k.rsplit("/", 1)[-1]: v for k, v in e.consumed_capacity.items()},
            bool(e.share_id),
        )
        for key, results in r.results.items()
        for e in results
    ]


def nothing(r) -> None:
    assert not r.fits and r.error is None, (r.error, r.results)


def in_use(device: str, value: str, claim_key: str = "ns/other") -> dict:
    return {("driver-a", "pool-1", device): InUse({CAP0: Fraction(value)}, [claim_key])}


# ---------------------------------------------------------------- gate off


def test_v0_36_2_consumable_capacity_disabled_feature():
    f = feats(consumable_capacity=False, binding_conditions=True)
    r = run([claim("claim-0", req("req-0", "1"))], [dev("device-1")], f=f)
    assert r.error is not None
    assert (
        "claim claim-0, request req-0: has capacity requests, "
        "but the DRAConsumableCapacity feature is disabled" in r.error.message
    )


def test_v0_36_2_consumable_capacity_disabled_feature_with_prioritized_list():
    f = feats(consumable_capacity=False, binding_conditions=True, prioritized_list=True)
    sub0, sub1 = exact(name="subReq-0"), exact(name="subReq-1")
    sub0.capacity, sub1.capacity = cap("1"), cap("1")
    r = run([claim("claim-0", first_available("req-0", sub0, sub1))], [dev("device-1")], f=f)
    assert r.error is not None
    assert "claim claim-0, subrequest subReq-0: has capacity requests" in r.error.message


def test_gate_off_stable_variant_ignores_capacity_requests_and_sharing():
    """Not an upstream case: with DRAConsumableCapacity and binding conditions off the stable (1.36) /
    incubating (1.34, 1.35) copy runs, which has no capacity code: the request is allocated and a
    shared device is exclusive (allocator_stable.go v0.36.2, allocator_incubating.go v0.35.0)."""
    for version in (34, 35, 36):
        f = feats(version=version, consumable_capacity=False)
        devices = [dev("device-1", {"capacity-0": "1"}, shared=True)]
        r = run([claim("claim-0", req("req-0", "5")), claim("claim-1", req("req-0"))], devices, f=f)
        nothing(r)  # the second claim finds the shared device taken
        r = run(
            [claim("claim-0", req("req-0", "5"))], [dev("device-1", {"capacity-0": "1"}, shared=True)], f=f
        )
        assert got(r) == [("claim-0", "req-0", "device-1", {}, False)]


# ---------------------------------------------------------------- gate on (v0.36.2)


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_missing_capacity_request():
    nothing(run([claim("claim-0", req("req-0", "1"))], [dev("device-1", {"capacity-1": "1"}, shared=True)]))


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_with_missing_capacity_request():  # noqa: E501
    devices = [dev("device-1", {"capacity-1": "1"}, shared=True)]
    nothing(run([claim("claim-0", req("req-0", "1", mode="All"))], devices, cls=shared_class()))


def test_v0_36_2_consumable_capacity_multi_allocatable_device_without_capacity_without_capacity_request():
    r = run(
        [claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))],
        [dev("device-1", shared=True)],
        cls=shared_class(),
    )
    assert got(r) == [("claim-0", "req-0", "device-1", {}, True), ("claim-1", "req-0", "device-1", {}, True)]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_without_policy_without_capacity_request():
    devices = [
        dev("device-1", {"capacity-0": "1"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))], devices, cls=shared_class())
    assert got(r) == [
        ("claim-0", "req-0", "device-1", {"capacity-0": "1"}, True),
        ("claim-1", "req-0", "device-2", {"capacity-0": "1"}, True),
    ]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_without_policy_without_capacity_request_block():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True)]
    nothing(
        run([claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))], devices, cls=shared_class())
    )


def test_v0_36_2_consumable_capacity_multi_allocatable_device_without_policy_with_capacity_request():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True)]
    r = run(
        [claim("claim-0", req("req-0", "1")), claim("claim-1", req("req-0", "1"))],
        devices,
        cls=shared_class(),
    )
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "1"})] * 2


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_policy_without_capacity_request():
    devices = [dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE)]
    r = run([claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})] * 2  # the default, twice


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_zero_request_policy():
    devices = [dev("device-1", {"capacity-0": "1"}, shared=True, policy=valid_values(0))]
    r = run([claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "0"})] * 2


def test_v0_36_2_consumable_capacity_multi_allocatable_device_violates_zero_request_policy():
    devices = [dev("device-1", {"capacity-0": "1"}, shared=True, policy=valid_values(0))]
    nothing(run([claim("claim-0", req("req-0", "1"))], devices, cls=shared_class()))


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_range_policy_with_capacity_request():
    devices = [dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE)]
    r = run(
        [claim("claim-0", req("req-0", "1")), claim("claim-1", req("req-0", "1"))],
        devices,
        cls=shared_class(),
    )
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})] * 2  # rounded up to min


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_range_policy_step():
    devices = [dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE)]
    r = run([claim("claim-0", req("req-0", "3"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "4"})]  # 3 -> 2 + 2


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_valid_values_policy():
    devices = [dev("device-1", {"capacity-0": "4"}, shared=True, policy=valid_values(1, 2))]
    r = run([claim("claim-0", req("req-0", "2"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_valid_values_policy_round_up():
    devices = [dev("device-1", {"capacity-0": "3"}, shared=True, policy=valid_values(1, 3))]
    r = run([claim("claim-0", req("req-0", "2"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "3"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_exceeded_consumable_capacity_request():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE)]
    claims = [claim("claim-0", req("req-0", "1")), claim("claim-1", req("req-0", "2"))]
    nothing(run(claims, devices, cls=shared_class()))


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_request_over_max_sharing_policy():
    devices = [dev("device-1", {"capacity-0": "10"}, shared=True, policy=RANGE)]
    nothing(run([claim("claim-0", req("req-0", "6"))], devices, cls=shared_class()))  # max 4 < 6 < 10


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_allocated_capacity_use_remaining():
    devices = [dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE)]
    r = run(
        [claim("claim-0", req("req-0", "2"))], devices, cls=shared_class(), in_use=in_use("device-1", "2")
    )
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_allocated_capacity_next_device():
    devices = [
        dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE),
        dev("device-2", {"capacity-0": "2"}, shared=True, policy=RANGE),
    ]
    r = run(
        [claim("claim-0", req("req-0", "2"))], devices, cls=shared_class(), in_use=in_use("device-1", "2")
    )
    assert [g[2:4] for g in got(r)] == [("device-2", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_with_multi_allocatable_device_backtrack():
    devices = [
        dev("device-2", {"capacity-0": "2"}, shared=True, policy=RANGE, attrs={"stringAttribute": "value1"}),
        dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE, attrs={"stringAttribute": "value2"}),
    ]
    claims = [
        claim(
            "claim-0", req("req-0", "2"), req("req-1", "2"), constraints=[match("driver-a/stringAttribute")]
        ),
        claim("claim-1", req("req-0", "2")),
    ]
    r = run(claims, devices)
    assert [g[:3] for g in got(r)] == [
        ("claim-0", "req-0", "device-1"),
        ("claim-0", "req-1", "device-1"),
        ("claim-1", "req-0", "device-2"),
    ]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_subrequest():
    subs = [exact(name="subReq-0"), exact(name="subReq-1"), exact(name="subReq-1")]
    subs[0].capacity, subs[1].capacity = cap("4"), cap("2")
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE)]
    r = run(
        [claim("claim-0", first_available("req-0", *subs))],
        devices,
        cls=shared_class(),
        f=feats(prioritized_list=True),
    )
    assert [g[1:4] for g in got(r)] == [("req-0/subReq-1", "device-1", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_with_no_available_consumable_capacity():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE)]
    r = run(
        [claim("claim-0", req("req-0", "2"))], devices, cls=shared_class(), in_use=in_use("device-1", "2")
    )
    nothing(r)
    assert r.failure is not None and r.failure.kind == "capacity"


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_filter_out_no_capacity():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True), dev("device-2", shared=True)]
    r = run([claim("claim-0", req("req-0", "2", mode="All"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_filter_out_insufficient_capacity():  # noqa: E501
    devices = [
        dev("device-1", {"capacity-0": "2"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0", "2", mode="All"))], devices, cls=shared_class())
    assert [g[2:4] for g in got(r)] == [("device-1", {"capacity-0": "2"})]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_allocating_sufficient():
    devices = [
        dev("device-1", {"capacity-0": "2"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0", "1"), req("req-1", "1", mode="All"))], devices)
    assert [g[1:4] for g in got(r)] == [
        ("req-0", "device-1", {"capacity-0": "1"}),
        ("req-1", "device-1", {"capacity-0": "1"}),
        ("req-1", "device-2", {"capacity-0": "1"}),
    ]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_in_use_sufficient():
    devices = [
        dev("device-1", {"capacity-0": "2"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0", "1", mode="All"))], devices, in_use=in_use("device-1", "1"))
    assert [g[2] for g in got(r)] == ["device-1", "device-2"]


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_allocating_insufficient():
    devices = [
        dev("device-1", {"capacity-0": "1"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    nothing(run([claim("claim-0", req("req-0", "1"), req("req-1", "1", mode="All"))], devices))


def test_v0_36_2_consumable_capacity_multi_allocatable_device_allocation_mode_all_in_use_insufficient():
    devices = [
        dev("device-1", {"capacity-0": "1"}, shared=True),
        dev("device-2", {"capacity-0": "1"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0", "1", mode="All"))], devices, in_use=in_use("device-1", "1"))
    assert [g[2:4] for g in got(r)] == [("device-2", {"capacity-0": "1"})]


def test_v0_36_2_consumable_capacity_dedicated_device_with_consumable_capacity_request():
    r = run(
        [claim("claim-0", req("req-0", "1"))], [dev("device-1", {"capacity-0": "1"})], cls=shared_class(False)
    )
    assert got(r) == [("claim-0", "req-0", "device-1", {}, False)]  # no shareID, no consumedCapacity


def test_v0_36_2_consumable_capacity_dedicated_device_with_multiple_consumable_capacity_request():
    devices = [dev("device-1", {"capacity-0": "2"}, policy=RANGE)]
    claims = [claim("claim-0", req("req-0", "1")), claim("claim-1", req("req-0", "1"))]
    nothing(run(claims, devices, cls=shared_class(False)))


def test_v0_36_2_allow_multiple_allocations_exclude_multi_allocatable_device_by_class_selector():
    devices = [dev("device-1", {"capacity-0": "1"}, shared=True)]
    nothing(run([claim("claim-0", req("req-0", "1"))], devices, cls=shared_class(False)))


def test_v0_36_2_allow_multiple_allocations_not_allocate_multi_allocatable_device_which_already_dedicated():
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE)]
    r = run(
        [claim("claim-0", req("req-0", "1"))],
        devices,
        cls=shared_class(),
        allocated=[("driver-a", "pool-1", "device-1")],
    )
    nothing(r)


def test_v0_36_2_allow_multiple_allocations_not_allocate_dedicated_device_which_change_from_multi_allocatable():  # noqa: E501
    devices = [dev("device-1", {"capacity-0": "2"}, policy=RANGE)]
    r = run(
        [claim("claim-0", req("req-0", "1"))], devices, cls=shared_class(), in_use=in_use("device-1", "1")
    )
    nothing(r)  # the class wants a shared device; the device is no longer one


def test_v0_36_2_distinct_constraint_one_multi_allocatable_device_with_distinct_constraint():
    devices = [
        dev("device-1", {"capacity-0": "2"}, shared=True, policy=RANGE, attrs={"stringAttribute": "v"})
    ]
    c = claim(
        "claim-0",
        req("req-0", "1"),
        req("req-1", "1"),
        constraints=[Constraint(requests=[], distinct_attribute="driver-a/stringAttribute")],
    )
    nothing(run([c], devices, cls=shared_class()))


def test_v0_36_2_distinct_constraint_two_multi_allocatable_devices_with_distinct_constraint():
    d1 = dev("device-1", {"capacity-0": "4"}, shared=True, policy=RANGE, attrs={"stringAttribute": "v1"})
    d2 = dev("device-2", {"capacity-0": "4"}, shared=True, policy=RANGE, attrs={"stringAttribute": "v2"})
    slices = [slice_("slice-1", [d1], count=2), slice_("slice-1", [d2], count=2)]
    c = claim(
        "claim-0",
        req("req-0", "2"),
        req("req-1", "2"),
        constraints=[Constraint(requests=[], distinct_attribute="driver-a/stringAttribute")],
    )
    r = run([c], [], cls=shared_class(), slices=slices)
    assert [g[1:4] for g in got(r)] == [
        ("req-0", "device-1", {"capacity-0": "2"}),
        ("req-1", "device-2", {"capacity-0": "2"}),
    ]


# ---------------------------------------------------------------- per minor


def test_alpha_in_1_34_and_1_35_with_the_gate():
    """DRAConsumableCapacity alpha (1.34/1.35): the experimental copy shares the device when the gate is
    on (allocator_experimental.go v0.34.0, v0.35.0); defaults leave it off (dra/gates.py)."""
    devices = [dev("device-1", {"capacity-0": "2"}, shared=True)]
    claims = [claim("claim-0", req("req-0", "1")), claim("claim-1", req("req-0", "1"))]
    for version in (34, 35):
        assert len(got(run(claims, devices, f=feats(version=version)))) == 2
        nothing(run(claims, devices, f=Features.defaults(version)))
    assert len(got(run(claims, devices, f=Features.defaults(36)))) == 2


def test_backtracking_gives_capacity_back():
    """Not upstream: req-0 first takes 2 of device-1 (4); req-1 needs 4 and only fits device-1 once
    req-0 moves to device-2, which the search finds after giving the 2 back."""
    devices = [
        dev("device-1", {"capacity-0": "4"}, shared=True),
        dev("device-2", {"capacity-0": "2"}, shared=True),
    ]
    r = run([claim("claim-0", req("req-0", "2"), req("req-1", "4"))], devices)
    assert [g[1:3] for g in got(r)] == [("req-0", "device-2"), ("req-1", "device-1")]


# ---------------------------------------------------------------- normalize (v1 flat, v1beta1 `basic`)


def test_normalize_reads_shared_devices_policies_capacity_requests_and_shares():
    """resource/v1 and v1beta2 devices are flat, v1beta1 nests them under `basic`; requestPolicy,
    capacity.requests, shareID and consumedCapacity are the same fields in each (kubernetes/api
    resource/{v1,v1beta2,v1beta1}/types.go at v0.36.2)."""
    from kubectl_rbln.dra.normalize_claims import normalize_claim, normalize_request
    from kubectl_rbln.dra.normalize_slices import normalize_device

    body = {
        "allowMultipleAllocations": True,
        "capacity": {
            "bandwidth": {
                "value": "200G",
                "requestPolicy": {
                    "default": "100G",
                    "validRange": {"min": "25G", "max": "200G", "step": "25G"},
                },
            },
            "slots": {"value": "4", "requestPolicy": {"validValues": ["1", "2"]}},
        },
    }
    for raw in ({"name": "nic-0", **body}, {"name": "nic-0", "basic": body}):
        d = normalize_device(raw, "dra.net", "pool", "slice", "node-1")
        assert d.allow_multiple_allocations
        bw = d.request_policies["dra.net/bandwidth"]
        assert (bw.default, bw.min, bw.max, bw.step) == (
            Fraction(10**11),
            Fraction(25 * 10**9),
            Fraction(2 * 10**11),
            Fraction(25 * 10**9),
        )
        assert d.request_policies["dra.net/slots"].valid_values == (Fraction(1), Fraction(2))
    for raw in (
        {"name": "r", "exactly": {"deviceClassName": "c", "capacity": {"requests": {"bandwidth": "50G"}}}},
        {"name": "r", "deviceClassName": "c", "capacity": {"requests": {"bandwidth": "50G"}}},  # v1beta1
    ):
        r = normalize_request(raw)
        assert r.exactly is not None and r.exactly.capacity_requests == {"bandwidth": "50G"}
    claim_ = normalize_claim(
        {
            "metadata": {"name": "c", "namespace": "ns"},
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "request": "r",
                                "driver": "dra.net",
                                "pool": "p",
                                "device": "nic-0",
                                "shareID": "u-1",
                                "consumedCapacity": {"bandwidth": "100G"},
                            }
                        ]
                    }
                }
            },
        }
    )
    assert claim_.allocation is not None
    (result,) = claim_.allocation.results
    assert (result.share_id, result.consumed_capacity) == ("u-1", {"bandwidth": "100G"})
