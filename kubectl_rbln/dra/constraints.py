"""Claim constraints and device taints as the structured allocator checks them.

matchAttribute / distinctAttribute: dra-facts.md §2.8 (upstream
`structured/internal/*/constraint.go` and `matchAttributeConstraint` in the
allocator files). Taints: §2.9 (`taintPreventsAllocation`,
`resourceclaim/devicetoleration.go`).
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.dra.model import AttrValue, Device

_ABSENT = object()


def lookup_attribute(device: Device, name: str) -> AttrValue | None:
    """The device's value for a fully qualified name (the model already qualified driver-domain names)."""
    if name in device.bad_attributes:
        return None
    return device.attributes.get(name)


def typed(value: AttrValue) -> tuple[str, Any]:
    """Same type and same value, as the allocator compares (1 != True, versions as text)."""
    return (type(value).__name__, str(value) if not isinstance(value, (int, str)) else value)


def applies(requests: list[str], base: str, sub: str) -> bool:
    """Whether a constraint's `requests` list covers request `base` (subrequest `sub`)."""
    if not requests:
        return True
    return base in requests or (bool(sub) and f"{base}/{sub}" in requests)


class MatchAttribute:
    """All devices of the covered requests share one typed value of the attribute."""

    def __init__(self, attribute: str, requests: list[str]) -> None:
        self.attribute = attribute
        self.requests = requests
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def add(self, base: str, sub: str, device: Device) -> bool:
        if not applies(self.requests, base, sub):
            return True
        value = lookup_attribute(device, self.attribute)
        if value is None:
            return False
        key = typed(value)
        if self.count == 0:
            self.value = key
        elif key != self.value:
            return False
        self.count += 1
        return True

    def remove(self, base: str, sub: str, device: Device) -> None:
        if applies(self.requests, base, sub):
            self.count -= 1

    def state(self) -> tuple:
        return ("m", self.value if self.count else None)


class DistinctAttribute:
    """No two covered devices share a value — with the upstream quirk (dra-facts.md §2.8):
    values are remembered per request name, so within one request only the most
    recent device is compared against, and removing a device forgets the request."""

    def __init__(self, attribute: str, requests: list[str]) -> None:
        self.attribute = attribute
        self.requests = requests
        self.values: dict[str, tuple[str, Any]] = {}
        self.count = 0

    def add(self, base: str, sub: str, device: Device) -> bool:
        if not applies(self.requests, base, sub):
            return True
        value = lookup_attribute(device, self.attribute)
        if value is None:
            return False
        key = typed(value)
        if self.count and any(existing == key for existing in self.values.values()):
            return False
        self.values[base] = key
        self.count += 1
        return True

    def remove(self, base: str, sub: str, device: Device) -> None:
        if applies(self.requests, base, sub):
            self.count -= 1
            self.values.pop(base, None)

    def state(self) -> tuple:
        return ("d", self.count, tuple(sorted(self.values.items())))


Constraint = MatchAttribute | DistinctAttribute


def toleration_matches(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """`resourceclaim.ToleratesTaint`: effect and key empty-or-equal; Exists any value, Equal compares."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def device_taints(device: Device, rules: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """(source, taint) of every taint the allocator sees on the device: `ResourceSlice/<name>` for
    the driver's own, `DeviceTaintRule/<name>` for a rule's (only with DRADeviceTaintRules)."""
    out = [(f"ResourceSlice/{device.slice_name}", t) for t in device.taints]
    if rules:
        out += [(f"DeviceTaintRule/{name}", t) for name, t in device.rule_taints]
    return out


def blocking_taint_sources(
    device: Device, tolerations: list[dict[str, Any]], version: int, rules: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """(source, taint) of the taints that keep the device from this request: every untolerated one up
    to 1.34; from 1.35 only NoSchedule/NoExecute (effect None and unknown effects are ignored):
    `taintPreventsAllocation` in structured/internal/incubating/allocator_incubating.go, v0.36.2."""
    out = []
    for source, taint in device_taints(device, rules):
        if version >= 35 and taint.get("effect") not in BLOCKING_EFFECTS:
            continue
        if not any(toleration_matches(t, taint) for t in tolerations):
            out.append((source, taint))
    return out


def blocking_taints(
    device: Device, tolerations: list[dict[str, Any]], version: int, rules: bool = False
) -> list[dict[str, Any]]:
    """The taints of `blocking_taint_sources`, without where they came from."""
    if not device.taints and not (rules and device.rule_taints):
        return []
    return [taint for _, taint in blocking_taint_sources(device, tolerations, version, rules)]


def taint_text(taint: dict[str, Any]) -> str:
    """`key=value:Effect` (or `key:Effect`), as kubectl prints a node taint."""
    key = str(taint.get("key") or "")
    value = str(taint.get("value") or "")
    return f"{key}={value}:{taint.get('effect') or ''}" if value else f"{key}:{taint.get('effect') or ''}"
