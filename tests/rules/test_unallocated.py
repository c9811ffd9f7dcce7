"""rules/unallocated.py: claim-not-allocated, the last word when no other rule found an error."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, found_before_suppression, only, scenario


def test_claim_not_allocated_when_devices_fit_and_nothing_else_is_wrong():
    """Every slot is free and the devices fit: the scheduler just has not placed the Pod yet. No rule
    knows why, so the stage says so (an error: the Pod is stuck), and the claim's own note stays."""
    c = cluster(**ALL_PENDING)
    findings = c.findings()
    finding = only(findings, "claim-not-allocated")
    assert [f.slug for f in findings] == ["cause-not-recognised", "claim-not-allocated"]
    assert findings[0].evidence["stage"] == "allocated"
    assert finding.severity == "warning"
    claim = c.raw("Pod", c.pod)["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    # in_memory: the scheduler's claim for extended resources, which `get resourceclaim` cannot read
    assert finding.values == {"namespace": c.namespace, "pod": c.pod, "claim": claim, "in_memory": False}
    assert finding.evidence["simulationFitsOn"] == c.npu_nodes
    assert_named(
        finding, f"{c.namespace}/{claim}", f"kubectl -n {c.namespace} get resourceclaim {claim} -o yaml"
    )


def test_not_raised_when_another_rule_found_an_error():
    c = scenario("one-nic-per-numa")
    assert "claim-not-allocated" not in {f.slug for f in found_before_suppression(c)}


def test_not_raised_for_a_running_pod():
    c = scenario("healthy")
    assert "claim-not-allocated" not in c.slugs()


def test_not_raised_without_a_claim_object():
    """No ResourceClaim exists: that is claim-not-created's story, not an unallocated claim."""
    c = scenario("claim-not-created")
    assert "claim-not-allocated" not in {f.slug for f in found_before_suppression(c)}
