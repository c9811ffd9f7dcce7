"""The claim's own state (diagnose/rules/claim_state.py, issue 12 point 4): being deleted, a shared claim
on a node the Pod cannot use, reservedFor full, adminAccess without the namespace label; and the
not-found / not-created cases of claim-not-created, found from the objects alone (no event in 1.36)."""

from __future__ import annotations

from kubectl_rbln.dra.normalize import build_snapshot
from tests.rules.rules_kit import ALL_PENDING, LANGS, cluster, only, scenario, texts


def test_not_created_is_found_without_any_event_or_condition():
    c = scenario("claim-not-created")
    assert not [o for o in c.objects if o["kind"] == "Event" and o["involvedObject"]["name"] == c.pod]
    pod = c.raw("Pod", c.pod)
    assert not pod["status"].get("conditions")
    finding = only(c.findings(), "claim-not-created")
    assert finding.case is None


def test_named_claim_not_found_has_its_own_words():
    c = scenario("claim-being-deleted")
    c.objects = [o for o in c.objects if o["kind"] != "ResourceClaim"]
    finding = only(c.findings(), "claim-not-created")
    assert finding.case == "not-found"
    assert finding.values["claim"] == "npu-shared"
    for lang in LANGS:
        words = texts(finding, lang)
        assert "npu-shared" in words and "resourceClaimTemplateName" in words
        assert "RCT," not in words.split("\n")[1]  # not the generated-claim summary


def test_being_deleted():
    c = scenario("claim-being-deleted")
    findings = c.findings()
    finding = only(findings, "claim-being-deleted")
    assert [f.slug for f in findings] == ["claim-being-deleted"]
    assert finding.evidence["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert finding.evidence["deletionTimestamp"]
    assert finding.values["shared"] and finding.values["held"]
    for lang in LANGS:
        assert "kubectl -n serving get resourceclaim npu-shared" in texts(finding, lang)


def test_being_deleted_generated_claim_says_delete_the_pod():
    c = cluster(**ALL_PENDING)
    claim = next(
        o for o in c.of_kind("ResourceClaim") if o["metadata"]["ownerReferences"][0]["name"] == c.pod
    )
    claim["metadata"]["deletionTimestamp"] = "2026-09-14T04:10:00Z"
    finding = only(c.findings(), "claim-being-deleted")
    assert finding.values["generated"] and not finding.values["held"]
    assert f"kubectl -n {c.namespace} delete pod {c.pod}" in texts(finding, "en")


def test_shared_claim_on_a_cordoned_node():
    c = scenario("shared-claim-cordoned-node")
    findings = c.findings()
    assert [f.slug for f in findings] == ["shared-claim-node-unusable"]
    finding = findings[0]
    assert finding.values["node"] == "npu-node-01" and finding.values["cordoned"]
    assert "kubectl uncordon npu-node-01" in texts(finding, "en")


def test_shared_claim_with_a_taint_and_a_selector():
    c = scenario("shared-claim-cordoned-node")
    node = c.raw("Node", "npu-node-01")
    node["spec"].pop("unschedulable")
    node["spec"]["taints"] = [{"key": "maintenance", "value": "firmware", "effect": "NoSchedule"}]
    finding = only(c.findings(), "shared-claim-node-unusable")
    assert finding.values["taint"] == "maintenance=firmware:NoSchedule" and not finding.values["cordoned"]
    assert "kubectl taint nodes npu-node-01 maintenance=firmware:NoSchedule-" in texts(finding, "en")
    node["spec"]["taints"] = []
    c.raw("Pod", c.pod)["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "npu-node-02"}
    finding = only(c.findings(), "shared-claim-node-unusable")
    assert finding.values["selector"] and not finding.values["taint"]


def test_shared_claim_on_a_usable_node_is_not_this_family():
    c = scenario("shared-claim-cordoned-node")
    c.raw("Node", "npu-node-01")["spec"] = {}
    assert "shared-claim-node-unusable" not in c.slugs()


def test_reserved_for_full_node_local_suggests_a_template():
    c = scenario("claim-reserved-for-full")
    findings = c.findings()
    assert [f.slug for f in findings] == ["claim-reserved-for-full"]
    finding = findings[0]
    assert finding.case == "node-local" and finding.values["count"] == 256
    for lang in LANGS:
        assert "resourceClaimTemplateName" in texts(finding, lang)


def test_reserved_for_below_the_limit_or_already_reserved_is_quiet():
    c = scenario("claim-reserved-for-full")
    claim = c.of_kind("ResourceClaim")[0]
    claim["status"]["reservedFor"] = claim["status"]["reservedFor"][:255]
    assert "claim-reserved-for-full" not in c.slugs()
    pod = c.raw("Pod", c.pod)
    claim["status"]["reservedFor"].append({"resource": "pods", "name": c.pod, "uid": pod["metadata"]["uid"]})
    assert "claim-reserved-for-full" not in c.slugs()


def test_reserved_for_full_hides_the_prebind_scheduler_error():
    c = scenario("claim-reserved-for-full")
    c.raw("Pod", c.pod)["status"]["conditions"] = [
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": "SchedulerError",
            "message": 'running PreBind plugin "DynamicResources": update ResourceClaim npu-shared: '
            'ResourceClaim.resource.k8s.io "npu-shared" is invalid: status.reservedFor: Too many: 257: '
            "must have at most 256 items",
            "lastTransitionTime": "2026-09-14T05:41:00Z",
        }
    ]
    assert c.slugs() == ["claim-reserved-for-full"]


def test_admin_access_without_the_label():
    c = scenario("admin-access-old-label")
    findings = c.findings()
    assert [f.slug for f in findings] == ["admin-access-label-missing"]
    finding = findings[0]
    assert finding.values["legacy"] and finding.values["label"] == "resource.kubernetes.io/admin-access"
    assert "Forbidden" in finding.evidence["event"]
    for lang in LANGS:
        assert "kubectl label namespace rbln-monitoring resource.kubernetes.io/admin-access=true" in texts(
            finding, lang
        )


def test_admin_access_with_the_label_or_without_namespaces_is_quiet():
    c = scenario("admin-access-old-label")
    ns = c.raw("Namespace", "rbln-monitoring")
    ns["metadata"]["labels"]["resource.kubernetes.io/admin-access"] = "true"
    assert "admin-access-label-missing" not in c.slugs()
    c.drop("Namespace")  # a bundle without namespaces (or the list was forbidden): no guess
    slugs = c.slugs()
    # the controller's refusal is still there, in words no rule reads without the namespaces: quoted
    assert "admin-access-label-missing" not in slugs and "cause-not-recognised" in slugs


def test_namespaces_normalize_and_a_forbidden_list_is_no_source_degraded():
    snap = build_snapshot(
        [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "labels": {"x": "y"}}},
            {
                "apiVersion": "kubectl-rbln/v1",
                "kind": "ClusterInfo",
                "metadata": {"name": "c"},
                "problems": [
                    {"kind": "Namespace", "code": "forbidden", "message": "namespaces is forbidden"}
                ],
            },
        ]
    )
    assert snap.namespaces["a"].labels == {"x": "y"}
    c = scenario("claim-not-created")
    c.objects.append(
        {
            "apiVersion": "kubectl-rbln/v1",
            "kind": "ClusterInfo",
            "metadata": {"name": "c"},
            "problems": [{"kind": "Namespace", "code": "forbidden", "message": "namespaces is forbidden"}],
        }
    )
    assert c.slugs() == ["claim-not-created"]


def test_claim_stale_names_the_deployment_to_restart_and_the_current_rct_is_simulated() -> None:
    """Issue 13, 1: the Pod holds a claim of the replaced RCT; the fix restarts the owner Deployment."""
    from kubectl_rbln.catalog import render_words
    from testing.synthetic.scenarios import SCENARIOS

    found = scenario("rct-fixed-claim-stale").findings()
    stale = next(f for f in found if f.slug == "claim-stale")
    assert stale.values["restart"] == "deployment/coder-decode"
    assert "constraint-unsatisfiable" not in {f.slug for f in found}  # the new RCT fits: no old problem
    for lang in ("en", "ko"):
        fix = render_words("claim-stale", lang, stale.values).remediation
        assert "kubectl -n serving rollout restart deployment/coder-decode" in fix
    assert SCENARIOS["rct-fixed-claim-stale"].must == {"claim-stale"}


def test_restart_target_follows_the_owner() -> None:
    from dataclasses import replace

    from kubectl_rbln.diagnose.context import restart_target

    pod = scenario("rct-fixed-claim-stale").snapshot().pods[0]
    assert restart_target(replace(pod, owner_kind="ReplicaSet", owner_name="web-5f9c")) == "deployment/web"
    assert restart_target(replace(pod, owner_kind="StatefulSet", owner_name="db")) == "statefulset/db"
    assert restart_target(replace(pod, owner_kind="DaemonSet", owner_name="agent")) == "daemonset/agent"
    assert restart_target(replace(pod, owner_kind="Job", owner_name="j")) == ""
    assert restart_target(replace(pod, owner_kind="", owner_name="")) == ""
