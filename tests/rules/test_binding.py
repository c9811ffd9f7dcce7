"""Device binding conditions (KEP-5007): waiting in PreBind, a failure condition, the timeout, and a
scheduler without the gate. Scenarios: testing/synthetic/upstream_binding.py."""

from __future__ import annotations

import pytest

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.diagnose.events import parse_dra_message
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.upstream_binding import ATTACH_FAILED, ATTACHED, fabric_cluster
from tests.rules.rules_kit import LANGS, only, scenario, texts


def test_waiting_names_the_device_the_condition_and_the_time_left():
    c = scenario("fabric-npu-binding-pending")
    findings = c.findings()
    finding = only(findings, "binding-conditions-pending")
    assert finding.severity == "warning"
    assert finding.values["conditions"] == [ATTACHED]
    assert finding.values["waited"] == 95 and finding.values["left"] == 505
    assert finding.values["node"] == "npu-node-02"
    assert "npu.rebellions.ai/npu-node-02/rbln0" in list(finding.values["devices"])
    assert not {"binding-failed", "scheduler-error", "claim-not-allocated"} & {f.slug for f in findings}
    for lang in LANGS:
        words = texts(finding, lang)
        assert ATTACHED in words and "rbln0" in words and "600" in words


def test_a_failure_condition_is_named_with_its_reason_and_hides_the_scheduler_error():
    c = scenario("fabric-npu-attach-failed")
    findings = c.findings()
    finding = only(findings, "binding-failed")
    assert finding.case is None and finding.severity == "error"
    assert finding.values["condition"] == ATTACH_FAILED
    assert finding.values["reason"] == "AttachFailed"
    assert "scheduler-error" not in {f.slug for f in findings}
    assert "binding-conditions-pending" not in {f.slug for f in findings}
    for lang in LANGS:
        assert "CXL switch port 3 is down" in texts(finding, lang)


def test_the_timeout_case_says_how_long_it_waited():
    finding = only(scenario("fabric-npu-binding-timeout").findings(), "binding-failed")
    assert finding.case == "timeout"
    assert finding.values["waited"] >= finding.values["timeout"] == 600
    assert "device binding timeout" in str(finding.evidence["schedulerError"])


def test_the_timeout_alone_from_the_claim_times():
    """No event survives: the allocationTimestamp is 600 s older than the newest recorded time."""
    c = scenario("fabric-npu-binding-timeout")
    c.objects = [o for o in c.objects if not (o["kind"] == "Event" and o["reason"] == "FailedScheduling")]
    pod = c.raw("Pod", c.pod)
    pod["status"]["conditions"] = [x for x in pod["status"]["conditions"] if x["type"] != "PodScheduled"]
    claim = next(o for o in c.of_kind("ResourceClaim") if (o.get("status") or {}).get("devices"))
    claim["status"]["devices"][0]["conditions"][0]["lastTransitionTime"] = "2026-09-01T10:00:30Z"
    assert only(c.findings(), "binding-failed").case == "timeout"


def test_the_failure_from_the_event_alone_after_deallocation():
    """PostFilter already cleared the allocation: only the recorded PreBind text is left."""
    c = scenario("fabric-npu-attach-failed")
    claim = next(o for o in c.of_kind("ResourceClaim") if (o.get("status") or {}).get("devices"))
    claim["status"] = {}
    finding = only(c.findings(), "binding-failed")
    assert finding.values["reason"] == "AttachFailed"
    assert finding.values["message"] == "CXL switch port 3 is down"


def test_gate_off_names_the_devices_with_binding_conditions():
    objects, (namespace, pod) = fabric_cluster()
    request = WhyRequest((f"{namespace}/{pod}",), feature_gates="DRADeviceBindingConditions=false")
    findings = why(build_snapshot(objects), request).findings
    finding = only(findings, "binding-gate-disabled")
    assert finding.values["conditions"] == [ATTACHED]
    assert any("rbln" in d for d in finding.values["devices"])
    assert not {"insufficient-devices", "selector-matches-nothing", "devices-exhausted"} & {
        f.slug for f in findings
    }
    with_gate = why(build_snapshot(fabric_cluster()[0]), WhyRequest((f"{namespace}/{pod}",))).findings
    assert "binding-gate-disabled" not in {f.slug for f in with_gate}


@pytest.mark.parametrize(
    ("text", "code", "fields"),
    [
        (
            'running PreBind plugin "DynamicResources": claim c-1 binding failed: reason=AttachFailed, '
            'message="port down"',
            "binding-failed",
            {"claim": "c-1", "reason": "AttachFailed", "message": '"port down"'},
        ),
        (
            'running PreBind plugin "DynamicResources": claim c-1 binding timeout',
            "claim-binding-timeout",
            {"claim": "c-1"},
        ),
        ('running PreBind plugin "DynamicResources": device binding timeout', "binding-timeout", {}),
    ],
)
def test_prebind_texts_are_recognised(text, code, fields):
    found = parse_dra_message(text)
    assert found is not None and found.code == code and found.fatal
    assert found.fields == fields


def test_status_devices_and_binding_fields_are_normalized():
    snapshot = build_snapshot(scenario("fabric-npu-attach-failed").objects)
    device = next(d for s in snapshot.slices for d in s.devices if d.binding_conditions)
    assert device.binding_failure_conditions == [ATTACH_FAILED] and device.binds_to_node
    claim = next(c for c in snapshot.claims if c.devices)
    assert claim.allocation is not None and claim.allocation.allocation_timestamp
    result = next(r for r in claim.allocation.results if r.binding_conditions)
    status = claim.device_status(result.driver, result.pool, result.device)
    assert status is not None and status.condition(ATTACH_FAILED).status == "True"
