"""Readers of one field of a raw API object: a value of the wrong type reads as empty, never raises.

Objects that are missing fields they should have normalize to empty values; the shape checks
(dra/shapes.py) say where.
"""

from __future__ import annotations

from typing import Any

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
