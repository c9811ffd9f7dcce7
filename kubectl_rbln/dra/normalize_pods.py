"""Pods -> model objects: template parts (interned by their wire text), conditions, container states."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import msgspec

from kubectl_rbln.dra.fields import _EMPTY, _d, _i, _l, _s, _str_map
from kubectl_rbln.dra.interning import _INTERNED_MAX, _LAST, _plain
from kubectl_rbln.dra.model import (
    Condition,
    Container,
    ContainerState,
    Pod,
    PodClaimRef,
    ResourceHealth,
)
from kubectl_rbln.dra.wire import POD_CLAIMS, POD_CONTAINERS, ConditionWire

_STATE_KINDS = ("running", "waiting", "terminated")
_LAST_STATE_KINDS = ("terminated", "waiting", "running")


def _container_state(raw: dict[str, Any]) -> ContainerState:
    get = raw.get
    state, kind, detail = get("state"), "", _EMPTY
    if state and isinstance(state, dict):
        for kind in _STATE_KINDS:
            if kind in state:
                detail = _d(state[kind])
                break
        else:
            kind = ""
    last, last_detail = get("lastState"), _EMPTY
    if last and isinstance(last, dict):
        for last_kind in _LAST_STATE_KINDS:
            if last_kind in last:
                last_detail = _d(last[last_kind])
                break
    exit_code = last_detail.get("exitCode")
    health = get("allocatedResourcesStatus")
    reason, message, last_reason = detail.get("reason"), detail.get("message"), last_detail.get("reason")
    return ContainerState(
        _s(get("name")),
        get("ready") is True,
        _i(get("restartCount")),
        kind,
        reason if isinstance(reason, str) else "",
        message if isinstance(message, str) else "",
        last_reason if isinstance(last_reason, str) else "",
        exit_code if isinstance(exit_code, int) else None,
        [
            ResourceHealth(
                name=_s(status.get("name")),
                resource_id=_s(item.get("resourceID")),
                health=_s(item.get("health")) or "Unknown",
                message=_s(item.get("message")),
            )
            for status in map(_d, _l(health))
            for item in map(_d, _l(status.get("resources")))
        ]
        if health
        else [],
    )


def _run_as_user(security_context: Any) -> int | None:
    value = _d(security_context).get("runAsUser")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _PodParts(NamedTuple):
    """What a Pod's template gives it: a controller's Pods carry these byte for byte."""

    labels: dict[str, str]
    owner_kind: str
    owner_name: str
    containers: list[Container]
    claim_refs: list[PodClaimRef]
    node_selector: dict[str, str]
    affinity: dict[str, Any]
    tolerations: list[dict[str, Any]]
    run_as_user: int | None


# (labels, ownerReferences, containers, resourceClaims, nodeSelector, affinity, tolerations,
# securityContext) texts -> their parts, shared by every Pod that carries the same texts. Nothing
# mutates a Pod's labels, containers, claim references, node selector, affinity or tolerations.
_POD_PARTS: dict[tuple[bytes, ...], _PodParts] = {}
# a Pod's conditions without their times -> their normalized map, shared (nothing mutates it)
_POD_CONDITIONS: dict[tuple[ConditionWire, ...], dict[str, Condition]] = {}
_POD_CONTAINERS_WIRE = msgspec.json.Decoder(POD_CONTAINERS)
_POD_CLAIMS_WIRE = msgspec.json.Decoder(POD_CLAIMS)
_RAW = msgspec.Raw
_PARTS = "kubectl-rbln/pod-parts"  # where a wire spec keeps its parts once checked, for the normalizer
_NO_PARTS = (None,) * 8  # a Pod without any of them, wire or plain: nothing is kept on it


class _NotWire(Exception):
    """A Pod read the plain way (its parts are values, not wire text)."""


def _text(value: Any) -> bytes:
    if value.__class__ is _RAW:
        return bytes(value)
    if value is None:
        return b""
    raise _NotWire


def pod_parts_of(meta: dict[str, Any], spec: dict[str, Any]) -> _PodParts:
    """A wire Pod's template parts (dra/wire.py PodMetaWire, PodSpecWire: their JSON texts) normalized
    once per distinct texts. Raises msgspec.ValidationError when its containers or claim references do
    not fit their wire shape (a malformed Pod, which the caller reads the plain way); _NotWire for a
    plain Pod."""
    parts = spec.get(_PARTS)
    if parts.__class__ is _PodParts:  # checked while decoding (cluster/wire_read.py)
        return parts
    get = spec.get
    values = (
        meta.get("labels"),
        meta.get("ownerReferences"),
        get("containers"),
        get("resourceClaims"),
        get("nodeSelector"),
        get("affinity"),
        get("tolerations"),
        get("securityContext"),
    )
    last = _LAST.get("pod")
    if last is not None and last[0] == values:  # wire text only (Raw or None), compared byte for byte
        parts = last[1]
    else:
        parts = _pod_parts_of(values)
        _LAST["pod"] = (values, parts)
    if values != _NO_PARTS:  # wire text (a plain Pod raised _NotWire): PodSpecWire has no _PARTS field
        spec[_PARTS] = parts
    return parts


def _pod_parts_of(values: tuple[Any, ...]) -> _PodParts:
    texts = tuple(map(_text, values))
    parts = _POD_PARTS.get(texts)
    if parts is None:
        labels, owners, containers, claims, selector, affinity, tolerations, context = texts
        decode = msgspec.json.decode
        parts = _pod_parts(
            decode(labels) if labels else None,
            decode(owners) if owners else None,
            _POD_CONTAINERS_WIRE.decode(containers) if containers else None,
            _POD_CLAIMS_WIRE.decode(claims) if claims else None,
            decode(selector) if selector else None,
            decode(affinity) if affinity else None,
            decode(tolerations) if tolerations else None,
            decode(context) if context else None,
        )
        if len(_POD_PARTS) < _INTERNED_MAX:
            _POD_PARTS[texts] = parts
    return parts


def controller_owner(owners: Any) -> dict[str, Any]:
    """The ownerReference with `controller: true` (a Pod's ReplicaSet, a ReplicaSet's Deployment), or {}."""
    return next((o for o in map(_d, _l(owners)) if o.get("controller") is True), {})


def claim_refs(claims: Any) -> list[PodClaimRef]:
    """A Pod spec's `resourceClaims` (a Pod's, or a workload's Pod template's)."""
    return [
        PodClaimRef(
            name=_s(ref.get("name")),
            resource_claim_name=_s(ref.get("resourceClaimName")) or None,
            resource_claim_template_name=_s(ref.get("resourceClaimTemplateName")) or None,
        )
        for ref in map(_d, _l(claims))
    ]


def _pod_parts(
    labels: Any,
    owners: Any,
    containers_raw: Any,
    claims: Any,
    node_selector: Any,
    affinity: Any,
    tolerations: Any,
    security_context: Any,
) -> _PodParts:
    owner = controller_owner(owners)
    containers = []
    for raw in map(_d, _l(containers_raw)):
        resources = _d(raw.get("resources"))
        containers.append(
            Container(
                name=_s(raw.get("name")),
                requests=_str_map(resources.get("requests")),
                limits=_str_map(resources.get("limits")),
                claims=[_str_map(c) for c in _l(resources.get("claims"))],
                run_as_user=_run_as_user(raw.get("securityContext")),
            )
        )
    return _PodParts(
        labels=_str_map(labels),
        owner_kind=_s(owner.get("kind")),
        owner_name=_s(owner.get("name")),
        containers=containers,
        claim_refs=claim_refs(claims),
        node_selector=_str_map(node_selector),
        affinity=_d(affinity),
        tolerations=[t for t in _l(tolerations) if isinstance(t, dict)],
        run_as_user=_run_as_user(security_context),
    )


def _plain_parts(meta: dict[str, Any], spec: dict[str, Any]) -> _PodParts:
    """A Pod's parts from its values (a plain object; a wire part that did not fit, decoded plainly)."""
    meta = {k: _plain(v) if v.__class__ is _RAW else v for k, v in meta.items()}
    spec = {k: _plain(v) if v.__class__ is _RAW else v for k, v in spec.items()}
    return _pod_parts(
        meta.get("labels"),
        meta.get("ownerReferences"),
        spec.get("containers"),
        spec.get("resourceClaims"),
        spec.get("nodeSelector"),
        spec.get("affinity"),
        spec.get("tolerations"),
        spec.get("securityContext"),
    )


def _pod_conditions(raw: Any) -> dict[str, Condition]:
    """status.conditions -> type -> Condition; wire conditions (times left out) once per distinct list."""
    if not raw or raw.__class__ is not list or raw[0].__class__ is not ConditionWire:
        return _conditions_of([c if isinstance(c, dict) else _EMPTY for c in _l(raw)], dict.get)
    key = tuple(raw)
    try:
        found = _POD_CONDITIONS.get(key)
    except TypeError:  # a leaf that is not hashable (a list or object where text belongs)
        return _conditions_of(raw, _wire_field)
    if found is None:
        found = _conditions_of(raw, _wire_field)
        if len(_POD_CONDITIONS) < _INTERNED_MAX:
            _POD_CONDITIONS[key] = found
    return found


def _wire_field(condition: ConditionWire, name: str) -> Any:
    return getattr(condition, "type_" if name == "type" else name)


def _conditions_of(entries: Iterable[Any], get: Callable[[Any, str], Any]) -> dict[str, Condition]:
    conditions: dict[str, Condition] = {}
    for c in entries:
        kind, state, reason, message = get(c, "type"), get(c, "status"), get(c, "reason"), get(c, "message")
        kind = kind if isinstance(kind, str) else ""
        conditions[kind] = Condition(
            kind,
            state if isinstance(state, str) else "",
            reason if isinstance(reason, str) else "",
            message if isinstance(message, str) else "",
        )
    return conditions


def normalize_pod(obj: dict[str, Any]) -> Pod:
    meta = _d(obj.get("metadata"))
    spec = _d(obj.get("spec"))
    status = _d(obj.get("status"))
    try:
        parts = pod_parts_of(meta, spec)
    except _NotWire:
        parts = _plain_parts(meta, spec)
    except (msgspec.ValidationError, RecursionError):  # a live page's Pod whose parts do not fit
        parts = _plain_parts(meta, spec)
    claim_statuses = {
        _s(entry.get("name")): (_s(entry.get("resourceClaimName")) or None)
        for entry in map(_d, _l(status.get("resourceClaimStatuses")))
    }
    return Pod(
        name=_s(meta.get("name")),
        namespace=_s(meta.get("namespace"), "default"),
        uid=_s(meta.get("uid")),
        phase=_s(status.get("phase"), "Unknown"),
        node_name=_s(spec.get("nodeName")) or None,
        labels=parts.labels,
        node_selector=parts.node_selector,
        affinity=parts.affinity,
        tolerations=parts.tolerations,
        resource_claims=parts.claim_refs,
        claim_statuses=claim_statuses,
        conditions=_pod_conditions(status.get("conditions")),
        containers=parts.containers,
        container_states=[
            _container_state(_d(c))
            for c in _l(status.get("initContainerStatuses")) + _l(status.get("containerStatuses"))
        ],
        run_as_user=parts.run_as_user,
        scheduler_name=_s(spec.get("schedulerName"), "default-scheduler"),
        generate_name=_s(meta.get("generateName")),
        host_network=spec.get("hostNetwork") is True,
        owner_kind=parts.owner_kind,
        owner_name=parts.owner_name,
        created=_s(meta.get("creationTimestamp")),
        deletion_timestamp=_s(meta.get("deletionTimestamp")),
        scheduling_gates=tuple(_s(_d(g).get("name")) for g in _l(spec.get("schedulingGates"))),
        reason=_s(status.get("reason")),
        message=_s(status.get("message")),
        # no `raw`: nothing reads it, and 10,000 raw Pods/claims are ~200 MB at 5,000 nodes
    )
