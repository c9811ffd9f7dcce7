"""Scenarios of issue 13 ("fixes fit the object"): a Pod that names its ResourceClaim itself.

google/dranet#139 shows the shape users write: every replica's Pod lists `resourceClaims: [{name:
rdma-nic, resourceClaimName: claim-any-rdma-nic}]`, one ResourceClaim (`claim-any-rdma-nic`, no
owner) that all of them share, and no ResourceClaimTemplate at all. kubernetes/kubernetes#140036
shows such a Pod's `status.resourceClaimStatuses` stays empty (it only lists generated claims).
Here the decode Deployment of the reference cluster names one ResourceClaim, npu-rdma-shared, whose
spec is the reference RCT's (NPUs and NICs aligned on resource.kubernetes.io/numaNode), on a cluster
whose dranet does not publish that attribute. The fix must re-create that claim and restart the
Deployment, never delete and re-create the RCT npu-rdma the decode Pods do not use.
`scenarios.py` appends `scenarios()` to its list.
"""

from __future__ import annotations

import copy
from typing import Any

from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import Scenario, edited_scenario

Objects = list[dict[str, Any]]

SHARED = "npu-rdma-shared"
SHARED_UID = "6a1d2c3e-0000-4000-8000-00000000d001"
DECODE_PENDING = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 0, "decode_pending": 2}


def _decode_pods(objects: Objects) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].startswith("coder-decode")]


def _shared_claim_with_the_rct_spec(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The decode Pods name npu-rdma-shared (resourceClaimName), a claim with the RCT's spec, unallocated."""
    rct = next(o for o in objects if o["kind"] == "ResourceClaimTemplate")
    pods = _decode_pods(objects)
    generated = {
        claim["metadata"]["name"]
        for claim in objects
        if claim["kind"] == "ResourceClaim"
        and any(
            ref.get("name") in {p["metadata"]["name"] for p in pods}
            for ref in claim["metadata"].get("ownerReferences", [])
        )
    }
    # a bound Pod's claim was allocated for it before it was bound: the shared claim keeps that allocation
    bound = {p["metadata"]["name"]: p for p in pods if p["spec"].get("nodeName")}
    kept = next(
        (
            (c["status"], bound[ref["name"]])
            for c in objects
            if c["kind"] == "ResourceClaim" and c["metadata"]["name"] in generated and c.get("status")
            for ref in c["metadata"].get("ownerReferences", [])
            if ref.get("name") in bound
        ),
        None,
    )
    out = [o for o in objects if not (o["kind"] == "ResourceClaim" and o["metadata"]["name"] in generated)]
    for pod in pods:
        pod["spec"]["resourceClaims"] = [{"name": "npu-rdma", "resourceClaimName": SHARED}]
        pod["status"].pop("resourceClaimStatuses", None)
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": SHARED,
            "namespace": builder.knobs.namespace,
            "uid": SHARED_UID,
            "resourceVersion": "41207",
            "creationTimestamp": "2026-09-14T03:55:00Z",
        },
        "spec": copy.deepcopy(rct["spec"]["spec"]),
        "status": {},
    }
    if kept is not None:
        status, pod = kept
        claim["status"] = {
            "allocation": copy.deepcopy(status.get("allocation")),
            "reservedFor": [
                {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
            ],
        }
    return [*out, claim]


def scenarios() -> list[Scenario]:
    return [
        edited_scenario(
            "direct-claim-attribute-missing",
            "The decode Deployment's Pods share ResourceClaim npu-rdma-shared (resourceClaimName, as in "
            "google/dranet#139) with the reference RCT's spec; dranet does not publish "
            "resource.kubernetes.io/numaNode, so the claim cannot be allocated. The fix re-creates the "
            "claim and restarts the Deployment.",
            _shared_claim_with_the_rct_spec,
            must={"attribute-not-advertised"},
            must_not={
                "claim-template-missing",
                "claim-not-created",
                "not-device-related",
                "driver-slices-missing",
            },
            knobs=Knobs(nic_numa_standard=False, **DECODE_PENDING),
        ),
    ]
