"""rules/scheduler.py: selector-error, scheduler-error, feature-gate-disabled (template, DeviceClass
and event evidence) and kubelet-prepare-failed, each from a cluster where that cause is present."""

from __future__ import annotations

import json

from rules_kit import ALL_PENDING, assert_named, cluster, event, only, scenario, set_pod_scheduled

from kubectl_rbln.diagnose.rct_audit import LAST_APPLIED
from kubectl_rbln.diagnose.rules import scheduler
from kubectl_rbln.domain import DEFAULT_RCT, NPU_CLASS

FAMILY = {"selector-error", "scheduler-error", "feature-gate-disabled", "kubelet-prepare-failed"}


def _family(findings):
    return [f for f in findings if f.slug in FAMILY]


def test_each_rule_emits_its_one_slug():
    emitted = {
        s
        for r in (
            scheduler.selector_error,
            scheduler.scheduler_error,
            scheduler.feature_gate_disabled,
            scheduler.kubelet_prepare_failed,
        )
        for s in r.emits
    }
    assert emitted == FAMILY


def test_healthy_running_pod_has_none_of_them():
    assert _family(scenario("healthy").findings()) == []


# ---------------------------------------------------------------- selector-error


def test_selector_error_from_the_simulated_cel_error():
    c = scenario("cel-no-such-key")
    finding = only(c.findings(), "selector-error")
    assert finding.severity == "error"
    assert "no such key: numaNode" in finding.values["error"]
    assert c.pod in finding.values["error"]  # the claim named in the allocator's message is the Pod's
    assert finding.evidence["conditionReason"] == "SchedulerError"
    assert "scheduler-error" not in c.slugs()  # a CEL error is not filed as a generic scheduler error
    assert_named(
        finding, "no such key: numaNode", f"kubectl -n {c.namespace} get resourceclaimtemplate {DEFAULT_RCT}"
    )


def test_selector_error_from_the_pod_scheduled_condition():
    """The scheduler said CEL compile error (its evidence outlives the events); our devices fit."""
    c = cluster(**ALL_PENDING)
    text = (
        'running "DynamicResources" filter plugin: claim serving/x-npu-rdma-abcde: '
        "selector #0: CEL compile error: undeclared reference to 'foo'"
    )
    set_pod_scheduled(c, "SchedulerError", text)
    finding = only(c.findings(), "selector-error")
    assert "undeclared reference to 'foo'" in finding.values["error"]
    assert finding.evidence["reason"] == "SchedulerError"


def test_unsatisfiable_constraint_is_not_a_selector_error():
    assert "selector-error" not in scenario("one-nic-per-numa").slugs()


# ---------------------------------------------------------------- scheduler-error


def test_scheduler_error_from_a_fatal_allocator_message():
    c = cluster(**ALL_PENDING)
    text = (
        'running "DynamicResources" filter plugin: claim serving/x, request npu: exact count 200 is too large'
    )
    set_pod_scheduled(c, "SchedulerError", text)
    finding = only(c.findings(), "scheduler-error")
    assert finding.severity == "error"
    assert "exact count 200 is too large" in finding.values["message"]
    assert_named(finding, "exact count 200 is too large", "logs -l component=kube-scheduler")


def test_scheduler_error_from_a_non_dra_scheduler_error():
    c = cluster(**ALL_PENDING)
    text = 'running "VolumeRestrictions" filter plugin: context deadline exceeded'
    set_pod_scheduled(c, "SchedulerError", text)
    finding = only(c.findings(), "scheduler-error")
    assert "context deadline exceeded" in finding.values["message"]
    assert finding.evidence["schedulerError"] == finding.values["message"]


def test_a_prebind_error_of_another_plugin_is_the_bound_stage_unrecognised():
    c = cluster(**ALL_PENDING)
    text = 'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded'
    set_pod_scheduled(c, "SchedulerError", text)
    finding = only(c.findings(), "cause-not-recognised")
    assert finding.evidence["stage"] == "bound"
    assert any(line.endswith(f": {text}") for line in finding.evidence["quoted"])


def test_an_unschedulable_fit_message_is_not_a_scheduler_error():
    c = cluster(**ALL_PENDING)
    set_pod_scheduled(c, "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.")
    assert "scheduler-error" not in c.slugs()


# ---------------------------------------------------------------- feature-gate-disabled


def test_gate_off_proven_by_the_stored_rct_losing_distinct_attribute():
    c = scenario("distinct-dropped-gate-off")
    finding = only(c.findings(), "feature-gate-disabled")
    assert finding.case is None
    assert finding.severity == "error"
    assert finding.values["gate"] == "DRAConsumableCapacity"
    assert (finding.values["namespace"], finding.values["rct"]) == (c.namespace, DEFAULT_RCT)
    assert finding.evidence["applied"] == "distinctAttribute: resource.kubernetes.io/pcieRoot"
    assert finding.evidence["stored"] == "missing"
    assert_named(
        finding, "--feature-gates=DRAConsumableCapacity=true", f"resourceclaimtemplate {DEFAULT_RCT}"
    )


def test_gate_not_blamed_when_the_stored_rct_kept_the_field():
    c = scenario("healthy")
    template = c.of_kind("ResourceClaimTemplate")[0]
    template["metadata"].setdefault("annotations", {})[LAST_APPLIED] = json.dumps(
        {"spec": template["spec"], "metadata": {"name": template["metadata"]["name"]}}
    )
    assert "feature-gate-disabled" not in c.slugs()


def test_gate_from_the_empty_constraint_scheduler_error():
    """The scheduler (gate off) cannot read distinctAttribute: `empty constraint`."""
    c = cluster(**ALL_PENDING)
    text = (
        f'running "DynamicResources" filter plugin: claim {c.namespace}/x-npu-rdma-abcde, constraint #1: '
        "empty constraint (unsupported constraint type?)"
    )
    set_pod_scheduled(c, "SchedulerError", text)
    findings = c.findings()
    finding = only(findings, "feature-gate-disabled")
    assert finding.values["gate"] == "DRAConsumableCapacity"
    assert finding.evidence["component"] == "kube-scheduler"
    # the same message is not filed twice, as a generic scheduler error
    assert "scheduler-error" not in {f.slug for f in findings}


def test_gate_from_the_simulation_when_the_gate_is_declared_off():
    """--feature-gates DRAConsumableCapacity=false: our own allocator meets the empty constraint."""
    c = cluster(**ALL_PENDING)
    findings = c.findings(feature_gates="DRAConsumableCapacity=false")
    finding = only(findings, "feature-gate-disabled")
    assert finding.values["gate"] == "DRAConsumableCapacity"
    assert "empty constraint" in finding.evidence["allocatorError"]


def test_extended_resource_case_names_class_and_resource():
    """The NPU class was applied with extendedResourceName; the API server dropped it (gate off)."""
    c = cluster(device_plugin_allocatable=False, **ALL_PENDING)
    npu_class = c.raw("DeviceClass", NPU_CLASS)
    applied = json.loads(json.dumps(npu_class))
    applied["spec"]["extendedResourceName"] = "rebellions.ai/npu"
    npu_class["metadata"].setdefault("annotations", {})[LAST_APPLIED] = json.dumps(applied)
    pod = c.raw("Pod", c.pod)
    pod["spec"]["containers"][0]["resources"]["limits"]["rebellions.ai/npu"] = "4"
    finding = next(f for f in c.findings() if f.slug == "feature-gate-disabled")
    assert finding.case == "extended-resource"
    assert finding.values == {
        "gate": "DRAExtendedResource",
        "class": NPU_CLASS,
        "resource": "rebellions.ai/npu",
        "request": "rebellions.ai/npu",
    }
    assert finding.evidence["podRequests"] == {"rebellions.ai/npu": "4"}
    assert_named(finding, NPU_CLASS, "rebellions.ai/npu", "--feature-gates=DRAExtendedResource=true")


def test_extended_resource_not_blamed_when_a_node_advertises_it():
    c = cluster(**ALL_PENDING)
    npu_class = c.raw("DeviceClass", NPU_CLASS)
    applied = json.loads(json.dumps(npu_class))
    applied["spec"]["extendedResourceName"] = "rebellions.ai/npu"
    npu_class["metadata"].setdefault("annotations", {})[LAST_APPLIED] = json.dumps(applied)
    c.raw("Pod", c.pod)["spec"]["containers"][0]["resources"]["limits"]["rebellions.ai/npu"] = "4"
    node = c.raw("Node", c.npu_nodes[0])
    node["status"]["allocatable"]["rebellions.ai/npu"] = "8"
    assert "feature-gate-disabled" not in c.slugs()


# ---------------------------------------------------------------- kubelet-prepare-failed


def test_kubelet_prepare_failed_names_the_node_and_the_message():
    c = cluster(prefill_running=1, decode_running=1, decode_pending=0)
    c.pod = c.builder.running_pods()[-1][1]
    pod = c.raw("Pod", c.pod)
    node = pod["spec"]["nodeName"]
    pod["status"]["phase"] = "Pending"
    message = (
        "Failed to prepare dynamic resources: NodePrepareResources failed for claim "
        f'{c.namespace}/x-npu-rdma-abcde: DRA driver "dra.net" is not registered'
    )
    c.objects.append(
        event(
            c.namespace,
            "Pod",
            c.pod,
            "FailedPrepareDynamicResources",
            message,
            "2026-09-14T06:00:00Z",
            count=7,
        )
    )
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.severity == "error"
    assert finding.values["node"] == node
    assert "dra.net" in finding.values["message"]
    assert finding.evidence["count"] == 7
    assert_named(finding, node, "is not registered", f"spec.nodeName={node}")


def test_kubelet_prepare_failed_ignores_other_pods_events():
    c = cluster(prefill_running=1, decode_running=1, decode_pending=0)
    running = [name for _, name in c.builder.running_pods()]
    c.pod = running[-1]
    c.objects.append(
        event(
            c.namespace,
            "Pod",
            running[0],
            "FailedPrepareDynamicResources",
            "NodePrepareResources failed: DRA driver dra.net is not registered",
            "2026-09-14T06:00:00Z",
        )
    )
    assert "kubelet-prepare-failed" not in c.slugs()
