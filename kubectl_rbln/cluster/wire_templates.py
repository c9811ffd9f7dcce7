"""Pods, claims and Nodes read from their text: an item whose text is a known one's but for a few values.

Why (issue 26): at 20,000 nodes a `-f` bundle holds 40,000 Pods and 40,000 claims made from one
template each and 20,000 Nodes of one kind, and decoding and normalizing each cost ~25 us (2.3 s of
a 4.4 s `why -f`), though two of them differ only in a few values: names, uids, times, addresses,
the node they run on. Here the first item of a layout is kept as a representative; the next one
whose JSON tokens are the same but for some values makes a *template*: the representative's text
with a group where a value differed (a string without escapes or control characters, an integer, a
boolean). An item whose text matches a template is not decoded: its model is the representative's
with only the values of the groups replaced where the normalizer put them.

Where each value goes is found, never assumed: the representative's text with a marker in one hole
is decoded and normalized the usual way (cluster/wire_read.py), and compared with the
representative's own wire object and model. A hole the wire shape skips (the decoded object is
unchanged: times, addresses, container ids) is ignored; a hole the model copies (the marker comes
back at one or more places of the model, nothing else changed) is put there; a hole read as
metadata.resourceVersion tells duplicates apart (SnapshotBuilder); anything else (a value the
normalizer tests, transforms or drops) means no template. All markers at once must give the model
with all of them put in place. The normalizers copy the values they keep as they are (`_s`, `_i`,
`or None` for an empty text, which no group matches), so what a marker shows holds for every
value a group allows but one their code compares with (`mode == "ExactCount"`): a used string hole
never holds a text the decoding's code names (dra/branch_texts.py), neither in the representative
nor in an item read; tests/unit/cluster/test_template_holes.py fills every hole with every value
its field takes. An item that matches no template is decoded as before and may make or widen
one; tests/unit/cluster/test_wire_templates.py reads edited clusters both ways.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from kubectl_rbln.dra import text_cuts
from kubectl_rbln.dra.model import AllocationResult, Node, Pod
from kubectl_rbln.dra.normalize import PREBUILT as MODEL

KINDS = ("Pod", "ResourceClaim", "Node")
ENV = "KUBECTL_RBLN_TEMPLATES"  # =0: every item decoded (the comparison's switch)


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


_PER_KIND = 8  # templates kept per kind
_TRIES_MAX = 128  # items a kind may tokenize to make or widen templates, per read (~2 ms each)
_SKELETONS_MAX = 2048  # items whose skeleton a kind may compute, per read (~30 us each)
_WIDEN_MAX = 8  # a template is widened (a new hole) at most this often
_MEMO_MAX = 512  # rebuilt sub-objects shared per place (a node's selector, shared by its claims)

_TOKEN = re.compile(
    rb'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)'
    rb"|(true|false|null)|([{}\[\]:,]))"
)
_SKELETON = re.compile(rb'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false')
_INT = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})\Z")

# where a hole's text goes as the builder reads it (not into the model)
_META = {("metadata", "name"): "name", ("metadata", "namespace"): "namespace"}
_VERSION = ("metadata", "resourceVersion")
# model places whose texts are interned by the normalizer (a node's names recur in every claim held there)
_INTERNED = {(AllocationResult, f) for f in ("request", "driver", "pool", "device")} | {
    (Pod, "node_name"),
    (Node, "name"),
}


class Refused(Exception):
    """Not a template: the texts differ in more than values, or a value goes where it cannot be put."""


class _Token(NamedTuple):
    start: int
    end: int
    kind: str  # "s" string, "n" number, "l" literal, "p" punctuation, "k" key
    path: tuple[Any, ...]  # a value's place (keys and indexes from the top)


def _tokens(text: bytes) -> list[_Token]:
    """The JSON tokens of one valid item, each value with its place; a repeated key is refused (the
    decoder keeps the last, a place would name both)."""
    out: list[_Token] = []
    stack: list[list[Any]] = []  # [is object, key or index, expects a key, keys seen]
    pos = 0
    while True:
        found = _TOKEN.match(text, pos)
        if found is None:
            if text[pos:].strip(b" \t\r\n"):
                raise Refused("not JSON")
            return out
        pos = found.end()
        string, number, literal, punct = found.groups()
        start = found.start(found.lastindex or 0)
        if punct is not None:
            if punct in b"{[":
                out.append(_Token(start, pos, "p", tuple(f[1] for f in stack)))
                stack.append([punct == b"{", None if punct == b"{" else 0, True, set()])
            elif punct in b"}]":
                if not stack:
                    raise Refused("unbalanced")
                stack.pop()
                out.append(_Token(start, pos, "p", ()))
            elif punct == b",":
                if not stack:
                    raise Refused("unbalanced")
                frame = stack[-1]
                if frame[0]:
                    frame[2] = True
                else:
                    frame[1] += 1
                out.append(_Token(start, pos, "p", ()))
            else:
                stack[-1][2] = False
                out.append(_Token(start, pos, "p", ()))
            continue
        if string is not None and stack and stack[-1][0] and stack[-1][2]:
            key = _key(string)
            if key in stack[-1][3]:
                raise Refused("a key twice")
            stack[-1][3].add(key)
            stack[-1][1] = key
            out.append(_Token(start, pos, "k", ()))
            continue
        kind = "s" if string is not None else "n" if number is not None else "l"
        out.append(_Token(start, pos, kind, tuple(f[1] for f in stack)))


def _key(token: bytes) -> str:
    body = token[1:-1]
    if b"\\" not in body:
        return body.decode("utf-8")
    import json  # noqa: PLC0415 - escaped keys are rare

    return str(json.loads(token))


def _differences(one: bytes, two: bytes) -> tuple[list[_Token], list[int]]:
    """The tokens of `one` and the indexes of the value tokens where `two` differs from it."""
    first, second = _tokens(one), _tokens(two)
    if len(first) != len(second):
        raise Refused("other tokens")
    differ = []
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        if a.kind != b.kind or a.path != b.path:
            raise Refused("other tokens")
        if one[a.start : a.end] == two[b.start : b.end]:
            continue
        if a.kind in ("p", "k"):
            raise Refused("other keys")
        differ.append(index)
    return first, differ


class _Hole(NamedTuple):
    start: int  # in the representative's text: the value's own text (inside the quotes of a string)
    end: int
    form: str  # "string", "int", "bool"
    path: tuple[Any, ...]


def _hole(text: bytes, token: _Token) -> _Hole:
    body = text[token.start : token.end]
    if token.kind == "s":
        return _Hole(token.start + 1, token.end - 1, "string", token.path)
    if token.kind == "n":
        if not _INT.match(body):
            raise Refused("not an integer")
        return _Hole(token.start, token.end, "int", token.path)
    if body not in (b"true", b"false"):
        raise Refused("null")
    return _Hole(token.start, token.end, "bool", token.path)


class Template:
    """A representative's text cut at its holes, and what each hole's value does: `view(values)` is the
    builder's view of a matching item (its kind, apiVersion, metadata and model), from the texts of the
    holes read (`used`), NUL-joined and split."""

    __slots__ = (
        "cut",
        "text",
        "indexes",
        "holes",
        "used",
        "view",
        "widened",
        "skeleton",
        "pick",
        "named",
        "branches",
    )

    def __init__(
        self,
        text: bytes,
        indexes: tuple[int, ...],
        holes: tuple[_Hole, ...],
        used: tuple[int, ...],
        view: Callable[[list[str]], Any],
        skeleton: bytes,
        branches: frozenset[bytes] = frozenset(),
    ) -> None:
        self.text = text
        self.indexes = indexes  # the holes' token indexes
        self.holes = holes
        self.used = used
        self.view = view
        self.widened = 0
        self.skeleton = skeleton
        read = set(used)
        # a hole read holds a text (not empty: an empty text reads as no value, `or None`); one skipped may
        self.cut = text_cuts.Cut(
            text, [text_cuts.Hole(h.start, h.end, h.form, j in read) for j, h in enumerate(holes)]
        )
        self.pick = text_cuts.getter(list(used))
        # the used string holes, whose texts must not be one the normalizer names (dra/branch_texts.py)
        named = [j for j in used if holes[j].form == "string"]
        self.named = text_cuts.getter(named) if named and branches else None
        self.branches = branches

    def read(self, text: bytes | memoryview) -> Any:
        """The builder's view of `text` when it matches, else None (decoded the usual way)."""
        holes = self.cut.match(text)
        if holes is None:
            return None
        if self.named is not None and not self.branches.isdisjoint(self.named(holes)):
            return None  # a text the normalizer may test: its branch is not the representative's
        return self.view(b"\x00".join(self.pick(holes)).decode("utf-8").split("\x00"))


class Templates:
    """The templates of one read (a Snapshot being built), per kind."""

    def __init__(self, decode: Callable[[str, bytes], tuple[Any, Any]], branches: frozenset[bytes]) -> None:
        self.decode = decode  # (kind, text) -> (wire object, model), the usual way
        self.branches = branches  # texts the decoding's code names (dra/branch_texts.py)
        self.kinds: dict[str, list[Template]] = {k: [] for k in KINDS}
        self.waiting: dict[str, tuple[bytes, bytes]] = {}  # kind -> a representative-to-be (text, skeleton)
        self.tries = dict.fromkeys(KINDS, 0)
        self.skeletons = dict.fromkeys(KINDS, 0)

    def read(self, kind: str, text: bytes | memoryview) -> dict[str, Any] | None:
        """The item's builder view (kind, apiVersion, metadata and its model under MODEL) when its
        text matches a template of `kind`, else None."""
        templates = self.kinds[kind]
        for index, template in enumerate(templates):
            try:
                found = template.read(text)
            except UnicodeDecodeError:  # the reader checked the file's UTF-8: cannot be
                return None
            if found is not None:
                if index:
                    templates.insert(0, templates.pop(index))
                return found
        return None

    def learn(self, kind: str, text: bytes) -> None:
        """An item of `kind` that matched no template, decoded the usual way: widen a template whose
        representative it resembles, or make one with the item waiting, or wait itself."""
        if self.skeletons[kind] >= _SKELETONS_MAX or self.tries[kind] >= _TRIES_MAX:
            return
        self.skeletons[kind] += 1
        skeleton = _SKELETON.sub(b"_", text)
        templates = self.kinds[kind]
        for index, template in enumerate(templates):
            if template.skeleton == skeleton and template.widened < _WIDEN_MAX:
                self.tries[kind] += 1
                try:
                    tokens, differ = _differences(template.text, text)
                    wider = self._make(kind, template.text, tokens, sorted({*differ, *template.indexes}))
                except Refused:
                    continue
                wider.widened = template.widened + 1
                templates[index] = wider
                return
        waiting = self.waiting.get(kind)
        if waiting is not None and waiting[1] == skeleton:
            self.tries[kind] += 1
            try:
                tokens, differ = _differences(waiting[0], text)
                made = self._make(kind, waiting[0], tokens, differ)
            except Refused:
                self.waiting[kind] = (text, skeleton)
                return
            del self.waiting[kind]
            templates.insert(0, made)
            del templates[_PER_KIND:]
            return
        self.waiting[kind] = (text, skeleton)

    def _make(self, kind: str, text: bytes, tokens: list[_Token], differ: list[int]) -> Template:
        if not differ:
            raise Refused("the same text")  # a duplicate: read the usual way
        holes = tuple(_hole(text, tokens[i]) for i in differ)
        wire, model = self._decoded(kind, text)
        meta = _builder_view(wire)
        markers = [_markers(j, hole, text) for j, hole in enumerate(holes)]
        roles: list[Any] = []  # per hole: None (skipped), "version", or [model places]
        for j, hole in enumerate(holes):
            found = {
                repr(self._role(kind, text, holes, j, hole, marker, wire, model, meta))
                for marker in markers[j]
            }
            if len(found) != 1:
                raise Refused("a value read otherwise as it changes")  # tested, clamped, parsed
            roles.append(self._role(kind, text, holes, j, hole, markers[j][0], wire, model, meta))
        used = tuple(j for j, role in enumerate(roles) if role is not None)
        if any(
            holes[j].form == "string" and text[holes[j].start : holes[j].end] in self.branches for j in used
        ):
            raise Refused("a text the normalizer names")  # its branch may be another item's
        group = {j: g for g, j in enumerate(used)}
        forms = [holes[j].form for j in used]
        places = [(place, group[j]) for j in used if isinstance(roles[j], list) for place in roles[j]]
        meta_of = {
            (_META[holes[j].path] if roles[j] != "version" else "resourceVersion"): group[j]
            for j in used
            if holes[j].path in _META or roles[j] == "version"
        }
        view = _compile(meta, model, places, meta_of, forms)
        everything = _filled(text, holes, {j: markers[j][0][0] for j in range(len(holes))})
        marked_wire, marked = self._decoded(kind, everything)
        expected = view([markers[j][0][0].decode() for j in used])
        if _changes(expected[MODEL], marked):
            raise Refused("the values read together otherwise")
        if {k: v for k, v in expected.items() if k != MODEL} != _builder_view(marked_wire):
            raise Refused("the names read together otherwise")
        return Template(
            text,
            tuple(differ),
            holes,
            used,
            view,
            skeleton=_SKELETON.sub(b"_", text),
            branches=self.branches,
        )

    def _role(
        self,
        kind: str,
        text: bytes,
        holes: tuple[_Hole, ...],
        j: int,
        hole: _Hole,
        marker: tuple[bytes, Any],
        wire: Any,
        model: Any,
        meta: dict[str, Any],
    ) -> Any:
        """What hole `j` does with `marker` in it: None (skipped), "version", or its model places."""
        marked_wire, marked = self._decoded(kind, _filled(text, holes, {j: marker[0]}))
        places = _changes(model, marked)
        if hole.path == _VERSION:
            if places or _builder_view(marked_wire)["metadata"] == meta["metadata"]:
                raise Refused("resourceVersion read otherwise")
            return "version"
        if not places:
            if marked_wire != wire:
                raise Refused("a value read but not kept")  # tested, or kept where it is not compared
            if hole.path in _META:
                raise Refused("a name the builder reads")
            return None
        if any(value != marker[1] or type(value) is not type(marker[1]) for _, value in places):
            raise Refused("a value not kept as it is")
        return [place for place, _ in places]

    def _decoded(self, kind: str, text: bytes) -> tuple[Any, Any]:
        try:
            return self.decode(kind, text)
        except Exception as exc:  # noqa: BLE001 - a marker the wire shape refuses: no template
            raise Refused(f"the marked text does not read: {exc}") from None


def _builder_view(wire: dict[str, Any]) -> dict[str, Any]:
    """What the builder and the reader read of an item besides its model (SnapshotBuilder.add,
    source.read_inputs): its kind, apiVersion, and metadata's name, namespace and resourceVersion."""
    meta = wire.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    view: dict[str, Any] = {k: wire[k] for k in ("kind", "apiVersion") if k in wire}
    view["metadata"] = {k: meta[k] for k in ("name", "namespace", "resourceVersion") if k in meta}
    return view


def _markers(j: int, hole: _Hole, text: bytes) -> list[tuple[bytes, Any]]:
    """Fillings of hole `j` unlike the representative's value, and the values they are read as: the
    first unlike any other hole's; the others catch a normalizer that tests, parses, clamps or bounds
    a value (digits, a boolean's name, a long text; zero, one, minus one, a large number)."""
    own = text[hole.start : hole.end]
    if hole.form == "string":
        texts = [f"~{j}~", f"{j}7", "True", "x" * 300 + str(j)]
        return [(t.encode(), t) for t in texts if t.encode() != own]
    if hole.form == "int":
        numbers = [900_000_001 + j, 0, 1, -1, 2**40 + j]
        return [(str(n).encode(), n) for n in numbers if str(n).encode() != own]
    return [(b"false", False) if own == b"true" else (b"true", True)]


def _filled(text: bytes, holes: tuple[_Hole, ...], fills: dict[int, bytes]) -> bytes:
    out: list[bytes] = []
    before = 0
    for j, hole in enumerate(holes):
        if j in fills:
            out += (text[before : hole.start], fills[j])
            before = hole.end
    out.append(text[before:])
    return b"".join(out)


# --- the model's places: found by comparing two models, rebuilt copy-on-write -----------------------

_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _changes(one: Any, two: Any, at: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every place where `two` holds another leaf than `one` (dataclasses, dicts, lists and tuples
    walked); a difference of shape (another class, other keys, another length) is refused."""
    if one is two:
        return []
    if type(one) is not type(two):
        if at and not isinstance(one, (dict, list, tuple)) and not dataclasses.is_dataclass(one):
            return [(at, two)]
        raise Refused("another shape")
    if dataclasses.is_dataclass(one) and not isinstance(one, type):
        out = []
        for name in _fields_of(type(one)):
            out += _changes(getattr(one, name), getattr(two, name), (*at, name))
        return out
    if isinstance(one, dict):
        if list(one) != list(two):
            raise Refused("other keys")
        out = []
        for key in one:
            out += _changes(one[key], two[key], (*at, key))
        return out
    if isinstance(one, (list, tuple)):
        if len(one) != len(two) or (isinstance(one, tuple) and type(one) is not tuple):
            raise Refused("another length")
        out = []
        for index, (a, b) in enumerate(zip(one, two, strict=True)):
            out += _changes(a, b, (*at, index))
        return out
    return [] if one == two and type(one) is type(two) else [(at, two)]


def _compile(
    meta: dict[str, Any],
    model: Any,
    places: list[tuple[tuple[Any, ...], int]],
    meta_of: dict[str, int],
    forms: list[str],
) -> Callable[[list[str]], Any]:
    """values (the used holes' texts) -> the builder's view of the item: `meta` with the names of
    `meta_of` from their values, and under MODEL `model` with each value at its places, every object on
    the way made anew (the rest shared with the representative's: nothing mutates a model once read).
    Written as one function per template (its constants passed in, never spelled out in the code)."""
    consts: list[Any] = []
    functions: list[Any] = []
    shared: list[Any] = []  # `functions`, each shared per value (filled once all are made)
    names = {"K": consts, "F": shared, "intern": sys.intern}

    def const(obj: Any) -> str:
        consts.append(obj)
        return f"K[{len(consts) - 1}]"

    def value(group: int, intern: bool) -> str:
        text = f"v[{group}]"
        if forms[group] == "int":
            return f"int({text})"
        if forms[group] == "bool":
            return f"({text} == 'true')"
        return f"intern({text})" if intern else text

    def groups_below(tree: dict[Any, Any]) -> set[int]:
        out: set[int] = set()
        for sub in tree.values():
            out |= groups_below(sub) if isinstance(sub, dict) else {sub}
        return out

    def expr(obj: Any, tree: dict[Any, Any], share: bool) -> str:
        below = groups_below(tree)
        if share and len(below) == 1 and isinstance(obj, (dict, list)):  # one per value (a node's)
            (group,) = below
            inner = expr(obj, tree, False).replace(f"v[{group}]", "x")
            functions.append(eval(f"lambda x: {inner}", names))  # noqa: S307 - our own text, constants passed
            return f"F[{len(functions) - 1}](v[{group}])"
        if dataclasses.is_dataclass(obj):
            if not all(f.init for f in dataclasses.fields(obj)):
                raise Refused("a model class made otherwise")
            cls = type(obj)
            args = []
            for name in _fields_of(cls):
                sub = tree.get(name, _ABSENT)
                if sub is _ABSENT:
                    args.append(const(getattr(obj, name)))
                elif isinstance(sub, dict):
                    args.append(expr(getattr(obj, name), sub, share))
                else:
                    args.append(value(sub, (cls, name) in _INTERNED))
            return f"{const(cls)}({', '.join(args)})"
        if isinstance(obj, dict):
            changed = ", ".join(
                f"{const(key)}: {expr(obj[key], sub, share) if isinstance(sub, dict) else value(sub, False)}"
                for key, sub in tree.items()
            )
            return f"{{**{const(obj)}, {changed}}}"
        if isinstance(obj, (list, tuple)):
            items = [
                (expr(item, tree[i], share) if isinstance(tree[i], dict) else value(tree[i], False))
                if i in tree
                else f"{const(obj)}[{i}]"
                for i, item in enumerate(obj)
            ]
            return f"[{', '.join(items)}]" if type(obj) is list else f"({', '.join(items)},)"
        raise Refused("a place of another kind")

    tree: dict[Any, Any] = {}
    for place, group in places:
        node = tree
        for step in place[:-1]:
            node = node.setdefault(step, {})
        node[place[-1]] = group
    model_expr = expr(model, tree, True) if tree else const(model)
    said = ", ".join(f"{const(k)}: {value(g, False)}" for k, g in meta_of.items())
    metadata = f"{{**{const(meta['metadata'])}, {said}}}" if said else const(meta["metadata"])
    head = "".join(f"{const(k)}: {const(v)}, " for k, v in meta.items() if k != "metadata")
    source = f"lambda v: {{{head}{const('metadata')}: {metadata}, {const(MODEL)}: {model_expr}}}"
    view = eval(source, names)  # noqa: S307 - our own text, its constants passed in
    _memoized(functions, shared)
    return view


_ABSENT = object()


def _memoized(functions: list[Any], out: list[Any]) -> None:
    """Each one-value builder shared per value (a node's selector, shared by the claims held there),
    until its table is full; one whose values did not repeat by then (a claim name per Pod) is called
    as it is from then on. A value seen once is built once either way. Fills `out` (the generated
    code's `F`)."""
    for index, make in enumerate(functions):
        table: dict[Any, Any] = {}
        hits = [0]

        def shared(
            key: str, make: Any = make, table: dict[Any, Any] = table, hits: list[int] = hits, at: int = index
        ) -> Any:
            found = table.get(key)
            if found is not None:
                hits[0] += 1
                return found
            found = make(key)
            if len(table) < _MEMO_MAX:
                table[key] = found
            elif hits[0] < _MEMO_MAX:  # full, and shared less than once a value: not worth its lookups
                out[at] = make
            return found

        out.append(shared)
