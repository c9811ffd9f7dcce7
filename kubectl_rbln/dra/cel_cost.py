"""The worst-case cost of a DRA selector, estimated as the Kubernetes API server estimates it.

Why: Kubernetes bounds a selector's work: the API server refuses an expression whose estimated
worst-case cost exceeds `CELSelectorExpressionMaxCost` (1,000,000, k8s.io/api resource/v1
types.go, the same constant v0.32-v0.35; "too complex, exceeds cost limit"), and the scheduler stops
one that spends more at runtime (`cel.CostLimit`, "actual cost limit exceeded";
k8s.io/dynamic-resource-allocation cel/compile.go). Neither CEL library this tool uses counts cost,
so a hand-made bundle's `[1..10].all(x, ...)` nested seven deep, or a `cel.bind` that doubles a
string 30 times, ran for minutes or took all memory (issue 23). This module estimates the cost
before anything is evaluated, with the rules of cel-go's checker (checker/cost.go: identifiers and
selections 1, a list literal 10, a map literal 30, a comprehension its range size times its loop,
strings by length times 0.1), the Kubernetes library's function costs (k8s.io/apiserver
pkg/cel/library/cost.go) and the DRA sizes (dra-facts.md 3.4: 32 attributes and capacities per
device, names of 63 and 32 characters, values of 64). It agrees with the costs of
dynamic-resource-allocation's cel/compile_test.go (tests/dra/test_cel_cost.py). The estimate is
a bound only as long as a device's data stays within those sizes: `Sizes` lets a caller estimate
again with the sizes a hand-made device really has.

Two more bounds than cel-go's, for what the libraries here do that cel-go does not: a list
concatenation and a `replace`/`join` are charged for the elements or characters they build (cel-go
concatenates lists lazily), so nothing accepted materializes more than the limit.

The parser reads the tokens of references.py (the library has already accepted the source, so it is
well formed); a construct it does not know yields None (no estimate), never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from kubectl_rbln.dra.references import Token, tokenize

# k8s.io/api resource/v1 types.go (the same in v1beta1/v1beta2, v0.32 to v0.35):
# CELSelectorExpressionMaxCost and CELSelectorExpressionMaxLength.
SELECTOR_MAX_COST = 1_000_000
SELECTOR_MAX_LENGTH = 10 * 1024

_STRING_FACTOR = 0.1  # cel-go common/cost.go StringTraversalCostFactor
_REGEX_FACTOR = 0.25  # RegexStringLengthCostFactor
_LIST_CREATE = 10
_MAP_CREATE = 30
_STRUCT_CREATE = 40
_UNKNOWN = 2**64 - 1  # cel-go's unknown size (math.MaxUint64)
_MAX_DEPTH = 200  # parser recursion; the CEL library refuses far shallower nesting (96)


@dataclass(frozen=True, slots=True)
class Sizes:
    """The largest device the estimate assumes. Defaults: what the API server accepts
    (k8s.io/api resource/v1: ResourceSliceMaxAttributesAndCapacitiesPerDevice 32,
    DeviceMaxDomainLength 63, DeviceMaxIDLength 32, DeviceAttributeMaxValueLength 64,
    DriverNameMaxLength 63)."""

    attributes: int = 32
    domain: int = 63
    ident: int = 32
    value: int = 64
    driver: int = 63


API_SIZES = Sizes()


@dataclass(frozen=True, slots=True)
class Shape:
    """What the estimate knows of a value: its kind and largest size (characters of a string,
    entries of a list or map, 1 for a scalar), with the shapes of a container's keys and values."""

    kind: str  # scalar | string | bytes | list | map | quantity | dyn | device | unknown
    size: int
    key: Shape | None = None
    value: Shape | None = None
    low: int = 0  # the smallest size, known for literals only


_SCALAR = Shape("scalar", 1)
_UNKNOWN_SHAPE = Shape("unknown", _UNKNOWN)


# ---------------------------------------------------------------- syntax


@dataclass(slots=True)
class _Node:
    op: str  # lit | ident | select | test | call | list | map | struct | comp | bind
    name: str = ""  # identifier, field, function or macro name
    args: list[_Node] = field(default_factory=list)
    target: _Node | None = None
    shape: Shape = _SCALAR  # of a literal
    value: str = ""  # a number literal's text


class _Unparsable(Exception):
    pass


_LEVELS = {
    "||": 1,
    "&&": 2,
    "<": 3,
    "<=": 3,
    ">": 3,
    ">=": 3,
    "==": 3,
    "!=": 3,
    "in": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
    "%": 5,
}
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})


class _Parser:
    """Recursive descent over the CEL grammar (cel-spec langdef.md), macros kept as macros."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def parse(self) -> _Node:
        node = self.expr()
        if self.i != len(self.tokens):
            raise _Unparsable("trailing tokens")
        return node

    def peek(self, ahead: int = 0) -> Token | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def text(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return token.text if token is not None and token.kind in ("op", "ident") else ""

    def take(self, text: str) -> None:
        if self.text() != text:
            raise _Unparsable(f"expected {text!r}")
        self.i += 1

    def expr(self) -> _Node:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Unparsable("too deep")
        node = self.binary(1)
        if self.text() == "?":
            self.i += 1
            yes = self.binary(1)
            self.take(":")
            no = self.expr()
            node = _Node("call", "_?_:_", [node, yes, no])
        self.depth -= 1
        return node

    def binary(self, level: int) -> _Node:
        left = self.unary()
        while True:
            op = self.text()
            rank = _LEVELS.get(op)
            if rank is None or rank < level:
                return left
            self.i += 1
            right = self.binary(rank + 1)
            left = _Node("call", f"_{op}_", [left, right])

    def unary(self) -> _Node:
        ops = []
        while self.text() in ("!", "-"):
            ops.append(self.text())
            self.i += 1
        node = self.member()
        for op in reversed(ops):
            node = _Node("call", f"{op}_", [node])
        return node

    def member(self) -> _Node:
        node = self.primary()
        while True:
            op = self.text()
            if op in (".", ".?"):
                self.i += 1
                token = self.peek()
                if token is None or token.kind != "ident":
                    raise _Unparsable("expected a field")
                self.i += 1
                if self.text() == "(":
                    node = self.call(token.text, node)
                else:
                    node = _Node("select", token.text, target=node)
            elif op in ("[", "[?"):
                self.i += 1
                index = self.expr()
                self.take("]")
                node = _Node("call", "_[_]", [node, index])
            else:
                return node

    def arguments(self, close: str) -> list[_Node]:
        args: list[_Node] = []
        while self.text() != close:
            if self.text() == "?":  # an optional element or entry
                self.i += 1
            args.append(self.expr())
            if self.text() != ",":
                break
            self.i += 1
        self.take(close)
        return args

    def call(self, name: str, target: _Node | None) -> _Node:
        self.take("(")
        args = self.arguments(")")
        first_is_name = bool(args) and args[0].op == "ident"
        if target is not None and name in _MACROS and len(args) in (2, 3) and first_is_name:
            return _Node("comp", name, args, target)
        is_cel = target is not None and target.op == "ident" and target.name == "cel"
        if name == "bind" and is_cel and len(args) == 3 and first_is_name:
            return _Node("bind", args[0].name, args[1:])
        if name == "has" and target is None and len(args) == 1 and args[0].op == "select":
            return _Node("test", args[0].name, target=args[0].target)
        return _Node("call", name, args, target)

    def primary(self) -> _Node:
        token = self.peek()
        if token is None:
            raise _Unparsable("unexpected end")
        if token.kind == "string":
            self.i += 1
            raw = token.text.lower().lstrip("r")
            kind = "bytes" if raw.startswith("b") else "string"
            return _Node("lit", shape=Shape(kind, len(token.value), low=len(token.value)))
        if token.kind == "number":
            self.i += 1
            return _Node("lit", value=token.text)
        text = self.text()
        if text == "(":
            self.i += 1
            node = self.expr()
            self.take(")")
            return node
        if text == "[":
            self.i += 1
            return _Node("list", args=self.arguments("]"))
        if text == "{":
            self.i += 1
            return self.entries("map")
        if text == ".":  # a leading dot: an absolute name
            self.i += 1
            token = self.peek()
            if token is None or token.kind != "ident":
                raise _Unparsable("expected a name")
        if token.kind == "ident":
            return self.name(token)
        raise _Unparsable(f"unexpected {token.text!r}")

    def name(self, token: Token) -> _Node:
        self.i += 1
        if token.text in ("true", "false", "null"):
            return _Node("lit")
        if self.text() == "(":
            return self.call(token.text, None)
        if self.text() == "{":  # a message literal: Name{field: value}
            self.i += 1
            return self.entries("struct")
        return _Node("ident", token.text)

    def entries(self, kind: str) -> _Node:
        parts: list[_Node] = []
        while self.text() != "}":
            if self.text() == "?":
                self.i += 1
            if kind == "struct":
                self.i += 1  # the field name
            else:
                parts.append(self.expr())
            self.take(":")
            parts.append(self.expr())
            if self.text() != ",":
                break
            self.i += 1
        self.take("}")
        return _Node(kind, args=parts)


# ---------------------------------------------------------------- estimate


def _factor(size: int, factor: float) -> int:
    """cel-go's MultiplyByCostFactor: rounded up, saturating."""
    return _UNKNOWN if size >= _UNKNOWN else min(_UNKNOWN, math.ceil(size * factor))


def _mul(a: int, b: int) -> int:
    return min(_UNKNOWN, a * b)


def _union(a: Shape, b: Shape) -> Shape:
    if a.kind != b.kind:
        return Shape("dyn", max(a.size, b.size))
    key = _union(a.key, b.key) if a.key and b.key else a.key or b.key
    value = _union(a.value, b.value) if a.value and b.value else a.value or b.value
    return Shape(a.kind, max(a.size, b.size), key, value)


class _Estimator:
    """(cost, shape) of a node, following cel-go's coster; `extra` collects what cel-go does not
    charge but the libraries here build (list concatenation, replace/join results)."""

    def __init__(self, sizes: Sizes) -> None:
        attribute = Shape("dyn", sizes.value)
        ident = Shape("string", sizes.ident)
        domain = Shape("string", sizes.domain)
        inner = Shape("map", sizes.attributes, ident, attribute)
        inner_capacity = Shape("map", sizes.attributes, ident, Shape("quantity", 1))
        self.device = {
            "driver": Shape("string", sizes.driver),
            "attributes": Shape("map", sizes.attributes, domain, inner),
            "capacity": Shape("map", sizes.attributes, domain, inner_capacity),
            "allowMultipleAllocations": _SCALAR,
        }
        self.extra = 0

    def estimate(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        handler = getattr(self, f"_{node.op}")
        cost, shape = handler(node, scope)
        return min(cost, _UNKNOWN), shape

    def _lit(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        return 0, node.shape

    def _ident(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        if node.name in scope:
            return 1, scope[node.name]
        if node.name == "device":
            return 1, Shape("device", len(self.device))
        return 1, _UNKNOWN_SHAPE

    def _select(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        assert node.target is not None
        cost, shape = self.estimate(node.target, scope)
        if shape.kind == "device":
            return cost + 1, self.device.get(node.name, _UNKNOWN_SHAPE)
        if shape.kind == "map":
            return cost + 1, shape.value or _UNKNOWN_SHAPE
        return cost, _UNKNOWN_SHAPE if shape.kind == "unknown" else Shape("dyn", shape.size)

    def _test(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        assert node.target is not None
        cost, _ = self.estimate(node.target, scope)
        return cost + 1, _SCALAR  # presenceTestCost

    def _list(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        cost, elem = 0, None
        for arg in node.args:
            c, s = self.estimate(arg, scope)
            cost += c
            elem = s if elem is None else _union(elem, s)
        return cost + _LIST_CREATE, Shape("list", len(node.args), _SCALAR, elem)

    def _map(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        cost, key, value = 0, None, None
        for index, arg in enumerate(node.args):
            c, s = self.estimate(arg, scope)
            cost += c
            if index % 2:
                value = s if value is None else _union(value, s)
            else:
                key = s if key is None else _union(key, s)
        return cost + _MAP_CREATE, Shape("map", len(node.args) // 2, key, value)

    def _struct(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        cost = sum(self.estimate(arg, scope)[0] for arg in node.args)
        return cost + _STRUCT_CREATE, Shape("dyn", 1)

    def _bind(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        """costBind: the empty range's list (10), the initializer, the body with the variable."""
        init_cost, init = self.estimate(node.args[0], scope)
        body_cost, body = self.estimate(node.args[1], {**scope, node.name: init})
        return _LIST_CREATE + init_cost + body_cost, body

    def _comp(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        """costComprehension over the macro's expansion (cel-go parser/macro.go)."""
        assert node.target is not None
        range_cost, ranged = self.estimate(node.target, scope)
        element = (ranged.value if ranged.kind == "list" else ranged.key) or _UNKNOWN_SHAPE
        if ranged.kind not in ("list", "map"):
            element = _UNKNOWN_SHAPE
        names = [a.name for a in node.args if a.op == "ident"]
        inner = {**scope, names[0]: element}
        count = ranged.size
        body = node.args[1:]
        if len(node.args) == 3 and node.name != "map":  # two variables: key (or index) and value
            inner[names[1] if len(names) > 1 else ""] = ranged.value or _UNKNOWN_SHAPE
            if ranged.kind == "list":
                inner[names[0]] = _SCALAR
            body = node.args[2:]
        costs = [self.estimate(b, inner) for b in body]
        if node.name == "all":  # init true; cond @not_strictly_false(accu); step accu && p
            loop, init, result, shape = 2 + 1 + costs[0][0], 0, 1, _SCALAR
        elif node.name == "exists":  # init false; cond @not_strictly_false(!accu); step accu || p
            loop, init, result, shape = 3 + 1 + costs[0][0], 0, 1, _SCALAR
        elif node.name == "exists_one":  # init 0; cond true; step p ? accu + 1 : accu; accu == 1
            loop, init, result, shape = costs[0][0] + 2, 0, 2, _SCALAR
        elif node.name == "filter":  # init []; step p ? accu + [x] : accu
            loop, init, result = costs[0][0] + 13, _LIST_CREATE, 1
            shape = Shape("list", count, _SCALAR, element)
        else:  # map: init []; step accu + [t] (p ? accu + [t] : accu)
            transform_cost, transform = costs[-1]
            loop = 12 + transform_cost + (costs[0][0] if len(costs) == 2 else 0)
            init, result = _LIST_CREATE, 1
            shape = Shape("list", count, _SCALAR, transform)
        return range_cost + init + result + _mul(count, loop), shape

    def _call(self, node: _Node, scope: dict[str, Shape]) -> tuple[int, Shape]:
        name = node.name
        if name == "_&&_" or name == "_||_":
            return sum(self.estimate(a, scope)[0] for a in node.args), _SCALAR
        if name == "_?_:_":
            cond, _ = self.estimate(node.args[0], scope)
            yes, yes_shape = self.estimate(node.args[1], scope)
            no, no_shape = self.estimate(node.args[2], scope)
            return cond + max(yes, no), _union(yes_shape, no_shape)
        args = [self.estimate(a, scope) for a in node.args]
        cost = sum(c for c, _ in args)
        shapes = [s for _, s in args]
        target = None
        if node.target is not None:
            target_cost, target = self.estimate(node.target, scope)
            cost += target_cost
        fn_cost, shape = self._function(name, target, shapes, node)
        return cost + fn_cost, shape

    def _function(self, name: str, target: Shape | None, args: list[Shape], node: _Node) -> tuple[int, Shape]:
        """A function's own cost and its result's shape (cel-go functionCost, the Kubernetes
        library's EstimateCallCost); 1 and a scalar for what neither names."""
        if name == "_[_]":
            container = args[0]
            if container.kind == "device":
                return 1, _UNKNOWN_SHAPE
            if container.kind in ("map", "list"):
                return 1, container.value or _UNKNOWN_SHAPE
            return 1, _UNKNOWN_SHAPE if container.kind == "unknown" else Shape("dyn", container.size)
        if name == "_+_" and len(args) == 2:
            left, right = args
            if left.kind in ("string", "bytes") or right.kind in ("string", "bytes"):
                size = min(_UNKNOWN, left.size + right.size)
                return _factor(size, _STRING_FACTOR), Shape(left.kind, size)
            if left.kind == "list" or right.kind == "list":
                size = min(_UNKNOWN, left.size + right.size)
                value = _union(left.value, right.value) if left.value and right.value else left.value
                self.extra = min(_UNKNOWN, self.extra + _factor(size, _STRING_FACTOR))
                return 1, Shape("list", size, _SCALAR, value or right.value)
            return 1, _SCALAR
        if name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_") and len(args) == 2:
            left, right = args
            ordering = name not in ("_==_", "_!=_")
            if "quantity" in (left.kind, right.kind) or (ordering and not _text(left, right)):
                return 1, _SCALAR
            smallest = min(left.size, right.size)
            return (_factor(smallest, _STRING_FACTOR) if smallest else 0), _SCALAR
        if name == "_in_" and len(args) == 2:
            container = args[1]
            return (container.size if container.kind == "list" else 1), _SCALAR
        if name == "dyn" and args:
            return 1, args[0]
        text = target.size if target is not None else (args[0].size if args else 1)
        if name in ("matches", "find", "findAll") and args:
            regex = _factor(args[-1].size, _REGEX_FACTOR)
            cost = _mul(_factor(min(_UNKNOWN, text + 1), _STRING_FACTOR), regex)
            shape = _SCALAR if name == "matches" else Shape("string", text)
            return cost, Shape("list", text, _SCALAR, Shape("string", text)) if name == "findAll" else shape
        if name == "contains" and target is not None and args:
            return _mul(_factor(target.size, _STRING_FACTOR), _factor(args[0].size, _STRING_FACTOR)), _SCALAR
        if name in ("startsWith", "endsWith") and args:
            return _factor(args[0].size, _STRING_FACTOR), _SCALAR
        if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            return _factor(target.size, _STRING_FACTOR), Shape("string", target.size)
        if name in ("indexOf", "lastIndexOf") and target is not None:
            if target.kind == "list":
                return _mul(target.size, 1), _SCALAR
            return _factor(target.size, _STRING_FACTOR), _SCALAR
        if name in ("quantity", "isQuantity", "semver", "isSemver") and args:
            kind = {"quantity": "quantity", "semver": "quantity"}.get(name, "scalar")
            return _factor(args[0].size, _STRING_FACTOR), Shape(kind, 1)
        if name == "split" and target is not None:
            limit = _literal_int(node.args[1]) if len(node.args) > 1 else None
            count = limit if limit is not None and limit >= 0 else target.size
            return _factor(target.size, 2 * _STRING_FACTOR), Shape("list", count, _SCALAR, target)
        if name == "replace" and target is not None and len(args) >= 2:
            return self._replace(target, args[0], args[1])
        if name == "join" and target is not None:
            element = target.value.size if target.value else _UNKNOWN
            size = _mul(target.size, element)
            if args:
                size = min(_UNKNOWN, size + _mul(args[0].size, max(target.size - 1, 0)))
            self.extra = min(_UNKNOWN, self.extra + _factor(size, _STRING_FACTOR))
            return _factor(size, _STRING_FACTOR), Shape("string", size)
        if name in ("string", "bytes"):
            return 1, _UNKNOWN_SHAPE if not args or args[0].kind != name else args[0]
        if name in ("charAt",):
            return 1, Shape("string", 1)
        return 1, _SCALAR

    def _replace(self, target: Shape, old: Shape, new: Shape) -> tuple[int, Shape]:
        """The library's `replace` estimate: the shortest text replaced by the longest replacement,
        as often as it fits, is the largest result."""
        if old.low == 0:  # an empty text replaced surrounds every character
            size = min(_UNKNOWN, _mul(min(_UNKNOWN, target.size + 1), new.size) + target.size)
        elif new.size <= old.low:  # no replacement makes the text longer
            size = target.size
        else:
            size = _mul(math.ceil(target.size / old.low), new.size)
        self.extra = min(_UNKNOWN, self.extra + _factor(size, _STRING_FACTOR))
        return _factor(target.size, 2 * _STRING_FACTOR), Shape("string", size)


def _text(left: Shape, right: Shape) -> bool:
    return left.kind in ("string", "bytes") or right.kind in ("string", "bytes")


def _literal_int(node: _Node) -> int | None:
    """A literal int argument (`split(",", 2)`), else None."""
    if node.op != "lit" or not node.value:
        return None
    try:
        return int(node.value.rstrip("uU"), 0)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Estimate:
    cost: int  # cel-go's worst-case cost
    work: int  # that plus what cel-go does not charge (see the module docstring)

    def exceeds(self, limit: int = SELECTOR_MAX_COST) -> bool:
        return self.cost > limit or self.work > limit


@lru_cache(maxsize=2048)
def estimate(expression: str, sizes: Sizes = API_SIZES) -> Estimate | None:
    """The worst-case cost of `expression` on devices no larger than `sizes`; None when it cannot
    be read (the caller's library compiled it: a construct this parser lacks, never a bad source)."""
    try:
        tree = _Parser([t for t in tokenize(expression)]).parse()
        estimator = _Estimator(sizes)
        cost, _ = estimator.estimate(tree, {})
    except (_Unparsable, RecursionError, AttributeError, IndexError):
        return None
    return Estimate(cost, min(_UNKNOWN, cost + estimator.extra))
