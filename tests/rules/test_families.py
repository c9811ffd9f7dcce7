"""Issue 12, point 4: the failure families of testing/synthetic/upstream_families.py, one section
each, from the scenario built after the cited upstream report, with the words a user reads."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, only, scenario

from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.domain import DEFAULT_RCT, NIC_CLASS, NPU_CLASS

# ---------------------------------------------------------------- a) a missing RCT or claim leads


def test_missing_rct_leads_and_no_reference_class_is_guessed():
    c = scenario("rct-missing-no-reference-classes")
    findings = c.findings()
    finding = only(findings, "claim-template-missing")
    assert finding.case is None and finding.values["rct"] == DEFAULT_RCT
    assert "device-class-missing" not in {f.slug for f in findings}
    assert findings[0].slug == "claim-template-missing"  # the lead finding
    assert_named(finding, f"{c.namespace}/{DEFAULT_RCT}")


def test_missing_named_claim_leads_and_no_reference_class_is_guessed():
    """A Pod with `resourceClaimName` whose claim does not exist, on a cluster without the classes."""
    c = cluster(drop_device_classes=(NPU_CLASS, NIC_CLASS), **ALL_PENDING)
    pod = c.raw("Pod", c.pod)
    pod["spec"]["resourceClaims"] = [{"name": "shared", "resourceClaimName": "shared-npus"}]
    pod["status"].pop("resourceClaimStatuses", None)
    findings = c.findings()
    assert "device-class-missing" not in {f.slug for f in findings}
    finding = only(findings, "claim-not-created")
    assert finding.values["claim"] == "shared-npus"
    assert_named(finding, c.pod)


def test_check_still_names_the_reference_classes_for_the_charts_rct():
    """`check` is about the chart's RCT: with it missing, item 1 still lists the reference classes."""
    c = scenario("rct-missing-no-reference-classes")
    report = run_check(c.snapshot(), CheckRequest(c.namespace, DEFAULT_RCT))
    item = next(i for i in report.items if i.id == "1")
    assert item.status == "fail"
    assert sorted(f.values["class"] for f in item.findings) == sorted([NPU_CLASS, NIC_CLASS])


# ---------------------------------------------------------------- b) the RCT is in another namespace


def test_rct_in_another_namespace_says_where():
    c = scenario("rct-in-other-namespace")
    finding = only(c.findings(), "claim-template-missing")
    assert finding.case == "other-namespace"
    assert list(finding.values["elsewhere"]) == ["default"]
    assert finding.values["source"] == "default"
    assert finding.evidence["sameNameIn"] == [f"default/{DEFAULT_RCT}"]
    assert finding.evidence["templatesInNamespace"] == []
    assert_named(
        finding,
        DEFAULT_RCT,
        c.namespace,
        "default",
        f"kubectl get resourceclaimtemplate -A --field-selector metadata.name={DEFAULT_RCT}",
        f"kubectl -n default get resourceclaimtemplate {DEFAULT_RCT} -o json",
        f"kubectl -n {c.namespace} create -f {DEFAULT_RCT}.copy.json",
    )


def test_rct_missing_everywhere_keeps_the_plain_words():
    finding = only(scenario("rct-missing").findings(), "claim-template-missing")
    assert finding.case is None and "elsewhere" not in finding.values
    assert "sameNameIn" not in finding.evidence


# ---------------------------------------------------------------- d) free, but rdma=false


def test_free_nics_that_lost_rdma_are_named_not_only_the_holders():
    c = scenario("free-nics-lost-rdma")
    finding = only(c.findings(), "devices-exhausted")
    assert finding.case == "free-but-failing"
    assert finding.values["request"] == "nic"
    assert finding.values["seen"] == ["rdma=false"]
    assert finding.values["free_failing"] == 3  # NUMA 1's two backend NICs and the management NIC
    assert "rdma == true" in finding.values["term"]
    assert finding.evidence["freeValuesSeen"] == {"dra.net/rdma": {"false": 3}}
    assert list(finding.values["holders"]) == [f"{c.namespace}/{c.builder.running_pods()[0][1]}"]
    assert_named(finding, "rdma=false", "nic", "npu-node-01", "sudo modprobe bnxt_re")
    assert "Free, but rdma=false" in finding.words("en").title


def test_the_node_row_says_free_but_rdma_false():
    c = scenario("free-nics-lost-rdma")
    from kubectl_rbln.app.why import WhyRequest, why

    report = why(c.snapshot(), WhyRequest((f"{c.namespace}/{c.pod}",)))
    rows = {r["name"]: r for r in report.diagnoses[0].context.simulation.rows}
    assert "free, but rdma=false" in rows["npu-node-01"]["reason"]
    assert "held by other claims" in rows["npu-node-01"]["reason"]


def test_plain_exhaustion_keeps_the_holders_words():
    """Every NUMA slot held, no free device that a selector drops: the plain devices-exhausted."""
    finding = only(scenario("devices-exhausted").findings(), "devices-exhausted")
    assert finding.case is None
    assert "seen" not in finding.values


# ---------------------------------------------------------------- c) allocationMode: All, devices held


def test_all_mode_blocked_by_held_devices_names_the_holders():
    c = scenario("all-mode-devices-held")
    finding = only(c.findings(), "devices-exhausted")
    assert finding.case == "all-mode"
    assert finding.evidence["allocationMode"] == "All"
    assert (finding.values["matching"], finding.values["held"]) == (4, 2)
    holder = f"{c.namespace}/{c.builder.running_pods()[0][1]}"
    assert list(finding.values["holders"]) == [holder]
    assert_named(finding, "allocationMode: All", "nic", holder, "ExactCount")


def test_all_mode_words_only_for_an_all_request():
    """The same held NICs under the reference RCT (ExactCount) keep the other words."""
    finding = only(scenario("free-nics-lost-rdma").findings(), "devices-exhausted")
    assert finding.case != "all-mode"
