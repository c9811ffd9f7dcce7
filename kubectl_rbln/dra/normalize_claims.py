"""ResourceClaims and ResourceClaimTemplates -> model objects: claim specs, allocation results and
device statuses.

v1beta1 requests are flat (`deviceClassName`, `count`, ...); v1beta2/v1 wrap them in `exactly`;
all three may carry `firstAvailable` (dra-facts.md section 4). A claim spec kept as wire text is
normalized once per distinct text.
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern
from typing import Any

import msgspec

from kubectl_rbln.domain import POD_CLAIM_NAME_ANNOTATION
from kubectl_rbln.dra.fields import _d, _l, _s
from kubectl_rbln.dra.impossible import capacity_problems, request_count
from kubectl_rbln.dra.interning import _INTERNED_MAX, _LAST, _plain
from kubectl_rbln.dra.model import (
    AllocatedDeviceStatus,
    Allocation,
    AllocationResult,
    ClaimSpec,
    Condition,
    Constraint,
    ExactRequest,
    Request,
    ResourceClaim,
    ResourceClaimTemplate,
)
from kubectl_rbln.dra.values import _quantity_text
from kubectl_rbln.dra.wire import AllocationWire, ClaimSpecWire, ClaimStatusWire, OwnerWire

# claim spec text -> its ClaimSpec (dra/interning.py)
_CLAIM_SPECS: dict[bytes, ClaimSpec] = {}
_CLAIM_SPEC_WIRE = msgspec.json.Decoder(ClaimSpecWire)


def claim_spec_of(raw: msgspec.Raw) -> ClaimSpec:
    """A claim's `spec` (its JSON text) normalized, shared by every claim with the same text.
    Raises msgspec.ValidationError when the spec is not a `ClaimSpecWire` (a malformed claim, which
    the caller reads the plain way)."""
    last = _LAST.get("claim spec")
    if last is not None and last[0] == raw:  # the claim before had the same text (`_LAST`)
        return last[1]
    text = bytes(raw)
    spec = _CLAIM_SPECS.get(text)
    if spec is None:
        spec = normalize_claim_spec(_CLAIM_SPEC_WIRE.decode(text))
        if len(_CLAIM_SPECS) < _INTERNED_MAX:
            _CLAIM_SPECS[text] = spec
    _LAST["claim spec"] = (raw, spec)
    return spec


def _exact(
    body: dict[str, Any], name: str = "", wrong: list[str] | None = None, at: str = ""
) -> ExactRequest:
    """One `exactly` (or subrequest, or v1beta1 flat request); what the API server would refuse in it
    (an impossible count or capacity quantity, dra/impossible.py) goes to `wrong`, prefixed with `at`."""
    selectors = []
    for selector in _l(body.get("selectors")):
        cel = _d(_d(selector).get("cel"))
        selectors.append(_s(cel.get("expression")))
    mode = _s(body.get("allocationMode"), "ExactCount") or "ExactCount"
    count, bad = request_count(body.get("count")) if mode == "ExactCount" else (0, "")
    capacity = body.get("capacity") if isinstance(body.get("capacity"), dict) else None
    if wrong is not None:
        wrong += [at + problem for problem in ([bad] if bad else []) + capacity_problems(capacity)]
    return ExactRequest(
        device_class=_s(body.get("deviceClassName")),
        selectors=selectors,
        allocation_mode=mode,
        count=count,
        admin_access=body.get("adminAccess") is True,
        tolerations=[t for t in _l(body.get("tolerations")) if isinstance(t, dict)],
        capacity=capacity,
        name=name,
    )


def normalize_request(raw: Any, wrong: list[str] | None = None, at: str = "") -> Request:
    raw = _d(raw)
    subrequests = [
        _exact(_d(sub), _s(_d(sub).get("name")), wrong, f"{at}firstAvailable[{i}].")
        for i, sub in enumerate(_l(raw.get("firstAvailable")))
    ]
    if isinstance(raw.get("exactly"), dict):
        exactly: ExactRequest | None = _exact(raw["exactly"], "", wrong, f"{at}exactly.")
    elif "deviceClassName" in raw and not subrequests:  # v1beta1 flat request
        exactly = _exact(raw, "", wrong, at)
    else:
        exactly = None
    return Request(name=_s(raw.get("name")), exactly=exactly, first_available=subrequests)


def normalize_claim_spec(raw: Any) -> ClaimSpec:
    if isinstance(raw, ClaimSpec):  # interned while decoding (cluster/wire_read.py)
        return raw
    if isinstance(raw, msgspec.Raw):  # a live page's claim (dra/wire.py ClaimWire)
        try:
            return claim_spec_of(raw)
        except (msgspec.ValidationError, RecursionError):
            raw = _plain(raw)
    devices = _d(_d(raw).get("devices"))
    constraints = []
    for entry in _l(devices.get("constraints")):
        entry = _d(entry)
        constraints.append(
            Constraint(
                requests=[str(r) for r in _l(entry.get("requests"))],
                match_attribute=_s(entry.get("matchAttribute")) or None,
                distinct_attribute=_s(entry.get("distinctAttribute")) or None,
            )
        )
    wrong: list[str] = []
    requests = [
        normalize_request(r, wrong, f"devices.requests[{i}].")
        for i, r in enumerate(_l(devices.get("requests")))
    ]
    return ClaimSpec(
        requests=requests,
        constraints=constraints,
        config=[c for c in _l(devices.get("config")) if isinstance(c, dict)],
        impossible=tuple(wrong),
    )


def normalize_claim(obj: dict[str, Any]) -> ResourceClaim:
    meta = _d(obj.get("metadata"))
    status = obj.get("status")
    if status.__class__ is ClaimStatusWire:  # decoded into its wire shape: every field has its type
        allocation = _wire_allocation(status.allocation) if status.allocation is not None else None
        reserved_for = status.reservedFor or []
        devices_raw = status.devices
    else:
        status = _d(status)
        allocation_raw = status.get("allocation")
        allocation = _plain_allocation(allocation_raw) if isinstance(allocation_raw, dict) else None
        reserved_for = [r for r in _l(status.get("reservedFor")) if isinstance(r, dict)]
        devices_raw = status.get("devices")
    owner = None
    refs = meta.get("ownerReferences")
    if isinstance(refs, list):
        for ref in refs:
            if ref.__class__ is OwnerWire:
                if ref.kind == "Pod" and ref.controller is True:
                    owner = _s(ref.name)
                    break
            elif isinstance(ref, dict) and ref.get("kind") == "Pod" and ref.get("controller") is True:
                owner = _s(ref.get("name"))
                break
    finalizers = meta.get("finalizers")
    deletion = meta.get("deletionTimestamp")
    return ResourceClaim(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        uid=_s(meta.get("uid")),
        spec=normalize_claim_spec(obj.get("spec")),
        allocation=allocation,
        reserved_for=reserved_for,
        owner_pod=owner,
        pod_claim_name=_d(meta.get("annotations")).get(POD_CLAIM_NAME_ANNOTATION),
        deleting=bool(deletion),
        deletion_timestamp=_s(deletion),
        finalizers=[f for f in finalizers if isinstance(f, str)] if isinstance(finalizers, list) else [],
        devices=[_device_status(d) for d in map(_d, _l(devices_raw))] if devices_raw else [],
        created=_s(meta.get("creationTimestamp")),
        # no `raw`: nothing reads it, and 10,000 raw Pods/claims are ~200 MB at 5,000 nodes
    )


_NO_CAPACITY: dict[str, str] = {}
_NO_LIST: list[str] = []


# an allocation's nodeSelector text -> its value: shared by the claims allocated on one node (a node's
# claims are not next to each other in a list, so the table holds one entry per node, up to its bound)
_NODE_SELECTORS: dict[bytes, Any] = {}
_NODE_SELECTORS_MAX = 1 << 17


def _node_selector(raw: msgspec.Raw) -> dict[str, Any] | None:
    """An allocation's nodeSelector as `json.loads` reads it, when it is an object; else None."""
    text = bytes(raw)
    found = _NODE_SELECTORS.get(text)
    if found is None:
        found = _plain(raw)
        if len(_NODE_SELECTORS) < _NODE_SELECTORS_MAX:
            _NODE_SELECTORS[text] = found
    return found if isinstance(found, dict) else None


def _wire_allocation(raw: AllocationWire) -> Allocation:
    devices = raw.devices
    results = [
        # the usual four fields: the rest default, its empty containers shared (nothing mutates a
        # result), its names interned (a node's pool and device names recur in every claim held there)
        AllocationResult(
            intern(r.request),
            intern(r.driver),
            intern(r.pool),
            intern(r.device),
            False,
            None,
            _NO_CAPACITY,
            _NO_LIST,
            _NO_LIST,
        )
        if r.adminAccess is None
        and r.shareID is None
        and r.consumedCapacity is None
        and r.bindingConditions is None
        and r.bindingFailureConditions is None
        else _result(r.request, r.driver, r.pool, r.device, msgspec.structs.asdict(r).get)
        for r in ((devices.results or ()) if devices is not None else ())
    ]
    return Allocation(
        results=results,
        node_selector=_node_selector(raw.nodeSelector) if raw.nodeSelector else None,
        allocation_timestamp=_s(raw.allocationTimestamp),
    )


def _plain_allocation(raw: dict[str, Any]) -> Allocation:
    results = []
    for result in _l(_d(raw.get("devices")).get("results")):
        result = _d(result)
        get = result.get
        request, driver, pool, device = get("request"), get("driver"), get("pool"), get("device")
        request = request if isinstance(request, str) else ""
        driver = driver if isinstance(driver, str) else ""
        pool = pool if isinstance(pool, str) else ""
        device = device if isinstance(device, str) else ""
        if len(result) == 4 and _PLAIN_RESULT.issuperset(result):  # the usual four fields: the rest default
            results.append(AllocationResult(request, driver, pool, device))
        else:
            results.append(_result(request, driver, pool, device, get))
    selector = raw.get("nodeSelector")
    return Allocation(
        results=results,
        node_selector=selector if isinstance(selector, dict) else None,
        allocation_timestamp=_s(raw.get("allocationTimestamp")),
    )


def _result(request: str, driver: str, pool: str, device: str, get: Callable[[str], Any]) -> AllocationResult:
    share, consumed = get("shareID"), get("consumedCapacity")
    conditions, failures = get("bindingConditions"), get("bindingFailureConditions")
    return AllocationResult(
        request=request,
        driver=driver,
        pool=pool,
        device=device,
        admin_access=get("adminAccess") is True,
        share_id=share if isinstance(share, str) else None,
        consumed_capacity=_consumed(consumed) if consumed else {},
        binding_conditions=[str(c) for c in _l(conditions)] if conditions else [],
        binding_failure_conditions=[str(c) for c in _l(failures)] if failures else [],
    )


_PLAIN_RESULT = frozenset({"request", "driver", "pool", "device"})


def _consumed(raw: Any) -> dict[str, str]:
    return {str(k): text for k, v in _d(raw).items() if (text := _quantity_text(v)) is not None}


def _condition(raw: dict[str, Any]) -> Condition:
    return Condition(
        type=_s(raw.get("type")),
        status=_s(raw.get("status")),
        reason=_s(raw.get("reason")),
        message=_s(raw.get("message")),
        last_transition_time=_s(raw.get("lastTransitionTime")),
    )


def _device_status(raw: dict[str, Any]) -> AllocatedDeviceStatus:
    """One status.devices entry (AllocatedDeviceStatus, gate DRAResourceClaimDeviceStatus)."""
    share = raw.get("shareID")
    return AllocatedDeviceStatus(
        driver=_s(raw.get("driver")),
        pool=_s(raw.get("pool")),
        device=_s(raw.get("device")),
        share_id=share if isinstance(share, str) else None,
        conditions=[_condition(c) for c in map(_d, _l(raw.get("conditions")))],
        interface_name=_s(_d(raw.get("networkData")).get("interfaceName")),
    )


def normalize_template(obj: dict[str, Any]) -> ResourceClaimTemplate:
    meta = _d(obj.get("metadata"))
    return ResourceClaimTemplate(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        spec=normalize_claim_spec(_d(_d(obj.get("spec")).get("spec"))),
        raw=obj,
        created=_s(meta.get("creationTimestamp")),
    )
