"""Raw API objects -> Snapshot, whatever resource.k8s.io version they come in.

The differences this absorbs (dra-facts.md section 4):
- v1beta1 requests are flat (`deviceClassName`, `count`, ...); v1beta2/v1 wrap them in
  `exactly`; all three may carry `firstAvailable`.
- v1beta1 devices nest attributes under `basic`; v1beta2/v1 are flat. Some doc samples
  say `apiVersion: v1` and still nest under `basic`: accept both everywhere.
- unqualified attribute and capacity names belong to the driver's domain.
Objects that are missing fields they should have never raise: they normalize to
empty values, and the problem is recorded where the checks can see it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, NamedTuple

import msgspec

from kubectl_rbln.domain import POD_CLAIM_NAME_ANNOTATION
from kubectl_rbln.dra.model import (
    AllocatedDeviceStatus,
    Allocation,
    AllocationResult,
    AttrValue,
    ClaimSpec,
    Condition,
    Constraint,
    Container,
    ContainerState,
    CounterSet,
    Device,
    DeviceClass,
    DeviceTaintRule,
    Event,
    ExactRequest,
    ExecCapture,
    Namespace,
    Node,
    Pod,
    PodClaimRef,
    PodLog,
    Request,
    RequestPolicy,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceHealth,
    ResourceSlice,
    Snapshot,
    SourceProblem,
    Version,
)
from kubectl_rbln.dra.quantity import parse_quantity
from kubectl_rbln.dra.wire import (
    POD_CLAIMS,
    POD_CONTAINERS,
    AllocationWire,
    ClaimSpecWire,
    ClaimStatusWire,
    ConditionWire,
    DeviceWire,
    NodeConditionWire,
)

RESOURCE_GROUP = "resource.k8s.io"
PLUGIN_API_VERSION = "kubectl-rbln/v1"
VERSION_ORDER = ("v1", "v1beta2", "v1beta1", "v1alpha3")


_EMPTY: dict[str, Any] = {}


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _s(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _i(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in _d(value).items() if v is not None}


# (name, driver) -> qualified name. 120,000 devices repeat the same few dozen names: one shared
# string each instead of a new one per device (about 80 MB less at 5,000 nodes). Bounded against
# hostile input, which only makes it miss.
_QUALIFIED: dict[tuple[str, str], str] = {}
_QUALIFIED_MAX = 4096


def qualify(name: str, driver: str) -> str:
    """`numaNode` of driver `dra.net` is `dra.net/numaNode`; qualified names stay as they are."""
    key = (name, driver)
    found = _QUALIFIED.get(key)
    if found is None:
        found = name if "/" in name else f"{driver}/{name}"
        if len(_QUALIFIED) < _QUALIFIED_MAX:
            _QUALIFIED[key] = found
    return found


_VALUE_KEYS = ("int", "bool", "string", "version")


def typed_value(entry: Any) -> AttrValue | None:
    """`{int: 1}` -> 1, `{version: "1.0.0"}` -> Version; no value or several -> None."""
    if not isinstance(entry, dict):
        return None
    if len(entry) == 1:  # the usual shape, without building a list per attribute (10x fewer calls)
        ((key, raw),) = entry.items()
        if raw is None or key not in _VALUE_KEYS:
            return None
    else:
        present = [key for key in _VALUE_KEYS if entry.get(key) is not None]
        if len(present) != 1:
            return None
        key = present[0]
        raw = entry[key]
    if key == "int":
        return raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if key == "bool":
        return raw if isinstance(raw, bool) else None
    if key == "string":
        return raw if isinstance(raw, str) else None
    return Version(raw) if isinstance(raw, str) else None


def _quantity_text(entry: Any) -> str | None:
    if isinstance(entry, dict):
        entry = entry.get("value")
    if isinstance(entry, (int, float)) and not isinstance(entry, bool):
        return str(entry)
    return entry if isinstance(entry, str) else None


def _fraction(raw: Any) -> Fraction | None:
    text = _quantity_text({"value": raw})
    if text is None:
        return None
    try:
        return parse_quantity(text)
    except ValueError:
        return None


def request_policy(entry: Any) -> RequestPolicy | None:
    """A capacity's `requestPolicy` (DRAConsumableCapacity; the same field in resource v1, v1beta2 and
    v1beta1 DeviceCapacity, kubernetes/api resource/*/types.go at v0.36.2); None when absent."""
    raw = entry.get("requestPolicy") if isinstance(entry, dict) else None
    if not isinstance(raw, dict):
        return None
    values = tuple(v for v in (_fraction(x) for x in _l(raw.get("validValues"))) if v is not None)
    rng = raw.get("validRange")
    rng = rng if isinstance(rng, dict) else None
    return RequestPolicy(
        default=_fraction(raw.get("default")),
        valid_values=values,
        has_range=rng is not None,
        min=_fraction(rng.get("min")) if rng else None,
        max=_fraction(rng.get("max")) if rng else None,
        step=_fraction(rng.get("step")) if rng else None,
    )


def counter_sets(raw: Any, name_key: str) -> list[CounterSet]:
    """`sharedCounters` (name_key "name") or `consumesCounters` (name_key "counterSet"): same shape in
    v1, v1beta2 and v1beta1 (kubernetes/api resource/*/types.go, v0.36.2). A quantity that does not
    parse is dropped (the API server rejects it)."""
    out: list[CounterSet] = []
    for entry in _l(raw):
        if not isinstance(entry, dict):
            continue
        counters: dict[str, Fraction] = {}
        for counter, value in _d(entry.get("counters")).items():
            text = _quantity_text(value)
            try:
                counters[str(counter)] = parse_quantity(text) if text is not None else Fraction(0)
            except ValueError:
                continue
        out.append(CounterSet(_s(entry.get(name_key)), counters))
    return out


def normalize_device(raw: Any, driver: str, pool: str, slice_name: str, node: str | None) -> Device:
    if isinstance(raw, DeviceWire):
        if isinstance(raw.basic, dict) and raw.basic:  # v1beta1: only `name` and `basic` are read
            raw = {"name": raw.name, "basic": raw.basic}
        else:
            return _device_from_wire(raw, driver, pool, slice_name, node)
    raw = _d(raw)
    body = _d(raw.get("basic")) or raw  # v1beta1 nests under `basic`
    attributes: dict[str, AttrValue] = {}
    bad: list[str] = []
    for name, entry in _d(body.get("attributes")).items():
        value = typed_value(entry)
        if value is None:
            bad.append(qualify(str(name), driver))
        else:
            attributes[qualify(str(name), driver)] = value
    capacity = {
        qualify(str(name), driver): text
        for name, entry in _d(body.get("capacity")).items()
        if (text := _quantity_text(entry)) is not None
    }
    policies = {
        qualify(str(name), driver): policy
        for name, entry in _d(body.get("capacity")).items()
        if (policy := request_policy(entry)) is not None
    }
    device_node = body.get("nodeName")
    return Device(
        name=_s(raw.get("name")),
        driver=driver,
        pool=pool,
        slice_name=slice_name,
        node_name=device_node if isinstance(device_node, str) and device_node else node,
        attributes=attributes,
        capacity=capacity,
        taints=[t for t in _l(body.get("taints")) if isinstance(t, dict)],
        binding_conditions=[str(c) for c in _l(body.get("bindingConditions"))],
        binding_failure_conditions=[str(c) for c in _l(body.get("bindingFailureConditions"))],
        binds_to_node=body.get("bindsToNode") is True,
        allow_multiple_allocations=body.get("allowMultipleAllocations") is True,
        request_policies=policies,
        bad_attributes=bad,
        consumes_counters=counter_sets(body.get("consumesCounters"), "counterSet"),
    )


# driver -> attribute name as published -> (its qualified name, its texts). A name's texts repeat across
# devices (versions, product names, PCI roots): one string each, not one per device. Kept per name, a
# table stays small (and in the CPU's cache) however many devices there are, and a name whose texts
# are all distinct (serials, UUIDs, MACs) stops collecting them at `_TEXTS_PER_NAME`. Bounded against
# hostile input, which only misses; `SnapshotBuilder.finish` empties it (the Snapshot keeps what it
# uses).
_SHARED_VALUES: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}
_SHARED_MAX = 1 << 18  # texts held in all
_TEXTS_PER_NAME = 256
_DRIVERS_MAX = 256
_held = 0


def _attribute_name(
    names: dict[str, tuple[str, dict[str, str]]], name: str, driver: str
) -> tuple[str, dict[str, str]]:
    """A published name's entry of `_SHARED_VALUES`, made at its first sight."""
    entry: tuple[str, dict[str, str]] = (qualify(name, driver), {})
    if len(names) < _QUALIFIED_MAX:
        names[name] = entry
    return entry


def _driver_names(driver: str) -> dict[str, tuple[str, dict[str, str]]]:
    """A driver's entry of `_SHARED_VALUES`, made at its first sight (after `finish` emptied it, the
    count of texts held starts again)."""
    global _held  # noqa: PLW0603 - a count kept beside the tables, to bound them all at once
    names: dict[str, tuple[str, dict[str, str]]] = {}
    if not _SHARED_VALUES:
        _held = 0
    if len(_SHARED_VALUES) < _DRIVERS_MAX:
        _SHARED_VALUES[driver] = names
    return names


def _share(texts: dict[str, str], text: str) -> str:
    """`text` from now on shared by the devices that publish it under the same name (while room)."""
    global _held  # noqa: PLW0603 - a count kept beside the tables, to bound them all at once
    if len(texts) < _TEXTS_PER_NAME and _held < _SHARED_MAX and text not in texts:  # "" is falsy: held
        texts[text] = text
        _held += 1
    return text


def _device_from_wire(raw: DeviceWire, driver: str, pool: str, slice_name: str, node: str | None) -> Device:
    """`normalize_device` of a decoded `DeviceWire`: the same Device, without a dict per attribute."""
    attributes: dict[str, AttrValue] = {}
    bad: list[str] = []
    if raw.attributes:
        names = _SHARED_VALUES.get(driver)
        if names is None:
            names = _driver_names(driver)
        for name, entry in raw.attributes.items():
            try:
                qualified, texts = names[name]
            except KeyError:
                qualified, texts = _attribute_name(names, name, driver)
            string = entry.string
            if string is not None:
                if entry.int_ is None and entry.bool_ is None and entry.version is None:
                    attributes[qualified] = texts.get(string) or _share(texts, string)
                    continue
            else:
                number, flag, version = entry.int_, entry.bool_, entry.version
                if number is not None:
                    if flag is None and version is None:
                        attributes[qualified] = number
                        continue
                elif flag is not None:
                    if version is None:
                        attributes[qualified] = flag
                        continue
                elif version is not None:
                    attributes[qualified] = Version(version)
                    continue
            bad.append(qualified)
    capacity, policies = _capacity_of(raw.capacity, driver) if raw.capacity else _NO_CAPACITY
    device_node = raw.nodeName
    # positional, in the order of Device's fields (a third cheaper than by keyword, 65,000 times); the
    # wire-vs-plain tests (tests/unit/cluster/test_wire_read.py) compare every field of every device
    return Device(
        _s(raw.name),
        driver,
        pool,
        slice_name,
        device_node if isinstance(device_node, str) and device_node else node,
        attributes,
        capacity,
        [t for t in raw.taints if isinstance(t, dict)] if isinstance(raw.taints, list) else [],
        [],
        [str(c) for c in _l(raw.bindingConditions)] if raw.bindingConditions else [],
        [str(c) for c in _l(raw.bindingFailureConditions)] if raw.bindingFailureConditions else [],
        raw.bindsToNode is True,
        raw.allowMultipleAllocations is True,
        policies,
        bad,
        counter_sets(raw.consumesCounters, "counterSet") if raw.consumesCounters else [],
    )


# Content interning (issue 16): sub-trees that repeat byte for byte across objects are normalized
# once per distinct text and the result is shared. A device model's capacities repeat on every node,
# and claims generated from one template carry one spec. Nothing mutates a Device's capacity or
# request policies, or a ClaimSpec, after normalization. Bounded against hostile input (which only
# misses); emptied by `SnapshotBuilder.finish`, as `_SHARED_VALUES`.
_INTERNED_MAX = 1 << 12
_CAPACITIES: dict[tuple[str, bytes], tuple[dict[str, str], dict[str, RequestPolicy]]] = {}
_NO_CAPACITY: tuple[dict[str, str], dict[str, RequestPolicy]] = ({}, {})
_CLAIM_SPECS: dict[bytes, ClaimSpec] = {}
_CLAIM_SPEC_WIRE = msgspec.json.Decoder(ClaimSpecWire)
# the last wire texts seen and their value: a list is sorted by namespace and name, so a controller's
# Pods (and their claims) come one after another, and comparing bytes is cheaper than hashing them
_LAST: dict[str, tuple[Any, Any]] = {}


def _capacity_of(raw: msgspec.Raw, driver: str) -> tuple[dict[str, str], dict[str, RequestPolicy]]:
    """A device's `capacity` (its JSON text) -> (quantities, request policies), qualified names; shared
    by every device of the driver that publishes the same text."""
    key = (driver, bytes(raw))
    found = _CAPACITIES.get(key)
    if found is None:
        body = _d(msgspec.json.decode(raw))
        found = (
            {
                qualify(str(name), driver): text
                for name, entry in body.items()
                if (text := _quantity_text(entry)) is not None
            },
            {
                qualify(str(name), driver): policy
                for name, entry in body.items()
                if (policy := request_policy(entry)) is not None
            },
        )
        if len(_CAPACITIES) < _INTERNED_MAX:
            _CAPACITIES[key] = found
    return found


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


def normalize_slice(obj: dict[str, Any]) -> ResourceSlice:
    spec = _d(obj.get("spec"))
    meta = _d(obj.get("metadata"))
    driver = _s(spec.get("driver"))
    pool = _d(spec.get("pool"))
    pool_name = _s(pool.get("name"))
    node_name = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) else None
    name = _s(meta.get("name"))
    return ResourceSlice(
        name=name,
        driver=driver,
        pool=pool_name,
        generation=_i(pool.get("generation")),
        resource_slice_count=_i(pool.get("resourceSliceCount"), 1),
        node_name=node_name or None,
        all_nodes=spec.get("allNodes") is True,
        node_selector=spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), dict) else None,
        per_device_node_selection=spec.get("perDeviceNodeSelection") is True,
        devices=[
            _device_from_wire(d, driver, pool_name, name, node_name)
            if type(d) is DeviceWire and d.basic is None  # else `normalize_device` tells v1beta1's
            else normalize_device(d, driver, pool_name, name, node_name)
            for d in _l(spec.get("devices"))
        ],
        shared_counters=[c for c in _l(spec.get("sharedCounters")) if isinstance(c, dict)],
        api_version=_s(obj.get("apiVersion")),
        counter_sets=counter_sets(spec.get("sharedCounters"), "name"),
    )


def _exact(body: dict[str, Any], name: str = "") -> ExactRequest:
    selectors = []
    for selector in _l(body.get("selectors")):
        cel = _d(_d(selector).get("cel"))
        selectors.append(_s(cel.get("expression")))
    mode = _s(body.get("allocationMode"), "ExactCount") or "ExactCount"
    count = _i(body.get("count"), 1) if mode == "ExactCount" else 0
    return ExactRequest(
        device_class=_s(body.get("deviceClassName")),
        selectors=selectors,
        allocation_mode=mode,
        count=count,
        admin_access=body.get("adminAccess") is True,
        tolerations=[t for t in _l(body.get("tolerations")) if isinstance(t, dict)],
        capacity=body.get("capacity") if isinstance(body.get("capacity"), dict) else None,
        name=name,
    )


def normalize_request(raw: Any) -> Request:
    raw = _d(raw)
    subrequests = [_exact(_d(sub), _s(_d(sub).get("name"))) for sub in _l(raw.get("firstAvailable"))]
    if isinstance(raw.get("exactly"), dict):
        exactly: ExactRequest | None = _exact(raw["exactly"])
    elif "deviceClassName" in raw and not subrequests:  # v1beta1 flat request
        exactly = _exact(raw)
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
    return ClaimSpec(
        requests=[normalize_request(r) for r in _l(devices.get("requests"))],
        constraints=constraints,
        config=[c for c in _l(devices.get("config")) if isinstance(c, dict)],
    )


def _plain(raw: msgspec.Raw) -> Any:
    """A sub-tree that does not fit its wire shape, decoded as `json.loads` would (None: too deep)."""
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


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
            if isinstance(ref, dict) and ref.get("kind") == "Pod" and ref.get("controller") is True:
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


def _wire_allocation(raw: AllocationWire) -> Allocation:
    devices = raw.devices
    results = [
        AllocationResult(r.request, r.driver, r.pool, r.device)  # the usual four fields: the rest default
        if r.adminAccess is None
        and r.shareID is None
        and r.consumedCapacity is None
        and r.bindingConditions is None
        and r.bindingFailureConditions is None
        else _result(r.request, r.driver, r.pool, r.device, msgspec.structs.asdict(r).get)
        for r in ((devices.results or ()) if devices is not None else ())
    ]
    selector = raw.nodeSelector
    return Allocation(
        results=results,
        node_selector=selector if isinstance(selector, dict) else None,
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


def normalize_taint_rule(obj: dict[str, Any]) -> DeviceTaintRule:
    """A DeviceTaintRule (resource.k8s.io v1alpha3 or v1beta2: same spec shape)."""
    spec = _d(obj.get("spec"))
    selector = _d(spec.get("deviceSelector"))

    def field_(name: str) -> str | None:
        value = selector.get(name)
        return value if isinstance(value, str) else None

    taint = _d(spec.get("taint"))
    return DeviceTaintRule(
        name=_s(_d(obj.get("metadata")).get("name")),
        driver=field_("driver"),
        pool=field_("pool"),
        device=field_("device"),
        taint={k: v for k, v in taint.items() if k in ("key", "value", "effect", "timeAdded")},
        api_version=_s(obj.get("apiVersion")),
    )


def apply_taint_rules(slices: list[ResourceSlice], rules: list[DeviceTaintRule]) -> None:
    """Every rule's taint on the devices it selects, kept apart from the slice's own taints
    (tracker.go `applyPatches` appends them to the device's taints, v0.36.2)."""
    for slice_ in slices:
        for device in slice_.devices:
            device.rule_taints = [
                (rule.name, rule.taint)
                for rule in rules
                if rule.matches(slice_.driver, slice_.pool, device.name)
            ]


def normalize_class(obj: dict[str, Any]) -> DeviceClass:
    spec = _d(obj.get("spec"))
    return DeviceClass(
        name=_s(_d(obj.get("metadata")).get("name")),
        selectors=[_s(_d(_d(s).get("cel")).get("expression")) for s in _l(spec.get("selectors"))],
        extended_resource_name=_s(spec.get("extendedResourceName")) or None,
        config=[c for c in _l(spec.get("config")) if isinstance(c, dict)],
        raw=obj,
    )


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
    owner = next((o for o in map(_d, _l(owners)) if o.get("controller") is True), {})
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
    claim_refs = [
        PodClaimRef(
            name=_s(ref.get("name")),
            resource_claim_name=_s(ref.get("resourceClaimName")) or None,
            resource_claim_template_name=_s(ref.get("resourceClaimTemplateName")) or None,
        )
        for ref in map(_d, _l(claims))
    ]
    return _PodParts(
        labels=_str_map(labels),
        owner_kind=_s(owner.get("kind")),
        owner_name=_s(owner.get("name")),
        containers=containers,
        claim_refs=claim_refs,
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
        # no `raw`: nothing reads it, and 10,000 raw Pods/claims are ~200 MB at 5,000 nodes
    )


def normalize_node(obj: dict[str, Any]) -> Node:
    meta = _d(obj.get("metadata"))
    spec = _d(obj.get("spec"))
    status = _d(obj.get("status"))
    conditions = status.get("conditions")
    ready = True
    if conditions and conditions.__class__ is list and conditions[0].__class__ is NodeConditionWire:
        for wire in conditions:
            if wire.type_ == "Ready":
                ready = wire.status == "True"
                break
    else:
        for c in map(_d, _l(conditions)):
            if c.get("type") == "Ready":
                ready = c.get("status") == "True"
                break
    taints = spec.get("taints")
    info = _d(status.get("nodeInfo"))
    return Node(
        name=_s(meta.get("name")),
        labels=_str_map(meta.get("labels")),
        taints=[t for t in taints if isinstance(t, dict)] if isinstance(taints, list) else [],
        allocatable=_str_map(status.get("allocatable")),
        unschedulable=spec.get("unschedulable") is True,
        ready=ready,
        kubelet_version=_s(info.get("kubeletVersion")),
        container_runtime=_s(info.get("containerRuntimeVersion")),
    )


def normalize_event(obj: dict[str, Any]) -> Event:
    """core/v1 Events and events.k8s.io/v1 Events (`regarding`, `note`) alike."""
    meta = _d(obj.get("metadata"))
    involved = _d(obj.get("involvedObject")) or _d(obj.get("regarding"))
    series = _d(obj.get("series"))
    count = _i(obj.get("count")) or _i(series.get("count")) or 1
    source = (
        _s(_d(obj.get("source")).get("component"))
        or _s(obj.get("reportingController"))
        or _s(obj.get("reportingComponent"))
    )
    return Event(
        namespace=_s(meta.get("namespace")),
        involved_kind=_s(involved.get("kind")),
        involved_name=_s(involved.get("name")),
        involved_namespace=_s(involved.get("namespace")),
        reason=_s(obj.get("reason")),
        message=_s(obj.get("message")) or _s(obj.get("note")),
        type=_s(obj.get("type"), "Normal"),
        count=count,
        last_timestamp=_s(obj.get("lastTimestamp"))
        or _s(series.get("lastObservedTime"))
        or _s(obj.get("eventTime"))
        or _s(meta.get("creationTimestamp")),
        source=source,
    )


def normalize_pod_log(obj: dict[str, Any]) -> PodLog:
    meta = _d(obj.get("metadata"))
    return PodLog(
        namespace=_s(meta.get("namespace"), "default"),
        pod=_s(meta.get("name")),
        container=_s(obj.get("container")),
        previous=obj.get("previous") is True,
        log=_s(obj.get("log")),
    )


def normalize_exec_capture(obj: dict[str, Any]) -> ExecCapture:
    meta = _d(obj.get("metadata"))
    error = _d(obj.get("error"))  # dump records a probe that got no exit code with its cause
    return ExecCapture(
        namespace=_s(meta.get("namespace"), "default"),
        pod=_s(meta.get("name")),
        container=_s(obj.get("container")),
        command=[str(part) for part in _l(obj.get("command"))],
        stdout=_s(obj.get("stdout")),
        stderr=_s(obj.get("stderr")),
        exit_code=_i(obj.get("exitCode")),
        error_reason=_s(error.get("reason")),
        error=_s(error.get("message")),
        error_values=_d(error.get("values")),
    )


def group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def newest_resource_version(versions: Iterable[str]) -> str | None:
    present = set(versions)
    return next((v for v in VERSION_ORDER if v in present), None)


# kind -> its normalizer, for the Kubernetes kinds a Snapshot holds.
def normalize_namespace(obj: dict[str, Any]) -> Namespace:
    meta = _d(obj.get("metadata"))
    labels = {str(k): str(v) for k, v in _d(meta.get("labels")).items()}
    return Namespace(name=_s(meta.get("name")), labels=labels)


NORMALIZERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Namespace": normalize_namespace,
    "Pod": normalize_pod,
    "Node": normalize_node,
    "Event": normalize_event,
    "ResourceSlice": normalize_slice,
    "ResourceClaim": normalize_claim,
    "ResourceClaimTemplate": normalize_template,
    "DeviceClass": normalize_class,
    "DeviceTaintRule": normalize_taint_rule,
}


NAMESPACED_KINDS = frozenset(
    {"Pod", "Event", "ResourceClaim", "ResourceClaimTemplate", "PodLog", "ExecCapture"}
)

# kind -> the fields whose type decides what the checks see: a wrong type there normalizes to an empty
# value (a Pod without claims, a slice without devices), so it is reported, never silently dropped.
# "L": a list, "M": an object; `[]` steps into every item of a list (each must be an object).
_CLAIM_SPEC = (
    ("devices", "M"),
    ("devices.requests", "L"),
    ("devices.requests[]", "M"),
    ("devices.constraints", "L"),
)
SHAPES: dict[str, tuple[tuple[str, str], ...]] = {
    "Pod": (
        ("spec", "M"),
        ("spec.resourceClaims", "L"),
        ("spec.resourceClaims[]", "M"),
        ("spec.containers", "L"),
        ("spec.containers[]", "M"),
        ("spec.containers[].resources", "M"),
        ("spec.containers[].resources.requests", "M"),
        ("spec.containers[].resources.limits", "M"),
        ("spec.containers[].resources.claims", "L"),
        ("status", "M"),
        ("status.resourceClaimStatuses", "L"),
        ("status.conditions", "L"),
        ("status.containerStatuses", "L"),
    ),
    "ResourceClaim": (
        ("spec", "M"),
        *((f"spec.{path}", want) for path, want in _CLAIM_SPEC),
        ("status", "M"),
        ("status.allocation", "M"),
        ("status.allocation.devices", "M"),
        ("status.allocation.devices.results", "L"),
        ("status.allocation.devices.results[]", "M"),
        ("status.reservedFor", "L"),
    ),
    "ResourceClaimTemplate": (
        ("spec", "M"),
        ("spec.spec", "M"),
        *((f"spec.spec.{path}", want) for path, want in _CLAIM_SPEC),
    ),
    "ResourceSlice": (("spec", "M"), ("spec.pool", "M"), ("spec.devices", "L"), ("spec.devices[]", "M")),
    "DeviceClass": (("spec", "M"), ("spec.selectors", "L"), ("spec.selectors[]", "M")),
    "Node": (("spec", "M"), ("spec.taints", "L"), ("status", "M"), ("status.allocatable", "M")),
}


def _kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


def _reach(value: Any, steps: list[str], where: str) -> list[tuple[str, Any]]:
    """Every value at `steps` below `value` (stepping into each item of a list at `[]`), with its path;
    what is absent or not an object on the way is left out (reported by its own, shorter path)."""
    if not steps:
        return [(where, value)]
    if not isinstance(value, dict):
        return []
    step, rest = steps[0], steps[1:]
    each = step.endswith("[]")
    key = step[:-2] if each else step
    child = value.get(key)
    here = f"{where}.{key}" if where else key
    if child is None:
        return []
    if not each:
        return _reach(child, rest, here)
    if not isinstance(child, list):
        return []
    return [found for i, item in enumerate(child) for found in _reach(item, rest, f"{here}[{i}]")]


def shape_problems(kind: str, obj: dict[str, Any]) -> list[str]:
    """What in `obj` has the wrong type, each read as empty: `spec.resourceClaims is an object, not a
    list`; [] for a well-formed object. The API server never stores such objects; hand-edited or
    generated bundles hold them."""
    out: list[str] = []
    if not isinstance(obj.get("metadata", {}), dict):
        out.append(f"metadata is {_kind_of(obj.get('metadata'))}, not an object")
    for path, want in SHAPES.get(kind, ()):
        expected = list if want == "L" else dict
        for where, value in _reach(obj, path.split("."), ""):
            if value is not None and not isinstance(value, expected):
                out.append(f"{where} is {_kind_of(value)}, not {'a list' if want == 'L' else 'an object'}")
    return out


_OLDER = -2  # `_duplicate`: this copy is older than the one already read
_LIST_OF = {
    "Pod": "pods",
    "Event": "events",
    "ResourceSlice": "slices",
    "ResourceClaim": "claims",
    "ResourceClaimTemplate": "templates",
    "DeviceTaintRule": "taint_rules",
}


def _newer(kept: str, other: str) -> bool:
    """The copy read first is the newer: a larger resourceVersion (numeric, as etcd's are); not
    comparable: the copy read last wins."""
    if kept.isdigit() and other.isdigit():
        return int(kept) > int(other)
    return False


class SnapshotBuilder:
    """A Snapshot built one object at a time, so a caller can drop each raw object (or page) as soon as
    it is normalized: at 5,000 nodes the raw objects weigh several times their normalized form."""

    def __init__(self, source: str = "") -> None:
        self.snapshot = Snapshot(source=source)
        self.resource_versions: set[str] = set()
        # (kind, namespace, name) -> (resourceVersion, where it was placed): a second copy of an object
        # (two bundles of one cluster, a folder holding both) keeps the newest, never both
        self._seen: dict[tuple[str, str, str], tuple[str, int]] = {}
        self.duplicates: list[str] = []  # "Pod serving/x", once per object seen more than once

    def add(self, obj: Any, checked: bool = False) -> None:
        """Normalize one raw object of a known kind; unknown kinds (CDI specs...) are ignored.
        `checked`: decoded into its wire shape (dra/wire.py), so well-formed: no shape check."""
        if not isinstance(obj, dict):
            return
        kind = obj.get("kind")
        if kind != "DeviceTaintRule":  # served in v1alpha3/v1beta2 only: not the version of the DRA objects
            self.note_version(_s(obj.get("apiVersion")))
        normalize = NORMALIZERS.get(kind) if isinstance(kind, str) else None
        if normalize is not None:
            assert isinstance(kind, str)
            index = self._duplicate(kind, obj)
            if index == _OLDER:
                return
            if not checked:
                self._check_shape(kind, obj)
            model = normalize(obj)
            if index is None:
                self.place(kind, model)
            else:
                self._replace(kind, index, model)
        elif obj.get("apiVersion") != PLUGIN_API_VERSION:
            return
        elif kind == "PodLog":
            self.snapshot.logs.append(normalize_pod_log(obj))
        elif kind == "ExecCapture":
            self.snapshot.captures.append(normalize_exec_capture(obj))
        elif kind == "ClusterInfo":
            self._cluster_info(obj)

    def _duplicate(self, kind: str, obj: dict[str, Any]) -> int | None:
        """None: the first copy of this object; else where the older copy sits (the new one replaces it),
        or _OLDER when the copy read first is the newer one."""
        meta = _d(obj.get("metadata"))
        name = _s(meta.get("name"))
        if not name:
            return None
        key = (kind, _s(meta.get("namespace")) if kind in NAMESPACED_KINDS else "", name)
        version = _s(meta.get("resourceVersion"))
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = (version, self._count(kind))
            return None
        kept, index = seen
        if len(self.duplicates) < 1000:
            self.duplicates.append(f"{kind} {key[1] + '/' if key[1] else ''}{name}")
        if _newer(kept, version):
            return _OLDER
        self._seen[key] = (version, index)
        return index

    def _count(self, kind: str) -> int:
        attr = _LIST_OF.get(kind)
        return len(getattr(self.snapshot, attr)) if attr else -1

    def _replace(self, kind: str, index: int, model: Any) -> None:
        attr = _LIST_OF.get(kind)
        if attr is None:
            self.place(kind, model)  # keyed by name: the newer copy overwrites
        else:
            getattr(self.snapshot, attr)[index] = model

    def _check_shape(self, kind: str, obj: dict[str, Any]) -> None:
        """A field of the wrong type is read as empty: say so (kind, name, field), a `malformed` problem."""
        problems = shape_problems(kind, obj)
        if not problems:
            return
        meta = _d(obj.get("metadata"))
        name = _s(meta.get("name")) or "(no name)"
        namespace = _s(meta.get("namespace"))
        if kind in NAMESPACED_KINDS:
            name = f"{namespace or 'default'}/{name}"
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        message = f"{kind} {name}: {shown}: read without it"
        self.snapshot.problems.append(SourceProblem(kind=kind, message=message, code="malformed", name=name))

    def note_version(self, api_version: str) -> None:
        group, version = group_version(api_version)
        if group == RESOURCE_GROUP:
            self.resource_versions.add(version)

    def place(self, kind: str, model: Any) -> None:
        """Add what NORMALIZERS[kind] returned (live reads normalize page by page, in their threads)."""
        snap = self.snapshot
        if kind == "Pod":
            snap.pods.append(model)
        elif kind == "Node":
            snap.nodes[model.name] = model
        elif kind == "Event":
            snap.events.append(model)
        elif kind == "ResourceSlice":
            snap.slices.append(model)
        elif kind == "ResourceClaim":
            snap.claims.append(model)
        elif kind == "ResourceClaimTemplate":
            snap.templates.append(model)
        elif kind == "DeviceClass":
            snap.device_classes[model.name] = model
        elif kind == "DeviceTaintRule":
            snap.taint_rules.append(model)
        elif kind == "Namespace":
            snap.namespaces[model.name] = model

    def _cluster_info(self, obj: dict[str, Any]) -> None:
        snap = self.snapshot
        snap.server_version = _s(obj.get("serverVersion")) or None
        scope = _d(obj.get("scope"))
        namespaces = tuple(sorted({n for n in _l(scope.get("namespaces")) if isinstance(n, str) and n}))
        if namespaces and scope.get("allNamespaces") is not True:
            snap.dump_namespaces = tuple(sorted({*(snap.dump_namespaces or ()), *namespaces}))
        served = [v for v in _l(obj.get("resourceVersions")) if isinstance(v, str)]
        self.resource_versions.update(served)
        for problem in map(_d, _l(obj.get("problems"))):
            entry = SourceProblem(
                kind=_s(problem.get("kind")),
                message=_s(problem.get("message")),
                code=_s(problem.get("code"), "error"),
            )
            if entry not in snap.problems:  # two bundles of one cluster: said once
                snap.problems.append(entry)

    def merge(self, other: SnapshotBuilder) -> None:
        """Append what `other` normalized (one list read in another thread), keeping its order."""
        snap, more = self.snapshot, other.snapshot
        snap.pods += more.pods
        snap.nodes.update(more.nodes)
        snap.events += more.events
        snap.slices += more.slices
        snap.taint_rules += more.taint_rules
        snap.claims += more.claims
        snap.templates += more.templates
        snap.device_classes.update(more.device_classes)
        snap.namespaces.update(more.namespaces)
        snap.logs += more.logs
        snap.captures += more.captures
        snap.problems += more.problems
        snap.server_version = more.server_version or snap.server_version
        self.resource_versions |= other.resource_versions

    def finish(self) -> Snapshot:
        _SHARED_VALUES.clear()
        _CAPACITIES.clear()
        _CLAIM_SPECS.clear()
        _POD_PARTS.clear()
        _POD_CONDITIONS.clear()
        _LAST.clear()
        if self.duplicates:
            shown = ", ".join(self.duplicates[:3]) + (
                f" and {len(self.duplicates) - 3} more" if len(self.duplicates) > 3 else ""
            )
            self.snapshot.notes.append(
                f"{len(self.duplicates)} object(s) appear more than once in the input ({shown}): "
                f"kept the copy with the newest resourceVersion of each"
            )
        if self.snapshot.taint_rules:
            apply_taint_rules(self.snapshot.slices, self.snapshot.taint_rules)
        self.snapshot.resource_api_version = newest_resource_version(self.resource_versions)
        return self.snapshot


def build_snapshot(objects: Iterable[dict[str, Any]], *, source: str = "") -> Snapshot:
    """Every known kind is normalized; unknown kinds (CDI specs...) are ignored."""
    builder = SnapshotBuilder(source)
    for obj in objects:
        builder.add(obj)
    return builder.finish()
