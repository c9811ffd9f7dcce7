"""diagnose/checklist.py via app/check.py: each item's status on a small cluster, and the items reuse
why's own rules (the same finding values as `why`)."""

from __future__ import annotations

from rules_kit import ALL_PENDING, cluster, only, scenario

from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.catalog import say
from kubectl_rbln.domain import DEFAULT_RCT, NIC_CLASS, NIC_DRIVER


def _items(c, rct=DEFAULT_RCT):
    report = run_check(c.snapshot(), CheckRequest(c.namespace, rct))
    return {item.id: item for item in report.items}, report


def test_healthy_cluster_passes_every_item_or_skips_the_gate_it_cannot_judge():
    items, report = _items(scenario("healthy"))
    for item_id in ("1", "2", "3", "4", "5", "N1", "N2"):
        assert items[item_id].status == "pass", (item_id, items[item_id].found, items[item_id].findings)
    # the healthy RCT was not applied with last-applied-configuration: the stored one still has distinct
    assert items["N3"].status == "pass"
    assert report.exit_code("error") == 0


def test_missing_device_class_fails_item_1_with_whys_own_finding():
    c = scenario("deviceclass-missing")
    items, report = _items(c)
    assert items["1"].status == "fail"
    assert say(items["1"].found, "en") == f"missing: {NIC_CLASS}"
    check_finding = only(items["1"].findings, "device-class-missing")
    why_finding = only(c.findings(), "device-class-missing")
    same = ("class", "request", "namespace", "rct")
    assert {k: check_finding.values[k] for k in same} == {k: why_finding.values[k] for k in same}
    assert check_finding.words("en").title == why_finding.words("en").title
    assert report.exit_code("error") == 1


def test_missing_slices_fail_item_2_naming_the_nodes():
    c = scenario("slices-missing")
    items, _ = _items(c)
    assert items["2"].status == "fail"
    finding = only(items["2"].findings, "driver-slices-missing")
    assert finding.values["driver"] == NIC_DRIVER
    assert list(finding.values["nodes"]) == c.npu_nodes


def test_missing_rct_fails_item_3_and_skips_the_gate_item():
    items, _ = _items(scenario("rct-missing"))
    assert items["3"].status == "fail"
    assert only(items["3"].findings, "claim-template-missing").values["rct"] == DEFAULT_RCT
    assert items["N3"].status == "skip"


def test_unallocated_claims_warn_item_4_and_no_claims_skip_it():
    items, _ = _items(cluster(**ALL_PENDING))
    assert items["4"].status == "warn"
    assert say(items["4"].found, "en").startswith("0/2 allocated")
    c = cluster(rct=None, pod_mode="device-plugin", prefill_running=0, decode_running=0, decode_pending=1)
    items, _ = _items(c)
    assert items["4"].status == "skip"


def test_attribute_item_fails_when_a_required_key_is_not_published():
    items, _ = _items(scenario("nic-no-pcieroot"))
    assert items["5"].status == "fail"
    assert "resource.kubernetes.io/pcieRoot" in say(items["5"].found, "en")


def test_rds_item_fails_without_label_and_device_plugin_item_fails_with_both():
    items, _ = _items(scenario("rds-label-missing"))
    assert items["N1"].status == "fail"
    items, _ = _items(cluster(device_plugin_allocatable=True, **ALL_PENDING))
    assert items["N2"].status == "fail"
    assert only(items["N2"].findings, "device-plugin-mode").case == "both-exposed"


def test_dropped_distinct_attribute_fails_the_gate_item():
    items, _ = _items(scenario("distinct-dropped-gate-off"))
    assert items["N3"].status == "fail"
    assert "distinctAttribute" in say(items["N3"].found, "en")


def test_why_items_cover_every_device_pod():
    c = scenario("devices-exhausted")
    items, _ = _items(c)
    why = {k for k in items if k.startswith("why ")}
    pods = {f"why {ns}/{name}" for ns, name in c.builder.running_pods() + c.builder.pending_pods()}
    assert why == pods
    assert items[f"why {c.namespace}/{c.pod}"].status == "fail"


def test_a_folded_table_prints_what_the_whole_document_prints():
    """More than 20 passing device Pods fold into one row; their items then go to the table as id and
    status only (app/check.py `fold_beyond`), and the table must not change: one namespace and -A, a
    crashing Pod among them (a warning, never folded), both languages."""
    from kubectl_rbln.render.check_table import MAX_PASSING_POD_ROWS, render_check

    c = cluster(npu_nodes=12, prefill_running=12, decode_running=12, decode_pending=1, memlock_crash=True)
    snapshot = c.snapshot()
    every = CheckRequest("", DEFAULT_RCT, all_namespaces=True)
    for request in (CheckRequest(c.namespace, DEFAULT_RCT), every):
        report = run_check(snapshot, request)
        passing = [i for i in report.items if i.id.startswith("why ") and i.status == "pass"]
        assert len(passing) > MAX_PASSING_POD_ROWS  # the fold is what this test is about
        assert any(i.id.startswith("why ") and i.status != "pass" for i in report.items)
        for lang in ("en", "ko"):
            whole = render_check(report.to_document(lang), color=False, wide=False, lang=lang)
            folded = render_check(
                report.to_document(lang, MAX_PASSING_POD_ROWS), color=False, wide=False, lang=lang
            )
            assert folded == whole
            assert str(len(passing)) in whole
