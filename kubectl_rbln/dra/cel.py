"""The CEL environment of DRA device selectors, on the Rust-backed `common-expression-language`.

When that library cannot be imported (it ships no CPython 3.10 wheel), or with
`RBLN_CEL_BACKEND=celpy`, the pure-Python `cel_backend_celpy` evaluates the same
rewritten source instead; source rewriting, reference handling, memoization and
error shaping below are shared by both backends.

Mirrors k8s.io/dynamic-resource-allocation `cel/compile.go` (dra-facts.md §3):
one variable `device` = {driver, attributes: {domain: {id: value}},
capacity: {domain: {id: quantity}}}; a missing domain reads as an empty map,
a missing id inside it is the runtime error `no such key: <id>`; the
Kubernetes quantity / semver / string libraries are registered as functions.

The library lacks `cel.bind` and default-valued maps, so the source is
rewritten (with the tokenizer of references.py) before compiling:
`cel.bind(v, init, body)` becomes `[init].map(v, body)[0]`, and
`device.attributes[...]` / `device.capacity[...]` read helper maps in which
every literally named domain exists.

Evaluation is memoized per (driver, values of the referenced attributes and
capacities), so a cluster of 120,000 mostly identical devices costs a handful
of real evaluations.
"""

from __future__ import annotations

import glob
import importlib.machinery
import importlib.util
import logging
import os
import re
import time
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from types import ModuleType
from typing import Any

from kubectl_rbln.dra.cel_cost import API_SIZES, SELECTOR_MAX_COST, SELECTOR_MAX_LENGTH, Sizes, estimate
from kubectl_rbln.dra.model import Device, Version
from kubectl_rbln.dra.quantity import compare_semver, normalize_semver, parse_quantity, parse_semver
from kubectl_rbln.dra.references import References, find_references, tokenize

IMPORT_SECONDS: dict[str, float] = {}


def _load_native() -> ModuleType:
    """Load only the compiled `cel/cel*.so`: the package __init__ imports a CLI (prompt_toolkit)."""
    start = time.perf_counter()
    try:
        spec = importlib.util.find_spec("cel")
        locations = list(spec.submodule_search_locations or []) if spec else []
        candidates = [p for loc in locations for p in glob.glob(os.path.join(loc, "cel.cpython-*.so"))]
        candidates += [p for loc in locations for p in glob.glob(os.path.join(loc, "cel.*.pyd"))]
        if not candidates:
            raise ImportError("no compiled cel module")
        loader = importlib.machinery.ExtensionFileLoader("cel.cel", candidates[0])
        mod_spec = importlib.util.spec_from_file_location("cel.cel", candidates[0], loader=loader)
        if mod_spec is None:
            raise ImportError("no spec for the compiled cel module")
        module = importlib.util.module_from_spec(mod_spec)
        loader.exec_module(module)
        IMPORT_SECONDS["extension"] = time.perf_counter() - start
    except Exception:  # pragma: no cover - depends on the wheel layout
        import cel as module

        IMPORT_SECONDS["package"] = time.perf_counter() - start
    # The library logs every failing Python callback as a warning on logger "cel":
    # a selector that errors is a finding we report ourselves, not stderr noise.
    cel_logger = logging.getLogger("cel")
    cel_logger.addHandler(logging.NullHandler())
    cel_logger.propagate = False
    return module


class _RustProgram:
    """A compiled `cel` program with its own reusable Context."""

    def __init__(self, program: Any) -> None:
        self._program = program
        self._context = _native.Context({}, FUNCTIONS)

    def variables(self) -> list[str]:
        return list(self._program.variables())

    def functions(self) -> list[str]:
        return list(self._program.functions())

    def run(self, variables: dict[str, Any]) -> Any:
        """Evaluate; library exceptions propagate for `_runtime_message`, a panic as RuntimeError."""
        self._context.update(variables)
        try:
            return self._program.execute(self._context)
        except Exception:
            raise
        except BaseException as err:  # pyo3_runtime.PanicException: a bug of the library
            raise _panic(err) from None


class _RustBackend:
    name = "rust"

    def compile(self, source: str) -> _RustProgram:
        try:
            return _RustProgram(_native.compile(source))
        except Exception as err:  # a backend reports parse errors as ValueError(message)
            raise ValueError(str(err)) from None
        except BaseException as err:  # a panic (pyo3_runtime.PanicException) is a compile error too
            raise ValueError(str(_panic(err))) from None


def _panic(err: BaseException) -> BaseException:
    """A panic of the Rust library (pyo3 raises it as a BaseException, so that `except Exception`
    misses it) as a RuntimeError with one line of text; KeyboardInterrupt and SystemExit stay."""
    if isinstance(err, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return err
    text = " ".join(str(err).split())[:200] or type(err).__name__
    return RuntimeError(f"the CEL library failed (panic: {text})")


_native: Any = None
_BACKENDS: dict[str, Any] = {}


def get_backend(name: str) -> Any:
    """The backend "rust" or "celpy" (one instance each); ImportError when "rust" is unavailable."""
    if name not in _BACKENDS:
        if name == "rust":
            global _native
            _native = _native or _load_native()
            _BACKENDS[name] = _RustBackend()
        elif name == "celpy":
            from kubectl_rbln.dra.cel_backend_celpy import CelpyBackend

            _BACKENDS[name] = CelpyBackend(FUNCTIONS)
        else:
            raise ValueError(f"unknown CEL backend {name!r} (expected rust or celpy)")
    return _BACKENDS[name]


def _select_backend() -> Any:
    """Rust when importable (fast), else celpy (python 3.10); RBLN_CEL_BACKEND=celpy|rust forces one."""
    forced = os.environ.get("RBLN_CEL_BACKEND", "").strip().lower()
    if forced:
        return get_backend(forced)
    try:
        return get_backend("rust")
    except ImportError:
        return get_backend("celpy")


QTAG = "__k8s_quantity__"
VTAG = "__k8s_semver__"
ATTRS_VAR = "__dra_attributes"
CAPS_VAR = "__dra_capacity"


class CelError(Exception):
    """A selector that does not compile ("compile") or fails on a device ("runtime")."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"CEL {kind} error: {message}")
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"CEL {self.kind} error: {self.message}"


# ---------------------------------------------------------------- library functions


def _q(value: Fraction) -> dict[str, str]:
    return {QTAG: str(value)}


def _as_quantity(value: Any) -> Fraction | None:
    if isinstance(value, dict) and QTAG in value:
        return Fraction(value[QTAG])
    return None


def _as_semver(value: Any) -> str | None:
    if isinstance(value, dict) and VTAG in value:
        return str(value[VTAG])
    return None


def _quantity(text: Any) -> dict[str, str]:
    if not isinstance(text, str):
        raise ValueError("no such overload")
    return _q(parse_quantity(text))


def _is_quantity(text: Any) -> bool:
    try:
        parse_quantity(str(text))
    except ValueError:
        return False
    return isinstance(text, str)


def _semver(text: Any, normalize: bool = False) -> dict[str, str]:
    if not isinstance(text, str):
        raise ValueError("no such overload")
    value = normalize_semver(text) if normalize else text
    try:
        parse_semver(value)
    except ValueError as err:
        raise ValueError(f"could not parse {text!r} as semver: {err}") from None
    return {VTAG: value}


def _is_semver(text: Any, normalize: bool = False) -> bool:
    try:
        _semver(text, normalize)
    except ValueError:
        return False
    return True


def _compare(a: Any, b: Any) -> int:
    qa, qb = _as_quantity(a), _as_quantity(b)
    if qa is not None and qb is not None:
        return (qa > qb) - (qa < qb)
    va, vb = _as_semver(a), _as_semver(b)
    if va is not None and vb is not None:
        return compare_semver(va, vb)
    raise ValueError("no such overload")


def _quantity_arg(value: Any) -> Fraction:
    q = _as_quantity(value)
    if q is None:
        raise ValueError("no such overload")
    return q


def _add(a: Any, b: Any) -> dict[str, str]:
    other = Fraction(b) if isinstance(b, int) and not isinstance(b, bool) else _quantity_arg(b)
    return _q(_quantity_arg(a) + other)


def _sub(a: Any, b: Any) -> dict[str, str]:
    other = Fraction(b) if isinstance(b, int) and not isinstance(b, bool) else _quantity_arg(b)
    return _q(_quantity_arg(a) - other)


def _as_integer(a: Any) -> int:
    q = _quantity_arg(a)
    if q.denominator != 1 or not -(2**63) <= q.numerator < 2**63:
        raise ValueError("cannot convert value to integer")
    return q.numerator


def _version_part(index: int) -> Callable[[Any], int]:
    def part(v: Any) -> int:
        text = _as_semver(v)
        if text is None:
            raise ValueError("no such overload")
        return parse_semver(text)[index]  # type: ignore[return-value]

    return part


def _split(s: str, sep: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    if sep == "":
        chars = list(s)
        return (
            chars if limit < 0 or limit >= len(chars) else chars[: limit - 1] + ["".join(chars[limit - 1 :])]
        )
    return s.split(sep, limit - 1 if limit > 0 else -1)


def _ascii(mapping: Callable[[str], str]) -> Callable[[str], str]:
    return lambda s: "".join(mapping(c) if c.isascii() else c for c in s)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "semver": _semver,
    "isSemver": _is_semver,
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "sign": lambda a: (_quantity_arg(a) > 0) - (_quantity_arg(a) < 0),
    "asInteger": _as_integer,
    "isInteger": lambda a: _quantity_arg(a).denominator == 1,
    "asApproximateFloat": lambda a: float(_quantity_arg(a)),
    "add": _add,
    "sub": _sub,
    "major": _version_part(0),
    "minor": _version_part(1),
    "patch": _version_part(2),
    "split": _split,
    "lowerAscii": _ascii(str.lower),
    "upperAscii": _ascii(str.upper),
    "trim": lambda s: s.strip(),
    "replace": lambda s, old, new, n=-1: s.replace(old, new, n),
    "indexOf": lambda s, sub, start=0: s.find(sub, start),
    "lastIndexOf": lambda s, sub: s.rfind(sub),
    "substring": lambda s, start, end=None: s[start:end],
    "charAt": lambda s, i: s[i : i + 1],
    "join": lambda items, sep="": sep.join(items),
}

# Functions of the library itself (cel-rust standard library), besides operators.
_BUILTINS = frozenset(
    {
        "size",
        "contains",
        "startsWith",
        "endsWith",
        "matches",
        "int",
        "uint",
        "double",
        "string",
        "bytes",
        "bool",
        "dyn",
        "type",
        "timestamp",
        "duration",
        "max",
        "min",
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
        "getHours",
        "getMinutes",
        "getSeconds",
        "getMilliseconds",
    }
)


# ---------------------------------------------------------------- source rewriting


def _rewrite_bind(src: str) -> str:
    """`cel.bind(v, init, body)` -> `[init].map(v, body)[0]`, innermost-first, until none is left."""
    for _ in range(64):
        tokens = tokenize(src)
        for i in range(len(tokens) - 3):
            if (tokens[i].text, tokens[i + 1].text, tokens[i + 2].text, tokens[i + 3].text) != (
                "cel",
                ".",
                "bind",
                "(",
            ):
                continue
            args, close = _call_args(tokens, i + 3)
            if close is None or len(args) != 3:
                return src
            var, init, body = (src[a:b].strip() for a, b in args)
            src = f"{src[: tokens[i].start]}[{init}].map({var}, {body})[0]{src[tokens[close].end :]}"
            break
        else:
            return src
    return src


def _call_args(tokens: list, open_index: int) -> tuple[list[tuple[int, int]], int | None]:
    """Top-level argument spans of the call whose "(" is tokens[open_index]."""
    depth, args = 0, []
    start = tokens[open_index].end
    for j in range(open_index, len(tokens)):
        t = tokens[j]
        if t.kind != "op":
            continue
        if t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth -= 1
            if depth == 0:
                args.append((start, t.start))
                return args, j
        elif t.text == "," and depth == 1:
            args.append((start, t.start))
            start = t.end
    return args, None


def _rewrite_maps(src: str) -> str:
    """`device.attributes[...]` / `.x` -> the helper map in which named domains always exist."""
    tokens = tokenize(src)
    out, pos = [], 0
    for i, t in enumerate(tokens):
        if t.text != "device" or t.kind != "ident" or i + 3 >= len(tokens):
            continue
        if i > 0 and tokens[i - 1].text == ".":
            continue
        if tokens[i + 1].text != "." or tokens[i + 2].text not in ("attributes", "capacity"):
            continue
        if tokens[i + 3].text not in ("[", "."):
            continue
        if i >= 2 and tokens[i - 1].text == "(" and tokens[i - 2].text == "has":
            continue
        out.append(src[pos : t.start])
        out.append(ATTRS_VAR if tokens[i + 2].text == "attributes" else CAPS_VAR)
        pos = tokens[i + 2].end
    out.append(src[pos:])
    return "".join(out)


def _column(src: str, name: str) -> int:
    for t in tokenize(src):
        if t.text == name:
            return t.start + 1
    return 1


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, list):
        return "list(dyn)"
    if isinstance(value, dict):
        return "map(dyn, dyn)"
    return "null_type" if value is None else type(value).__name__


_FUNC_ERROR = re.compile(r"Python function call failed: \w+: (.*?)\. Check function arguments", re.S)


def _runtime_message(err: Exception) -> str:
    """The cel-go wording for a library exception."""
    if isinstance(err, KeyError):
        return f"no such key: {err.args[0] if err.args else ''}"
    text = str(err)
    match = _FUNC_ERROR.search(text)
    if match:
        return match.group(1).strip("'\"")
    if isinstance(err, TypeError) and text.startswith("No such overload"):
        return "no such overload"
    if isinstance(err, ZeroDivisionError):
        return "division by zero"
    return text.splitlines()[0] if text else type(err).__name__


# ---------------------------------------------------------------- device conversion


_MISSING = object()


def _attr_value(name: str, value: Any) -> Any:
    if isinstance(value, Version):
        try:
            parse_semver(value.text)
        except ValueError as err:
            raise CelError("runtime", f"attribute {name}: parse semantic version: {err}") from None
        return {VTAG: value.text}
    return value


def _cap_value(name: str, text: str) -> dict[str, str]:
    try:
        return _q(parse_quantity(str(text)))
    except ValueError as err:
        raise CelError("runtime", f"capacity {name}: {err}") from None


def _nest(flat: dict[str, Any], convert: Callable[[str, Any], Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, value in flat.items():
        domain, _, ident = name.partition("/")
        out.setdefault(domain, {})[ident] = convert(name, value)
    return out


# ---------------------------------------------------------------- selectors


class Selector:
    """A compiled selector; `matches` evaluates it on a Device with memoization."""

    _MEMO_LIMIT = 200_000

    def __init__(self, expression: str, program: Any, refs: References) -> None:
        self.expression = expression
        self.references = refs
        self._program = program
        self._attr_names = sorted(refs.attributes | refs.guarded)
        self._cap_names = sorted(refs.capacities | refs.guarded_capacities)
        self._attr_domains = sorted(refs.domains)
        self._cap_domains = sorted(refs.cap_domains)
        self._checked_domains = bool(refs.attribute_domains or refs.capacity_domains)
        self._extra = self._checked_domains or refs.uses_allow_multiple
        self._memo: dict[tuple, bool | CelError] = {}
        self.evaluations = 0  # real (non-memoized) evaluations, for tests and measurements
        # Within the limit on devices far larger than any the API server accepts: no device of a
        # hand-made bundle needs its own estimate (most selectors; the others grow with the data)
        roomy = estimate(expression, _ROOMY_SIZES)
        self._sized = roomy is not None and roomy.exceeds(SELECTOR_MAX_COST)

    def matches(self, device: Device) -> bool:
        """True when the device is selected; raises CelError like the scheduler would."""
        if device.bad_attributes:
            raise CelError("runtime", f"attribute {device.bad_attributes[0]}: unsupported attribute value")
        key = self._key(device)
        hit = self._memo.get(key)
        if hit is None:
            try:
                hit = self._evaluate(device)
            except CelError as err:
                hit = err
            if len(self._memo) >= self._MEMO_LIMIT:
                self._memo.clear()
            self._memo[key] = hit
        if isinstance(hit, CelError):
            raise hit
        return hit

    @property
    def attribute_names(self) -> list[str]:
        """The attributes whose values (or presence) decide the result, when `references.complete`."""
        return self._attr_names

    @property
    def capacity_names(self) -> list[str]:
        return self._cap_names

    @property
    def keys_more(self) -> bool:
        """The result also depends on which domains a device has, or on allowMultipleAllocations."""
        return self._extra

    def key_of(self, device: Device) -> tuple:
        """What the result on `device` depends on: equal keys, equal results (the memo's key)."""
        return self._key(device)

    def _key(self, device: Device) -> tuple:
        refs = self.references
        attrs = device.attributes
        if not refs.complete:
            return (
                device.driver,
                device.allow_multiple_allocations,
                tuple(sorted((k, type(v).__name__, v) for k, v in attrs.items())),
                tuple(sorted(device.capacity.items())),
            )
        if not self._attr_names and not self._cap_names and not self._extra:
            return (device.driver,)
        values = tuple([attrs.get(n, _MISSING) for n in self._attr_names])
        key: tuple = (device.driver, values, tuple(map(type, values)))
        if self._cap_names:
            caps = device.capacity
            key += (tuple([caps.get(n) for n in self._cap_names]),)
        if self._extra:
            if refs.uses_allow_multiple:
                key += (device.allow_multiple_allocations,)
            if self._checked_domains:
                key += (self._present_domains(device),)
        return key

    def _present_domains(self, device: Device) -> tuple[frozenset[str], frozenset[str]]:
        attr = {
            d
            for d in self.references.attribute_domains
            if any(k.startswith(d + "/") for k in device.attributes)
        }
        cap = {
            d for d in self.references.capacity_domains if any(k.startswith(d + "/") for k in device.capacity)
        }
        return frozenset(attr), frozenset(cap)

    def _evaluate(self, device: Device) -> bool:
        self.evaluations += 1
        if self._sized:
            sizes = _device_sizes(device)
            if sizes is not API_SIZES:  # larger than the compile-time estimate assumed: again
                _check_cost(self.expression, sizes)
        if self.references.complete:
            attrs = {n: device.attributes[n] for n in self._attr_names if n in device.attributes}
            caps = {n: device.capacity[n] for n in self._cap_names if n in device.capacity}
            attributes = _nest(attrs, _attr_value)
            capacity = _nest(caps, _cap_value)
            if self._checked_domains:
                present_attr, present_cap = self._present_domains(device)
                for d in present_attr:
                    attributes.setdefault(d, {})
                for d in present_cap:
                    capacity.setdefault(d, {})
        else:
            attributes = _nest(device.attributes, _attr_value)
            capacity = _nest(device.capacity, _cap_value)
        helper_attrs: dict[str, dict[str, Any]] = {d: {} for d in self._attr_domains}
        helper_attrs.update(attributes)
        helper_caps: dict[str, dict[str, Any]] = {d: {} for d in self._cap_domains}
        helper_caps.update(capacity)
        device_var: dict[str, Any] = {"driver": device.driver, "attributes": attributes, "capacity": capacity}
        if self.references.uses_allow_multiple:
            device_var["allowMultipleAllocations"] = device.allow_multiple_allocations
        try:
            result = self._program.run({"device": device_var, ATTRS_VAR: helper_attrs, CAPS_VAR: helper_caps})
        except Exception as err:  # the library raises KeyError/TypeError/RuntimeError/...
            raise CelError("runtime", _runtime_message(err)) from None
        if not isinstance(result, bool):
            raise CelError("compile", f"must evaluate to bool or the unknown type, not {_type_name(result)}")
        return result


def _check_cost(expression: str, sizes: Sizes) -> None:
    """Refuse, before any evaluation, a selector whose worst-case cost on devices of `sizes`
    exceeds the limit Kubernetes puts on a device selector (cel_cost.py): what the API server
    refuses to store and the scheduler stops with "actual cost limit exceeded"."""
    found = estimate(expression, sizes)
    if found is not None and found.exceeds(SELECTOR_MAX_COST):
        worst = max(found.cost, found.work)
        raise CelError(
            "runtime",
            f"cost limit exceeded: the estimated worst-case cost {worst:,} is above the limit of"
            f" {SELECTOR_MAX_COST:,} for a device selector (too complex: not evaluated)",
        )


_ROOMY_SIZES = Sizes(attributes=4096, domain=4096, ident=4096, value=65536, driver=4096)


def _device_sizes(device: Device) -> Sizes:
    """The sizes the cost estimate assumed, or larger ones where this (hand-made) device exceeds
    what the API server accepts, rounded up to a power of two (few distinct estimates)."""
    base = API_SIZES
    per_domain: dict[str, int] = {}
    ident = value = domain = 0
    for name, attr in (*device.attributes.items(), *device.capacity.items()):
        dom, _, key = name.partition("/")
        per_domain[dom] = per_domain.get(dom, 0) + 1
        domain, ident = max(domain, len(dom)), max(ident, len(key))
        text = attr.text if isinstance(attr, Version) else attr
        if isinstance(text, str):
            value = max(value, len(text))
    count = max([len(per_domain), *per_domain.values()], default=0)
    wanted = (count, domain, ident, value, len(device.driver))
    limits = (base.attributes, base.domain, base.ident, base.value, base.driver)
    if all(w <= limit for w, limit in zip(wanted, limits, strict=True)):
        return base
    bigger = [
        limit if w <= limit else 1 << (w - 1).bit_length() for w, limit in zip(wanted, limits, strict=True)
    ]
    return Sizes(*bigger)


def compile_selector(expression: str, *, consumable_capacity: bool = False) -> Selector:
    """Compile (cached) a DRA selector; raises CelError(kind="compile") like the scheduler's cache."""
    return compile_selector_with(BACKEND, expression, consumable_capacity=consumable_capacity)


def compile_selector_with(backend: Any, expression: str, *, consumable_capacity: bool = False) -> Selector:
    """`compile_selector` on an explicit backend (see `get_backend`); for tests of both backends."""
    result = _compile_cached(expression, consumable_capacity, backend)
    if isinstance(result, CelError):
        raise result
    return result


@lru_cache(maxsize=1024)
def _compile_cached(expression: str, consumable_capacity: bool, backend: Any) -> Selector | CelError:
    try:
        return _compile(expression, consumable_capacity, backend)
    except CelError as err:
        return err


def _compile(expression: str, consumable_capacity: bool, backend: Any) -> Selector:
    length = len(expression.encode("utf-8", "surrogatepass"))
    if length > SELECTOR_MAX_LENGTH:  # the API server refuses it (TooLong); the library may panic on it
        raise CelError(
            "compile",
            f"Too long: the expression has {length:,} bytes, more than the {SELECTOR_MAX_LENGTH:,} the"
            " API server accepts (CELSelectorExpressionMaxLength)",
        )
    try:
        backend.compile(expression)
    except ValueError as err:
        text = str(err)
        text = re.sub(r"^Failed to parse expression .*?: (?=ERROR:)", "", text, flags=re.S)
        raise CelError("compile", text) from None
    refs = find_references(expression)
    for name in sorted(
        refs.unknown_fields
        | ({"allowMultipleAllocations"} if refs.uses_allow_multiple and not consumable_capacity else set())
    ):
        raise CelError("compile", f"ERROR: <input>:1:{_column(expression, name)}: undefined field '{name}'")
    _check_cost(expression, API_SIZES)
    rewritten = _rewrite_maps(_rewrite_bind(expression))
    try:
        program = backend.compile(rewritten)
    except ValueError as err:  # pragma: no cover - the original compiled, so the rewrite should too
        raise CelError("compile", str(err)) from None
    allowed = {"device", ATTRS_VAR, CAPS_VAR} | refs.bound_names
    for name in program.variables():
        if name not in allowed:
            col = _column(expression, name)
            raise CelError(
                "compile", f"ERROR: <input>:1:{col}: undeclared reference to '{name}' (in container '')"
            )
    for name in program.functions():
        if name[:1] in "_@!-" or name in FUNCTIONS or name in _BUILTINS:
            continue
        col = _column(expression, name)
        raise CelError(
            "compile", f"ERROR: <input>:1:{col}: undeclared reference to '{name}' (in container '')"
        )
    selector = Selector(expression, program, refs)
    if not program.variables():  # a constant: check its type now, as the Kubernetes type checker would
        try:
            value = program.run({})
        except Exception:  # the Rust backend turns a library panic into RuntimeError
            value = True  # a runtime error in a constant is reported when evaluated
        if not isinstance(value, bool):
            raise CelError("compile", f"must evaluate to bool or the unknown type, not {_type_name(value)}")
    return selector


BACKEND = _select_backend()
