"""Every error message and hint the plugin raises, read from its source (tests/cli/test_korean_cli.py).

Why a reader of its own: a raise site whose message is not a literal (`raise InputError(message)`,
`NotFoundError(missing_rct_message(...))`, `f"... {_file_type(mode)}"`) slipped past a check that
read literals only, and a value that holds words (`{reason}` from a helper, `{exc}` of a selector
error, `{exc.strerror}`) was filled with a name, so its English never showed. Here a message is
followed as far as the source spells it:

- the error classes are every subclass of RblnError in the package (their `message` argument found
  by their `__init__`: ApiRefusal's is the fourth) and click's exceptions (`message`, `hint`);
- a text is a literal, an f-string, `+` of texts, `a or b`, `a if c else b`, a string method of a
  text (`.strip()` keeps its words), a local variable (every assignment, a `for` over literals), a
  helper of the package (its `return`s), or a caught exception of the package (the messages its class
  is raised with); `sentence(...)` is the catalog's, which has its own tests;
- each value of an f-string is filled with a name (`npu-node-1`), then in turn with each text it may
  hold (PROSE_VALUES: what a value the source cannot spell holds, the OS's error texts among them).

A message the source does not spell must be in UNREAD with why and where its words are built;
a new one fails the test until it is read or named there.
"""

from __future__ import annotations

import ast
import errno
import inspect
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "kubectl_rbln"
VALUE = "npu-node-1"  # what a value that is a name reads as
CATALOG = object()  # a message from catalog.sentence: the catalog's tests check it

# The OS's error texts the plugin shows after a path or an address (`cannot write X: Permission
# denied`): those a file, a folder or a listening socket meets.
ERRNOS = (
    errno.ENOENT,
    errno.EACCES,
    errno.EPERM,
    errno.EISDIR,
    errno.ENOTDIR,
    errno.EROFS,
    errno.ENOSPC,
    errno.EEXIST,
    errno.ENAMETOOLONG,
    errno.ELOOP,
    errno.EMFILE,
    errno.EIO,
    errno.ENXIO,
    errno.EINVAL,
    errno.EADDRINUSE,
    errno.EADDRNOTAVAIL,
)
STRERRORS = tuple(os.strerror(code) for code in ERRNOS)
# json.JSONDecodeError.msg, CPython's json/decoder.py and Modules/_json.c (3.11-3.13)
JSON_PROBLEMS = (
    "Expecting value",
    "Expecting property name enclosed in double quotes",
    "Expecting ',' delimiter",
    "Expecting ':' delimiter",
    "Unterminated string starting at",
    "Invalid control character at",
    "Invalid \\escape",
    "Invalid \\uXXXX escape",
    "Extra data",
    "Illegal trailing comma before end of object",
    "Illegal trailing comma before end of array",
)

# An interpolated value the source cannot spell, by its expression: the texts it may hold.
PROSE_VALUES: dict[str, tuple[str, ...]] = {
    "exc.strerror": STRERRORS,
    "exc.msg": JSON_PROBLEMS,
    "snapshot.source": ("files dump.json", "files dump.json, more.yaml", "context prod-east"),
}

# A value that is another program's words, shown as it wrote them (a name, for this test's purpose).
QUOTED: dict[str, str] = {
    "_status_message(reply.body)": "the API server's Status message (RBAC's `pods is forbidden: ...`)",
}

# Messages the source does not spell where they are raised: (file, expression) -> why, and the
# package's functions (module:function) whose literal texts are what the message holds.
UNREAD: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("kubectl_rbln/cluster/follow.py", "item.message"): (
        "a watch's Status message: the API server's words, quoted as it wrote them",
        (),
    ),
    ("kubectl_rbln/cluster/live.py", "abandoned.message"): (
        "a ReadAbandoned's message again, checked where it is raised",
        (),
    ),
    ("kubectl_rbln/app/pod_devices.py", "'; '.join(missing) + f' ({snapshot.source})'"): (
        "the missing Pods, each worded by find_pods",
        ("kubectl_rbln.diagnose.context:find_pods",),
    ),
}


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def where(self) -> str:
        return str(self.path.relative_to(REPO))


@cache
def modules() -> dict[str, Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        out[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8")))
    return out


@cache
def error_classes() -> dict[str, int]:
    """Class name -> the index of its `message` argument: RblnError's family, then click's exceptions."""
    found: dict[str, int] = {"RblnError": 0}
    classes = [
        node for m in modules().values() for node in ast.walk(m.tree) if isinstance(node, ast.ClassDef)
    ]
    grew = True
    while grew:
        grew = False
        for node in classes:
            bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in found]
            if bases and node.name not in found:
                found[node.name] = _message_index(node, found[bases[0]])
                grew = True
    for name in dir(click.exceptions):
        value = getattr(click.exceptions, name)
        if inspect.isclass(value) and issubclass(value, click.ClickException):
            params = list(inspect.signature(value.__init__).parameters)[1:]
            found.setdefault(name, params.index("message") if "message" in params else -1)
    return found


def _message_index(node: ast.ClassDef, inherited: int) -> int:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            names = [a.arg for a in item.args.args][1:]
            return names.index("message") if "message" in names else inherited
    return inherited


@cache
def repo_exceptions() -> dict[str, str]:
    """Exception classes of the package that are no RblnError (SelectorError, CelError): name -> module."""
    out = {}
    for module in modules().values():
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.ClassDef) or node.name in error_classes():
                continue
            if any(isinstance(b, ast.Name) and b.id.endswith(("Error", "Exception")) for b in node.bases):
                out[node.name] = module.name
    return out


@dataclass(frozen=True)
class Site:
    module: Module
    line: int
    node: ast.expr  # the message or hint expression
    scope: ast.AST  # the function (or module) it is written in

    @property
    def where(self) -> str:
        return f"{self.module.where}:{self.line}"

    @property
    def expression(self) -> str:
        return ast.unparse(self.node)


def _scopes(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, the innermost function holding it, else the module) for every node."""
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        yield node, scope
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else scope
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _class_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "click":
        return func.attr
    return None


def sites() -> Iterator[Site]:
    """Every message and hint given to an error class, where it is written."""
    classes = error_classes()
    for module in modules().values():
        for node, scope in _scopes(module.tree):
            if not isinstance(node, ast.Call):
                continue
            name = _class_name(node.func)
            if name not in classes or name in repo_exceptions():
                continue
            index = classes[name]
            texts = [node.args[index]] if 0 <= index < len(node.args) else []
            texts += [k.value for k in node.keywords if k.arg in ("message", "hint")]
            for text in texts:
                yield Site(module, node.lineno, text, scope)


# ------------------------------------------------------------------ what a text may read


class Unread(Exception):
    """The source does not spell this text."""


@dataclass(frozen=True)
class Reader:
    module: Module
    scope: ast.AST
    depth: int = 0
    resolving: frozenset[str] = frozenset()  # the local names being followed (`x = x + "..."`)
    bound: tuple[tuple[str, str], ...] = ()  # names one iteration of a `for` over literals binds

    def at(self, module: Module, scope: ast.AST) -> Reader | None:
        return Reader(module, scope, self.depth + 1) if self.depth < 4 else None

    def texts(self, node: ast.expr, whole: bool = False) -> list[str]:
        """The texts `node` may read, the first a plain one; `whole`: it is the message itself (a
        parameter or an unknown call there is unread, where as a value it is a name)."""
        if isinstance(node, ast.Constant):
            return [node.value if isinstance(node.value, str) else str(node.value)]
        if isinstance(node, ast.JoinedStr):
            return self._joined(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.texts(node.left, whole), self.texts(node.right, whole)
            return [left[0] + right[0]] + [t + right[0] for t in left[1:]] + [left[0] + t for t in right[1:]]
        if isinstance(node, ast.BoolOp):  # `a or "none"`: an empty `a` is never what shows
            last = len(node.values) - 1
            return _union(
                [t for t in self.texts(value, whole) if t or i == last] for i, value in enumerate(node.values)
            )
        if isinstance(node, ast.IfExp):
            return _union([self.texts(node.body, whole), self.texts(node.orelse, whole)])
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and isinstance(node.value, ast.Name)
        ):
            cut = slice(*(_number(x) for x in (node.slice.lower, node.slice.upper, node.slice.step)))
            return [t if t == VALUE else t[cut] for t in self.texts(node.value)]  # `key[:-1]`
        source = ast.unparse(node)
        if source in QUOTED:
            return [VALUE]
        if source in PROSE_VALUES:
            return [VALUE, *PROSE_VALUES[source]]
        if isinstance(node, ast.Name):
            return self._name(node.id, whole)
        if isinstance(node, ast.Call):
            return self._call(node, whole)
        if whole:
            raise Unread(source)
        return [VALUE]

    def _joined(self, node: ast.JoinedStr) -> list[str]:
        """An f-string; names a `for` over literal tuples binds together (`for key, flag in (("clusters",
        "--cluster"), ...)`) take one iteration's values at a time, as the program gives them."""
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if not self.bound:
            for iterations in _loop_bindings(self.scope):
                if used & set(iterations[0]):
                    return _union(
                        Reader(self.module, self.scope, self.depth, self.resolving, tuple(b.items()))._joined(
                            node
                        )
                        for b in iterations
                    )
        return self._joined_once(node)

    def _joined_once(self, node: ast.JoinedStr) -> list[str]:
        parts: list[list[str]] = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                texts = self.texts(value.value)
                parts.append([f"'{t}'" if value.conversion == ord("r") else t for t in texts])
            else:
                parts.append([str(getattr(value, "value", ""))])
        plain = "".join(p[0] for p in parts)
        out = [plain]
        for index, options in enumerate(parts):
            for option in options[1:]:
                out.append("".join(option if i == index else p[0] for i, p in enumerate(parts)))
        return out

    def _name(self, name: str, whole: bool) -> list[str]:
        for bound, value in self.bound:
            if bound == name:
                return [value]
        assigned = list(_assignments(self.scope, name)) if name not in self.resolving else []
        if assigned:
            inner = Reader(self.module, self.scope, self.depth, self.resolving | {name})
            found: list[list[str]] = []
            for value, index in assigned:
                if index == LOOP:  # `for test, kind in ((stat.S_ISFIFO, "FIFO"), ...)`: its literals
                    found.append([VALUE, *(c.value for c in ast.walk(value) if _is_text(c))])
                elif index is not None and isinstance(value, ast.Call):  # `verb, what = describe(path)`
                    found.append(inner._unpacked(value, index))
                else:
                    found.append(inner.texts(value, whole))
            return _union(found)
        caught = _caught(self.scope, name)
        if caught:
            return [VALUE, *(t for cls in caught for t in raised_with(cls))]
        if whole:
            raise Unread(name)
        return [VALUE]

    def _unpacked(self, call: ast.Call, index: int) -> list[str]:
        """Item `index` of the tuples a package function returns."""
        target = _function(self.module, call.func)
        reader = self.at(*target) if target is not None else None
        if target is None or reader is None:
            return [VALUE]
        items = [
            r.value.elts[index]
            for r in ast.walk(target[1])
            if isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple) and len(r.value.elts) > index
        ]
        return _union([[VALUE], *(reader.texts(item) for item in items)])

    def _call(self, node: ast.Call, whole: bool) -> list[str]:
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "sentence") or (
            isinstance(func, ast.Attribute) and func.attr == "sentence"
        ):
            raise _Catalog
        if isinstance(func, ast.Attribute) and func.attr in STRING_METHODS:
            return self.texts(func.value, whole)  # `.strip()`, `.removeprefix(...)`: the same words
        if isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Dict):
            options = [*func.value.values, *node.args[1:2]]  # `{403: "forbidden"}.get(status, "refused")`
            return _union([[VALUE], *(self.texts(v) for v in options if v is not None)])
        if isinstance(func, ast.Attribute) and func.attr == "join":
            return [VALUE]  # names joined: values
        target = _function(self.module, func)
        if target is None:
            if whole:
                raise Unread(ast.unparse(node))
            return [VALUE]
        module, function = target
        if function.name in WRAPPERS and node.args:
            return self.texts(node.args[0], whole)
        reader = self.at(module, function)
        if reader is None:
            if whole:
                raise Unread(f"{ast.unparse(node)}: too deep")
            return [VALUE]
        returns = [
            r.value
            for r in ast.walk(function)
            if isinstance(r, ast.Return) and r.value is not None and not _is_none(r.value)
        ]
        if not returns:
            raise Unread(ast.unparse(node))
        return _union(reader.texts(value, whole) for value in returns)


class _Catalog(Exception):
    """The message is a catalog sentence."""


# Helpers that shorten, mask or flatten the text they are given, adding no words of their own
# (their own fallback, such as `_short`'s "unknown error", is read from their source too).
WRAPPERS = frozenset({"_short", "_scrub", "redact", "strip_controls"})
STRING_METHODS = frozenset(
    {"strip", "rstrip", "lstrip", "removeprefix", "removesuffix", "replace", "lower", "capitalize"}
)


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(node.value.strip())


def _union(groups: Iterable[list[str]]) -> list[str]:
    """The texts of every group, each once, in order."""
    out: list[str] = []
    for group in groups:
        for text in group:
            if text not in out:
                out.append(text)
    return out or [VALUE]


LOOP = -1  # an assignment by a `for` loop


def _number(node: ast.expr | None) -> int | None:
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        return -int(node.operand.value)
    return int(node.value) if isinstance(node, ast.Constant) else None


def _loop_bindings(scope: ast.AST) -> Iterator[list[dict[str, str]]]:
    """For each `for a, b in ((lit, lit), ...)` of `scope`: per iteration, the literal texts it binds."""
    for node in ast.walk(scope):
        if not (isinstance(node, ast.For) and isinstance(node.target, ast.Tuple)):
            continue
        if not isinstance(node.iter, (ast.Tuple, ast.List)):
            continue
        names = [t.id if isinstance(t, ast.Name) else "" for t in node.target.elts]
        iterations = []
        for row in node.iter.elts:
            if isinstance(row, ast.Tuple) and len(row.elts) == len(names):
                iterations.append(
                    {n: v.value for n, v in zip(names, row.elts, strict=True) if n and _is_text(v)}  # type: ignore[attr-defined]
                )
        if iterations and all(iterations):
            yield iterations


def _assignments(scope: ast.AST, name: str) -> Iterator[tuple[ast.expr, int | None]]:
    """(value, how) of every assignment to `name` in `scope` (not in functions inside it): how is
    None (`name = value`), the index of a tuple item (`a, name = f()`), or LOOP (`for name in ...`)."""
    for node, owner in _scopes(scope):
        if owner is not scope and node is not scope:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    yield node.value, None
                elif isinstance(target, ast.Tuple):
                    for index, item in enumerate(target.elts):
                        if not (isinstance(item, ast.Name) and item.id == name):
                            continue
                        if isinstance(node.value, ast.Tuple) and index < len(node.value.elts):
                            yield node.value.elts[index], None
                        else:
                            yield node.value, index
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            if node.target.id == name and node.value is not None:
                yield node.value, None
        elif isinstance(node, ast.For) and name in {
            n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)
        }:
            yield node.iter, LOOP


def _caught(scope: ast.AST, name: str) -> list[str]:
    """The package's exception classes caught as `name` (`except SelectorError as exc`)."""
    out = []
    for node in ast.walk(scope):
        if isinstance(node, ast.ExceptHandler) and node.name == name and node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            out += [t.id for t in types if isinstance(t, ast.Name) and t.id in repo_exceptions()]
    return out


@cache
def raised_with(cls: str) -> tuple[str, ...]:
    """The texts the package raises `cls` with (`SelectorError(f"unable to parse ...")`)."""
    out: list[str] = []
    for module in modules().values():
        for node, scope in _scopes(module.tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == cls
                and node.args
            ):
                try:
                    out += Reader(module, scope, 3).texts(node.args[0])
                except (Unread, _Catalog):
                    continue
    return tuple(t for t in out if t != VALUE)


def _function(module: Module, func: ast.expr) -> tuple[Module, ast.FunctionDef] | None:
    """The package's function a call names: this module's, a method of its classes (`self._x`), or
    one imported from the package."""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
    ):
        return _defined(module, func.attr, methods=True)
    if not isinstance(func, ast.Name):
        return None
    found = _defined(module, func.id, methods=False)
    if found is not None:
        return found
    for node in ast.walk(module.tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubectl_rbln"):
            for alias in node.names:
                if (alias.asname or alias.name) == func.id and node.module in modules():
                    return _defined(modules()[node.module], alias.name, methods=False)
    return None


def _defined(module: Module, name: str, *, methods: bool) -> tuple[Module, ast.FunctionDef] | None:
    body = module.tree.body
    if methods:
        body = [item for node in body if isinstance(node, ast.ClassDef) for item in node.body]
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return module, node
    return None


def function_texts(qualified: str) -> list[str]:
    """Every literal text and f-string of a function (`module:function`): what an UNREAD message holds."""
    module_name, _, name = qualified.partition(":")
    module = modules()[module_name]
    found = _defined(module, name, methods=False)
    assert found is not None, qualified
    function = found[1]
    reader = Reader(module, function, 3)
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    inside = {id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values}
    out: list[str] = []
    for node in nodes:
        if isinstance(node, ast.JoinedStr) or (
            _is_text(node) and id(node) not in inside and " " in node.value
        ):  # type: ignore[attr-defined]
            out += reader.texts(node)  # type: ignore[arg-type]
    return out


@dataclass(frozen=True)
class Message:
    where: str
    text: str


def messages() -> tuple[list[Message], list[str]]:
    """(every text an error or hint may read, the sites the source does not spell and UNREAD lacks)."""
    out: list[Message] = []
    unread: list[str] = []
    used: set[tuple[str, str]] = set()
    for site in sites():
        key = (site.module.where, site.expression)
        if key in UNREAD:
            used.add(key)
            out += [Message(site.where, t) for f in UNREAD[key][1] for t in function_texts(f)]
            continue
        try:
            texts = Reader(site.module, site.scope).texts(site.node, whole=True)
        except _Catalog:
            continue
        except Unread as exc:
            unread.append(f"{site.where}: {site.expression} (cannot read {exc})")
            continue
        out += [Message(site.where, text) for text in texts]
    unread += [f"UNREAD {key}: no such site any more" for key in UNREAD if key not in used]
    return out, unread
