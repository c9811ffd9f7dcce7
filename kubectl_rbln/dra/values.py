"""Attribute and quantity values as devices publish them: qualified names, typed attribute values,
capacity quantities and their request policies, counter sets. Shared by devices, slices and claims.

Unqualified attribute and capacity names belong to the driver's domain (dra-facts.md section 4).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_rbln.dra.fields import _d, _l, _s
from kubectl_rbln.dra.model import AttrValue, CounterSet, RequestPolicy, Version
from kubectl_rbln.dra.quantity import parse_quantity

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
