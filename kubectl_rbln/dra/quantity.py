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


# The range of a quantity: "no quantity may represent a number greater than 2^63-1 in magnitude"
# (k8s.io/apimachinery pkg/api/resource/quantity.go, the Quantity doc comment). apimachinery reads an
# exponent of any size (`1e999999999`) and then works with a number of that many digits; here the
# magnitude is judged from the digits and the exponent first, so no big number is ever built.
QUANTITY_MAX = 2**63 - 1
_MAX_ORDER = 18  # 10^19 > 2^63-1: a first significant digit at 10^19 or above is out of range
_NANO_ORDER = -9
# More significant digits than int64 and nano precision together could use (28): a quantity from a
# cluster is the API server's canonical text, so only a hand-written one can have them.
_MAX_DIGITS = 64


class QuantityRangeError(ValueError):
    """A quantity that parses but lies outside what a Kubernetes quantity may represent (a magnitude
    past 2^63-1, or more digits than it carries): no cluster holds it, so what names it is malformed."""


@lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Fraction:
    """Parse a Kubernetes quantity ("1.5Gi", "100m", "1e3") to an exact value.

    Like `resource.ParseQuantity`, precision below 1n is rounded up (away from zero).
    Raises ValueError with the apimachinery message on bad input, and QuantityRangeError (a
    ValueError) for a magnitude past 2^63-1 or more than 64 significant digits, judged before any
    big number is built: `1e999999999` costs what `1e9` costs.
    """
    match = _QUANTITY.match(text.strip()) if text else None
    if not match:
        raise ValueError(QUANTITY_FORMAT_ERROR)
    number, suffix = match.groups()
    exponent = 0
    if suffix in _BINARY:
        scale = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        scale = _DECIMAL[suffix]
    else:
        exp = _EXPONENT.match(suffix)
        if not exp:
            raise ValueError("unable to parse quantity's suffix")
        scale, exponent = Fraction(1), _exponent(exp.group(1))
    order = _order(number, text)
    if order is None:  # zero, whatever the exponent
        return Fraction(0)
    if order + exponent > _MAX_ORDER:
        raise QuantityRangeError(f"quantity {text.strip()!r} is out of range: its magnitude exceeds 2^63-1")
    if order + exponent < _NANO_ORDER - 1:  # below 1n whatever the digits: rounds up to 1n
        return -_NANO if number.startswith("-") else _NANO
    value = Fraction(number) * scale * Fraction(10) ** exponent
    if abs(value) > QUANTITY_MAX:
        raise QuantityRangeError(f"quantity {text.strip()!r} is out of range: its magnitude exceeds 2^63-1")
    scaled = value / _NANO
    if scaled.denominator != 1:  # round up to the nano scale, away from zero
        whole = (
            -(-scaled.numerator // scaled.denominator)
            if value > 0
            else scaled.numerator // scaled.denominator
        )
        value = whole * _NANO
    return value


def _exponent(digits: str) -> int:
    """The exponent of `<n>e<digits>`; one of more than 6 digits is only known to be huge (int() of a
    long digit string is itself slow), which `parse_quantity` judges by its sign."""
    if len(digits.lstrip("+-").lstrip("0")) > 6:
        return -(10**7) if digits.startswith("-") else 10**7
    return int(digits)


def _order(number: str, text: str) -> int | None:
    """The decimal order of the mantissa's first significant digit (None for zero); more significant
    digits than a quantity carries are refused."""
    whole, _, fraction = number.lstrip("+-").partition(".")
    whole = whole.lstrip("0")
    if whole:
        order = len(whole) - 1
    else:
        stripped = fraction.lstrip("0")
        if not stripped:
            return None
        order = len(stripped) - len(fraction) - 1
    if len((whole + fraction).strip("0")) > _MAX_DIGITS:
        raise QuantityRangeError(
            f"quantity {text.strip()!r} is out of range: more than {_MAX_DIGITS} significant digits"
        )
    return order


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
