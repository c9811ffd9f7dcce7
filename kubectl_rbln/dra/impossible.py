"""Values the API server never stores: a request `count` that is not a positive integer, a capacity
request that is not a quantity. Named (field and value), never read as something else.

Why: `count: 1.5`, `"1"`, `true`, `NaN` or `0` in a hand-edited or generated bundle used to read as
the default 1 (or as no device at all), and the Pod then "fits". Each such field is a `malformed`
problem of its object (dra/normalize.py), so the Pods that depend on it get `source-degraded` (case
`malformed`, an error) and their claims are not simulated (diagnose/simulation.py).
"""

from __future__ import annotations

import json
import math
from typing import Any

from kubectl_rbln.dra.quantity import parse_quantity

SHOWN_CHARS = 40


def shown(value: Any) -> str:
    """A value as the input wrote it, in JSON (`1.5`, `"1"`, `true`, `NaN`), cut to SHOWN_CHARS."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def request_count(value: Any) -> tuple[int, str]:
    """(count, "") for an ExactCount request's `count` (absent: the API's default 1), else (0, what is
    wrong with it): 0, so that nothing reads an impossible count as a number of devices."""
    if value is None:
        return 1, ""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value, ""
    return 0, f"count is {shown(value)}, not a positive integer"


def capacity_problems(capacity: Any) -> list[str]:
    """What in a request's `capacity` (CapacityRequirements) is not a quantity the API server takes."""
    requests = capacity.get("requests") if isinstance(capacity, dict) else None
    if not isinstance(requests, dict):
        return []
    out = []
    for name, value in requests.items():
        where = f"capacity.requests.{name}"
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            out.append(f"{where} is {shown(value)}, not a quantity")
            continue
        if isinstance(value, float) and not math.isfinite(value):
            out.append(f"{where} is {shown(value)}, not a quantity")
            continue
        try:
            amount = parse_quantity(str(value))
        except ValueError as err:
            out.append(f"{where} is {shown(value)}, not a quantity ({err})")
            continue
        if amount < 0:
            out.append(f"{where} is {shown(value)}, a negative quantity")
    return out
