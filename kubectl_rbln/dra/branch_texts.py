"""Every text a normalizer could compare a value with, read from its code: what a template hole never holds.

Why (issue 26): a template (cluster/wire_templates.py) reads an item from the representative's model
with only the holes' values put in, proven with a few marker values per hole. A marker shows where a
value is copied, not that the normalizer never tests it against one text: `mode == "ExactCount"`
gives every marker the same branch, so an item holding "ExactCount" in a template made from "All"
would be read with the other branch (tests/unit/cluster/test_template_holes.py found exactly that).
A template therefore never reads an item whose used string hole holds a text the normalizer's code
names, nor is one made from such a value: those items are decoded. The texts are found in the code
itself (every string constant of the normalizers and of every function, class, module-level
constant and module they reach by name), so a new branch is covered the moment it is written.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

_PACKAGE = "kubectl_rbln."


def branch_texts(roots: Iterable[Callable[..., Any]]) -> frozenset[bytes]:
    """The UTF-8 of every string constant reachable from `roots` through the package's own code."""
    texts: set[str] = set()
    seen: set[int] = set()
    work: list[Any] = list(roots)
    while work:
        obj = work.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, type):
            work += [_function(member) for member in vars(obj).values() if _function(member) is not None]
            continue
        code = getattr(obj, "__code__", None)
        if not isinstance(code, types.CodeType):
            continue
        space = getattr(obj, "__globals__", {})
        for names, constants in _codes(code):
            _constants(constants, texts)
            for name in names:
                _reach(space.get(name), names, texts, work)
    return frozenset(text.encode("utf-8", "surrogatepass") for text in texts)


def _function(member: Any) -> Any:
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if isinstance(member, property):
        member = member.fget
    return member if isinstance(member, types.FunctionType) else None


def _codes(code: types.CodeType) -> Iterable[tuple[tuple[str, ...], tuple[Any, ...]]]:
    """(names, constants) of a code object and of every code object nested in it."""
    stack = [code]
    while stack:
        current = stack.pop()
        yield current.co_names, current.co_consts
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]


def _constants(values: Iterable[Any], texts: set[str]) -> None:
    for value in values:
        if isinstance(value, str):
            texts.add(value)
        elif isinstance(value, (tuple, frozenset, set, list)):
            _constants(value, texts)
        elif isinstance(value, dict):
            _constants(value.keys(), texts)
            _constants(value.values(), texts)


def _reach(value: Any, names: tuple[str, ...], texts: set[str], work: list[Any]) -> None:
    """What a name of the code stands for: a function or class of the package to read, a constant's
    texts, or a module of the package whose attributes the code may name."""
    if value is None:
        return
    if isinstance(value, types.ModuleType):
        if value.__name__.startswith(_PACKAGE):
            for name in names:
                if name in vars(value):
                    _reach(vars(value)[name], (), texts, work)
        return
    value = getattr(value, "__wrapped__", value)  # functools.cache and the like
    if isinstance(value, (types.FunctionType, type)):
        if getattr(value, "__module__", "").startswith(_PACKAGE):
            work.append(value)
        return
    _constants((value,), texts)
