"""What an operator relies on beyond the scenario table: proofs of fixes, expired events, gates, language."""

from __future__ import annotations

import copy
import json

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.dra.normalize_claims import normalize_template
from testing.synthetic.builder import ClusterBuilder, Knobs, write_bundle
from testing.synthetic.recipes import recipe_spec
from testing.synthetic.scenarios import SCENARIOS
from tests.conftest import EXAMPLES

EMPTY_CONSTRAINT_ERROR = (
    'running "DynamicResources" filter plugin: claim serving/{claim}, constraint #1: '
    "empty constraint (unsupported constraint type?)"
)


def _diagnose(objects, namespace, name, **options):
    snapshot = build_snapshot(objects)
    choice = choose_features(snapshot, options.pop("k8s_version", None), options.pop("gates", None))
    pod = snapshot.pod(namespace, name)
    return diagnose_pod(
        snapshot,
        pod,
        WhyOptions(features=allocator_features(choice), assumptions=choice.describe(), **options),
    )


def _template(recipe: str, name: str = "npu-rdma"):
    spec = recipe_spec(recipe)
    return normalize_template(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "serving"},
            "spec": {"spec": {"devices": spec}},  # recipe_spec is `spec.devices`: without it, no request
        }
    )


def test_with_rct_proves_the_unaligned_recipe_fits():
    scenario = SCENARIOS["nic-no-numanode"]
    objects = scenario.build("v1")
    before = _diagnose(objects, *scenario.pending_pod)
    assert any(f.severity == "error" for f in before.findings)
    after = _diagnose(objects, *scenario.pending_pod, with_rct=_template("numa-unaligned"))
    assert not [f for f in after.findings if f.severity == "error"], after.findings
    assert any(node["fits"] for node in after.nodes)


def test_causes_are_found_without_events():
    """Events expire after an hour: objects alone must reveal every cause."""
    for scenario in SCENARIOS.values():
        if not scenario.recognised:
            continue  # no rule knows the cause: what is left is the stage, not a cause to find
        objects = [o for o in scenario.build("v1") if o.get("kind") != "Event"]
        slugs = {f.slug for f in _diagnose(objects, *scenario.pending_pod).findings}
        assert scenario.must <= slugs, f"{scenario.name} without events: {slugs}"


def test_scheduler_without_consumable_capacity_is_a_gate_finding():
    """kube-scheduler without DRAConsumableCapacity fails a distinctAttribute claim with a SchedulerError."""
    builder = ClusterBuilder(
        3, "v1", Knobs(decode_running=0, prefill_running=0, decode_pending=1, prefill_pending=0)
    )
    objects = builder.build()
    namespace, name = builder.target_pod()
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    claim = next(
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "ResourceClaim" and o["metadata"]["name"].startswith(name)
    )
    text = EMPTY_CONSTRAINT_ERROR.format(claim=claim)
    pod["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": text}
    ]
    diagnosis = _diagnose(objects, namespace, name)
    [gate] = [f for f in diagnosis.findings if f.slug == "feature-gate-disabled"]
    assert gate.evidence["component"] == "kube-scheduler"
    assert "DRAConsumableCapacity" in gate.words().title
    assert diagnosis.features["gates"]["DRAConsumableCapacity"] is False
    # Simulated with the gate on, the devices fit: the gate is the whole story (the recorded
    # SchedulerError still proves the running scheduler has it off).
    fixed = _diagnose(copy.deepcopy(objects), namespace, name, gates="DRAConsumableCapacity=true")
    assert fixed.features["gates"]["DRAConsumableCapacity"] is True
    assert any(node["fits"] for node in fixed.nodes)
    assert [f.evidence["schedulerError"] for f in fixed.findings if f.slug == "feature-gate-disabled"] == [
        text.split(": ", 1)[1]
    ]


def test_korean_findings(rbln):
    result = rbln("why", "--example", "-o", "json", "--lang", "ko")
    report = json.loads(result.stdout)
    finding = report["pods"][0]["findings"][0]
    assert any("\uac00" <= ch <= "\ud7a3" for ch in finding["title"] + finding["detail"])
    assert report["pods"][0]["verdict"].startswith("Pod serving/")


def test_json_schema_is_stable(rbln):
    result = rbln("why", "--example", "-o", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["apiVersion"] == "kubectl-rbln/v2" and report["kind"] == "WhyReport"
    diagnosis = report["pods"][0]
    assert set(diagnosis) >= {"pod", "phase", "verdict", "findings", "nodes", "events", "assumptions"}
    assert set(diagnosis["findings"][0]) >= {
        "slug",
        "severity",
        "title",
        "detail",
        "evidence",
        "remediation",
        "docs",
    }
    node = next(n for n in diagnosis["nodes"] if n["name"] == "npu-node-01")
    assert node["fits"] is False and node["failure"]["kind"] == "constraint"


def test_jq_filters_the_report(rbln):
    result = rbln("why", "--example", "--jq", "[.pods[].findings[].slug] | unique")
    assert result.returncode == 1
    assert json.loads(result.stdout) == ["attribute-not-advertised"]


def test_fail_on_warning_and_healthy_exit_codes(rbln, tmp_path):
    scenario = SCENARIOS["taint-not-device-related"]
    bundle = tmp_path / "taint.json"
    write_bundle(bundle, scenario.build("v1"))
    namespace, pod = scenario.pending_pod
    default = rbln("why", "-f", str(bundle), "-n", namespace, pod)
    assert default.returncode == 1, default.stdout  # a Pod that does not run is never exit 0 (issue 21)
    assert "not-device-related" in default.stdout and "Not a device problem" in default.stdout
    healthy = tmp_path / "healthy.json"
    write_bundle(healthy, SCENARIOS["healthy"].build("v1"))
    running = SCENARIOS["healthy"].pending_pod[1]
    strict = rbln("why", "-f", str(healthy), "-n", namespace, running, "--fail-on", "info")
    assert strict.returncode == 0, strict.stdout


def test_no_pod_named_diagnoses_every_pending_device_pod(rbln):
    result = rbln("why", "-f", str(EXAMPLES / "pending-decode.json"), "-n", "serving", "-o", "json")
    pods = [d["pod"] for d in json.loads(result.stdout)["pods"]]
    assert len(pods) == 3 and all(p.startswith("serving/coder-") for p in pods)


def test_unknown_pod_is_a_usage_error(rbln):
    result = rbln("why", "--example", "nope")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f'error: pod "nope" not found in namespace "serving" (files {EXAMPLES.parent / "kubectl_rbln"}'
        "/examples/pending-decode.json)"
    ) or result.stderr.startswith('error: pod "nope" not found in namespace "serving"')
    assert "Traceback" not in result.stderr


def test_extended_resource_name_dropped_by_the_api_server():
    """seed 002 / ecosystem-facts 2.1: DeviceClass extendedResourceName needs DRAExtendedResource."""
    builder = ClusterBuilder(
        5, "v1", Knobs(decode_running=0, prefill_running=0, decode_pending=1, prefill_pending=0)
    )
    objects = builder.build()
    namespace, name = builder.target_pod()
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    pod["spec"]["resourceClaims"] = []
    pod["spec"]["containers"][0]["resources"] = {"limits": {"rebellions.ai/npu": "4"}}
    npu_class = next(
        o for o in objects if o["kind"] == "DeviceClass" and o["metadata"]["name"] == "npu.rebellions.ai"
    )
    applied = copy.deepcopy(npu_class)
    applied["spec"]["extendedResourceName"] = "rebellions.ai/npu"
    npu_class["metadata"].setdefault("annotations", {})[
        "kubectl.kubernetes.io/last-applied-configuration"
    ] = json.dumps(applied)
    npu_class["spec"].pop("extendedResourceName", None)
    findings = _diagnose(objects, namespace, name).findings
    [gate] = [f for f in findings if f.slug == "feature-gate-disabled"]
    assert gate.evidence["deviceClass"] == "npu.rebellions.ai"
    assert "DRAExtendedResource" in gate.words().title


def test_fix_follows_the_failing_term_and_the_runtime():
    """Only the branch of the fix that applies: RDMA driver vs selector edit, containerd vs CRI-O."""
    rdma = SCENARIOS["rdma-driver-not-loaded"]
    [finding] = [
        f
        for f in _diagnose(rdma.build("v1"), *rdma.pending_pod).findings
        if f.slug == "selector-matches-nothing"
    ]
    fix = "\n".join(finding.words().remediation)
    assert "modprobe bnxt_re" in fix and "pciSubsystem" not in fix
    vendor = SCENARIOS["nic-vendor-mismatch"]
    [finding] = [
        f
        for f in _diagnose(vendor.build("v1"), *vendor.pending_pod).findings
        if f.slug == "selector-matches-nothing"
    ]
    fix = "\n".join(finding.words().remediation)
    assert "pciSubsystem" in fix and "modprobe" not in fix
    assert finding.evidence["valuesSeen"] == {"dra.net/pciSubsystem": {"0101": 4}}
    crash = SCENARIOS["memlock-crash"]
    [finding] = [
        f for f in _diagnose(crash.build("v1"), *crash.pending_pod).findings if f.slug == "memlock-limit"
    ]
    fix = "\n".join(finding.words().remediation)
    assert "LimitMEMLOCK=infinity" in fix and "CRI-O" not in fix


def test_yaml_output_is_plain_and_matches_json(rbln):
    import yaml

    as_yaml = rbln("why", "--example", "-o", "yaml")
    as_json = rbln("why", "--example", "-o", "json")
    assert "&id" not in as_yaml.stdout and "*id" not in as_yaml.stdout
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)
