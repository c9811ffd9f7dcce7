"""Read what people already have: `kubectl get -o json|yaml` output, dumps, folders, stdin.

Returns plain Kubernetes object dicts, whatever the wrapping (a `List`, a typed
`XxxList` from `kubectl get --raw`, single objects, multi-document YAML). Nothing
here interprets the objects: that is the Snapshot's job.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from kubectl_rbln.errors import InputError

# What aliases may add to one input, over all its documents: real `kubectl get -o yaml` output never
# uses aliases, a "billion laughs" bomb does, and a bomb just under a per-document bound repeated in
# every document costs as much as one past it (issue 23). Counted as the nodes aliases add (expanded
# size minus distinct nodes), so a large alias-free bundle (10 million nodes at 5,000 NPU nodes) passes.
MAX_YAML_ALIAS_NODES = 1_000_000
BUNDLE_SUFFIXES = (".json", ".yaml", ".yml")

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class AliasBudget:
    """The nodes aliases may still add across the documents (and files) of one read."""

    def __init__(self, limit: int = MAX_YAML_ALIAS_NODES) -> None:
        self.limit = limit
        self.added = 0

    def charge(self, nodes: int) -> None:
        self.added += nodes
        if self.added > self.limit:
            raise yaml.YAMLError(
                f"aliases expand the input by more than {self.limit:,} nodes (a YAML alias bomb); refused"
            )


class _GuardedLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that charges what each document's aliases add to the read's AliasBudget before
    the document is built (the loader is made per input by `yaml.load_all`; the budget is passed in)."""

    budget: AliasBudget

    def construct_document(self, node: yaml.Node) -> Any:
        _check_expansion(node, self.budget)
        return super().construct_document(node)


def _guarded_loader(budget: AliasBudget) -> type:
    return type("_BudgetLoader", (_GuardedLoader,), {"budget": budget})


def _check_expansion(root: yaml.Node, budget: AliasBudget) -> None:
    """Charge the nodes that aliases add to this document: its expanded size minus its distinct
    nodes, computed over the distinct nodes only (each once), never by expanding."""
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
            if sizes[id(node)] - len(sizes) > budget.limit - budget.added:
                budget.charge(sizes[id(node)] - len(sizes))  # raises: past the budget already
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    budget.charge(sizes.get(id(root), 1) - len(sizes))


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files named directly, files of named folders (sorted, recursive), or `-` for stdin. A named
    path must be a regular file (or a folder): a FIFO blocks until someone writes, a device such as
    /dev/zero never ends, a socket cannot be opened; a stream goes to `-f -` instead."""
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
            _require_regular(raw)
            out.append(str(path))
        else:
            raise InputError(f"{raw}: no such file or folder")
    return out


def _require_regular(path: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise InputError(_not_regular(path, mode))


def _not_regular(path: str, mode: int) -> str:
    return (
        f"{path}: not a regular file but a {_file_type(mode)}; -f reads files and folders"
        " (a stream goes to `-f -`: ... | kubectl rbln <command> -f -)"
    )


def _file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return name
    return "special file"


def open_regular(path: str) -> BinaryIO:
    """`path` opened for reading if it is a regular file, else the one-line InputError. Opened
    without blocking, then checked: a FIFO put in its place after `expand_paths` cannot hang us."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(_not_regular(path, mode))
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_text(path: str) -> str:
    """The whole text of a regular file or stdin. A file that shrinks while read gives a short text,
    which the parser refuses as truncated; stdin that is a device other than a terminal (`-f - <
    /dev/zero`) is refused, as a named device is."""
    if path == "-":
        _require_stream()
        return sys.stdin.read()
    try:
        with open_regular(path) as handle:
            return handle.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None


def _require_stream() -> None:
    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):  # no real descriptor (a test's StringIO): nothing to check
        return
    if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not os.isatty(fd):
        raise InputError(f"<stdin>: a {_file_type(mode)}, not a file or a pipe: nothing to read from")


def parse_documents(text: str, name: str, budget: AliasBudget | None = None) -> list[Any]:
    """JSON when it looks like JSON, else (multi-document) YAML; errors name the position. `budget`
    bounds what aliases add across the documents (and, shared, the files) of one read."""
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
        loader = _guarded_loader(budget or AliasBudget())
        return [doc for doc in yaml.load_all(text, Loader=loader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{name}: invalid YAML{where}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:  # e.g. a control character: PyYAML's text spans lines, ours does not
        raise InputError(f"{name}: invalid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise InputError(f"{name}: YAML nests too deeply") from None


def documents_of(text: str, name: str, budget: AliasBudget | None = None) -> list[Any]:
    """The documents of one input. One with none (0 bytes, only comments or `---`) is an input error:
    it is what `kubectl get ... > FILE` leaves after a failed call, and read as a cluster it would
    be one with nothing wrong."""
    documents = parse_documents(text, name, budget)
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
    budget = AliasBudget()
    names: list[str] = []
    found = 0
    for path in expand_paths(paths):
        name = "<stdin>" if path == "-" else os.fspath(path)
        names.append(name)
        documents = documents_of(read_text(path), name, budget)
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
