"""The claim's own state, as the scheduler's DynamicResources plugin sees it before any node (issue 12, 4).

Before any node is tried, the plugin reads each claim the Pod names: missing, not created yet
(`ResourceClaim not created yet`, kubernetes/dynamic-resource-allocation resourceclaim/resourceclaim.go
at v0.36.2, ErrClaimNotFound) or being deleted (`resourceclaim %q is being deleted`, kubernetes/kubernetes
pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, foreachPodResourceClaim, 1.36) are
PreEnqueue rejections, which record no event and no PodScheduled condition: only the objects say it
(dra-facts-136.md, "How a status reaches the user"). The missing and not-created cases are
layers.claim_not_created; this file holds the rest of the claim's own state:

- being deleted (deletionTimestamp set, its finalizers keep it while consumers use it);
- a shared claim (`resourceClaimName`) allocated where the Pod cannot run: Filter answers `resourceclaim
  not available on the node` on every other node (same file, Filter);
- `status.reservedFor` full: 256 consumers (ResourceClaimReservedForMaxSize, kubernetes/api
  resource/v1/types.go at v0.36.2); since 1.32 `CanBeReserved` always says yes
  (resourceclaim.go at v0.36.2), so the 257th Pod fails in PreBind on the API server's validation;
- an `adminAccess` request in a namespace without `resource.kubernetes.io/admin-access: "true"`: the
  API server forbids the claim (kubernetes/kubernetes pkg/registry/resource/utils.go AuthorizedForAdmin,
  "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the
  containing namespace", 1.34+; 1.33 used `resource.k8s.io/admin-access`, kubernetes/kubernetes#130225).
"""

from __future__ import annotations

from collections.abc import Iterator

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodClaim, PodContext
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.placement import (
    BLOCKING_TAINT_EFFECTS,
    anti_affinity_exclusions,
    exclusions,
    tolerates,
)
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.dra.model import ClaimSpec, Node, ResourceClaim
from kubectl_rbln.selectors import node_selector_matches

RESERVED_FOR_MAX = 256  # ResourceClaimReservedForMaxSize (kubernetes/api resource/v1/types.go, v0.36.2)
ADMIN_LABEL = "resource.kubernetes.io/admin-access"  # DRAAdminNamespaceLabelKey, 1.34+
ADMIN_LABEL_133 = "resource.k8s.io/admin-access"  # the same label in 1.33 (kubernetes/kubernetes#130225)


def _consumers(claim: ResourceClaim) -> list[str]:
    return [str(r.get("name", "")) for r in claim.reserved_for if r.get("name")]


def _allocated_nodes(ctx: PodContext, claim: ResourceClaim) -> list[Node]:
    """Nodes the claim's allocation selects (none: the devices are not node-local, or no selector)."""
    selector = claim.allocation.node_selector if claim.allocation is not None else None
    if not selector:
        return []
    return [n for n in ctx.snapshot.nodes.values() if node_selector_matches(selector, n.name, n.labels)]


def _waiting(ctx: PodContext) -> list[PodClaim]:
    """The Pod's resolved claims, while the Pod is not bound to a node (a bound Pod is past these)."""
    return [] if ctx.pod.node_name else [c for c in ctx.claims if c.claim is not None]


@rule(
    "claim-state.being-deleted",
    emits=("claim-being-deleted",),
    suppresses={"claim-not-allocated": None, "not-device-related": None},
    blocks_simulation=True,
)
def claim_being_deleted(ctx: PodContext) -> Iterator[Finding]:
    """A claim the Pod names has a deletionTimestamp: PreEnqueue refuses the Pod, silently."""
    for pod_claim in _waiting(ctx):
        claim = pod_claim.claim
        assert claim is not None
        if not claim.deleting:
            continue
        consumers = _consumers(claim)
        shared = bool(pod_claim.ref.resource_claim_name)
        evidence = {
            "podClaim": pod_claim.ref.name,
            "resourceClaim": f"{claim.namespace}/{claim.name}",
            "deletionTimestamp": claim.deletion_timestamp,
            "finalizers": claim.finalizers,
            "reservedFor": consumers,
            "allocated": claim.allocation is not None,
            "scheduler": Said(Phrase("scheduler-claim-deleting", {"claim": claim.name})),
        }
        values = ctx.values(
            claim=claim.name,
            consumers=Names(consumers),
            held=bool(consumers),
            shared=shared,
            generated=not shared,
        )
        yield Finding("claim-being-deleted", values, evidence)
        return


def _untolerated(ctx: PodContext, node: Node) -> list[str]:
    return [
        f"{t.get('key')}{'=' + str(t['value']) if t.get('value') else ''}:{t.get('effect')}"
        for t in node.taints
        if t.get("effect") in BLOCKING_TAINT_EFFECTS and not tolerates(ctx.pod.tolerations, t)
    ]


@rule(
    "claim-state.shared-claim-node",
    emits=("shared-claim-node-unusable",),
    suppresses={"claim-not-allocated": None, "not-device-related": None},
    blocks_simulation=True,
)
def shared_claim_node_unusable(ctx: PodContext) -> Iterator[Finding]:
    """A shared claim is allocated on nodes that all exclude the Pod (taint, cordon, selector, affinity)."""
    for pod_claim in _waiting(ctx):
        claim = pod_claim.claim
        assert claim is not None
        if not pod_claim.ref.resource_claim_name or claim.allocation is None or claim.deleting:
            continue
        nodes = _allocated_nodes(ctx, claim)
        if not nodes:
            continue
        why = {
            n.name: exclusions(ctx.pod, n) + anti_affinity_exclusions(ctx.snapshot, ctx.pod, n) for n in nodes
        }
        if not all(why.values()):
            continue  # the Pod can run where the claim is: not this family
        node = nodes[0]
        kinds = {e.kind for e in why[node.name]}
        taints = [t for t in _untolerated(ctx, node) if not t.startswith("node.kubernetes.io/unschedulable")]
        evidence = {
            "resourceClaim": f"{claim.namespace}/{claim.name}",
            "allocatedOn": sorted(why),
            "nodeSelector": claim.allocation.node_selector,
            "whyNot": {name: [e.text for e in found] for name, found in sorted(why.items())},
            "reservedFor": _consumers(claim),
            "scheduler": Said(Phrase("scheduler-claim-elsewhere")),
        }
        values = ctx.values(
            claim=claim.name,
            node=node.name,
            nodes=Names(sorted(why)),
            consumers=Names(_consumers(claim)),
            cordoned="unschedulable" in kinds,
            taint=taints[0] if taints else "",
            selector=bool(kinds & {"node-selector", "affinity"}),
            anti_affinity="anti-affinity" in kinds,
        )
        yield Finding("shared-claim-node-unusable", values, evidence)
        return


@rule(
    "claim-state.reserved-for",
    emits=("claim-reserved-for-full",),
    suppresses={"claim-not-allocated": None, "scheduler-error": None, "not-device-related": None},
    blocks_simulation=True,
)
def claim_reserved_for_full(ctx: PodContext) -> Iterator[Finding]:
    """A claim the Pod shares already has 256 consumers and the Pod is not one of them."""
    for pod_claim in _waiting(ctx):
        claim = pod_claim.claim
        assert claim is not None
        if len(claim.reserved_for) < RESERVED_FOR_MAX:
            continue
        if any(r.get("uid") == ctx.pod.uid and ctx.pod.uid for r in claim.reserved_for):
            continue  # already a consumer
        nodes = _allocated_nodes(ctx, claim)
        node_local = len(nodes) == 1
        evidence = {
            "resourceClaim": f"{claim.namespace}/{claim.name}",
            "reservedFor": len(claim.reserved_for),
            "limit": RESERVED_FOR_MAX,
            "allocatedOn": [n.name for n in nodes],
            "scheduler": (
                'running PreBind plugin "DynamicResources": ... status.reservedFor: Too many: '
                f"{len(claim.reserved_for) + 1}: must have at most {RESERVED_FOR_MAX} items"
            ),
        }
        scheduler = next((m.scheduler_error for m in ctx.scheduling_messages if m.scheduler_error), None)
        if scheduler:
            evidence["schedulerError"] = scheduler
        values = ctx.values(
            claim=claim.name,
            count=len(claim.reserved_for),
            limit=RESERVED_FOR_MAX,
            node=nodes[0].name if node_local else "",
        )
        yield Finding("claim-reserved-for-full", values, evidence, case="node-local" if node_local else None)
        return


def _admin_requests(spec: ClaimSpec | None) -> list[str]:
    if spec is None:
        return []
    return [
        f"{request.name}/{alt.name}" if alt.name else request.name
        for request in spec.requests
        for alt in request.alternatives
        if alt.admin_access
    ]


@rule(
    "claim-state.admin-access",
    emits=("admin-access-label-missing",),
    suppresses={
        "claim-not-created": None,
        "claim-not-allocated": None,
        "scheduler-error": None,
        "not-device-related": None,
    },
    blocks_simulation=True,
)
def admin_access_label_missing(ctx: PodContext) -> Iterator[Finding]:
    """An adminAccess request in a namespace whose labels we read and which lacks the admin-access label."""
    namespace = ctx.snapshot.namespaces.get(ctx.pod.namespace)
    if namespace is None or namespace.labels.get(ADMIN_LABEL) == "true":
        return  # not read (or forbidden: nothing else needs it), or labelled
    for pod_claim in ctx.claims:
        requests = _admin_requests(pod_claim.spec)
        if not requests:
            continue
        source = (
            f"ResourceClaim {pod_claim.claim.name}"
            if pod_claim.claim is not None
            else f"ResourceClaimTemplate {pod_claim.ref.resource_claim_template_name}"
        )
        legacy = namespace.labels.get(ADMIN_LABEL_133) == "true"
        evidence = {
            "podClaim": pod_claim.ref.name,
            "from": source,
            "adminAccessRequests": requests,
            "namespaceLabels": {k: v for k, v in sorted(namespace.labels.items()) if "admin-access" in k},
            "apiServer": (
                "Forbidden: admin access to devices requires the "
                f"`{ADMIN_LABEL}: true` label on the containing namespace"
            ),
        }
        for event in ctx.events:
            if classify_event(event).kind == "claim-creation" and "admin access" in event.message:
                evidence["event"] = f"{event.reason}: {event.message}"
                break
        values = ctx.values(
            claim=pod_claim.claim_name or pod_claim.ref.name,
            requests=Names(requests),
            label=ADMIN_LABEL,
            legacy=legacy,
            legacy_label=ADMIN_LABEL_133,
        )
        yield Finding("admin-access-label-missing", values, evidence)
        return


@rule("claim-state.stale", emits=("claim-stale",), suppresses={"claim-not-allocated": None})
def claim_stale(ctx: PodContext) -> Iterator[Finding]:
    """A claim generated from an older version of the Pod's RCT: only a re-created Pod gets the new one.

    The claim is compared with its RCT (the spec, and the RCT's creationTimestamp against the claim's:
    a delete-and-apply makes a new RCT); `why` then diagnoses the current RCT (diagnose/why.py), and
    this finding says that the Pods must be re-created for it to matter (kubernetes/kubernetes#129362)."""
    for pod_claim in ctx.claims:
        drift = pod_claim.drift
        if not drift or pod_claim.claim is None or pod_claim.template is None:
            continue
        claim = pod_claim.claim
        evidence = {
            "podClaim": pod_claim.ref.name,
            "resourceClaim": f"{claim.namespace}/{claim.name}",
            "resourceClaimTemplate": f"{ctx.pod.namespace}/{pod_claim.template.name}",
            "drift": [Said(Phrase(f"claim-drift-{kind}")) for kind in drift],
            "claimCreated": claim.created,
            "templateCreated": pod_claim.template.created,
            "allocated": claim.allocation is not None,
            "owner": f"{ctx.pod.owner_kind}/{ctx.pod.owner_name}" if ctx.pod.owner_kind else "",
        }
        values = ctx.values(claim=claim.name, rct=pod_claim.template.name)
        yield Finding("claim-stale", values, evidence, case=None if "spec" in drift else "recreated")
