"""Which allocator `why` simulates: the minor, its default gates, and what stored objects prove.

Defaults are pinned per minor (sources in kubectl_rbln/dra/gates.py); objects are built in the
API shape a cluster stores (resource.k8s.io/v1, and v1beta1 where the shape differs).
"""

from __future__ import annotations

import json

import pytest

from kubectl_rbln.diagnose.features import (
    DEFAULT_MINOR,
    EMPTY_CONSTRAINT,
    GATE_DEFAULTS,
    SUPPORTED_MINORS,
    allocator_features,
    choose_features,
    parse_gates,
)
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.gates import GATE_NAMES
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.errors import InputError
from tests.conftest import EXAMPLES

OFF = dict.fromkeys(
    (
        "prioritized_list",
        "admin_access",
        "consumable_capacity",
        "device_taints",
        "partitionable",
        "binding_conditions",
        "extended_resource",
        "device_taint_rules",
    ),
    False,
)
# 1.36 turns the beta gates on; DRADeviceTaintRules stays beta and off until it is GA in 1.37.
ON_36 = {**dict.fromkeys(OFF, True), "device_taint_rules": False}
EXPECTED = {
    32: OFF,
    33: OFF,
    34: {**OFF, "prioritized_list": True, "admin_access": True},
    35: {**OFF, "prioritized_list": True, "admin_access": True},
    36: ON_36,
    37: {**ON_36, "device_taint_rules": True},
}


def cluster_info(version: str) -> dict:
    return {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ClusterInfo",
        "metadata": {"name": "c"},
        "serverVersion": version,
    }


def node(name: str, kubelet: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"nodeInfo": {"kubeletVersion": kubelet}},
    }


def device(name: str, **fields) -> dict:
    return {
        "name": name,
        "attributes": {"type": {"string": "npu"}},
        "capacity": {"memory": {"value": "64Gi"}},
        **fields,
    }


def resource_slice(devices: list[dict], api_version: str = "resource.k8s.io/v1", **spec) -> dict:
    return {
        "apiVersion": api_version,
        "kind": "ResourceSlice",
        "metadata": {"name": "npu-node-1-npu.rebellions.ai-abcde"},
        "spec": {
            "driver": "npu.rebellions.ai",
            "nodeName": "npu-node-1",
            "pool": {"name": "npu-node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
            **spec,
        },
    }


def device_class(**spec) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "npu.rebellions.ai"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "npu.rebellions.ai"'}}], **spec},
    }


def rct(request: dict) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "npu", "namespace": "serving"},
        "spec": {"spec": {"devices": {"requests": [request]}}},
    }


def choose(objects: list[dict], version: str | None = None, gates: str | None = None):
    return choose_features(build_snapshot(objects), version, gates)


# -- defaults per minor --


def test_the_known_minors_are_1_32_to_1_37():
    assert list(SUPPORTED_MINORS) == [32, 33, 34, 35, 36, 37]
    assert sorted(GATE_DEFAULTS) == list(SUPPORTED_MINORS)


@pytest.mark.parametrize("minor", sorted(EXPECTED))
def test_each_minor_simulates_its_default_gates(minor):
    choice = choose([], f"1.{minor}")
    assert (choice.minor, choice.gates) == (minor, EXPECTED[minor])
    assert choice.reasons["minor"] == "--k8s-version"
    assert all(
        choice.reasons[g] == f"the default of 1.{minor} ({'on' if on else 'off'})"
        for g, on in EXPECTED[minor].items()
    )
    assert "clamped" not in choice.describe() and choice.note is None


@pytest.mark.parametrize("minor", sorted(EXPECTED))
def test_the_allocator_defaults_are_the_same_table(minor):
    assert Features.defaults(minor) == Features(version=minor, **EXPECTED[minor])
    assert allocator_features(choose([], f"1.{minor}")) == Features.defaults(minor)


def test_an_unknown_version_is_the_newest_known():
    choice = choose([])
    assert DEFAULT_MINOR == 37 and choice.minor == 37 and choice.gates == EXPECTED[37]
    assert "newest known" in choice.reasons["minor"]
    assert "clamped" not in choice.describe()


def test_the_server_version_wins_over_kubelets_and_kubelets_over_nothing():
    nodes = [node("a", "v1.33.4"), node("b", "v1.34.2")]
    assert choose(nodes).minor == 34
    assert "v1.34.2" in choose(nodes).reasons["minor"]
    choice = choose([*nodes, cluster_info("v1.35.1-eks-113cf36")])
    assert choice.minor == 35 and choice.reasons["minor"] == "server version v1.35.1-eks-113cf36"
    assert choose([cluster_info("v1.36.0")], "1.32").minor == 32


@pytest.mark.parametrize("text", ["1.36", "v1.36", "1.36.2", "v1.36.2+k3s1", "v1.36.0-gke.100"])
def test_version_texts(text):
    assert choose([], text).minor == 36


@pytest.mark.parametrize("text", ["1.3x", "2.0", "36", "1.36abc", "v1"])
def test_a_version_that_is_not_one_is_an_input_error(text):
    with pytest.raises(InputError, match="--k8s-version"):
        choose([], text)


# -- outside the known minors: the nearest, said out loud --


def test_a_newer_minor_simulates_the_newest_and_says_so():
    described = choose([cluster_info("v1.38.0")]).describe()
    assert described["kubernetesMinor"] == "1.37"
    assert described["gates"] == {GATE_NAMES[k]: v for k, v in EXPECTED[37].items()}
    assert described["clamped"] == {"requested": "1.38", "simulated": "1.37"}
    assert (
        described["note"] == "Kubernetes 1.38 is newer than the newest allocator known (1.37); simulated 1.37"
    )
    assert described["note"] in described["why"]["minor"]


def test_an_older_minor_simulates_the_oldest_and_says_so():
    described = choose([], "1.31").describe()
    assert described["kubernetesMinor"] == "1.32" and described["gates"] == {
        GATE_NAMES[k]: v for k, v in EXPECTED[32].items()
    }
    assert described["clamped"] == {"requested": "1.31", "simulated": "1.32"}
    assert "older than the oldest" in described["note"]


def test_why_warns_on_stderr_and_keeps_stdout_the_document(inprocess_rbln, tmp_path):
    bundle = json.loads((EXAMPLES / "pending-decode.json").read_text())
    bundle["items"].append(cluster_info("v1.38.2"))
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    code, out, err = inprocess_rbln("why", "-f", str(path), "-n", "serving", "-o", "json")
    document = json.loads(out)  # nothing but the document on stdout
    assert document["assumptions"]["clamped"] == {"requested": "1.38", "simulated": "1.37"}
    note = "warning: Kubernetes 1.38 is newer than the newest allocator known (1.37); simulated 1.37"
    assert err.splitlines().count(note) == 1
    code, out, err = inprocess_rbln("why", "-f", str(path), "-n", "serving", "--k8s-version", "1.36")
    assert "warning:" not in err and "warning: Kubernetes" not in out


def test_why_table_output_warns_on_stderr_too(inprocess_rbln):
    code, out, err = inprocess_rbln("why", "--example", "--k8s-version", "1.40")
    assert "warning: Kubernetes 1.40 is newer than the newest allocator known (1.37); simulated 1.37" in err
    assert "warning: Kubernetes" not in out


# -- gates inferred from stored objects --


def test_stored_device_taints_prove_device_taints():
    taint = {"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
    choice = choose([resource_slice([device("rbln0", taints=[taint])])], "1.35")
    assert choice.gates["device_taints"] is True
    assert "device rbln0 has stored taints" in choice.reasons["device_taints"]
    assert "DRADeviceTaints" in choice.reasons["device_taints"]
    assert allocator_features(choice).device_taints is True


def test_stored_taints_in_the_v1beta1_shape_too():
    taint = {"key": "k", "effect": "NoExecute"}
    obj = resource_slice([{"name": "rbln0", "basic": {"taints": [taint]}}], "resource.k8s.io/v1beta1")
    assert choose([obj], "1.34").gates["device_taints"] is True


def test_kept_request_tolerations_prove_device_taints():
    request = {
        "name": "npu",
        "exactly": {
            "deviceClassName": "npu.rebellions.ai",
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
        },
    }
    choice = choose([rct(request)], "1.34")
    assert choice.gates["device_taints"] is True
    assert "RCT serving/npu kept tolerations" in choice.reasons["device_taints"]


def test_stored_shared_counters_prove_partitionable_devices():
    counters = [{"name": "npu-0-counters", "counters": {"memory": {"value": "64Gi"}}}]
    consumes = [{"counterSet": "npu-0-counters", "counters": {"memory": {"value": "16Gi"}}}]
    slice_ = resource_slice([device("rbln0-part0", consumesCounters=consumes)], sharedCounters=counters)
    choice = choose([slice_], "1.33")
    assert choice.gates["partitionable"] is True
    assert "has stored sharedCounters" in choice.reasons["partitionable"]
    assert "DRAPartitionableDevices" in choice.reasons["partitionable"]


def test_stored_per_device_node_selection_proves_partitionable_devices():
    slice_ = resource_slice([device("rbln0", nodeName="npu-node-1")], perDeviceNodeSelection=True)
    del slice_["spec"]["nodeName"]
    choice = choose([slice_], "1.35")
    assert choice.gates["partitionable"] is True
    assert "perDeviceNodeSelection" in choice.reasons["partitionable"]


def test_kept_extended_resource_name_proves_extended_resource():
    choice = choose([device_class(extendedResourceName="rebellions.ai/npu")], "1.34")
    assert choice.gates["extended_resource"] is True
    assert (
        "DeviceClass npu.rebellions.ai kept extendedResourceName rebellions.ai/npu"
        in choice.reasons["extended_resource"]
    )


def test_stored_binding_conditions_prove_binding_conditions():
    bound = device(
        "rbln0", bindingConditions=["ready"], bindingFailureConditions=["failed"], bindsToNode=True
    )
    choice = choose([resource_slice([bound])], "1.35")
    assert choice.gates["binding_conditions"] is True
    assert "has stored bindingConditions" in choice.reasons["binding_conditions"]
    assert allocator_features(choice).binding_conditions is True


def test_stored_allow_multiple_allocations_proves_consumable_capacity():
    choice = choose([resource_slice([device("rbln0", allowMultipleAllocations=True)])], "1.34")
    assert choice.gates["consumable_capacity"] is True
    assert "allowMultipleAllocations" in choice.reasons["consumable_capacity"]


def test_kept_distinct_attribute_still_proves_consumable_capacity():
    template = rct({"name": "nic", "exactly": {"deviceClassName": "rdma.dra.net", "count": 2}})
    template["spec"]["spec"]["devices"]["constraints"] = [{"distinctAttribute": "dra.net/numaNode"}]
    choice = choose([template], "1.35")
    assert choice.gates["consumable_capacity"] is True
    assert "kept distinctAttribute" in choice.reasons["consumable_capacity"]


def test_the_empty_constraint_error_proves_consumable_capacity_off_even_in_1_37():
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e", "namespace": "serving"},
        "involvedObject": {"kind": "Pod", "name": "decode-0", "namespace": "serving"},
        "reason": "FailedScheduling",
        "type": "Warning",
        "message": f'running "DynamicResources" filter plugin: {EMPTY_CONSTRAINT}',
    }
    choice = choose([event, resource_slice([device("rbln0", allowMultipleAllocations=True)])], "1.37")
    assert choice.gates["consumable_capacity"] is False
    assert "empty constraint" in choice.reasons["consumable_capacity"]


def test_evidence_for_a_gate_the_minor_lacks_is_reported_and_ignored():
    taint = {"key": "k", "effect": "NoSchedule"}
    choice = choose([resource_slice([device("rbln0", taints=[taint])])], "1.32")
    assert choice.gates["device_taints"] is False
    assert "1.32 has no DRADeviceTaints: ignored" in choice.reasons["device_taints"]


def test_no_evidence_leaves_the_defaults():
    choice = choose([resource_slice([device("rbln0")]), device_class()], "1.35")
    assert choice.gates == EXPECTED[35]


# -- --feature-gates wins --


def test_feature_gates_win_over_evidence_and_defaults():
    taint = {"key": "k", "effect": "NoSchedule"}
    objects = [resource_slice([device("rbln0", taints=[taint])]), cluster_info("v1.37.0")]
    choice = choose(objects, gates="DRADeviceTaints=false, DRAExtendedResource=false,DRAPrioritizedList=true")
    assert choice.gates == {**EXPECTED[37], "device_taints": False, "extended_resource": False}
    assert choice.reasons["device_taints"] == "--feature-gates"
    assert choice.reasons["extended_resource"] == "--feature-gates"
    assert choice.reasons["prioritized_list"] == "--feature-gates"


def test_feature_gates_names_every_gate_field():
    text = ",".join(
        f"{g}=true"
        for g in (
            "DRAPrioritizedList",
            "DRAAdminAccess",
            "DRAConsumableCapacity",
            "DRADeviceTaints",
            "DRAPartitionableDevices",
            "DRADeviceBindingConditions",
            "DRAExtendedResource",
            "DRADeviceTaintRules",
        )
    )
    assert parse_gates(text) == dict.fromkeys(OFF, True)


@pytest.mark.parametrize("text", ["DRADeviceTaints", "DRADeviceTaints=yes", "DRAListTypeAttributes=true"])
def test_a_bad_feature_gate_is_an_input_error(text):
    with pytest.raises(InputError, match="--feature-gates"):
        parse_gates(text)


# -- every scenario keeps its answer on the newest allocator --


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_every_scenario_keeps_its_answer_on_1_36_and_1_37(version):
    """The scenarios pin 1.34 through their kubelets; the newest allocator must name the same causes."""
    from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
    from testing.synthetic.scenarios import SCENARIOS

    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(scenario.build("v1"))
        pod = snapshot.pod(*scenario.pending_pod)
        options = WhyOptions(features=allocator_features(choose_features(snapshot, None, None)))
        pinned = {f.slug for f in diagnose_pod(snapshot, pod, options).findings}
        options = WhyOptions(features=allocator_features(choose_features(snapshot, version, None)))
        newest = {f.slug for f in diagnose_pod(snapshot, pod, options).findings}
        assert newest == pinned, f"{scenario.name}: {sorted(newest ^ pinned)}"
