"""rules/allocation.py: what the allocator met on the usable nodes (selector, count, holders,
constraint) and the Pods that wait for something else than devices."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, only, scenario, texts

from kubectl_rbln.domain import NIC_DRIVER, NPU_DRIVER, NUMA_ATTR, PCIE_ROOT_ATTR, REFERENCE_SUBSYSTEM

FAMILY = {
    "not-device-related",
    "selector-matches-nothing",
    "insufficient-devices",
    "devices-exhausted",
    "constraint-unsatisfiable",
}


def _family(c, **request):
    return [f.slug for f in c.findings(**request) if f.slug in FAMILY]


def test_healthy_cluster_raises_no_allocation_finding():
    assert _family(scenario("healthy")) == []


# ---------------------------------------------------------------- selector-matches-nothing


def test_selector_matches_nothing_names_the_pcisubsystem_term_and_the_values_seen():
    c = scenario("nic-vendor-mismatch")
    assert _family(c) == ["selector-matches-nothing"]
    finding = only(c.findings(), "selector-matches-nothing")
    assert finding.severity == "error"
    assert finding.values["request"] == "nic"
    assert list(finding.values["nodes"]) == c.npu_nodes
    assert f'pciSubsystem == "{REFERENCE_SUBSYSTEM}"' in finding.values["term"]
    assert "0101" in finding.values["values"][0]  # the Mellanox subsystem the NICs publish
    assert (finding.values["subsystem_only"], finding.values["rdma_only"]) == (True, False)
    assert finding.recipe == "nic-selector"
    assert_named(finding, "nic", *c.npu_nodes, "0101")
    # the rdma-only lines are hidden (when: !subsystem_only), the pciSubsystem lines are shown
    en = "\n".join(finding.words("en").remediation)
    assert "pciSubsystem differs" in en and "bnxt_re" not in en


def test_selector_matches_nothing_when_rdma_is_false():
    c = scenario("rdma-driver-not-loaded")
    finding = only(c.findings(), "selector-matches-nothing")
    assert finding.values["term"] == 'device.attributes["dra.net"].rdma == true'
    assert (finding.values["rdma_only"], finding.values["subsystem_only"]) == (True, False)
    en = "\n".join(finding.words("en").remediation)
    assert "bnxt_re" in en and "pciSubsystem differs" not in en


# ---------------------------------------------------------------- insufficient-devices


def _nic_count(c, count):
    for o in c.of_kind("ResourceClaim") + c.of_kind("ResourceClaimTemplate"):
        devices = o["spec"]["devices"] if o["kind"] == "ResourceClaim" else o["spec"]["spec"]["devices"]
        devices["requests"][1]["exactly"]["count"] = count


def test_insufficient_devices_counts_what_passes_the_selector():
    """5 RDMA NICs asked; a node has 2 NUMA x 2 RDMA NICs (its management NIC has rdma=false)."""
    c = cluster(rct="numa-unaligned", **ALL_PENDING)
    _nic_count(c, 5)
    assert _family(c) == ["insufficient-devices"]  # not "matches nothing": 4 do match
    finding = only(c.findings(), "insufficient-devices")
    assert finding.case is None
    assert finding.severity == "error"
    assert (finding.values["request"], finding.values["count"], finding.values["available"]) == ("nic", 5, 4)
    assert finding.values["node"] == c.npu_nodes[0]
    assert_named(finding, "nic", "5", "4", c.npu_nodes[0])


def test_four_nics_fit_so_nothing_is_insufficient():
    c = cluster(rct="numa-unaligned", **ALL_PENDING)
    _nic_count(c, 4)
    assert "insufficient-devices" not in c.slugs()


def test_insufficient_devices_device_plugin_case():
    c = scenario("device-plugin-mode")
    finding = only(c.findings(), "insufficient-devices")
    assert finding.case == "device-plugin"
    assert set(finding.values["resources"]) == {"rebellions.ai/ATOM", "rdma/hca"}
    assert finding.values["short_nodes"] == len(c.npu_nodes)  # every NPU node is short
    assert finding.values["node"] in c.npu_nodes
    assert_named(finding, "rebellions.ai/ATOM", f"kubectl describe node {finding.values['node']}")


# ---------------------------------------------------------------- devices-exhausted


def test_devices_exhausted_names_the_pods_that_hold_the_devices():
    c = scenario("devices-exhausted")
    assert _family(c) == ["devices-exhausted"]
    finding = only(c.findings(), "devices-exhausted")
    assert finding.severity == "error"
    holders = [f"{ns}/{name}" for ns, name in c.builder.running_pods()]
    assert len(holders) == 4  # two nodes x two NUMA slots, all taken
    assert sorted(finding.values["holders"]) == sorted(holders)
    assert finding.values["request"] == "npu"
    assert list(finding.values["driver"]) == [NPU_DRIVER]
    assert finding.evidence["devicesHeld"] == 2 * 8  # every NPU of both nodes
    first_two = sorted(holders)[:2]  # Names(..., 2): two names, then "and 2 more"
    assert_named(finding, *first_two)
    assert "and 2 more" in finding.words("en").title


def test_free_slot_means_not_exhausted():
    c = cluster(prefill_running=1, decode_running=2, decode_pending=1)  # 3 of 4 NUMA slots held
    assert "devices-exhausted" not in c.slugs()


# ---------------------------------------------------------------- constraint-unsatisfiable


def test_constraint_unsatisfiable_names_the_numa_match():
    c = scenario("one-nic-per-numa")
    assert _family(c) == ["constraint-unsatisfiable"]
    finding = only(c.findings(), "constraint-unsatisfiable")
    assert finding.case is None
    assert finding.values["constraint"] == f"matchAttribute {NUMA_ATTR}"
    assert finding.values["attribute"] == NUMA_ATTR
    assert finding.recipe == "numa-unaligned"
    groups = finding.evidence["perValue"]
    assert {str(g["value"]) for g in groups} == {"0", "1"}  # one group per NUMA node, none big enough
    assert_named(finding, f"matchAttribute {NUMA_ATTR}", "--recipe numa-unaligned")


def test_constraint_unsatisfiable_names_the_distinct_pcieroot():
    c = scenario("nics-share-pcieroot")
    finding = only(c.findings(), "constraint-unsatisfiable")
    assert finding.values["constraint"] == f"distinctAttribute {PCIE_ROOT_ATTR}"
    assert finding.recipe == "numa-unaligned"


def test_pcieroot_in_bdf_form_is_reported_as_non_standard():
    c = scenario("npu-pcieroot-bdf-format")
    finding = only(c.findings(), "constraint-unsatisfiable")
    assert finding.values["attribute"] == PCIE_ROOT_ATTR
    odd = finding.evidence["nonStandardPcieRoot"]
    assert list(odd) == [NPU_DRIVER]
    assert all(not v.startswith("pci") for v in odd[NPU_DRIVER])


def test_the_unaligned_recipe_has_no_constraint_to_break():
    c = cluster(rct="numa-unaligned", nics_per_numa=1, **ALL_PENDING)
    assert "constraint-unsatisfiable" not in c.slugs()


# ---------------------------------------------------------------- not-device-related


def test_not_device_related_names_the_taint_and_hides_claim_not_allocated():
    c = scenario("taint-not-device-related")
    assert _family(c) == ["not-device-related"]
    finding = only(c.findings(), "not-device-related")
    assert finding.severity == "error"  # the Pod does not run: an error, labelled not a device problem
    assert "node(s) had untolerated taint {dedicated: batch}" in finding.values["reasons"]
    assert list(finding.values["nodes"]) == c.npu_nodes  # the devices would fit there
    assert finding.values["node"] == c.npu_nodes[0]
    assert_named(finding, "dedicated: batch", f"kubectl describe node {c.npu_nodes[0]}")
    assert "claim-not-allocated" not in c.slugs()  # an error names the cause: no "no cause found" note


def test_tolerated_taint_is_not_a_reason():
    c = cluster(device_node_taint=("dedicated", "batch", "NoSchedule"), **ALL_PENDING)
    pod = c.raw("Pod", c.pod)
    pod["spec"]["tolerations"].append({"key": "dedicated", "operator": "Equal", "value": "batch"})
    # the scheduler has not tried again since: no stale condition or event says "untolerated taint"
    pod["status"]["conditions"] = [x for x in pod["status"]["conditions"] if x["type"] != "PodScheduled"]
    c.objects = [o for o in c.objects if not (o["kind"] == "Event" and o["involvedObject"]["name"] == c.pod)]
    assert "not-device-related" not in c.slugs()


def test_device_causes_are_not_blamed_on_non_device_reasons():
    for name in ("one-nic-per-numa", "nic-vendor-mismatch", "devices-exhausted"):
        assert "not-device-related" not in scenario(name).slugs(), name


def test_slices_of_nic_driver_are_what_the_allocator_compares():
    """Sanity of the family boundary: a missing NIC driver is a layer finding, not an allocation one."""
    c = scenario("slices-missing")
    assert _family(c) == []
    assert NIC_DRIVER in str(only(c.findings(), "driver-slices-missing").values["driver"])


# ---------------------------------------------------------------- devices-exhausted, case counters


def test_devices_exhausted_counters_names_the_counter_and_the_claim_that_uses_it():
    """testing/synthetic/upstream_counters.py (dra-driver-nvidia-gpu#719): free whole NPUs whose
    shared counters a notebook's half partitions use: the counter, needed vs left, the holder."""
    c = scenario("npu-partition-counters-used")
    assert _family(c) == ["devices-exhausted"]
    finding = only(c.findings(), "devices-exhausted")
    assert finding.case == "counters"
    values = finding.values
    assert (values["counter"], values["needed"], values["left"]) == ("cores", "8", "4")
    assert finding.values["counter_set"].endswith("-cores")
    assert list(finding.values["holders"]) == ["research/notebook-0-npu-half"]
    assert finding.evidence["counter"] == f"{finding.values['counter_set']}/cores"
    assert finding.evidence["exhaustedNodes"] == ["npu-node-01"]  # the other node is simply full
    for lang in ("en", "ko"):
        assert "cores" in texts(finding, lang)


# ---------------------------------------------------------------- devices-exhausted, case capacity


def test_devices_exhausted_capacity_names_the_shared_device_capacity_and_its_consumers():
    """testing/synthetic/upstream_capacity.py (kubernetes-sigs/dranet#63): free NICs shared through
    DRAConsumableCapacity whose bandwidth a decode Pod's shares use up: the device, the capacity,
    needed (the requestPolicy default) vs left, the claim consuming it."""
    c = scenario("nic-shared-bandwidth-used")
    assert _family(c) == ["devices-exhausted"]
    finding = only(c.findings(), "devices-exhausted")
    assert finding.case == "capacity"
    values = finding.values
    assert (values["capacity"], values["needed"], values["left"]) == ("bandwidth", "100G", "0")
    assert values["device"].startswith(f"{NIC_DRIVER}/")
    assert list(values["holders"]) == ["inference/llm-decode-0-rdma"]
    assert finding.evidence["capacityReason"] == "capacity"
    for lang in ("en", "ko"):
        assert "bandwidth" in texts(finding, lang)
