"""Fields the API server dropped from the stored RCT because a feature gate is off.

The API server silently clears gated fields on create (dra-facts.md section 5):
`distinctAttribute` without DRAConsumableCapacity, `firstAvailable` without
DRAPrioritizedList, `adminAccess` without DRAAdminAccess, `tolerations` without
DRADeviceTaints. What the operator applied survives in the
`kubectl.kubernetes.io/last-applied-configuration` annotation; comparing the two
shows the gate is off even when every Pod is Running (allocated without the
constraint they asked for).
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_rbln.dra.model import ClaimSpec, ResourceClaimTemplate
from kubectl_rbln.dra.normalize_claims import normalize_claim_spec

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


# id(template) -> (template, its applied spec): `check` asks once per device Pod, thousands of times
_APPLIED: dict[int, tuple[ResourceClaimTemplate, ClaimSpec | None]] = {}


def applied_spec(template: ResourceClaimTemplate) -> ClaimSpec | None:
    """The spec of the template's last-applied-configuration (normalized once per template)."""
    hit = _APPLIED.get(id(template))
    if hit is not None and hit[0] is template:
        return hit[1]
    spec = _applied_spec(template)
    if len(_APPLIED) >= 256:
        _APPLIED.clear()
    _APPLIED[id(template)] = (template, spec)
    return spec


def _applied_spec(template: ResourceClaimTemplate) -> ClaimSpec | None:
    annotations = (template.raw.get("metadata") or {}).get("annotations") or {}
    text = annotations.get(LAST_APPLIED)
    if not isinstance(text, str):
        return None
    try:
        applied: Any = json.loads(text)
    except ValueError:
        return None
    if not isinstance(applied, dict):
        return None
    return normalize_claim_spec(((applied.get("spec") or {}).get("spec")) or {})


# id(template) -> (template, dropped_fields of it): the gate rule asks once per device Pod
_DROPPED: dict[int, tuple[ResourceClaimTemplate, dict[str, str]]] = {}


def template_dropped_fields(template: ResourceClaimTemplate, applied: ClaimSpec) -> dict[str, str]:
    """`dropped_fields(applied, template.spec)`, compared once per template (`applied`: its applied_spec)."""
    hit = _DROPPED.get(id(template))
    if hit is not None and hit[0] is template:
        return hit[1]
    dropped = dropped_fields(applied, template.spec)
    if len(_DROPPED) >= 256:
        _DROPPED.clear()
    _DROPPED[id(template)] = (template, dropped)
    return dropped


def dropped_fields(applied: ClaimSpec, stored: ClaimSpec) -> dict[str, str]:
    """gate -> what disappeared between the applied and the stored spec."""
    dropped: dict[str, str] = {}
    stored_distinct = {c.distinct_attribute for c in stored.constraints if c.distinct_attribute}
    for constraint in applied.constraints:
        if constraint.distinct_attribute and constraint.distinct_attribute not in stored_distinct:
            dropped["DRAConsumableCapacity"] = f"distinctAttribute: {constraint.distinct_attribute}"
    stored_requests = {r.name: r for r in stored.requests}
    for request in applied.requests:
        kept = stored_requests.get(request.name)
        if request.first_available and (kept is None or not kept.first_available):
            dropped["DRAPrioritizedList"] = f"firstAvailable of request {request.name}"
        for before in request.alternatives:
            after = kept.alternatives[0] if kept and kept.alternatives else None
            if before.admin_access and (after is None or not after.admin_access):
                dropped["DRAAdminAccess"] = f"adminAccess of request {request.name}"
            if before.tolerations and (after is None or not after.tolerations):
                dropped["DRADeviceTaints"] = f"tolerations of request {request.name}"
    return dropped


def applied_document(raw: dict[str, Any]) -> dict[str, Any]:
    annotations = (raw.get("metadata") or {}).get("annotations") or {}
    try:
        applied = json.loads(annotations.get(LAST_APPLIED) or "{}")
    except ValueError:
        return {}
    return applied if isinstance(applied, dict) else {}
