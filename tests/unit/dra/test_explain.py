"""Why a node failed: the failing request or constraint is named, with the counts a user checks.

The node is one RBLN NPU node; the claims are the shapes the chart's RCTs produce. Everything goes
through `allocate`, which calls the explanation when no solution exists.
"""

from __future__ import annotations

from kubectl_rbln.dra.allocator import Features, allocate
from kubectl_rbln.dra.explain import MISSING_TEXT, CandidateCounts, value_text
from kubectl_rbln.dra.model import Version

from .raw import NPU, NUMA, claim, device_class, exactly, node, npu_class, raw_device, slice_

ROOT = "resource.kubernetes.io/pcieRoot"
CA25 = f'device.attributes["{NPU}"].productName == "RBLN-CA25"'


def npus(n=6, ca25=2, per_numa=2):
    """rbln0..: the first `ca25` are RBLN-CA25, the rest RBLN-CA22; `per_numa` per NUMA node."""
    return [
        raw_device(
            f"rbln{i}",
            {
                "productName": "RBLN-CA25" if i < ca25 else "RBLN-CA22",
                NUMA: i // per_numa,
                ROOT: "pci0000:4a",
            },
        )
        for i in range(n)
    ]


def run(claims, devices=None, *, allocated=(), version=34, classes=None, slices=None, **features):
    slices = (
        slices if slices is not None else [slice_("npu-node-1", devices if devices is not None else npus())]
    )
    result = allocate(
        node(),
        claims,
        slices,
        classes or npu_class(),
        set(allocated),
        Features(version=version, **features),
    )
    assert not result.fits and result.error is None
    return result.failure


def test_selector_failure_names_the_request_the_conjunct_and_the_values_seen():
    guard = f'"productName" in device.attributes["{NPU}"]'
    f = run([claim("npu-claim", exactly("npu", 4, f"{guard} && {CA25}"))])
    assert f.kind == "selector"
    assert (f.claim, f.request) == ("ml/npu-claim", "npu")
    assert f.summary.startswith(
        "request npu of claim ml/npu-claim: 2 of 6 npu.rebellions.ai devices match its selectors, 4 needed"
    )
    [ex] = f.exclusions
    assert (ex.owner, ex.index, ex.conjunct, ex.excluded) == ("request npu", 0, CA25, 4)
    assert ex.values == {f"{NPU}/productName": {"RBLN-CA22": 4}}
    assert f.details == [
        "npu: 6 npu.rebellions.ai devices, 6 match class npu.rebellions.ai, "
        "2 match the request, 2 free, 4 needed"
    ]
    assert f.scheduler_message == "cannot allocate all claims"


def test_class_selector_exclusion_is_owned_by_the_class():
    classes = {"ca25": device_class("ca25", f'device.driver == "{NPU}"', CA25)}
    f = run([claim("c", exactly("npu", 3, cls="ca25"))], classes=classes)
    assert f.kind == "selector"
    assert [(e.owner, e.index, e.excluded) for e in f.exclusions] == [("class ca25", 1, 4)]


def test_no_device_of_the_class_driver_on_the_node():
    classes = {**npu_class(), "dranet": device_class("dranet", 'device.driver == "dra.net"')}
    f = run([claim("c", exactly("npu", 1), exactly("nic", 1, cls="dranet"))], classes=classes)
    assert f.kind == "no-devices"
    assert f.request == "nic"
    assert f.summary == "request nic of claim ml/c: no device of dra.net on this node"


def test_devices_held_by_other_claims_are_listed():
    held = {(NPU, "node-1", f"rbln{i}") for i in range(3)}
    f = run([claim("c", exactly("npu", 4))], allocated=held)
    assert f.kind == "exhausted"
    assert (
        f.summary
        == "request npu of claim ml/c: 6 devices match but 3 are allocated to other claims; 3 free, 4 needed"
    )
    assert f.holders == [f"{NPU}/node-1/rbln{i}" for i in range(3)]


def test_two_claims_that_fit_alone_compete():
    """Nobody else holds the devices: a count proves it (dra/proofs.py), with the numbers."""
    f = run([claim("a", exactly("npu", 4)), claim("b", exactly("npu", 4))])
    assert f.kind == "proven-impossible"
    assert (
        "2 request(s) (ml/a/npu, ml/b/npu) need 8 distinct devices; the devices eligible for them can give "
        "at most 6" in f.summary
    )


def test_match_attribute_failure_counts_devices_per_value():
    f = run([claim("c", exactly("npu", 3), constraints=[{"matchAttribute": NUMA}])])
    assert f.kind == "constraint"
    assert (f.constraint_index, f.constraint_kind, f.attribute) == (0, "matchAttribute", NUMA)
    assert f.summary == (
        f"claim ml/c, constraint #0 matchAttribute {NUMA} over [all requests]: no single value has enough "
        f"devices for every request (3 npu needed) — {NUMA}=0: 2 npu; {NUMA}=1: 2 npu; {NUMA}=2: 2 npu"
    )
    assert {g.value: g.counts for g in f.groups} == {"0": {"npu": 2}, "1": {"npu": 2}, "2": {"npu": 2}}
    assert not any(g.viable for g in f.groups)


def test_candidates_lacking_the_attribute_are_counted():
    devices = [*npus(4), raw_device("no-numa", {"productName": "RBLN-CA25"})]
    f = run(
        [claim("c", exactly("npu", 3), constraints=[{"matchAttribute": NUMA, "requests": ["npu"]}])], devices
    )
    assert "over [npu]" in f.summary
    assert f.summary.endswith(f"; 1 candidate(s) lack {NUMA}")
    assert f.lacking == [f"{NPU}/node-1/no-numa"]


def test_distinct_inside_every_match_group_is_named():
    """Enough NPUs share a NUMA node, but they share one PCIe root too: the distinctAttribute is at fault."""
    constraints = [{"matchAttribute": NUMA}, {"distinctAttribute": ROOT}]
    f = run([claim("c", exactly("a", 1), exactly("b", 1), constraints=constraints)], consumable_capacity=True)
    assert f.kind == "constraint"
    assert (f.constraint_index, f.constraint_kind, f.attribute) == (1, "distinctAttribute", ROOT)
    assert f"within every {NUMA} group the devices share {ROOT}" in f.summary
    assert f.details[0] == f"{NUMA}=0: 1 distinct {ROOT}, 2 needed"


def test_incomplete_pool_is_named_and_1_35_invalid_pool_changes_the_scheduler_text():
    incomplete = [slice_("s1", npus(2), count=2)]
    f = run([claim("c", exactly("npu", 1))], slices=incomplete, version=35)
    assert f.kind == "incomplete-pool"
    assert f"incomplete or invalid ({NPU}/node-1), 0 usable, 1 needed" in f.summary
    assert f.scheduler_message == "cannot allocate all claims"
    duplicated = [slice_("s1", npus(1), count=2), slice_("s2", npus(1), count=2)]
    f = run([claim("c", exactly("npu", 1))], slices=duplicated, version=35)
    assert f.kind == "incomplete-pool"
    assert f.scheduler_message == "invalid resource pools were encountered"


def test_tainted_devices_are_told_apart_from_missing_ones():
    taint = {"key": "rebellions.ai/unhealthy", "value": "ecc", "effect": "NoExecute"}
    devices = [raw_device("rbln0", taints=[taint]), raw_device("rbln1")]
    f = run([claim("c", exactly("npu", 2))], devices, device_taints=True)
    assert f.kind == "tainted"
    assert f.summary == (
        "request npu of claim ml/c: 2 free matching devices, but only 1 have no untolerated taint; 2 needed"
    )


def test_value_text_prints_values_as_kubectl_shows_them():
    assert value_text(True) == "true" and value_text(False) == "false"
    assert value_text(Version("1.2.3")) == "1.2.3"
    assert value_text(0) == "0"
    assert value_text(None) == MISSING_TEXT


def test_counts_summary_without_a_known_driver():
    c = CandidateCounts("ml/c", "npu", "any", [], 2, on_node=3, class_match=3, request_match=1, free=1)
    assert c.summary == "npu: 3 any driver devices, 3 match class any, 1 match the request, 1 free, 2 needed"
