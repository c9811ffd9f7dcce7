"""Shape checks: which fields of a raw object have the wrong type (each is read as empty), reported
as `malformed` problems rather than silently dropped."""

from __future__ import annotations

from typing import Any

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
