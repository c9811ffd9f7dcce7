"""rules/attributes.py: attribute-not-advertised, per catalog case (default, alignment-alternative,
selector), with its negative and its suppression of constraint-unsatisfiable on the same attribute."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, found_before_suppression, only, scenario

from kubectl_rbln.diagnose.rules import attributes
from kubectl_rbln.domain import DRANET_NUMA_ATTR, NIC_DRIVER, NPU_DRIVER, NUMA_ATTR, PCIE_ROOT_ATTR

SLUG = "attribute-not-advertised"


def test_rule_declares_its_slug_and_suppression():
    assert attributes.attribute_not_advertised.emits == (SLUG,)
    assert dict(attributes.attribute_not_advertised.suppresses) == {"constraint-unsatisfiable": "attribute"}


def test_constraint_attribute_without_a_common_alternative_default_case():
    """NICs publish no pcieRoot at all: no near miss, no alternative; the numa-unaligned fix."""
    c = scenario("nic-no-pcieroot")
    finding = only(c.findings(), SLUG)
    assert finding.case is None
    assert finding.severity == "error"
    assert (finding.values["attribute"], finding.values["driver"]) == (PCIE_ROOT_ATTR, NIC_DRIVER)
    assert finding.values["selector"] is False
    assert list(finding.values["near_miss"]) == []
    assert finding.recipe == "numa-unaligned"
    assert finding.evidence["requiredBy"] == "distinctAttribute over [nic]"
    assert finding.evidence["nodes"] == c.npu_nodes
    # the !selector lines (delete the RCT, apply numa-unaligned) are shown for a constraint
    assert_named(finding, PCIE_ROOT_ATTR, NIC_DRIVER, "--recipe numa-unaligned")


def test_npu_without_numa_names_the_npu_driver():
    c = scenario("npu-no-numanode")
    finding = only(c.findings(), SLUG)
    assert (finding.values["attribute"], finding.values["driver"]) == (NUMA_ATTR, NPU_DRIVER)
    assert finding.evidence["requiredBy"] == "matchAttribute over [npu, nic]"
    assert_named(finding, NUMA_ATTR, NPU_DRIVER)


def test_alignment_alternative_when_every_driver_publishes_the_same_id_elsewhere():
    """dranet v1.4.0: NICs have dra.net/numaNode only; the NPUs mirror it: keep alignment on it."""
    c = scenario("nic-no-numanode")
    finding = only(c.findings(), SLUG)
    assert finding.case == "alignment-alternative"
    assert finding.values["attribute"] == NUMA_ATTR
    assert finding.values["driver"] == NIC_DRIVER
    assert list(finding.values["near_miss"]) == [DRANET_NUMA_ATTR]
    assert finding.values["alternative"] == DRANET_NUMA_ATTR
    assert finding.values["constraint_kind"] == "matchAttribute"
    assert_named(finding, NUMA_ATTR, DRANET_NUMA_ATTR, "matchAttribute")


def test_no_alternative_when_the_npus_do_not_mirror_the_id():
    """Same NICs, but the old RBLN driver publishes no dra.net/numaNode: nothing to match on."""
    c = cluster(nic_numa_standard=False, npu_numa_mirror=False, **ALL_PENDING)
    finding = only(c.findings(), SLUG)
    assert finding.case is None
    assert list(finding.values["near_miss"]) == [DRANET_NUMA_ATTR]  # still a near miss on the NICs
    assert "alternative" not in finding.values


def test_selector_case_names_request_guard_and_what_is_published():
    c = scenario("cel-no-such-key")
    finding = only(c.findings(), SLUG)
    assert finding.case == "selector"
    assert finding.values["selector"] is True
    assert (finding.values["attribute"], finding.values["driver"]) == (DRANET_NUMA_ATTR, NPU_DRIVER)
    assert finding.values["request"] == "npu"
    assert finding.values["guard"] == '"numaNode" in device.attributes["dra.net"]'
    assert finding.values["published"] == NUMA_ATTR
    assert finding.recipe is None  # an NPU selector: the NIC selector recipe does not apply
    assert_named(finding, finding.values["guard"], NUMA_ATTR, "npu")
    # the constraint-only lines are not shown for a selector
    assert "--recipe numa-unaligned" not in "\n".join(finding.words("en").remediation[:2])


def test_suppresses_constraint_unsatisfiable_on_the_same_attribute():
    c = scenario("nic-no-numanode")
    raised = {(f.slug, f.values.get("attribute")) for f in found_before_suppression(c)}
    assert ("constraint-unsatisfiable", NUMA_ATTR) in raised  # the allocator did fail on it
    assert "constraint-unsatisfiable" not in c.slugs()


def test_does_not_suppress_a_constraint_on_another_attribute():
    """NUMA published fine, NICs share one pcieRoot: the constraint failure stays (nothing missing)."""
    c = scenario("nics-share-pcieroot")
    slugs = c.slugs()
    assert SLUG not in slugs
    assert "constraint-unsatisfiable" in slugs


def test_healthy_and_neighbouring_causes_do_not_raise_it():
    for name in ("healthy", "one-nic-per-numa", "nic-vendor-mismatch", "slices-missing"):
        assert SLUG not in scenario(name).slugs(), name


def test_guarded_selector_is_not_a_requirement():
    """A selector that checks `"numaNode" in device.attributes["dra.net"]` first needs nothing."""
    c = cluster(npu_selector_dranet_numa=0, npu_numa_mirror=False, **ALL_PENDING)
    template = c.of_kind("ResourceClaimTemplate")[0]
    for request in template["spec"]["spec"]["devices"]["requests"]:
        for selector in request["exactly"].get("selectors", []):
            expression = selector["cel"]["expression"]
            if 'dra.net"].numaNode' in expression:
                selector["cel"]["expression"] = f'"numaNode" in device.attributes["dra.net"] && {expression}'
    # the RCT changed but the claims were generated from it: rewrite the claims the same way
    for claim in c.of_kind("ResourceClaim"):
        for request in claim["spec"]["devices"]["requests"]:
            for selector in request["exactly"].get("selectors", []):
                expression = selector["cel"]["expression"]
                if 'dra.net"].numaNode' in expression and not expression.startswith('"numaNode" in'):
                    selector["cel"]["expression"] = (
                        f'"numaNode" in device.attributes["dra.net"] && {expression}'
                    )
    assert SLUG not in c.slugs()
