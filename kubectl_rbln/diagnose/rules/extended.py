"""Extended resources a Pod requests in its limits (`rebellions.ai/npu: 4`): who offers them.

A device plugin offers one when a node advertises it in `status.allocatable`; a DeviceClass offers
it (KEP-5004, gate DRAExtendedResource) when the class names it in `spec.extendedResourceName`, or
under the implicit name `deviceclass.resource.kubernetes.io/<class>`. For the DRA-backed ones the
scheduler builds one claim itself; context.extended_resource_claim builds the same claim, so the
simulation (and every allocation rule) explains it like any claim, and this rule says which
resource became which request. When nothing offers a resource, the scheduler (the NodeResourcesFit
plugin) rejects every node with `Insufficient <resource>`, and the DynamicResources plugin with
`cannot fit resource` (kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/
extendeddynamicresources.go, filterExtendedResources, 1.36 cycle). A class that was applied with
the field but stored without it (the gate off in the API server) is feature-gate-disabled's case
`extended-resource` (rules/scheduler.py), not this one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import (
    EXTENDED_CLAIM_NAME,
    IMPLICIT_EXTENDED_PREFIX,
    PodContext,
    advertised_extended,
    extended_resource_classes,
)
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.dra.model import DeviceClass

SLUG = "extended-resource-request"


def _dropped_by_gate(ctx: PodContext) -> set[str]:
    """Resources that feature-gate-disabled already explains (extendedResourceName dropped)."""
    return {
        str(f.values.get("resource"))
        for f in ctx.found
        if f.slug == "feature-gate-disabled" and f.case == "extended-resource"
    }


# What it hides, only for a resource nothing offers: the `Insufficient <resource>` shortage of the
# same resource, and not-device-related (it reads `Insufficient <name>` of a name outside
# rebellions.ai/ and rdma/ as a non-device reason). The key "claim" is a value only the dra-backed
# case has (the claim the scheduler builds), so a dra-backed finding hides neither.
@rule(
    "extended.request",
    emits=(SLUG,),
    suppresses={"insufficient-devices": "request", "not-device-related": "claim"},
)
def extended_resource_request(ctx: PodContext) -> Iterator[Finding]:
    """Per extended resource the Pod requests: DRA-backed (which class, which request), or offered
    by nothing (which DeviceClass or device plugin would offer it)."""
    if ctx.pod.node_name or ctx.pod.phase != "Pending":
        return
    requested = ctx.extended_requests
    if not requested:
        return
    mapping = extended_resource_classes(ctx.snapshot)
    advertised = advertised_extended(ctx.snapshot)
    classes = Names(sorted(ctx.snapshot.device_classes))
    mapped = Names(sorted(name for name in mapping if not name.startswith(IMPLICIT_EXTENDED_PREFIX)))
    dropped = _dropped_by_gate(ctx)
    built = ctx.extended_claim
    for resource, count in sorted(requested.items()):
        values = ctx.values(
            resource=resource,
            request=resource,
            count=count,
            classes=classes,
            mapped=mapped,
            **{"class": ""},
            requests=[],
        )
        if built is not None and resource in built.extended:
            yield _dra_backed(ctx, resource, values, built.extended[resource])
            continue
        if resource in mapping or resource in advertised or resource in dropped:
            continue  # a device plugin serves it (device-plugin-mode) or the gate explains it
        evidence = {
            "podRequests": {resource: count},
            "nodesAdvertising": [],
            "deviceClassesMapping": {name: mapping[name].name for name in mapped},
            "schedulerSays": [f"Insufficient {resource}", "cannot fit resource"],
        }
        values.update(_fix_values(resource, ctx.snapshot.device_classes))
        if resource.startswith(IMPLICIT_EXTENDED_PREFIX):
            values["class"] = resource.removeprefix(IMPLICIT_EXTENDED_PREFIX)
            evidence["deviceClass"] = Said(Phrase("evidence-name-not-found", {"name": values["class"]}))
            yield Finding("extended-resource-request", values, evidence, case="class-missing")
        else:
            yield Finding("extended-resource-request", values, evidence)


def _fix_values(resource: str, device_classes: Mapping[str, DeviceClass]) -> dict[str, object]:
    """What the fix names: `candidate`, the one DeviceClass of the resource's domain (`rebellions.ai/npu`
    -> npu.rebellions.ai) that maps no other name and so could map it; `closest`, the existing class an
    implicit name most likely meant (a typo); `implicit`, the implicit names of the existing classes."""
    classes = sorted(device_classes)
    implicit = resource.startswith(IMPLICIT_EXTENDED_PREFIX)
    domain = resource.split("/", 1)[0]
    same = [c for c in classes if c == domain or c.endswith("." + domain)]
    same = [c for c in same if not device_classes[c].extended_resource_name]
    wanted = resource.removeprefix(IMPLICIT_EXTENDED_PREFIX)
    close = difflib.get_close_matches(wanted, classes, n=1) if implicit else []
    return {
        "candidate": same[0] if len(same) == 1 and not implicit else "",
        "closest": close[0] if close else "",
        "implicit": Names([IMPLICIT_EXTENDED_PREFIX + c for c in classes]),
    }


def _dra_backed(ctx: PodContext, resource: str, values: dict, class_name: str) -> Finding:
    built = ctx.extended_claim
    spec = built.spec if built is not None else None
    requests = [
        f"{r.name}: {r.exactly.count}"
        for r in (spec.requests if spec else [])
        if r.exactly is not None and r.exactly.device_class == class_name
    ]
    device_class = ctx.snapshot.device_classes.get(class_name)
    how = (
        "spec.extendedResourceName"
        if device_class is not None and device_class.extended_resource_name == resource
        else "the implicit name"
    )
    evidence = {
        "podRequests": {resource: values["count"]},
        "deviceClass": class_name,
        "mappedBy": how,
        "claim": built.claim_name if built is not None else EXTENDED_CLAIM_NAME,
        "requests": requests,
        "nodesAdvertising": [],
    }
    values = {**values, "class": class_name, "requests": requests, "claim": evidence["claim"]}
    return Finding("extended-resource-request", values, evidence, case="dra-backed")
