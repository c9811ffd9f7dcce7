"""Kubernetes resource quantities and semantic versions, exact, for the CEL library functions.

Why: DRA selectors compare capacities with `quantity("1Gi")` and versions with
`semver("1.2.3")` (dra-facts.md §3.1); the Kubernetes libraries compare
quantities exactly (k8s.io/apimachinery `resource.Quantity.Cmp`) and versions
by semver 2.0 precedence (blang/semver `Version.Compare`). Floats would not do.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
_EXPONENT = re.compile(r"^[eE]([+-]?[0-9]+)$")
_NANO = Fraction(1, 10**9)

QUANTITY_FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


@lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Fraction:
    """Parse a Kubernetes quantity ("1.5Gi", "100m", "1e3") to an exact value.

    Like `resource.ParseQuantity`, precision below 1n is rounded up.
    Raises ValueError with the apimachinery message on bad input.
    """
    match = _QUANTITY.match(text.strip()) if text else None
    if not match:
        raise ValueError(QUANTITY_FORMAT_ERROR)
    number, suffix = match.groups()
    value = Fraction(number)
    if suffix in _BINARY:
        value *= _BINARY[suffix]
    elif suffix in _DECIMAL:
        value *= _DECIMAL[suffix]
    else:
        exp = _EXPONENT.match(suffix)
        if not exp:
            raise ValueError("unable to parse quantity's suffix")
        value *= Fraction(10) ** int(exp.group(1))
    scaled = value / _NANO
    if scaled.denominator != 1:  # round up to the nano scale, away from zero
        whole = (
            -(-scaled.numerator // scaled.denominator)
            if value > 0
            else scaled.numerator // scaled.denominator
        )
        value = whole * _NANO
    return value


_SEMVER = re.compile(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)

SemverKey = tuple[int, int, int, tuple[tuple[int, int, str], ...]]


def normalize_semver(text: str) -> str:
    """The `semver(s, true)` normalization: drop a leading v, pad minor/patch, drop leading zeros."""
    text = text.strip()
    if text[:1] in ("v", "V"):
        text = text[1:]
    core, sep, rest = _split_core(text)
    parts = core.split(".")
    while len(parts) < 3:
        parts.append("0")
    parts = [p.lstrip("0") or "0" if p.isdigit() else p for p in parts]
    return ".".join(parts) + sep + rest


def _split_core(text: str) -> tuple[str, str, str]:
    for i, c in enumerate(text):
        if c in "-+":
            return text[:i], c, text[i + 1 :]
    return text, "", ""


@lru_cache(maxsize=4096)
def parse_semver(text: str) -> SemverKey:
    """Parse a semantic version strictly (blang/semver `Parse`) into a precedence key."""
    match = _SEMVER.match(text)
    if not match:
        raise ValueError(f"Invalid semver: {text!r}" if text else "Version string empty")
    major, minor, patch, pre, _build = match.groups()
    for ident in (pre or "").split(".") if pre else ():
        if ident.isdigit() and len(ident) > 1 and ident[0] == "0":
            raise ValueError(f"Numeric PreRelease version must not contain leading zeroes {ident!r}")
    pre_key: tuple[tuple[int, int, str], ...] = ()
    if pre:
        pre_key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return int(major), int(minor), int(patch), pre_key


def compare_semver(a: str, b: str) -> int:
    """-1, 0 or 1 by semver precedence (build metadata ignored, a pre-release sorts first)."""
    ka, kb = parse_semver(a), parse_semver(b)
    if ka[:3] != kb[:3]:
        return -1 if ka[:3] < kb[:3] else 1
    pa, pb = ka[3], kb[3]
    if pa == pb:
        return 0
    if not pa or not pb:
        return 1 if not pa else -1
    return -1 if pa < pb else 1


def format_quantity(value: Fraction) -> str:
    """An exact quantity as short text: the shortest of the binary and decimal forms whose suffix
    divides it ("8Gi", "2G", "1500m", "3"), else a decimal number; for messages, not for the API."""
    if value == 0:
        return "0"
    forms = []
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        scaled = value / _BINARY[suffix]
        if scaled.denominator == 1:
            forms.append(f"{scaled.numerator}{suffix}")
            break
    for suffix in ("E", "P", "T", "G", "M", "k", "", "m", "u", "n"):
        scaled = value / _DECIMAL[suffix]
        if scaled.denominator == 1:
            forms.append(f"{scaled.numerator}{suffix}")
            break
    return min(forms, key=len) if forms else str(float(value))
