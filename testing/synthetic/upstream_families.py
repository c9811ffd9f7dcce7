"""Scenarios of issue 12, point 4: failure families met in public upstream reports.

Each scenario starts from the reference cluster (ClusterBuilder, in v1), edits a few objects the
way the cited report shows them, and is then re-expressed in the requested API shape, so it is
tested like every other scenario (every shape, from files, through the replay server).
`scenarios.py` appends `scenarios()` to its list.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from kubectl_rbln.domain import NIC_CLASS, NIC_DRIVER, NPU_CLASS, RDMA_ATTR, RDMA_DEVICE_ATTR
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import Scenario, edited_scenario

Objects = list[dict[str, Any]]
Edit = Callable[[Objects, ClusterBuilder], Objects]

ALL_PENDING: dict[str, int] = {
    "prefill_running": 0,
    "decode_running": 0,
    "prefill_pending": 1,
    "decode_pending": 1,
}


def _family(name: str, description: str, edit: Edit, *, must: set[str], **kw: Any) -> Scenario:
    must_not = kw.pop("must_not", frozenset())
    return edited_scenario(name, description, edit, must=must, must_not=must_not, knobs=Knobs(**kw))


def _of_kind(objects: Objects, kind: str) -> Objects:
    return [o for o in objects if o["kind"] == kind]


# ------------------------------------------------------------------ a) the missing RCT leads


def _no_reference_classes(objects: Objects, builder: ClusterBuilder) -> Objects:
    """A cluster that never installed the reference DeviceClasses: it has its own, for its GPUs."""
    gpu_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com", "uid": "5f0c1e2a-0000-4000-8000-00000000a001"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    }
    return [gpu_class, *objects]


# ------------------------------------------------------------------ b) the RCT is in another namespace


def _rct_in_default(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The RCT was applied without `-n`: it landed in `default`, the Pods run in the chart's namespace."""
    reference = ClusterBuilder(builder.seed, "v1", builder.knobs.replace(rct="numa-aligned")).build()
    template = copy.deepcopy(_of_kind(reference, "ResourceClaimTemplate")[0])
    template["metadata"]["namespace"] = "default"
    annotations = template["metadata"].get("annotations", {})
    key = "kubectl.kubernetes.io/last-applied-configuration"
    if key in annotations:
        applied = json.loads(annotations[key])
        applied.setdefault("metadata", {})["namespace"] = "default"
        annotations[key] = json.dumps(applied, sort_keys=True)
    return [*objects, template]


# ------------------------------------------------------------------ d) free, but rdma=false


def _free_nics_lost_rdma(objects: Objects, builder: ClusterBuilder) -> Objects:
    """Every NIC no claim holds is published again with dra.net/rdma false and no rdmaDevice."""
    held = {
        (r["pool"], r["device"])
        for claim in _of_kind(objects, "ResourceClaim")
        for r in (claim.get("status") or {}).get("allocation", {}).get("devices", {}).get("results", [])
    }
    rdma, rdma_device = (name.split("/", 1)[1] for name in (RDMA_ATTR, RDMA_DEVICE_ATTR))
    for slice_ in _of_kind(objects, "ResourceSlice"):
        if slice_["spec"]["driver"] != NIC_DRIVER:
            continue
        slice_["spec"]["pool"]["generation"] = slice_["spec"]["pool"].get("generation", 1) + 1
        for device in slice_["spec"]["devices"]:
            if (slice_["spec"]["pool"]["name"], device["name"]) in held:
                continue
            attributes = device.get("attributes", {})
            for key in list(attributes):
                if key in (rdma, RDMA_ATTR):
                    attributes[key] = {"bool": False}
                if key in (rdma_device, RDMA_DEVICE_ATTR):
                    del attributes[key]
    return objects


# ------------------------------------------------------------------ c) allocationMode: All, devices held


def _all_rdma_nics(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The RCT (and the pending Pod's claim made from it) asks for every RDMA NIC of a node."""
    devices = {
        "requests": [
            {
                "name": "nic",
                "exactly": {
                    "deviceClassName": NIC_CLASS,
                    "allocationMode": "All",
                    "selectors": [{"cel": {"expression": f'device.attributes["{NIC_DRIVER}"].rdma == true'}}],
                },
            }
        ]
    }
    for template in _of_kind(objects, "ResourceClaimTemplate"):
        template["metadata"].pop("annotations", None)
        template["spec"]["spec"]["devices"] = copy.deepcopy(devices)
    for claim in _of_kind(objects, "ResourceClaim"):
        if not (claim.get("status") or {}).get("allocation"):
            claim["spec"]["devices"] = copy.deepcopy(devices)
    return objects


def scenarios() -> list[Scenario]:
    return [
        _family(
            "rct-missing-no-reference-classes",
            # kubernetes/kubernetes#129362 (the RCT single-gpu was deleted, its Pods never run again) and
            # #135835 (a Pod created before its RCT waits on the claim controller's backoff): the Pod
            # names an RCT that does not exist, on a cluster whose only DeviceClass is its own GPU
            # class. The missing RCT is the finding; the NPU and NIC classes of the reference RCT,
            # which this cluster never used, must not be reported missing.
            "The Pods name RCT npu-rdma, which was never applied, on a cluster that has neither "
            "npu.rebellions.ai nor dranet DeviceClasses (only its own gpu.example.com).",
            _no_reference_classes,
            must={"claim-template-missing"},
            must_not={"device-class-missing", "driver-slices-missing", "not-device-related"},
            rct=None,
            drop_device_classes=(NPU_CLASS, NIC_CLASS),
            **ALL_PENDING,
        ),
        _family(
            "rct-in-other-namespace",
            # RCTs are namespaced; the KEP for a cluster-scoped template (kubernetes/enhancements#6159,
            # KEP-5978 ClusterResourceClaimTemplate) starts from users who must copy one RCT into every
            # namespace, and kubernetes/kubernetes#129362 shows the RCT created with its namespace
            # (gpu-test2). Here npu-rdma was applied without `-n`: it is in `default`, the Pods in
            # `serving`, and the claim controller reports it not found.
            "RCT npu-rdma exists, but in namespace default; the Pods run in serving, so the claim "
            "controller cannot create their claims (FailedResourceClaimCreation).",
            _rct_in_default,
            must={"claim-template-missing"},
            must_not={
                "device-class-missing",
                "driver-slices-missing",
                "not-device-related",
                "claim-not-created",
            },
            rct=None,
            **ALL_PENDING,
        ),
        _family(
            "free-nics-lost-rdma",
            # kubernetes-sigs/dranet#51: after the NIC vendor's driver stack was installed, dranet
            # published the same NICs with dra.net/rdma false instead of true. Here the NICs of the
            # running decode Pod keep their allocation (rdma was true when it was made); the NICs on
            # the free NUMA node came back rdma=false, so the only NICs that match are held. The
            # diagnosis must say "free, but rdma=false", not only "held by other claims".
            "One NPU node; a running decode Pod holds NUMA 0's NPUs and NICs. NUMA 1's NICs were "
            "re-published with dra.net/rdma=false, so the pending decode Pod finds the matching NICs "
            "held and the free ones failing `rdma == true`.",
            _free_nics_lost_rdma,
            must={"devices-exhausted"},
            must_not={
                "driver-slices-missing",
                "device-class-missing",
                "not-device-related",
                "attribute-not-advertised",
            },
            npu_nodes=1,
            prefill_running=0,
            decode_running=1,
            prefill_pending=0,
            decode_pending=1,
        ),
        _family(
            "all-mode-devices-held",
            # kubernetes/kubernetes#129560 (allocationMode All: "ensure exclusive access to all matching
            # devices on the node", and the allocator fixture all-devices-some-allocated): the
            # pending Pod's RCT asks for every RDMA NIC of a node, a running decode Pod holds two of
            # them, so no node qualifies although two NICs are free. The holders must be named.
            "One NPU node; the pending Pod's RCT asks for allocationMode: All RDMA NICs, and a running "
            "decode Pod holds two of the four.",
            _all_rdma_nics,
            must={"devices-exhausted"},
            must_not={
                "driver-slices-missing",
                "device-class-missing",
                "not-device-related",
                "insufficient-devices",
            },
            npu_nodes=1,
            prefill_running=0,
            decode_running=1,
            prefill_pending=0,
            decode_pending=1,
        ),
    ]
