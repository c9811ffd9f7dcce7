"""Label and field selectors, parsed and matched the way kube-apiserver does.

One implementation for every place that selects: the replay server's
`labelSelector`/`fieldSelector` query parameters and the `-l` flag of `topo`
and `pod-devices`, so a selector means the same thing offline, served and
live. It sits at the bottom of the package and imports nothing from it.

Only what kubectl sends and the apiserver accepts: label selectors with
=, ==, !=, in, notin, exists and !exists (plus gt/lt), field selectors with
=, == and != on the fields the caller says are supported (the replay server
knows which fields each resource has: replay/fields.py). Anything else raises
`SelectorError`, which callers turn into a 400 Status or a usage error, never
a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

# A qualified name as apimachinery's validation.IsQualifiedName has it: an optional DNS-subdomain prefix
# and a slash, then 1-63 characters that start and end alphanumeric, with -_. inside.
_NAME = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_QUALIFIED_KEY = re.compile(rf"(?:[a-z0-9](?:[-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_NAME}")


class SelectorError(ValueError):
    """A selector the apiserver would refuse with 400 BadRequest."""


# ---------------------------------------------------------------- labels

_LABEL_TOKEN = re.compile(r"\s*(\(|\)|,|!=|==|=|!|>|<|[^\s(),!=<>]+)")


@dataclass(frozen=True)
class LabelRequirement:
    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!exists", "gt", "lt"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op == "exists":
            return present
        if self.op == "!exists":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        if not present:
            return False
        try:
            number, bound = int(str(value)), int(self.values[0])
        except ValueError:
            return False
        return number > bound if self.op == "gt" else number < bound


def _tokenize_labels(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _LABEL_TOKEN.match(text, pos)
        if not match:
            raise SelectorError(f"unable to parse requirement: invalid label selector {text!r}")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def parse_label_selector(text: str) -> list[LabelRequirement]:
    """`app=x,tier in (a,b),!canary` -> requirements (all must match)."""
    tokens = _tokenize_labels(text)
    reqs: list[LabelRequirement] = []
    i = 0

    def take() -> str:
        nonlocal i
        if i >= len(tokens):
            raise SelectorError(f"unable to parse requirement: unexpected end of selector {text!r}")
        i += 1
        return tokens[i - 1]

    while i < len(tokens):
        token = take()
        if token == "!":
            key = _label_key(take(), text)
            reqs.append(LabelRequirement(key, "!exists"))
        else:
            key = _label_key(token, text)
            nxt = tokens[i] if i < len(tokens) else ","
            if nxt == ",":
                reqs.append(LabelRequirement(key, "exists"))
            elif nxt in ("=", "==", "!="):
                take()
                value = tokens[i] if i < len(tokens) and tokens[i] != "," else ""
                if value:
                    take()
                _check_word(value, text, allow_empty=True)
                reqs.append(LabelRequirement(key, "!=" if nxt == "!=" else "=", (value,)))
            elif nxt in ("in", "notin"):
                take()
                values = _label_set(take, text)
                if not values:  # apimachinery labels.NewRequirement: "values set can't be empty"
                    raise SelectorError(f"unable to parse requirement: values set can't be empty in {text!r}")
                reqs.append(LabelRequirement(key, nxt, values))
            elif nxt in (">", "<"):
                take()
                bound = take()
                if not re.fullmatch(r"-?\d+", bound):
                    raise SelectorError(f"unable to parse requirement: {bound!r} is not an integer")
                reqs.append(LabelRequirement(key, "gt" if nxt == ">" else "lt", (bound,)))
            else:
                raise SelectorError(f"unable to parse requirement: unexpected {nxt!r} in {text!r}")
        if i < len(tokens):
            if tokens[i] != ",":
                raise SelectorError(f"unable to parse requirement: expected ',' in {text!r}")
            i += 1
            if i >= len(tokens):
                raise SelectorError(f"unable to parse requirement: trailing ',' in {text!r}")
    return reqs


def _label_set(take: Callable[[], str], text: str) -> tuple[str, ...]:
    if take() != "(":
        raise SelectorError(f"unable to parse requirement: expected '(' in {text!r}")
    values: list[str] = []
    expect_value = True
    while True:
        token = take()
        if token == ")":
            if expect_value and values:
                values.append("")
            return tuple(values)
        if token == ",":
            if expect_value:
                values.append("")
            expect_value = True
            continue
        if not expect_value:
            raise SelectorError(f"unable to parse requirement: expected ',' or ')' in {text!r}")
        _check_word(token, text, allow_empty=False)
        values.append(token)
        expect_value = False


def _label_key(token: str, text: str) -> str:
    if token in ("(", ")", ",", "=", "==", "!=", "!", ">", "<", "in", "notin"):
        raise SelectorError(f"unable to parse requirement: expected a label key in {text!r}")
    _check_word(token, text, allow_empty=False)
    if not _QUALIFIED_KEY.fullmatch(token):  # apimachinery validates keys as qualified names
        raise SelectorError(f"unable to parse requirement: invalid label key {token!r}: not a qualified name")
    return token


def _check_word(token: str, text: str, *, allow_empty: bool) -> None:
    if not token and allow_empty:
        return
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", token):
        raise SelectorError(f"unable to parse requirement: invalid label {token!r} in {text!r}")


def labels_match(reqs: list[LabelRequirement], labels: dict[str, str]) -> bool:
    """All requirements hold for this label map (an empty list selects everything)."""
    return all(req.matches(labels) for req in reqs)


def match_labels(reqs: list[LabelRequirement], obj: dict[str, Any]) -> bool:
    """`labels_match` on an object's metadata.labels; malformed metadata counts as no labels."""
    meta = obj.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels_match(reqs, labels if isinstance(labels, dict) else {})


# ---------------------------------------------------------------- fields


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    value: str
    negate: bool

    def matches(self, obj: dict[str, Any]) -> bool:
        return (field_value(obj, self.field) == self.value) != self.negate


def field_value(obj: dict[str, Any], path: str) -> str:
    """The string form the apiserver compares: missing is "", booleans are "true"/"false"."""
    if path == "source":
        source = obj.get("source")
        return str(source.get("component", "")) if isinstance(source, dict) else ""
    node: Any = obj
    for part in path.split("."):
        if not isinstance(node, dict):
            return ""
        node = node.get(part)
    if node is None:
        return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if escaped:
        raise SelectorError(f"invalid field selector {text!r}: trailing backslash")
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def parse_field_selector(text: str, supported: Collection[str]) -> list[FieldRequirement]:
    """`spec.nodeName=n1,status.phase!=Failed` -> requirements; fields not in `supported` are refused."""
    reqs: list[FieldRequirement] = []
    for term in _split_unescaped(text, ","):
        if not term.strip():
            continue
        match = re.match(r"^((?:[^\\=!]|\\.)+?)\s*(!=|==|=)(.*)$", term)
        if not match:
            raise SelectorError(f"invalid selector: '{term}'; can't understand '{term}'")
        name, op, value = match.group(1).strip(), match.group(2), match.group(3)
        if name not in supported:
            raise SelectorError(f"field label not supported: {name}")
        reqs.append(FieldRequirement(name, _unescape(value), op == "!="))
    return reqs


def match_fields(reqs: list[FieldRequirement], obj: dict[str, Any]) -> bool:
    """All field requirements hold for this object."""
    return all(req.matches(obj) for req in reqs)


# ---------------------------------------------------------------- node selectors

# core/v1 NodeSelectorRequirement operators, in the label selector's terms
_NODE_OPERATORS = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!exists",
    "Gt": "gt",
    "Lt": "lt",
}


def node_requirement_holds(labels: dict[str, str], requirement: dict[str, Any]) -> bool:
    """A NodeSelectorRequirement on a label map, as a label requirement; unknown operators match nothing.

    Lenient on purpose (placement asks "could the Pod run there", not "is this valid"); the
    allocator's own node selection in dra/pools.py raises on what the real allocator refuses.
    """
    operator = requirement.get("operator", "")
    values = tuple(str(v) for v in requirement.get("values") or [])
    op = _NODE_OPERATORS.get(operator) if isinstance(operator, str) else None
    if op is None or (op in ("gt", "lt") and not values):
        return False
    return LabelRequirement(requirement.get("key", ""), op, values).matches(labels)


def node_selector_term_matches(term: dict[str, Any], node_name: str, labels: dict[str, str]) -> bool:
    """A NodeSelectorTerm: all matchExpressions on labels and all matchFields (metadata.name) hold."""
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term matches no objects
    if not all(node_requirement_holds(labels, r) for r in expressions if isinstance(r, dict)):
        return False
    field_labels = {"metadata.name": node_name}
    return all(node_requirement_holds(field_labels, r) for r in fields if isinstance(r, dict))


def node_selector_matches(selector: dict[str, Any] | None, node_name: str, labels: dict[str, str]) -> bool:
    """A NodeSelector: any term matches (terms are ORed)."""
    if not selector:
        return True
    terms = [t for t in selector.get("nodeSelectorTerms") or [] if isinstance(t, dict)]
    return any(node_selector_term_matches(t, node_name, labels) for t in terms)
