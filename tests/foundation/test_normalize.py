"""One Snapshot shape for v1beta1, v1beta2 and v1, pinned on real objects."""

from __future__ import annotations

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.dra.model import Version
from kubectl_rbln.dra.normalize import build_snapshot
from tests.conftest import SAMPLES


def _snap(*names: str):
    return build_snapshot(load_objects([str(SAMPLES / n) for n in names]))


def test_basic_nesting_is_flattened_and_values_typed():
    [slice_] = _snap("dranet-slice-gke-doc-basic.yaml").slices
    device = slice_.devices[0]
    assert device.name == "gpu7rdma0"
    assert device.attributes["dra.net/numaNode"] == 1
    assert device.attributes["resource.kubernetes.io/numaNode"] == 1
    assert device.attributes["dra.net/rdma"] is True
    assert device.attributes["dra.net/mtu"] == 8896


def test_unqualified_names_get_the_driver_domain():
    snap = _snap("gpu-slice-aws-a100.yaml")
    device = snap.slices[0].devices[0]
    assert device.attributes["gpu.nvidia.com/productName"] == "NVIDIA A100-SXM4-40GB"
    assert device.attributes["gpu.nvidia.com/driverVersion"] == Version("580.126.9")
    assert device.attributes["resource.kubernetes.io/pcieRoot"] == "pci0000:10"
    assert device.capacity["gpu.nvidia.com/memory"] == "40Gi"


def test_synthetic_rbln_slice_qualifies_under_npu_domain():
    device = _snap("SYNTHETIC-rbln-npu-slice.yaml").slices[0].devices[0]
    assert device.attributes["npu.rebellions.ai/productName"] == "RBLN-CA25"
    assert device.node_name == "npu-node-1"


def test_allocated_claim_results_and_v1_exactly_requests():
    [claim] = _snap("claim-allocated-gpu-efa.yaml").claims
    assert [r.name for r in claim.spec.requests] == ["gpu", "efa"]
    assert claim.spec.requests[1].exactly.device_class == "efa.networking.k8s.aws"
    assert [r.key for r in claim.allocation.results] == [
        ("gpu.nvidia.com", "ip-192-168-153-160.ec2.internal", "gpu-6"),
        ("dra.net", "ip-192-168-153-160.ec2.internal", "pci-0000-a0-1b-0"),
    ]
    assert claim.owner_pod == "nccl-test-dra-worker-0"
    assert claim.pod_claim_name == "gpu-efa"


def test_constraint_without_requests_applies_to_all():
    templates = {t.name: t for t in _snap("rcts-and-deviceclasses.yaml").templates}
    [constraint] = templates["2-gpu-nic-aligned"].spec.constraints
    assert constraint.requests == [] and constraint.match_attribute == "resource.kubernetes.io/pcieRoot"


def _request_objects(version: str):
    v1beta1 = {
        "name": "npu",
        "deviceClassName": "npu.rebellions.ai",
        "count": 4,
        "selectors": [{"cel": {"expression": "true"}}],
    }
    wrapped = {"name": "npu", "exactly": {k: v for k, v in v1beta1.items() if k != "name"}}
    request = v1beta1 if version == "v1beta1" else wrapped
    device = {"name": "rbln0", "attributes": {"numaNode": {"int": 0}}}
    if version == "v1beta1":
        device = {"name": "rbln0", "basic": {"attributes": {"numaNode": {"int": 0}}}}
    return [
        {
            "apiVersion": f"resource.k8s.io/{version}",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ns"},
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            request,
                            {
                                "name": "alt",
                                "firstAvailable": [{"name": "a", "deviceClassName": "dranet", "count": 2}],
                            },
                        ]
                    }
                }
            },
        },
        {
            "apiVersion": f"resource.k8s.io/{version}",
            "kind": "ResourceSlice",
            "metadata": {"name": "s"},
            "spec": {
                "driver": "npu.rebellions.ai",
                "nodeName": "n1",
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                "devices": [device],
            },
        },
    ]


def test_all_three_versions_normalize_alike():
    shapes = {}
    for version in ("v1beta1", "v1beta2", "v1"):
        snap = build_snapshot(_request_objects(version))
        [template] = snap.templates
        npu, alt = template.spec.requests
        device = snap.slices[0].devices[0]
        shapes[version] = (
            npu.exactly.device_class,
            npu.exactly.count,
            npu.exactly.selectors,
            [(s.name, s.device_class, s.count) for s in alt.first_available],
            device.attributes,
            snap.resource_api_version,
        )
    assert shapes["v1beta1"][:5] == shapes["v1beta2"][:5] == shapes["v1"][:5]
    assert shapes["v1"][4] == {"npu.rebellions.ai/numaNode": 0}
    assert [s[5] for s in shapes.values()] == ["v1beta1", "v1beta2", "v1"]


def test_objects_missing_fields_do_not_raise():
    snap = build_snapshot(
        [
            {"kind": "Pod"},
            {"kind": "ResourceSlice", "spec": {"devices": [None, {"attributes": {"x": {}}}]}},
            {"kind": "ResourceClaim", "status": {"allocation": {"devices": {"results": [None]}}}},
            {"kind": "Event", "involvedObject": None},
            {"kind": "Node", "status": "garbage"},
        ]
    )
    assert snap.pods[0].phase == "Unknown"
    assert snap.slices[0].devices[1].bad_attributes == ["/x"]
