"""The pure-Python CEL backend (`cel-python`), used when the Rust library cannot be imported.

Why: `common-expression-language` ships no CPython 3.10 wheel. This backend
evaluates the same rewritten source (cel.py) with the same library functions
and reports failures as the Rust backend would, so `cel.py`'s shared shaping
turns them into the same `CelError` texts. The object protocol mirrors
`cel._RustBackend`: `compile(source)` (ValueError with the message on a parse
error) -> program with `variables()`, `functions()` and `run(variables)`
(plain Python values in and out).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import celpy
from celpy import celtypes
from celpy.evaluation import CELEvalError, Evaluator, base_functions

# celpy logs every evaluation problem; a selector that errors is a finding we report ourselves.
logging.getLogger("celpy").addHandler(logging.NullHandler())
logging.getLogger("celpy").propagate = False

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_NUMBERS = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)


class _FunctionFailure(Exception):
    """Marks an error value made by a library function (its message is already final)."""


# ---------------------------------------------------------------- value conversion


def to_cel(value: Any) -> Any:
    """Plain Python (as handed to the Rust library) -> celpy value."""
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, bytes):
        return celtypes.BytesType(value)
    if isinstance(value, dict):
        return celtypes.MapType({to_cel(k): to_cel(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return celtypes.ListType([to_cel(v) for v in value])
    return value


def from_cel(value: Any) -> Any:
    """celpy value -> plain Python, as the Rust library returns it (BoolType is no `bool`)."""
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, (celtypes.IntType, celtypes.UintType)):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, dict):
        return {from_cel(k): from_cel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_cel(v) for v in value]
    return value


def _wrap(function: Callable[..., Any]) -> Callable[..., Any]:
    """A library function on celpy values; a Python failure becomes an error value with its message."""

    def call(*args: Any) -> Any:
        try:
            return to_cel(function(*(from_cel(a) for a in args)))
        except Exception as err:
            # The Rust library's wording, which `cel._runtime_message` unwraps the same way.
            text = f"Python function call failed: {type(err).__name__}: {err}. Check function arguments"
            return CELEvalError(text, _FunctionFailure, None)

    call.__name__ = getattr(function, "__name__", "function")
    return call


def _overload() -> CELEvalError:
    return CELEvalError("no such overload", TypeError, None)


def _equal(a: Any, b: Any) -> bool:
    """Rust-library equality: numbers by value across int/uint/double, containers deeply, else same type."""
    if isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS):
        return _number(a) == _number(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            any(_same_key(k, j) and _equal(v, b[j]) for j in b) for k, v in a.items()
        )
    if _kind(a) != _kind(b):
        return False
    return bool(a == b)


def _same_key(a: Any, b: Any) -> bool:
    """Map keys are typed: int 1 and uint 1 are different keys."""
    return _kind(a) == _kind(b) and a == b


def _kind(value: Any) -> str:
    """The CEL type of a value (celpy operators may hand back plain `str`/`int`)."""
    for cel_type, name in (
        (celtypes.BoolType, "bool"),
        (bool, "bool"),
        (celtypes.UintType, "uint"),
        (celtypes.DoubleType, "double"),
        (float, "double"),
        (int, "int"),
        (str, "string"),
        (bytes, "bytes"),
        (list, "list"),
        (dict, "map"),
    ):
        if isinstance(value, cel_type):
            return name
    return "null" if value is None else type(value).__name__


def _number(value: Any) -> int | float:
    return float(value) if isinstance(value, celtypes.DoubleType) else int(value)


def _eq(a: Any, b: Any) -> Any:
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    return celtypes.BoolType(_equal(a, b))


def _ne(a: Any, b: Any) -> Any:
    result = _eq(a, b)
    return result if isinstance(result, CELEvalError) else celtypes.BoolType(not result)


def _ordering(name: str) -> Callable[[Any, Any], Any]:
    """`<`, `<=`, `>`, `>=`: int/uint/double compare by value, like the Rust library."""
    base = base_functions[name]
    compare = {
        "_<_": lambda a, b: a < b,
        "_<=_": lambda a, b: a <= b,
        "_>_": lambda a, b: a > b,
        "_>=_": lambda a, b: a >= b,
    }[name]

    def operator(a: Any, b: Any) -> Any:
        if isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS) and type(a) is not type(b):
            return celtypes.BoolType(compare(_number(a), _number(b)))
        return base(a, b)

    return operator


def _and(a: Any, b: Any) -> Any:
    """`&&`: false wins, then the right-hand error, then the left one (the Rust library's order)."""
    if (isinstance(a, celtypes.BoolType) and not a) or (isinstance(b, celtypes.BoolType) and not b):
        return celtypes.BoolType(False)
    return _logic_rest(a, b, True)


def _or(a: Any, b: Any) -> Any:
    """`||`: true wins, then the right-hand error, then the left one (the Rust library's order)."""
    if (isinstance(a, celtypes.BoolType) and a) or (isinstance(b, celtypes.BoolType) and b):
        return celtypes.BoolType(True)
    return _logic_rest(a, b, False)


def _logic_rest(a: Any, b: Any, value: bool) -> Any:
    if isinstance(b, CELEvalError):
        return b
    if isinstance(a, CELEvalError):
        return a
    if isinstance(a, celtypes.BoolType) and isinstance(b, celtypes.BoolType):
        return celtypes.BoolType(value)
    return _overload()


def _conditional(cond: Any, left: Any, right: Any) -> Any:
    if isinstance(cond, CELEvalError):
        return cond
    if not isinstance(cond, celtypes.BoolType):
        return _overload()
    return left if cond else right


_MAP_KEY_ERROR = "Value of type float cannot be used as a map key. Keys must be int, uint, bool or string."


def _index(container: Any, index: Any) -> Any:
    """`c[i]` with the Rust library's bounds, key typing and messages."""
    for value in (container, index):
        if isinstance(value, CELEvalError):
            return value
    if isinstance(container, list):
        if isinstance(index, celtypes.DoubleType):
            return CELEvalError("Unexpected type: got 'double', want 'int|uint'.", RuntimeError, None)
        if not isinstance(index, (celtypes.IntType, celtypes.UintType)) or isinstance(index, bool):
            return _overload()
        if not 0 <= int(index) < len(container):
            return CELEvalError(f"index out of bounds: {int(index)}", IndexError, None)
        return container[int(index)]
    if isinstance(container, dict):
        if isinstance(index, celtypes.DoubleType):
            return CELEvalError(_MAP_KEY_ERROR, RuntimeError, None)
        for key, value in container.items():
            if _same_key(key, index):
                return value
        return CELEvalError("no such key", KeyError, (from_cel(index),))
    return _overload()


def _in(item: Any, container: Any) -> Any:
    for value in (item, container):
        if isinstance(value, CELEvalError):
            return value
    if isinstance(container, list):
        return celtypes.BoolType(any(_equal(item, x) for x in container))
    if isinstance(container, dict):
        if isinstance(item, celtypes.DoubleType):
            return CELEvalError(_MAP_KEY_ERROR, RuntimeError, None)
        return celtypes.BoolType(any(_same_key(item, k) for k in container))
    return _overload()


_INT64 = (-(2**63), 2**63 - 1)
_UINT64 = (0, 2**64 - 1)


def _arithmetic(name: str, label: str) -> Callable[[Any, Any], Any]:
    """`+ - *` with the Rust library's overflow message; mixed number types have no overload."""
    base = base_functions[name]

    def operator(a: Any, b: Any) -> Any:
        for value in (a, b):
            if isinstance(value, CELEvalError):
                return value
        if isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS) and type(a) is not type(b):
            return _overload()
        if (
            label in ("add", "sub", "mul")
            and isinstance(a, (celtypes.IntType, celtypes.UintType))
            and (type(a) is type(b))
        ):
            exact = {"add": int(a) + int(b), "sub": int(a) - int(b), "mul": int(a) * int(b)}[label]
            low, high = _UINT64 if isinstance(a, celtypes.UintType) else _INT64
            if not low <= exact <= high:
                return CELEvalError(
                    f"Arithmetic overflow in '{label}' on {int(a)} and {int(b)}.", RuntimeError, None
                )
        return base(a, b)

    return operator


def _size(value: Any) -> Any:
    """`size`: the Rust library counts a string's UTF-8 bytes, not its code points."""
    if isinstance(value, celtypes.StringType):
        return celtypes.IntType(len(str(value).encode()))
    return base_functions["size"](value)


_OPERATORS: dict[str, Callable[..., Any]] = {
    "_==_": _eq,
    "_!=_": _ne,
    "_<_": _ordering("_<_"),
    "_<=_": _ordering("_<=_"),
    "_>_": _ordering("_>_"),
    "_>=_": _ordering("_>=_"),
    "_&&_": _and,
    "_||_": _or,
    "_?_:_": _conditional,
    "_[_]": _index,
    "_in_": _in,
    "_+_": _arithmetic("_+_", "add"),
    "_-_": _arithmetic("_-_", "sub"),
    "_*_": _arithmetic("_*_", "mul"),
    "_/_": _arithmetic("_/_", "div"),
    "_%_": _arithmetic("_%_", "rem"),
    "size": _size,
}


class _Evaluator(Evaluator):
    """celpy's interpreter, with the Rust library's error propagation for literals and `has()`."""

    def sub_evaluator(self, ast: Any) -> Evaluator:
        """Macro bodies (`all`, `map`, ...) evaluate with these rules too."""
        return _Evaluator(ast, activation=self.activation)

    def primary(self, tree: Any) -> Any:
        result = super().primary(tree)
        child = tree.children[0]
        if getattr(child, "data", None) == "list_lit" and isinstance(result, list):
            return next((v for v in result if isinstance(v, CELEvalError)), result)
        if getattr(child, "data", None) == "map_lit" and isinstance(result, dict):
            return next((v for v in result.values() if isinstance(v, CELEvalError)), result)
        return result

    def macro_has_eval(self, exprlist: Any) -> Any:
        """`has(e.f)`: an error in `e` is that error; `e` not a map is no overload; else `f in e`."""
        node = exprlist
        while getattr(node, "data", None) != "member_dot" and len(getattr(node, "children", ())) == 1:
            node = node.children[0]
        if getattr(node, "data", None) != "member_dot":
            return super().macro_has_eval(exprlist)
        target = self.visit(node.children[0])
        if isinstance(target, CELEvalError):
            return target
        if not isinstance(target, dict):
            return _overload()
        return celtypes.BoolType(str(node.children[1]) in target)


class _Runner(celpy.InterpretedRunner):
    def evaluate(self, context: Any) -> Any:
        return _Evaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)


# ---------------------------------------------------------------- programs


class CelpyProgram:
    """A parsed expression bound to the library functions."""

    def __init__(self, tree: Any, runner: Any) -> None:
        self._tree = tree
        self._runner = runner
        self._variables, self._functions = _names(tree)

    def variables(self) -> list[str]:
        """Identifiers the expression reads (macro variables included), like the Rust `variables()`."""
        return list(self._variables)

    def functions(self) -> list[str]:
        """Functions and methods called, macros excluded, like the Rust `functions()`."""
        return list(self._functions)

    def run(self, variables: dict[str, Any]) -> Any:
        """Evaluate; failures raise the exception types `cel._runtime_message` words for the Rust backend."""
        activation = {name: to_cel(value) for name, value in variables.items()}
        try:
            result = self._runner.evaluate(activation)
        except CELEvalError as err:
            raise _rust_exception(err) from None
        if isinstance(result, CELEvalError):
            raise _rust_exception(result)
        return from_cel(result)


class CelpyBackend:
    """Compiles rewritten DRA selectors with cel-python."""

    name = "celpy"

    def __init__(self, functions: dict[str, Callable[..., Any]]) -> None:
        self._env = celpy.Environment(runner_class=_Runner)
        self._functions: dict[str, Any] = {name: _wrap(f) for name, f in functions.items()}
        self._functions.update(_OPERATORS)

    def compile(self, source: str) -> CelpyProgram:
        try:
            tree = self._env.compile(source)
        except Exception as err:
            raise ValueError(_syntax_message(source, err)) from None
        for node in tree.iter_subtrees():
            if node.data in ("dot_ident", "dot_ident_arg"):  # `.x`: the Rust parser rejects it
                meta = node.meta
                line, column = getattr(meta, "line", 1), getattr(meta, "column", 1)
                dot = _PlacedSyntaxError("mismatched input '.'", line, column)
                raise ValueError(_syntax_message(source, dot))
        return CelpyProgram(tree, self._env.program(tree, functions=self._functions))


class _PlacedSyntaxError(SyntaxError):
    """A syntax error with the `line` and `column` that lark's errors carry and `_syntax_message` reads."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def _syntax_message(source: str, err: Exception) -> str:
    """A parse error in the cel-go layout `ERROR: <input>:L:C: Syntax error: ...` plus the caret lines."""
    line = getattr(err, "line", None) or 1
    column = getattr(err, "column", None) or 1
    detail = str(err.args[0] if err.args else err).strip().splitlines()
    reason = next((d for d in detail if d.strip() and set(d.strip()) != {"^"}), "syntax error")
    if reason.strip() == source.splitlines()[line - 1].strip() if source.splitlines() else False:
        reason = "mismatched input"
    text = source.splitlines()[line - 1] if source.splitlines() else ""
    return f"ERROR: <input>:{line}:{column}: Syntax error: {reason}\n| {text}\n| {'.' * (column - 1)}^"


def _names(tree: Any) -> tuple[list[str], list[str]]:
    """(identifiers, called function names) of a parse tree."""
    variables: list[str] = []
    functions: list[str] = []
    for node in tree.iter_subtrees_topdown():
        if node.data == "ident":
            variables.append(str(node.children[0]))
        elif node.data == "ident_arg":
            name = str(node.children[0])
            if name != "has":
                functions.append(name)
        elif node.data in ("member_dot_arg", "dot_ident_arg"):
            name = str(node.children[1] if node.data == "member_dot_arg" else node.children[0])
            if name not in _MACROS:
                functions.append(name)
    return sorted(set(variables)), sorted(set(functions))


# ---------------------------------------------------------------- errors


def _rust_exception(err: CELEvalError) -> Exception:
    """The exception the Rust library raises for the same failure (see `cel._runtime_message`)."""
    message, kind, args = (list(err.args) + [None, None, None])[:3]
    text = str(message)
    if kind is _FunctionFailure:
        return RuntimeError(text)
    if kind is KeyError:
        if text.startswith("undeclared reference to "):
            name = args[0] if args else text.split("'")[1]
            return RuntimeError(
                f"Undefined variable or function: '{name}'. Check that the variable is defined in the"
                " context or that the function name is spelled correctly."
            )
        if text.startswith("no such member in mapping: "):
            return KeyError(text.removeprefix("no such member in mapping: ").strip("'\""))
        return KeyError(str(args[0]) if args else text)
    if kind is ZeroDivisionError:
        return ZeroDivisionError("division by zero")
    if kind is IndexError:
        return IndexError(text)
    if kind is RuntimeError:
        return RuntimeError(text)
    if kind is TypeError or "overload" in text:
        return TypeError("No such overload")
    return RuntimeError(text)
