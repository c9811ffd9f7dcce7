"""rules/layers.py: the DRA API, DeviceClass, RCT, generated claim and ResourceSlice layers, and
lists the source could not read. One scenario per slug (and per path), negatives, suppressions."""

from __future__ import annotations

from rules_kit import ALL_PENDING, assert_named, cluster, event, only, scenario

from kubectl_rbln.cluster.source import cluster_info
from kubectl_rbln.diagnose.rules import layers
from kubectl_rbln.domain import DEFAULT_RCT, NIC_CLASS, NIC_DRIVER, NPU_CLASS

FAMILY = {slug for r in layers.__dict__.values() if hasattr(r, "emits") for slug in r.emits}


def _family(findings):
    return [f for f in findings if f.slug in FAMILY]


def _no_dra_api(version: str):
    """A cluster whose API server serves no resource.k8s.io: no DRA object, a ClusterInfo that says so."""
    c = cluster(**ALL_PENDING)
    c.objects = [o for o in c.objects if not o["apiVersion"].startswith("resource.k8s.io/")]
    problem = {
        "kind": "resource.k8s.io",
        "code": "not-found",
        "message": "GET /apis/resource.k8s.io answered 404",
    }
    c.objects.append(cluster_info(version, [], [problem], "ctx"))
    return c


def test_family_is_the_declared_one():
    assert {
        "dra-api-unavailable",
        "device-class-missing",
        "claim-template-missing",
        "claim-not-created",
        "driver-slices-missing",
        "source-degraded",
    } == FAMILY


# ---------------------------------------------------------------- dra-api-unavailable


def test_dra_api_unavailable_names_the_server_version_and_hides_the_layers_below():
    c = _no_dra_api("v1.31.4")
    findings = c.findings()
    finding = only(findings, "dra-api-unavailable")
    assert finding.severity == "error"
    assert finding.values["version"] == "v1.31.4"
    assert "404" in finding.evidence["problem"]
    # suppression: no DeviceClass, no RCT, no claim, no slice is listed, yet none of those is blamed
    assert [f.slug for f in _family(findings)] == ["dra-api-unavailable"]
    assert "claim-not-allocated" not in {f.slug for f in findings}
    assert_named(finding, "resource.k8s.io")


def test_dra_api_unavailable_needs_a_pod_with_claims():
    """A device-plugin Pod has no claim: the missing DRA API is not its problem."""
    c = cluster(
        pod_mode="device-plugin",
        dra_npu=False,
        drop_device_classes=(NIC_CLASS,),
        drop_slices=(NIC_DRIVER,),
        rct=None,
        device_plugin_allocatable=True,
        prefill_running=2,
        decode_running=2,
        decode_pending=1,
    )
    c.objects.append(cluster_info("v1.31.4", [], [{"kind": "resource.k8s.io", "message": "404"}], "ctx"))
    assert "dra-api-unavailable" not in c.slugs()


def test_healthy_cluster_has_no_layer_finding():
    c = scenario("healthy")
    assert _family(c.findings()) == []


# ---------------------------------------------------------------- device-class-missing


def test_device_class_missing_names_the_class_and_the_request():
    c = scenario("deviceclass-missing")
    finding = only(c.findings(), "device-class-missing")
    assert finding.severity == "error"
    assert finding.values["class"] == NIC_CLASS
    assert finding.values["request"] == ["nic"]  # the RCT's NIC request, not the NPU one
    assert finding.values["rct"] == DEFAULT_RCT
    assert NPU_CLASS not in finding.evidence["deviceClass"]
    assert NPU_CLASS in finding.evidence["classesPresent"]
    # dranet's install creates no DeviceClass: the fix creates the one the RCT names
    assert_named(finding, NIC_CLASS, "nic", "kubectl create -f dranet.deviceclass.yaml")
    assert not any("delete resourceclaimtemplate" in line for line in finding.words("en").remediation)


def test_both_classes_missing_give_one_finding_each():
    c = cluster(drop_device_classes=(NIC_CLASS, NPU_CLASS), **ALL_PENDING)
    missing = {
        f.values["class"]: f.values["request"] for f in c.findings() if f.slug == "device-class-missing"
    }
    assert missing == {NPU_CLASS: ["npu"], NIC_CLASS: ["nic"]}


def test_device_class_missing_hides_the_missing_slices_of_its_driver():
    """The class and dranet's slices are both gone: the class is the root cause, the slices a symptom."""
    c = cluster(drop_device_classes=(NIC_CLASS,), drop_slices=(NIC_DRIVER,), **ALL_PENDING)
    slugs = [f.slug for f in _family(c.findings())]
    assert slugs == ["device-class-missing"]
    # without the missing class, the same missing slices are reported
    c2 = cluster(drop_slices=(NIC_DRIVER,), **ALL_PENDING)
    assert "driver-slices-missing" in c2.slugs()


# ---------------------------------------------------------------- claim-template-missing


def test_claim_template_missing_names_namespace_and_rct():
    c = scenario("rct-missing")
    finding = only(c.findings(), "claim-template-missing")
    assert finding.severity == "error"
    assert (finding.values["namespace"], finding.values["rct"]) == (c.namespace, DEFAULT_RCT)
    assert finding.recipe == "numa-aligned"
    assert finding.evidence["templatesInNamespace"] == []
    assert_named(
        finding, f"{c.namespace}/{DEFAULT_RCT}", f"kubectl -n {c.namespace} get resourceclaimtemplate"
    )


def test_claim_template_missing_not_raised_when_the_template_list_was_forbidden():
    """We could not look: source-degraded says so instead of blaming a template that may exist."""
    c = scenario("rct-missing")
    problem = {"kind": "ResourceClaimTemplate", "code": "forbidden", "message": "forbidden"}
    c.objects.append(cluster_info("v1.34.2", ["v1"], [problem], "ctx"))
    findings = c.findings()
    assert "claim-template-missing" not in {f.slug for f in findings}
    degraded = only(findings, "source-degraded")
    assert degraded.values["resource"] == "resourceclaimtemplates.resource.k8s.io"


def test_claim_template_missing_hides_claim_not_created():
    """The controller also reported another creation failure: the missing RCT explains it."""
    c = scenario("rct-missing")
    c.objects.append(
        event(
            c.namespace,
            "Pod",
            c.pod,
            "FailedResourceClaimCreation",
            "PodResourceClaim npu-rdma: create ResourceClaim x-: the server is unavailable",
            "2026-09-14T05:30:00Z",
        )
    )
    slugs = c.slugs()
    assert "claim-template-missing" in slugs
    assert "claim-not-created" not in slugs


# ---------------------------------------------------------------- claim-not-created


def test_claim_not_created_when_the_controller_made_no_claim():
    c = scenario("claim-not-created")
    findings = c.findings()
    finding = only(findings, "claim-not-created")
    assert finding.severity == "error"
    assert finding.values["pod"] == c.pod
    assert finding.values["claim"] == "npu-rdma"  # the Pod's claim entry: no generated name exists
    assert finding.evidence["statusRecorded"] is False
    assert "claim-not-allocated" not in {f.slug for f in findings}
    assert_named(finding, f"{c.namespace}/{c.pod}", f"involvedObject.name={c.pod}")


def test_a_refusal_the_rules_do_not_know_is_quoted_at_its_stage():
    """The controller could not create the claim and said why, in words no rule knows (a quota): the
    stage is claims-created, its event quoted as it stands, and no cause of another stage is named."""
    c = cluster(**ALL_PENDING)
    c.objects = [
        o for o in c.objects if not (o["kind"] == "ResourceClaim" and o["metadata"]["name"].startswith(c.pod))
    ]
    c.raw("Pod", c.pod)["status"].pop("resourceClaimStatuses", None)
    message = (
        "PodResourceClaim npu-rdma: create ResourceClaim x-: resourceclaims is forbidden: quota exceeded"
    )
    c.objects.append(
        event(c.namespace, "Pod", c.pod, "FailedResourceClaimCreation", message, "2026-09-14T05:40:00Z")
    )
    finding = only(c.findings(), "cause-not-recognised")
    assert finding.evidence["stage"] == "claims-created"
    assert "FailedResourceClaimCreation" in finding.evidence["quoted"][0]
    assert finding.evidence["quoted"][0].endswith(f": {message}")
    assert "claim-not-created" not in c.slugs()


def test_claim_not_created_not_raised_when_claim_exists():
    c = scenario("one-nic-per-numa")  # claims exist, they just cannot be allocated
    assert "claim-not-created" not in c.slugs()


# ---------------------------------------------------------------- driver-slices-missing


def test_driver_slices_missing_when_dranet_publishes_nothing():
    c = scenario("slices-missing")
    finding = only(c.findings(), "driver-slices-missing")
    assert finding.severity == "error"
    assert finding.values["driver"] == NIC_DRIVER
    assert list(finding.values["nodes"]) == c.npu_nodes  # the nodes the Pod could use
    assert "cp-01" not in finding.values["nodes"]  # tainted control plane: not a candidate
    assert finding.evidence["slicesWithoutDevices"] == []
    assert_named(finding, NIC_DRIVER, *c.npu_nodes, f"spec.driver={NIC_DRIVER}")


def test_driver_slices_missing_names_the_empty_slices():
    c = scenario("slices-empty")
    finding = only(c.findings(), "driver-slices-missing")
    assert finding.evidence["slicesWithoutDevices"] == c.npu_nodes
    assert list(finding.values["nodes"]) == c.npu_nodes


def test_driver_slices_missing_from_the_simulation_when_pools_are_incomplete():
    """Kubernetes 1.35 skips incomplete pools: the slices exist, the simulation finds no usable one."""
    c = cluster(incomplete_pools=(NIC_DRIVER,), kubernetes_version="v1.35.0", **ALL_PENDING)
    finding = only(c.findings(), "driver-slices-missing")
    assert finding.values["request"] == "nic"
    assert list(finding.values["driver"]) == [NIC_DRIVER]
    assert "incomplete" in finding.evidence["example"]
    assert_named(finding, NIC_DRIVER, *c.npu_nodes, f"spec.driver={NIC_DRIVER}")
    # the same cluster simulated as 1.34 uses the incomplete pool: no gap
    assert "driver-slices-missing" not in c.slugs(k8s_version="v1.34.2")


def test_driver_slices_missing_not_raised_for_a_running_pod():
    c = cluster(drop_slices=(NIC_DRIVER,), prefill_running=1, decode_running=1, decode_pending=0)
    c.pod = c.builder.running_pods()[-1][1]
    assert "driver-slices-missing" not in c.slugs()


# ---------------------------------------------------------------- source-degraded


def test_source_degraded_names_the_list_that_was_forbidden():
    c = cluster(**ALL_PENDING)
    problem = {"kind": "Event", "code": "forbidden", "message": 'events is forbidden: User "dev" cannot list'}
    c.objects.append(cluster_info("v1.34.2", ["v1"], [problem], "ctx"))
    finding = only(c.findings(), "source-degraded")
    assert finding.severity == "warning"
    assert finding.values == {"kind": "Event", "message": problem["message"], "resource": "events"}
    assert_named(finding, "Event", "kubectl auth can-i list events --all-namespaces")


def test_source_degraded_ignores_problems_that_do_not_weaken_why():
    c = cluster(**ALL_PENDING)
    c.objects.append(cluster_info("", ["v1"], [{"kind": "Version", "message": "forbidden"}], "ctx"))
    assert "source-degraded" not in c.slugs()


def test_a_refused_list_the_stages_read_is_said_for_a_stuck_pod_only():
    """Leases refused (a role from before the stages read them): a stuck Pod's diagnosis says it ran
    on partial data, once; a Pod that runs is not told about a list its verdict never needed."""
    problem = {"kind": "Lease", "code": "forbidden", "message": "leases.coordination.k8s.io is forbidden"}
    info = {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ClusterInfo",
        "metadata": {"name": "c"},
        "problems": [problem],
    }
    stuck = scenario("one-nic-per-numa")
    stuck.objects.append(info)
    degraded = [f for f in stuck.findings() if f.slug == "source-degraded"]
    assert [f.values["kind"] for f in degraded] == ["Lease"]
    running = scenario("healthy")
    running.objects.append(dict(info))
    assert "source-degraded" not in running.slugs()


def test_slices_missing_says_what_the_drivers_daemonset_says():
    """dranet publishes nothing because its DaemonSet creates no Pod: the finding carries the
    DaemonSet's counts and its FailedCreate warning, quoted as the event holds it."""
    c = scenario("slices-missing")
    message = (
        'pods "dranet-" is forbidden: violates PodSecurity "baseline:latest": host namespaces '
        '(hostNetwork=true), privileged (container "dranet" must not set securityContext.privileged=true)'
    )
    c.objects += [
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "dranet", "namespace": "kube-system", "uid": "d5-1"},
            "spec": {"template": {"spec": {"containers": [{"name": "dranet"}]}}},
            "status": {
                "desiredNumberScheduled": 2,
                "currentNumberScheduled": 0,
                "numberReady": 0,
                "numberUnavailable": 2,
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "dranet.1", "namespace": "kube-system"},
            "involvedObject": {"kind": "DaemonSet", "name": "dranet", "namespace": "kube-system"},
            "reason": "FailedCreate",
            "message": f"Error creating: {message}",
            "type": "Warning",
            "count": 12,
            "source": {"component": "daemonset-controller"},
        },
    ]
    finding = only(c.findings(), "driver-slices-missing")
    assert finding.evidence["driverDaemonSets"] == {"kube-system/dranet": "desired 2, ready 0, unavailable 2"}
    assert finding.evidence["quoted"][0].endswith(f": Error creating: {message}")
