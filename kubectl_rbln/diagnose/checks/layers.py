"""The four claim layers of seed 001's table, each checked from the objects themselves.

1 DeviceClass, 2 ResourceSlice per node and driver, 3 the RCT, 4 the generated
ResourceClaim. Events expire after an hour; these checks do not need them.
"""

from __future__ import annotations

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding, build_finding
from kubectl_rbln.diagnose.placement import exclusions
from kubectl_rbln.dra.model import DeviceClass, Node, ResourceSlice, Snapshot
from kubectl_rbln.dra.references import class_drivers
from kubectl_rbln.selectors import node_selector_matches

REFERENCE_CLASSES = {"npu.rebellions.ai": "npu.rebellions.ai", "dranet": "dra.net"}
CLASS_CREATORS = {
    "npu.rebellions.ai": "RBLN NPU Operator (DRA mode)",
    "dranet": "you (dranet's install creates no DeviceClass)",
}
DEFAULT_RCT = "npu-rdma"


def requested_classes(ctx: PodContext) -> list[tuple[str, str]]:
    """(request name, class name) for every alternative of every claim; the reference pair when unknown."""
    pairs: list[tuple[str, str]] = []
    for claim in ctx.claims:
        spec = claim.spec
        if spec is None:
            continue
        for request in spec.requests:
            for alternative in request.alternatives:
                name = f"{request.name}/{alternative.name}" if alternative.name else request.name
                pairs.append((name, alternative.device_class))
    return pairs


def drivers_of(device_class: DeviceClass | None, class_name: str) -> set[str]:
    """The drivers a class selects (`device.driver == "..."`), else the reference guess by name."""
    if device_class is not None:
        found = class_drivers(device_class.selectors)
        if found:
            return found
    guess = REFERENCE_CLASSES.get(class_name)
    return {guess} if guess else set()


def check_device_classes(ctx: PodContext, lang: str) -> list[Finding]:
    findings = []
    classes = ctx.snapshot.device_classes
    pairs = requested_classes(ctx)
    if not pairs and ctx.pod.resource_claims:
        pairs = [("(reference)", name) for name in REFERENCE_CLASSES]
    missing: dict[str, list[str]] = {}
    for request, class_name in pairs:
        if class_name and class_name not in classes:
            missing.setdefault(class_name, []).append(request)
    for class_name, requests in missing.items():
        values = {
            "class": class_name,
            "namespace": ctx.pod.namespace,
            "pod": ctx.pod.name,
            "driver": REFERENCE_CLASSES.get(class_name, "<driver>"),
            "request": ", ".join(requests),
            "rct": next(
                (
                    c.ref.resource_claim_template_name
                    for c in ctx.claims
                    if c.ref.resource_claim_template_name
                ),
                DEFAULT_RCT,
            ),
        }
        evidence = {
            "deviceClass": class_name,
            "requests": requests,
            "classesPresent": sorted(classes),
            "createdBy": CLASS_CREATORS.get(class_name, "the DRA driver's installation"),
            "event": f"request {requests[0]}: device class {class_name} does not exist",
        }
        findings.append(build_finding("device-class-missing", lang, values, evidence=evidence))
    return findings


def check_templates_and_claims(ctx: PodContext, lang: str) -> list[Finding]:
    findings = []
    pod = ctx.pod
    for claim in ctx.claims:
        ref = claim.ref
        values = {
            "namespace": pod.namespace,
            "pod": pod.name,
            "rct": ref.resource_claim_template_name or DEFAULT_RCT,
            "claim": claim.claim_name or ref.name,
        }
        if ref.resource_claim_template_name and claim.template is None and claim.claim is None:
            present = sorted(t.name for t in ctx.snapshot.templates if t.namespace == pod.namespace)
            evidence = {
                "podClaim": ref.name,
                "resourceClaimTemplate": f"{pod.namespace}/{ref.resource_claim_template_name}",
                "templatesInNamespace": present,
                "event": f"PodResourceClaim {ref.name}: resource claim template "
                f'"{ref.resource_claim_template_name}": '
                f'resourceclaimtemplate.resource.k8s.io "{ref.resource_claim_template_name}" not found',
            }
            if ctx.snapshot.problem_for("ResourceClaimTemplate"):
                evidence["note"] = ctx.snapshot.problem_for("ResourceClaimTemplate").message  # type: ignore[union-attr]
                findings.append(build_finding("source-degraded", lang, values, evidence=evidence))
                continue
            findings.append(
                build_finding(
                    "claim-template-missing", lang, values, evidence=evidence, recipe="numa-aligned"
                )
            )
        elif (
            claim.claim is None
            and claim.spec_override is None
            and (claim.template is not None or ref.resource_claim_name)
        ):
            evidence = {
                "podClaim": ref.name,
                "statusRecorded": claim.status_recorded,
                "expected": claim.claim_name or f"{pod.name}-{ref.name}-<suffix>",
                "event": (
                    f'could not find ResourceClaim "{pod.namespace}/{ref.resource_claim_name}"'
                    if ref.resource_claim_name
                    else f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet'
                ),
            }
            findings.append(build_finding("claim-not-created", lang, values, evidence=evidence))
    return findings


def slice_relevant(slice_: ResourceSlice, node: Node) -> bool:
    """dra-facts.md 2.3: nodeName, allNodes, or a nodeSelector matching the node."""
    if slice_.node_name:
        return slice_.node_name == node.name
    if slice_.all_nodes:
        return True
    if slice_.node_selector:
        return node_selector_matches(slice_.node_selector, node.name, node.labels)
    if slice_.per_device_node_selection:
        return any(d.node_name == node.name for d in slice_.devices)
    return False


def slices_of(snapshot: Snapshot, driver: str) -> list[ResourceSlice]:
    by_driver = snapshot.memo("slices-by-driver", lambda: _group_slices(snapshot.slices))
    return by_driver.get(driver, [])


def _group_slices(slices: list[ResourceSlice]) -> dict[str, list[ResourceSlice]]:
    out: dict[str, list[ResourceSlice]] = {}
    for slice_ in slices:
        out.setdefault(slice_.driver, []).append(slice_)
    return out


def candidate_nodes(ctx: PodContext) -> list[Node]:
    """Nodes the Pod could run on, devices aside."""
    return [node for node in ctx.snapshot.nodes.values() if not exclusions(ctx.pod, node)]


def _nodes_with_devices(slices: list[ResourceSlice], nodes: list[Node], node_names: set[str]) -> set[str]:
    """Nodes that see at least one device: node-local slices by name, the others by selector."""
    found = {s.node_name for s in slices if s.devices and s.node_name in node_names}
    shared = [s for s in slices if s.devices and not s.node_name]
    if shared:
        found |= {n.name for n in nodes for s in shared if slice_relevant(s, n)}
    return found  # type: ignore[return-value]


def check_driver_slices(ctx: PodContext, lang: str) -> list[Finding]:
    """No slice (or only empty ones) of a needed driver on any node the Pod could use."""
    findings = []
    if ctx.pod.node_name or not ctx.unallocated or ctx.snapshot.problem_for("ResourceSlice"):
        return []  # a scheduled Pod, or one whose claims are allocated, needs no slice any more
    nodes = candidate_nodes(ctx)
    if not nodes:
        return []
    drivers: dict[str, str] = {}
    for _, class_name in requested_classes(ctx):
        for driver in drivers_of(ctx.snapshot.device_classes.get(class_name), class_name):
            drivers.setdefault(driver, class_name)
    node_names = {n.name for n in nodes}
    for driver, class_name in sorted(drivers.items()):
        slices = slices_of(ctx.snapshot, driver)
        with_devices = _nodes_with_devices(slices, nodes, node_names)
        if with_devices:
            continue
        empty = sorted({s.node_name for s in slices if not s.devices and s.node_name in node_names})
        elsewhere = sorted({s.node_name for s in slices if s.devices and s.node_name} - node_names)
        evidence = {
            "driver": driver,
            "deviceClass": class_name,
            "nodesConsidered": sorted(n.name for n in nodes),
            "slicesWithoutDevices": empty,
            "slicesOnOtherNodes": elsewhere,
        }
        shown = empty or sorted(n.name for n in nodes)
        values = {
            "driver": driver,
            "node": shown[0],
            "nodes": ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else ""),
        }
        findings.append(build_finding("driver-slices-missing", lang, values, evidence=evidence))
    return findings
