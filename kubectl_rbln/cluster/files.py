"""Read what people already have: `kubectl get -o json|yaml` output, dumps, folders, stdin.

Returns plain Kubernetes object dicts, whatever the wrapping (a `List`, a typed
`XxxList` from `kubectl get --raw`, single objects, multi-document YAML). Nothing
here interprets the objects: that is the Snapshot's job.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from kubectl_rbln.errors import InputError

# A YAML document that expands past this many nodes through aliases is refused:
# real `kubectl get -o yaml` output never uses aliases, a "billion laughs" bomb does.
MAX_EXPANDED_YAML_NODES = 2_000_000
BUNDLE_SUFFIXES = (".json", ".yaml", ".yml")

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _GuardedLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that counts the expanded size of each document before building it."""

    def construct_document(self, node: yaml.Node) -> Any:
        _check_expansion(node)
        return super().construct_document(node)


def _check_expansion(root: yaml.Node) -> None:
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if done or not children:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            if sizes[id(node)] > MAX_EXPANDED_YAML_NODES:
                raise yaml.YAMLError(
                    f"document expands past {MAX_EXPANDED_YAML_NODES:,} nodes through aliases; refused"
                )
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files named directly, files of named folders (sorted, recursive), or `-` for stdin."""
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                str(p) for p in path.rglob("*") if p.is_file() and p.suffix.lower() in BUNDLE_SUFFIXES
            )
            if not found:
                raise InputError(f"{raw}: folder holds no .json, .yaml or .yml file")
            out.extend(found)
        elif path.exists():
            out.append(str(path))
        else:
            raise InputError(f"{raw}: no such file or folder")
    return out


def read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None


def parse_documents(text: str, name: str) -> list[Any]:
    """JSON when it looks like JSON, else (multi-document) YAML; errors name the position."""
    stripped = text.lstrip()
    if not stripped:
        return []
    if stripped[0] in "{[":
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as exc:
            if name.endswith(".json"):
                raise InputError(
                    f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
                ) from None
        except RecursionError:
            raise InputError(f"{name}: JSON nests too deeply") from None
    try:
        return [doc for doc in yaml.load_all(text, Loader=_GuardedLoader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{name}: invalid YAML{where}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:  # e.g. a control character: PyYAML's text spans lines, ours does not
        raise InputError(f"{name}: invalid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise InputError(f"{name}: YAML nests too deeply") from None


def documents_of(text: str, name: str) -> list[Any]:
    """The documents of one input. One with none (0 bytes, only comments or `---`) is an input error:
    it is what `kubectl get ... > FILE` leaves after a failed call, and read as a cluster it would
    be one with nothing wrong."""
    documents = parse_documents(text, name)
    if not documents:
        raise InputError(f"{name}: {_nothing_in(text, name)}: no Kubernetes object to read")
    return documents


def _nothing_in(text: str, name: str) -> str:
    if not text:
        return "nothing on stdin" if name == "<stdin>" else "the file is empty (0 bytes)"
    if not text.strip():
        return "only blank lines"
    return "only comments or empty YAML documents"


def no_objects(names: list[str]) -> InputError:
    """Every input read and not one object in them: empty lists (`"items": []`) only."""
    if len(names) == 1:
        return InputError(f"{names[0]}: an empty list (no item): no Kubernetes object to read")
    return InputError(f"{', '.join(names)}: empty lists (no item in any): no Kubernetes object to read")


def flatten(doc: Any, name: str) -> Iterator[dict[str, Any]]:
    """Objects out of a List, a typed XxxList (items may lack kind), or a single object."""
    if isinstance(doc, list):
        for item in doc:
            yield from flatten(item, name)
        return
    if not isinstance(doc, dict):
        raise InputError(f"{name}: expected Kubernetes objects, found a {type(doc).__name__}")
    kind = doc.get("kind")
    items = doc.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        item_kind = kind[: -len("List")] if kind != "List" else None
        for index, item in enumerate(items):
            items[index] = None  # the caller holds it now: once normalized, it can be freed
            if not isinstance(item, dict):
                raise InputError(f"{name}: a {kind} item is a {type(item).__name__}, not an object")
            if item_kind and "kind" not in item:
                item = {"kind": item_kind, "apiVersion": doc.get("apiVersion", ""), **item}
            yield item
        return
    if not isinstance(kind, str) or not kind:
        raise InputError(f"{name}: an object without `kind` (is this `kubectl get -o json` output?)")
    yield doc


def iter_objects(paths: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Every object of every input, in the order given, one at a time: a consumer that normalizes and
    drops each object keeps only one parsed file in memory, not the file and all its objects. Inputs
    that hold no object at all are an input error (`documents_of`, `no_objects`)."""
    names: list[str] = []
    found = 0
    for path in expand_paths(paths):
        name = "<stdin>" if path == "-" else os.fspath(path)
        names.append(name)
        documents = documents_of(read_text(path), name)
        documents.reverse()
        while documents:  # pop: a document done with is not referenced from here any more
            for obj in flatten(documents.pop(), name):
                found += 1
                yield obj
    if not found:
        raise no_objects(names)


def load_objects(paths: Iterable[str]) -> list[dict[str, Any]]:
    """Every object of every input, in the order given."""
    return list(iter_objects(paths))
