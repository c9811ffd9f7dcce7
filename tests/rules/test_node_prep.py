"""rules/node_prep.py: the RDS label (rds-label-missing) and device-plugin mode (device-plugin-mode)."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, found_before_suppression, only, scenario

from kubectl_rbln.diagnose.rules import node_prep
from kubectl_rbln.domain import NPU_DRIVER, RDS_LABEL


def test_declarations():
    assert node_prep.rds_label_missing.emits == ("rds-label-missing",)
    assert set(node_prep.rds_label_missing.suppresses) == {"not-device-related", "claim-not-allocated"}
    assert node_prep.device_plugin_mode.emits == ("device-plugin-mode",)


def test_rds_label_missing_blocking_names_every_npu_node():
    c = scenario("rds-label-missing")
    finding = only(c.findings(), "rds-label-missing")
    assert finding.case == "blocking"  # the Pod is Pending because of it
    assert finding.severity == "error"
    assert finding.values["pod"] == c.pod and "prefill" in c.pod  # prefill is the LMCache Pod
    assert finding.values["node"] == c.npu_nodes[0]
    assert finding.values["other_nodes"] == c.npu_nodes[1:]
    assert finding.evidence["podRequires"] == f"{RDS_LABEL}=true"
    # one `kubectl label` that names every NPU node, after the same command as a server-side preview
    targets = " ".join(f"node/{node}" for node in c.npu_nodes)
    label = f"kubectl label {targets} {RDS_LABEL}=true --overwrite"
    for lang in ("en", "ko"):
        lines = finding.words(lang).remediation
        assert lines.index(f"{label} --dry-run=server") < lines.index(label)
    assert_named(finding, c.npu_nodes[0])


def test_rds_label_missing_hides_not_device_related():
    c = scenario("rds-label-missing")
    assert "not-device-related" in {f.slug for f in found_before_suppression(c)}
    assert "not-device-related" not in c.slugs()


def test_labelled_node_means_no_rds_finding():
    c = cluster(node_rds_label=True, prefill_running=0, decode_running=1, prefill_pending=1, decode_pending=0)
    assert "rds-label-missing" not in c.slugs()


def test_decode_pod_without_the_selector_is_not_blamed():
    c = cluster(node_rds_label=False, **ALL_PENDING)  # the target is a decode Pod
    assert "decode" in c.pod
    assert "rds-label-missing" not in c.slugs()


def test_device_plugin_mode_names_the_node_and_resources():
    c = scenario("device-plugin-mode")
    finding = only(c.findings(), "device-plugin-mode")
    assert finding.case is None
    assert finding.severity == "warning"
    assert finding.values["resource"] == ["rdma/hca", "rebellions.ai/ATOM"]  # what the Pod asks for, sorted
    assert finding.values["node"] == c.npu_nodes[0]
    assert finding.evidence["draClaims"] == 0
    assert set(finding.evidence["nodesAdvertising"]) == set(c.npu_nodes)
    assert_named(finding, c.npu_nodes[0], f"kubectl get node {c.npu_nodes[0]}")


def test_device_plugin_and_dra_on_one_node_is_the_both_exposed_case():
    c = cluster(device_plugin_allocatable=True, **ALL_PENDING)
    finding = only(c.findings(), "device-plugin-mode")
    assert finding.case == "both-exposed"
    assert finding.severity == "error"
    assert finding.values["count"] == len(c.npu_nodes)
    assert finding.evidence["nodesWithBoth"] == c.npu_nodes
    assert finding.evidence["draDriver"] == NPU_DRIVER
    assert_named(finding, str(len(c.npu_nodes)))


def test_dra_only_cluster_has_no_device_plugin_finding():
    assert "device-plugin-mode" not in scenario("healthy").slugs()
    assert "device-plugin-mode" not in cluster(**ALL_PENDING).slugs()
