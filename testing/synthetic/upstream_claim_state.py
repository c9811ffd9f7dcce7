"""Scenarios of issue 12, point 4: the claim's own state (kubectl_rbln/diagnose/rules/claim_state.py).

Each one starts from the reference cluster (ClusterBuilder, in v1), edits the objects the way the
cited public report shows them, and is re-expressed in the asked API shape. None of them carries a
scheduler event: PreEnqueue rejections record none in 1.36, so the objects alone must say it.
`scenarios.py` appends `scenarios()` to its list.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kubectl_rbln.domain import NPU_CLASS
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import Scenario, edited_scenario

Objects = list[dict[str, Any]]
Edit = Callable[[Objects, ClusterBuilder], Objects]

SHARED = "npu-shared"
ONE_RUNNING = {"prefill_running": 0, "decode_running": 1, "prefill_pending": 0, "decode_pending": 1}
MONITOR_NS, MONITOR_POD = "rbln-monitoring", "npu-health-7c9d4-x2x8q"


def _family(name: str, description: str, edit: Edit, *, must: set[str], **kw: Any) -> Scenario:
    must_not = kw.pop("must_not", frozenset())
    pending_pod = kw.pop("pending_pod", None)
    return edited_scenario(
        name, description, edit, must=must, must_not=must_not, pending_pod=pending_pod, knobs=Knobs(**kw)
    )


def _pods(objects: Objects) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the running decode Pod, the pending one)."""
    pods = [o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].startswith("coder-decode")]
    running = next(p for p in pods if p["spec"].get("nodeName"))
    pending = next(p for p in pods if not p["spec"].get("nodeName"))
    return running, pending


def _share(objects: Objects, builder: ClusterBuilder, reserved: int = 1) -> Objects:
    """The decode Deployment names one ResourceClaim, npu-shared (resourceClaimName), instead of its RCT.

    The running Pod's claim becomes npu-shared (no owner; reserved for the running Pod), the pending
    Pod's generated claim is gone and its status names npu-shared.
    """
    running, pending = _pods(objects)
    claims = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ResourceClaim"}
    held = next(
        c
        for c in claims.values()
        if c["metadata"]["ownerReferences"][0]["name"] == running["metadata"]["name"]
    )
    out = [o for o in objects if o["kind"] != "ResourceClaim" or o is held]
    meta = held["metadata"]
    for key in ("ownerReferences", "generateName", "annotations"):
        meta.pop(key, None)
    meta["name"] = SHARED
    for pod in (running, pending):
        pod["spec"]["resourceClaims"] = [{"name": "npu-rdma", "resourceClaimName": SHARED}]
        pod["status"].pop("resourceClaimStatuses", None)
    return out


# ------------------------------------------------------------------ 1) the claim is being deleted


def _deleted_shared_claim(objects: Objects, builder: ClusterBuilder) -> Objects:
    objects = _share(objects, builder)
    claim = next(o for o in objects if o["kind"] == "ResourceClaim")
    claim["metadata"]["deletionTimestamp"] = "2026-09-14T04:10:00Z"
    claim["metadata"]["deletionGracePeriodSeconds"] = 0
    return objects


# ------------------------------------------------------------------ 2) shared claim on a cordoned node


def _cordoned_claim_node(objects: Objects, builder: ClusterBuilder) -> Objects:
    objects = _share(objects, builder)
    claim = next(o for o in objects if o["kind"] == "ResourceClaim")
    selector = claim["status"]["allocation"]["nodeSelector"]
    node_name = selector["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == node_name)
    node["spec"]["unschedulable"] = True  # kubectl cordon
    node["spec"].setdefault("taints", []).append(
        {
            "key": "node.kubernetes.io/unschedulable",
            "effect": "NoSchedule",
            "timeAdded": "2026-09-14T04:00:00Z",
        }
    )
    return objects


# ------------------------------------------------------------------ 3) reservedFor holds 256 consumers


def _full_reserved_for(objects: Objects, builder: ClusterBuilder) -> Objects:
    objects = _share(objects, builder)
    claim = next(o for o in objects if o["kind"] == "ResourceClaim")
    running, _ = _pods(objects)
    reserved = claim["status"]["reservedFor"]
    base = running["metadata"]["generateName"]
    for i in range(255):  # the 255 other replicas' Pods (only their references are in the bundle)
        reserved.append(
            {"resource": "pods", "name": f"{base}r{i:03d}", "uid": f"00000000-0000-4000-8000-{i:012d}"}
        )
    return objects


# ------------------------------------------------------------------ 4) adminAccess, 1.33's namespace label


def _admin_access_old_label(objects: Objects, builder: ClusterBuilder) -> Objects:
    """An NPU health monitor (allocationMode All, adminAccess) in a namespace labelled for 1.33."""
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": MONITOR_NS,
            "uid": "5f0c1e2a-0000-4000-8000-00000000b001",
            "labels": {"kubernetes.io/metadata.name": MONITOR_NS, "resource.k8s.io/admin-access": "true"},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    serving = copy.deepcopy(namespace)
    serving["metadata"].update(
        name=builder.knobs.namespace,
        uid="5f0c1e2a-0000-4000-8000-00000000b002",
        labels={"kubernetes.io/metadata.name": builder.knobs.namespace},
    )
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {
            "name": "npu-admin",
            "namespace": MONITOR_NS,
            "uid": "5f0c1e2a-0000-4000-8000-00000000b003",
        },
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "npu",
                            "exactly": {
                                "deviceClassName": NPU_CLASS,
                                "allocationMode": "All",
                                "adminAccess": True,
                            },
                        }
                    ]
                }
            }
        },
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": MONITOR_POD,
            "namespace": MONITOR_NS,
            "uid": "5f0c1e2a-0000-4000-8000-00000000b004",
            "creationTimestamp": "2026-09-14T05:10:00Z",
            "labels": {"app": "npu-health"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "npu-health-7c9d4",
                    "controller": True,
                    "uid": "5f0c1e2a-0000-4000-8000-00000000b005",
                }
            ],
        },
        "spec": {
            "containers": [
                {"name": "health", "image": "registry.example.com/npu-health:1.0", "resources": {}}
            ],
            "resourceClaims": [{"name": "npu", "resourceClaimTemplateName": "npu-admin"}],
        },
        "status": {"phase": "Pending", "qosClass": "BestEffort"},
    }
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{MONITOR_POD}.18a1", "namespace": MONITOR_NS},
        "involvedObject": {
            "kind": "Pod",
            "name": MONITOR_POD,
            "namespace": MONITOR_NS,
            "uid": "5f0c1e2a-0000-4000-8000-00000000b004",
        },
        "reason": "FailedResourceClaimCreation",
        "message": (
            f"PodResourceClaim npu: create ResourceClaim {MONITOR_POD}-npu-: ResourceClaim.resource.k8s.io "
            f'"{MONITOR_POD}-npu-" is invalid: spec.devices.requests[0].exactly.adminAccess: '
            "Forbidden: admin access to devices requires the "
            "`resource.kubernetes.io/admin-access: true` label on the containing namespace"
        ),
        "type": "Warning",
        "count": 14,
        "firstTimestamp": "2026-09-14T05:10:01Z",
        "lastTimestamp": "2026-09-14T05:40:00Z",
        "source": {"component": "resource_claim"},
    }
    return [namespace, serving, *objects, template, pod, event]


def scenarios() -> list[Scenario]:
    wrong = {"not-device-related", "devices-exhausted", "insufficient-devices", "claim-not-allocated"}
    return [
        _family(
            "claim-being-deleted",
            # kubernetes-sigs/dra-driver-nvidia-gpu#725: ResourceClaims listed "deleted,allocated,reserved"
            # for hours, their deletionTimestamp set and the finalizer
            # resource.kubernetes.io/delete-protection kept. Here the decode Deployment shares npu-shared
            # (resourceClaimName); someone deleted it to free the NPUs while the running replica still
            # reserves it, so it stays, and the new replica
            # waits in PreEnqueue ("resourceclaim \"npu-shared\" is being deleted": no event, no condition).
            "The decode Pods share ResourceClaim npu-shared; it was deleted while the running Pod still "
            "reserves it (finalizer delete-protection), and the pending Pod waits with no event.",
            _deleted_shared_claim,
            must={"claim-being-deleted"},
            must_not=wrong | {"claim-not-created", "driver-slices-missing"},
            **ONE_RUNNING,
        ),
        _family(
            "shared-claim-cordoned-node",
            # kubernetes/kubernetes#140087 (fixed by #140089): a Pod sharing an allocated claim must respect
            # the allocation's node selector ("resourceclaim not available on the node" elsewhere), and the
            # KEP-4815 review (kubernetes/enhancements#5069): "the following pods will simply get node
            # selectors from the first pod". Here npu-shared is allocated on npu-node-01, which was then
            # cordoned for maintenance; the running replica stays, the new one fits nowhere.
            "The decode Pods share ResourceClaim npu-shared, allocated on npu-node-01; npu-node-01 was "
            "cordoned, so the pending replica can run neither there nor anywhere else.",
            _cordoned_claim_node,
            must={"shared-claim-node-unusable"},
            must_not=wrong | {"claim-not-created", "driver-slices-missing"},
            **ONE_RUNNING,
        ),
        _family(
            "claim-reserved-for-full",
            # kubernetes/kubernetes#129543 raised status.reservedFor's limit from 32 to 256 (a claim shared by
            # a whole workload), KEP-5194 (kubernetes/enhancements#5379) and
            # kubernetes-sigs/dra-example-driver#183 (Workload claims, 1.36 alpha) exist because 256 is
            # still a hard cap. Here a Deployment scaled past 256 replicas names one claim; the 257th
            # Pod fails in PreBind.
            "The decode Deployment shares ResourceClaim npu-shared (node-local NPUs on npu-node-01); its "
            "reservedFor already lists 256 Pods, so the next replica cannot be added.",
            _full_reserved_for,
            must={"claim-reserved-for-full"},
            must_not=wrong | {"claim-not-created", "driver-slices-missing", "scheduler-error"},
            **ONE_RUNNING,
        ),
        _family(
            "admin-access-old-label",
            # kubernetes/kubernetes#130225 made adminAccess need a namespace label (1.33:
            # resource.k8s.io/admin-access); the DRAAdminAccess feature-gate page (kubernetes/website)
            # notes the label became resource.kubernetes.io/admin-access in 1.34. A monitoring namespace
            # labelled for 1.33 loses admin access after the upgrade: the claim controller's create is
            # Forbidden.
            "An NPU health monitor asks for all NPUs with adminAccess in namespace rbln-monitoring, which "
            "still has 1.33's resource.k8s.io/admin-access label; the claim cannot be created.",
            _admin_access_old_label,
            must={"admin-access-label-missing"},
            must_not=wrong | {"claim-not-created", "claim-template-missing", "driver-slices-missing"},
            pending_pod=(MONITOR_NS, MONITOR_POD),
            **ONE_RUNNING,
        ),
    ]
