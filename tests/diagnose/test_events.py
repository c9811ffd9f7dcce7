"""The event parser against every message of dra-facts.md section 1, built exactly as the formats say."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_rbln.diagnose.events import (
    ALL_VERSIONS,
    classify_event,
    classify_reason,
    parse_dra_message,
    parse_pod_scheduled,
    parse_scheduling_message,
)
from kubectl_rbln.dra.model import Condition, Event

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "failedscheduling-event.txt"

V132_ONLY = ("1.32",)
FROM_133 = ("1.33", "1.34", "1.35")
FROM_134 = ("1.34", "1.35")
V135_ONLY = ("1.35",)
UP_TO_134 = ("1.32", "1.33", "1.34")

NS, POD, CLAIM, REQ = "llm", "prefill-0", "prefill-0-npu-rdma-x7k2q", "npu"

# (code, text, expected fields (subset), versions that emit it, fatal)
MESSAGES: list[tuple[str, str, dict[str, str], tuple[str, ...], bool]] = [
    # ---- 1.2 DynamicResources plugin ----
    (
        "claim-not-created",
        f'pod "{NS}/{POD}": ResourceClaim not created yet',
        {"namespace": NS, "pod": POD},
        ALL_VERSIONS,
        False,
    ),
    (
        "pod-claim-unsupported",
        f'pod "{NS}/{POD}", spec.resourceClaim "devices": none of the supported fields are set',
        {"namespace": NS, "pod": POD, "pod_claim": "devices"},
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-not-found",
        f'could not find ResourceClaim "{NS}/{CLAIM}"',
        {"namespace": NS, "claim": CLAIM},
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-being-deleted",
        f'resourceclaim "{CLAIM}" is being deleted',
        {"claim": CLAIM},
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-not-owned",
        f"ResourceClaim {NS}/{CLAIM} was not created for pod {NS}/{POD} (pod is not owner)",
        {"namespace": NS, "claim": CLAIM, "pod": POD},
        ALL_VERSIONS,
        False,
    ),
    ("claim-in-use", "resourceclaim in use", {}, ALL_VERSIONS, False),
    (
        "claim-allocation-in-flight",
        f"resource claim {NS}/{CLAIM} is in the process of being allocated",
        {"namespace": NS, "claim": CLAIM},
        ALL_VERSIONS,
        False,
    ),
    (
        "device-class-missing",
        f"request {REQ}: device class npu.rebellions.ai does not exist",
        {"request": REQ, "class": "npu.rebellions.ai"},
        ALL_VERSIONS,
        False,
    ),
    (
        "device-class-missing",
        "request nic/rdma: device class dranet does not exist",
        {"request": "nic/rdma", "class": "dranet"},
        FROM_133,
        False,
    ),
    (
        "device-class-lookup-failed",
        f"request {REQ}: look up device class: etcdserver: request timed out",
        {"request": REQ, "error": "etcdserver: request timed out"},
        V132_ONLY,
        True,
    ),
    (
        "unsupported-request-type",
        f"request {REQ}: unsupported request type",
        {"request": REQ},
        ALL_VERSIONS,
        True,
    ),
    (
        "prioritized-list-disabled",
        f"resource claim {NS}/{CLAIM}, request {REQ}: has subrequests, "
        "but the DRAPrioritizedList feature is disabled",
        {"namespace": NS, "claim": CLAIM, "request": REQ},
        FROM_133,
        False,
    ),
    (
        "unknown-request-type",
        f"resource claim {NS}/{CLAIM}, request {REQ}: unknown request type",
        {"namespace": NS, "claim": CLAIM, "request": REQ},
        FROM_134,
        False,
    ),
    ("cannot-allocate", "cannot allocate all claims", {}, ALL_VERSIONS, False),
    ("claim-not-on-node", "resourceclaim not available on the node", {}, ALL_VERSIONS, False),
    ("timeout", "timed out trying to allocate devices", {}, FROM_134, False),
    (
        "allocation-cancelled",
        "asked by caller to stop allocating devices: context canceled",
        {"error": "context canceled"},
        FROM_134,
        False,
    ),
    ("invalid-pools", "invalid resource pools were encountered", {}, V135_ONLY, False),
    ("extended-resource-unschedulable", "cannot schedule extended resource claim", {}, FROM_134, False),
    ("extended-resource-unschedulable", "cannot fit resource", {}, FROM_134, False),
    ("still-not-schedulable", "still not schedulable", {}, ALL_VERSIONS, False),
    ("claim-deallocated", "deallocation of ResourceClaim completed", {}, ALL_VERSIONS, False),
    ("no-claims-to-deallocate", "no new claims to deallocate", {}, ALL_VERSIONS, False),
    ("extended-claim-deleted", "deletion of ResourceClaim completed", {}, FROM_134, False),
    ("plugin-disabled", "plugin disabled", {}, ALL_VERSIONS, False),
    (
        "claim-allocated-elsewhere",
        f"claim {NS}/{CLAIM} got allocated elsewhere in the meantime",
        {"namespace": NS, "claim": CLAIM},
        ALL_VERSIONS,
        True,
    ),
    (
        "claim-deleted-meantime",
        f"claim {NS}/{CLAIM} got deleted in the meantime",
        {"namespace": NS, "claim": CLAIM},
        ALL_VERSIONS,
        True,
    ),
    (
        "claim-update-failed",
        f"add allocation and reservation to claim {NS}/{CLAIM}: etcdserver: leader changed",
        {
            "operation": "add allocation and reservation",
            "claim": CLAIM,
            "error": "etcdserver: leader changed",
        },
        ALL_VERSIONS,
        True,
    ),
    (
        "claim-update-failed",
        f"add reservation to claim {NS}/{CLAIM}: status.reservedFor: Too many: 33",
        {"operation": "add reservation", "claim": CLAIM},
        ALL_VERSIONS,
        True,
    ),
    (
        "claim-update-failed",
        f"add finalizer to claim {NS}/{CLAIM}: conflict",
        {"operation": "add finalizer", "claim": CLAIM},
        ALL_VERSIONS,
        True,
    ),
    (
        "binding-conditions-pending",
        "waiting for binding conditions for device on node npu-node-1",
        {"node": "npu-node-1"},
        FROM_134,
        False,
    ),
    ("binding-timeout", "device binding timeout", {}, FROM_134, True),
    # ---- 1.3 allocator errors ----
    (
        "cel-expression-empty",
        f"claim {NS}/{CLAIM}, request {REQ}, selector #1: CEL expression empty (unsupported selector type?)",
        {"namespace": NS, "claim": CLAIM, "request": REQ, "selector": "1"},
        ALL_VERSIONS,
        True,
    ),
    (
        "admin-access-disabled",
        f"claim {NS}/{CLAIM}, request {REQ}: admin access is requested, but the feature is disabled",
        {"claim": CLAIM, "request": REQ},
        ALL_VERSIONS,
        True,
    ),
    (
        "device-class-name-missing",
        f"claim {NS}/{CLAIM}, request {REQ}: missing device class name (unsupported request type?)",
        {"claim": CLAIM, "request": REQ},
        ALL_VERSIONS,
        True,
    ),
    (
        "device-class-lookup-failed",
        f"claim {NS}/{CLAIM}, request {REQ}: could not retrieve device class npu.rebellions.ai: "
        f'deviceclass.resource.k8s.io "npu.rebellions.ai" not found',
        {"claim": CLAIM, "request": REQ, "class": "npu.rebellions.ai"},
        ALL_VERSIONS,
        True,
    ),
    (
        "count-too-large",
        f"claim {NS}/{CLAIM}, request {REQ}: exact count 9223372036854775807 is too large",
        {"count": "9223372036854775807"},
        ALL_VERSIONS,
        True,
    ),
    (
        "all-mode-pool-incomplete",
        f"claim {NS}/{CLAIM}, request nic: asks for all devices, but resource pool dra.net/npu-node-1 "
        "is currently being updated",
        {"request": "nic", "driver": "dra.net", "pool": "npu-node-1"},
        ALL_VERSIONS,
        True,
    ),
    (
        "all-mode-pool-invalid",
        f"claim {NS}/{CLAIM}, request nic: asks for all devices, but resource pool dra.net/rack-a/npu-node-1 "
        "is currently invalid",
        {"driver": "dra.net", "pool": "rack-a/npu-node-1"},
        ALL_VERSIONS,
        True,
    ),
    (
        "unsupported-allocation-mode",
        f"claim {NS}/{CLAIM}, request {REQ}: unsupported count mode Some",
        {"mode": "Some"},
        ALL_VERSIONS,
        True,
    ),
    (
        "claim-limit-exceeded",
        f"claim {NS}/{CLAIM}: number of requested devices 40 exceeds the claim limit of 32",
        {"claim": CLAIM, "count": "40", "limit": "32"},
        ALL_VERSIONS,
        True,
    ),
    (
        "empty-constraint",
        f"claim {NS}/{CLAIM}, constraint #1: empty constraint (unsupported constraint type?)",
        {"claim": CLAIM, "constraint": "1"},
        ALL_VERSIONS,
        True,
    ),
    (
        "prioritized-list-disabled",
        f"claim {NS}/{CLAIM}, request {REQ}: has subrequests, but the DRAPrioritizedList feature is disabled",
        {"claim": CLAIM, "request": REQ},
        FROM_133,
        True,
    ),
    (
        "consumable-capacity-disabled",
        f"claim {NS}/{CLAIM}, request {REQ}: has capacity requests, "
        "but the DRAConsumableCapacity feature is disabled",
        {"claim": CLAIM, "request": REQ},
        FROM_134,
        True,
    ),
    (
        "consumable-capacity-disabled",
        f"claim {NS}/{CLAIM}, subrequest nic/big: has capacity requests, "
        "but the DRAConsumableCapacity feature is "
        "disabled",
        {"claim": CLAIM, "subrequest": "nic/big"},
        FROM_134,
        True,
    ),
    (
        "cel-compile-error",
        "class dranet: selector #0: CEL compile error: ERROR: <input>:1:1: Syntax error",
        {"class": "dranet", "selector": "0"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-compile-error",
        f"claim {NS}/{CLAIM}: selector #2: CEL compile error: undefined field 'foo'",
        {"claim": CLAIM, "selector": "2", "error": "undefined field 'foo'"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-runtime-error",
        f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: no such key: numaNode",
        {"namespace": NS, "claim": CLAIM, "selector": "0", "attribute": "numaNode", "kind": "no-such-key"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-runtime-error",
        "class npu.rebellions.ai: selector #0: CEL runtime error: no such key: productName",
        {"class": "npu.rebellions.ai", "attribute": "productName"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-runtime-error",
        f"claim {NS}/{CLAIM}: selector #1: CEL runtime error: "
        "attribute dra.net/numaNode: unsupported attribute value",
        {"attribute": "dra.net/numaNode", "kind": "bad-attribute-value"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-runtime-error",
        f"claim {NS}/{CLAIM}: selector #1: CEL runtime error: "
        "attribute driverVersion: parse semantic version: "
        'Invalid character(s) found in major number "x"',
        {"attribute": "driverVersion", "kind": "bad-attribute-value"},
        ALL_VERSIONS,
        True,
    ),
    (
        "cel-runtime-error",
        f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: actual cost limit exceeded",
        {"kind": "cost-limit"},
        ALL_VERSIONS,
        True,
    ),
    (
        "constraint-all-mode",
        f"claim {NS}/{CLAIM}, request nic: cannot add device dra.net/npu-node-1/pci-0000-17-00-0 "
        "because a claim "
        "constraint would not be satisfied",
        {"request": "nic", "driver": "dra.net", "pool": "npu-node-1", "device": "pci-0000-17-00-0"},
        ALL_VERSIONS,
        True,
    ),
    (
        "pool-invalid",
        "pool npu-node-1 is invalid: duplicate device name rbln0",
        {"pool": "npu-node-1", "device": "rbln0"},
        UP_TO_134,
        True,
    ),
    (
        "slice-node-selection-failed",
        "gather pool information: failed to perform node selection for slice npu-node-1-dra.net-x: "
        "invalid label selector",
        {"slice": "npu-node-1-dra.net-x"},
        FROM_133,
        True,
    ),
    (
        "slice-node-selection-failed",
        "gather pool information: add node slice npu-node-1-dra.net-x: invalid label selector",
        {"slice": "npu-node-1-dra.net-x"},
        V132_ONLY,
        True,
    ),
    (
        "allocation-aborted",
        "filter operation aborted: context deadline exceeded",
        {"error": "context deadline exceeded"},
        FROM_134,
        True,
    ),
    (
        "no-allocator",
        "internal error: no allocator available for feature set {AdminAccess ConsumableCapacity}",
        {},
        FROM_134,
        True,
    ),
    # ---- 1.4 resource-claim controller ----
    (
        "template-not-found",
        'PodResourceClaim npu-rdma: resource claim template "npu-rdma": '
        'resourceclaimtemplate.resource.k8s.io "npu-rdma" not found',
        {"pod_claim": "npu-rdma", "template": "npu-rdma"},
        ALL_VERSIONS,
        False,
    ),
    (
        "template-lookup-failed",
        'PodResourceClaim devices: resource claim template "npu-rdma": '
        "the server could not find the requested resource",
        {"pod_claim": "devices", "template": "npu-rdma"},
        ALL_VERSIONS,
        False,
    ),
    (
        "admin-access-disabled",
        "PodResourceClaim devices: admin access is requested, but the feature is disabled",
        {"pod_claim": "devices"},
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-create-failed",
        f"PodResourceClaim devices: create ResourceClaim {POD}-devices-: ResourceClaim.resource.k8s.io "
        f'"{POD}-devices-" is invalid: spec.devices.constraints[0].matchAttribute: Required value',
        {
            "pod_claim": "devices",
            "generate_name": f"{POD}-devices-",
            "cause": "constraint-attribute-required",
        },
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-check-failed",
        "checking for claim before creating it: the server was unable to return a response",
        {},
        ALL_VERSIONS,
        False,
    ),
    (
        "claim-lookup-failed",
        f"finding ResourceClaim for claim devices in pod {NS}/{POD} failed: boom",
        {"pod_claim": "devices", "namespace": NS, "pod": POD},
        ALL_VERSIONS,
        False,
    ),
    (
        "pod-status-update-failed",
        f"update pod {NS}/{POD} ResourceClaimStatuses: conflict",
        {"namespace": NS, "pod": POD},
        ALL_VERSIONS,
        False,
    ),
    # ---- 1.5 API server ----
    (
        "request-shape-invalid",
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required",
        {},
        FROM_134,
        False,
    ),
    (
        "request-shape-invalid",
        'spec.devices.requests[0]: Invalid value: "object": exactly one of `exactly` or '
        "`firstAvailable` is required, but multiple fields are set",
        {"multiple": ", but multiple fields are set"},
        FROM_134,
        False,
    ),
    (
        "count-with-all-mode",
        "spec.devices.requests[0].exactly.count: Invalid value: 4: must not be specified when "
        "allocationMode is 'All'",
        {},
        ALL_VERSIONS,
        False,
    ),
    (
        "count-not-positive",
        "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero",
        {"count": "0"},
        ALL_VERSIONS,
        False,
    ),
    (
        "allocation-mode-unsupported",
        'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": '
        'supported values: "All", "ExactCount"',
        {"mode": "Some"},
        ALL_VERSIONS,
        False,
    ),
    (
        "constraint-attribute-required",
        "spec.devices.constraints[0].matchAttribute: Required value",
        {"constraint": "0"},
        ALL_VERSIONS,
        False,
    ),
    (
        "constraint-fields-conflict",
        'spec.devices.constraints[1]: Invalid value: "object": exactly one of '
        '"matchAttribute" or "distinctAttribute" is required, but multiple fields are set',
        {},
        FROM_134,
        False,
    ),
    (
        "unknown-request-reference",
        'spec.devices.constraints[0].requests[0]: Invalid value: "gpu": must be the '
        "name of a request in the claim or the name of a request and a subrequest separated by '/'",
        {},
        ALL_VERSIONS,
        False,
    ),
    (
        "cel-compile-error",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
        '"device.attributes[\\"dra.net\\"].rdma ==": compilation failed: ERROR: <input>:1:38: Syntax error',
        {"selector": "0"},
        ALL_VERSIONS,
        False,
    ),
    (
        "cel-too-complex",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, "
        "exceeds cost limit",
        {},
        ALL_VERSIONS,
        False,
    ),
    (
        "cel-too-long",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than "
        "10240 bytes",
        {"selector": "0"},
        ALL_VERSIONS,
        False,
    ),
    (
        "device-class-name-required",
        "spec.devices.requests[0].deviceClassName: Required value",
        {},
        ALL_VERSIONS,
        False,
    ),
    (
        "admin-access-label-missing",
        "admin access to devices requires the `resource.kubernetes.io/admin-access: "
        "true` label on the containing namespace",
        {"label": "resource.kubernetes.io/admin-access"},
        FROM_134,
        False,
    ),
    (
        "admin-access-label-missing",
        "admin access to devices requires the `resource.k8s.io/admin-access: true` "
        "label on the containing namespace",
        {"label": "resource.k8s.io/admin-access"},
        ("1.33",),
        False,
    ),
]


def _cases() -> list:
    cases = []
    for code, text, fields, versions, fatal in MESSAGES:
        for version in versions:
            cases.append(
                pytest.param(code, text, fields, version, fatal, id=f"{version}-{code}-{len(cases)}")
            )
    return cases


@pytest.mark.parametrize(("code", "text", "fields", "version", "fatal"), _cases())
def test_every_documented_message_is_recognized(
    code: str, text: str, fields: dict[str, str], version: str, fatal: bool
) -> None:
    found = parse_dra_message(text)
    assert found is not None, text
    assert found.code == code
    assert found.fields.items() >= fields.items()
    assert version in found.versions
    assert found.fatal is fatal
    assert found.text == text


def test_version_ranges_exclude_versions_without_the_message() -> None:
    assert "1.32" not in parse_dra_message("timed out trying to allocate devices").versions
    assert parse_dra_message("invalid resource pools were encountered").versions == ("1.35",)
    assert "1.35" not in parse_dra_message("pool p is invalid: duplicate device name d").versions


@pytest.mark.parametrize(
    ("wrapper", "plugin"),
    [
        ('running "DynamicResources" filter plugin: ', "DynamicResources"),
        ('running PreFilter plugin "DynamicResources": ', "DynamicResources"),
    ],
)
def test_scheduler_error_forms_are_fatal_and_keep_the_inner_error(wrapper: str, plugin: str) -> None:
    inner = f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: no such key: numaNode"
    parsed = parse_scheduling_message(wrapper + inner)
    assert parsed.scheduler_error == inner
    assert parsed.error_plugin == plugin
    assert parsed.total_nodes is None
    assert [m.code for m in parsed.dra] == ["cel-runtime-error"]
    assert parsed.dra[0].fatal
    assert parsed.dra[0].fields["attribute"] == "numaNode"


def test_prefilter_error_wrapping_a_plugin_message_is_fatal() -> None:
    parsed = parse_scheduling_message(
        f'running PreFilter plugin "DynamicResources": request {REQ}: unsupported request type'
    )
    assert parsed.dra[0].code == "unsupported-request-type"
    assert parsed.dra[0].fatal


def _sample_lines() -> list[str]:
    lines = [line for line in SAMPLE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert lines[0].split() == ["Warning", "FailedScheduling", "default-scheduler"]
    return lines[1:]


@pytest.mark.parametrize("joined", ["one line", "line breaks"])
def test_real_sample_event(joined: str) -> None:
    lines = _sample_lines()
    text = " ".join(line.strip() for line in lines) if joined == "one line" else "\n".join(lines)
    parsed = parse_scheduling_message(text)
    assert parsed.total_nodes == 2
    assert [(r.count, r.text, r.category) for r in parsed.reasons] == [
        (1, "cannot allocate all claims", "dra"),
        (1, "node(s) didn't match Pod's node affinity/selector", "affinity"),
    ]
    assert parsed.postfilter is not None and parsed.postfilter.startswith(
        "still not schedulable, preemption:"
    )
    assert [(r.count, r.text) for r in parsed.preemption] == [(2, "Preemption is not helpful for scheduling")]
    assert [m.code for m in parsed.dra] == ["cannot-allocate", "still-not-schedulable"]
    assert not parsed.truncated and parsed.prefilter is None and parsed.scheduler_error is None


def test_describe_prefix_is_tolerated() -> None:
    text = SAMPLE.read_text().split("\n", 2)[2]  # from "Warning  FailedScheduling ..." on
    parsed = parse_scheduling_message(text)
    assert parsed.total_nodes == 2
    assert parsed.reasons[0].dra is not None and parsed.reasons[0].dra.code == "cannot-allocate"


def test_aggregate_example_of_section_1_1() -> None:
    text = (
        "0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node "
        "affinity/selector. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling."
    )
    parsed = parse_scheduling_message(text)
    assert sum(r.count for r in parsed.reasons) == 2
    assert parsed.categories == {"dra", "affinity"}


def test_prefilter_form_is_not_a_histogram() -> None:
    text = (
        f'0/4 nodes are available: pod "{NS}/{POD}": ResourceClaim not created yet. '
        "preemption: 0/4 nodes are "
        "available: 4 Preemption is not helpful for scheduling."
    )
    parsed = parse_scheduling_message(text)
    assert parsed.total_nodes == 4
    assert parsed.reasons == []
    assert parsed.prefilter == f'pod "{NS}/{POD}": ResourceClaim not created yet'
    assert [m.code for m in parsed.dra] == ["claim-not-created"]
    assert parsed.dra[0].fields == {"namespace": NS, "pod": POD}


def test_prefilter_device_class_missing_with_dra_postfilter() -> None:
    text = (
        "0/3 nodes are available: request npu: device class npu.rebellions.ai does not exist. no new claims "
        "to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    parsed = parse_scheduling_message(text)
    assert [m.code for m in parsed.dra] == ["device-class-missing", "no-claims-to-deallocate"]
    assert parsed.dra[0].fields["class"] == "npu.rebellions.ai"


def test_histogram_sorted_as_strings_with_non_dra_reasons() -> None:
    text = (
        "0/7 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable, 2 Insufficient "
        "rebellions.ai/ATOM, 2 cannot allocate all claims. still not schedulable, preemption: 0/7 nodes are "
        "available: 2 Preemption is not helpful for scheduling, "
        "5 No preemption victims found for incoming pod."
    )
    parsed = parse_scheduling_message(text)
    summary = [(r.count, r.category, r.resource, r.taint) for r in parsed.reasons]
    assert summary == [
        (1, "resources", "memory", None),
        (1, "taint", None, "node-role.kubernetes.io/control-plane:"),
        (1, "unschedulable", None, None),
        (2, "resources", "rebellions.ai/ATOM", None),
        (2, "dra", None, None),
    ]
    assert len(parsed.preemption) == 2


def test_reason_containing_a_comma_stays_one_reason() -> None:
    text = (
        "0/3 nodes are available: 1 node(s) had taint {gpu: true}, that the pod didn't tolerate, "
        "2 node(s) didn't satisfy plugin(s) [DynamicResources, NodeAffinity]."
    )
    parsed = parse_scheduling_message(text)
    assert [(r.count, r.category) for r in parsed.reasons] == [(1, "taint"), (2, "dra")]
    assert parsed.reasons[0].taint == "gpu: true"


def test_truncated_note_is_marked_and_keeps_what_it_has() -> None:
    text = (
        "0/40 nodes are available: 12 cannot allocate all claims, 28 node(s) had untolerated taint "
        "{nvidia.com/gpu: present}. still not schedulable, preemption: 0/40 nodes ..."
    )
    parsed = parse_scheduling_message(text)
    assert parsed.truncated
    assert parsed.total_nodes == 40
    assert [r.count for r in parsed.reasons] == [12, 28]
    assert parsed.reasons[1].category == "taint"


def test_truncated_in_the_middle_of_the_histogram() -> None:
    parsed = parse_scheduling_message(
        "0/40 nodes are available: 12 cannot allocate all claims, 28 node(s) had ..."
    )
    assert parsed.truncated
    assert parsed.reasons[0].category == "dra"
    assert parsed.reasons[1].count == 28


def test_pod_scheduled_condition_scheduler_error_without_wrapper() -> None:
    cond = Condition("PodScheduled", "False", "SchedulerError", "something broke inside the scheduler")
    assert parse_pod_scheduled(cond).scheduler_error == "something broke inside the scheduler"
    unsched = Condition("PodScheduled", "False", "Unschedulable", "0/1 nodes are available: 1 Too many pods.")
    parsed = parse_pod_scheduled(unsched)
    assert parsed.scheduler_error is None
    assert parsed.reasons[0].resource == "pods"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("node(s) didn't match Pod's node affinity/selector", "affinity"),
        ("node(s) didn't match pod topology spread constraints", "affinity"),
        ("node(s) had volume node affinity conflict", "other"),
        ("node(s) were unschedulable", "unschedulable"),
        ("node(s) had untolerated taint {node.kubernetes.io/unschedulable: }", "unschedulable"),
        ("node(s) had untolerated taint(s)", "taint"),
        ("Too many pods", "resources"),
        ("Insufficient cpu", "resources"),
        ("node(s) didn't satisfy plugin(s) [NodeAffinity]", "affinity"),
        ("resourceclaim not available on the node", "dra"),
        ("timed out trying to allocate devices", "dra"),
        ("invalid resource pools were encountered", "dra"),
        ("node(s) didn't have free ports for the requested pod ports", "other"),
    ],
)
def test_reason_categories(text: str, category: str) -> None:
    assert classify_reason(1, text).category == category


def _event(reason: str, message: str) -> Event:
    return Event("llm", "Pod", POD, "llm", reason, message, type="Warning")


def test_classify_failed_scheduling() -> None:
    parsed = classify_event(
        _event("FailedScheduling", "0/1 nodes are available: 1 cannot allocate all claims.")
    )
    assert parsed.kind == "scheduling"
    assert parsed.scheduling is not None and parsed.scheduling.total_nodes == 1
    assert [m.code for m in parsed.dra] == ["cannot-allocate"]


def test_classify_failed_claim_creation() -> None:
    text = (
        'PodResourceClaim npu-rdma: resource claim template "npu-rdma": '
        'resourceclaimtemplate.resource.k8s.io "npu-rdma" not found'
    )
    parsed = classify_event(_event("FailedResourceClaimCreation", text))
    assert parsed.kind == "claim-creation"
    assert parsed.fields == {"pod_claim": "npu-rdma"}
    assert parsed.dra[0].code == "template-not-found"
    assert parsed.dra[0].fields["template"] == "npu-rdma"


@pytest.mark.parametrize(
    ("reason", "text", "fields"),
    [
        (
            "FailedPrepareDynamicResources",
            "Failed to prepare dynamic resources: prepare dynamic resources: "
            "NodePrepareResources failed for claim "
            f"{NS}/{CLAIM}: error preparing devices for claim: RSD group creation failed",
            {"namespace": NS, "claim": CLAIM},
        ),
        (
            "FailedPrepareDynamicResources",
            "Failed to prepare dynamic resources: prepare dynamic resources: "
            "NodePrepareResources: rpc error: code = "
            "DeadlineExceeded desc = context deadline exceeded",
            {},
        ),
        (
            "FailedPrepareDynamicResources",
            "Failed to prepare dynamic resources: failed to get gRPC client for driver npu.rebellions.ai: "
            "DRA driver npu.rebellions.ai is not registered",
            {"driver": "npu.rebellions.ai"},
        ),
        (
            "FailedCreatePodSandBox",
            "Failed to create pod sandbox: rpc error: code = Unknown desc = "
            "failed to inject devices: failed to "
            "inject CDI devices: unresolvable CDI devices k8s.npu.rebellions.ai/npu=common",
            {"cdi_device": "k8s.npu.rebellions.ai/npu=common"},
        ),
        (
            "Failed",
            "Error: failed to generate container spec: unresolvable CDI devices dra.net/nic=abc",
            {"cdi_device": "dra.net/nic=abc"},
        ),
    ],
)
def test_classify_kubelet_prepare_failures(reason: str, text: str, fields: dict[str, str]) -> None:
    parsed = classify_event(_event(reason, text))
    assert parsed.kind == "kubelet"
    assert [m.code for m in parsed.dra] == ["kubelet-prepare-failed"]
    assert parsed.fields.items() >= fields.items()


def test_sandbox_failure_unrelated_to_devices_is_not_blamed_on_dra() -> None:
    parsed = classify_event(
        _event("FailedCreatePodSandBox", "Failed to create pod sandbox: network is not ready")
    )
    assert parsed.kind == "other"
    assert parsed.dra == []


def test_classify_backoff() -> None:
    parsed = classify_event(
        _event("BackOff", f"Back-off restarting failed container modelserver in pod {POD}_{NS}(0b5c-uid)")
    )
    assert parsed.kind == "backoff"
    assert parsed.fields["container"] == "modelserver"


def test_unknown_text_is_not_a_dra_message() -> None:
    assert parse_dra_message("Successfully assigned llm/prefill-0 to npu-node-1") is None
    assert parse_dra_message("") is None
    parsed = parse_scheduling_message("no nodes available to schedule pods")
    assert parsed.total_nodes is None and parsed.reasons == [] and parsed.dra == []
