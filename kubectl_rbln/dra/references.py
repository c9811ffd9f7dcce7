"""What a DRA CEL selector reads from `device`, found by a small CEL tokenizer.

Why: the CEL library exposes no syntax tree, yet the engine needs to know which
attributes an expression reads, to memoize evaluation per distinct value tuple
(dra-facts.md §3) and to explain which attribute excludes a device. Tokens (not
regexes over raw text) keep string contents, escapes and comments from being
mistaken for code. Nothing here raises on any input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

_OPERATORS = ("&&", "||", "==", "!=", "<=", ">=", ".?", "[?")
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "ident" | "string" | "number" | "op" | "error"
    text: str  # source text
    value: str  # decoded string value for "string", else the text
    start: int
    end: int


def _decode_escape(src: str, i: int) -> tuple[str, int]:
    """Decode the escape starting at src[i] == '\\'; returns (text, next index)."""
    if i + 1 >= len(src):
        return "\\", i + 1
    c = src[i + 1]
    simple = {
        "n": "\n",
        "r": "\r",
        "t": "\t",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "`": "`",
        "a": "\a",
        "b": "\b",
        "f": "\f",
        "v": "\v",
        "?": "?",
    }
    if c in simple:
        return simple[c], i + 2
    widths = {"x": 2, "X": 2, "u": 4, "U": 8}
    if c in widths:
        digits = src[i + 2 : i + 2 + widths[c]]
        try:
            return chr(int(digits, 16)), i + 2 + len(digits)
        except ValueError:
            return c, i + 2
    if c in "01234567":
        digits = src[i + 1 : i + 4]
        try:
            return chr(int(digits, 8)), i + 1 + len(digits)
        except ValueError:
            return c, i + 2
    return c, i + 2


def _read_string(src: str, i: int, raw: bool) -> tuple[str, int, bool]:
    """Read a quoted literal at src[i]; returns (value, end, terminated)."""
    quote = src[i : i + 3] if src[i : i + 3] in ('"""', "'''") else src[i]
    j = i + len(quote)
    out: list[str] = []
    while j < len(src):
        if src.startswith(quote, j):
            return "".join(out), j + len(quote), True
        c = src[j]
        if c == "\\" and not raw:
            text, j = _decode_escape(src, j)
            out.append(text)
            continue
        if c == "\n" and len(quote) == 1:
            break
        out.append(c)
        j += 1
    return "".join(out), j, False


def tokenize(src: str) -> list[Token]:
    """Split CEL source into tokens; unknown characters become one-char "error" tokens."""
    tokens: list[Token] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
            continue
        if src.startswith("//", i):
            nl = src.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        prefix = 0
        while prefix < 2 and i + prefix < n and src[i + prefix] in "rRbB":
            prefix += 1
        if i + prefix < n and src[i + prefix] in "'\"" and (prefix == 0 or not _ident_char_before(src, i)):
            raw = "r" in src[i : i + prefix].lower()
            value, end, ok = _read_string(src, i + prefix, raw)
            tokens.append(Token("string" if ok else "error", src[i:end], value, i, end))
            i = end
            continue
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            tokens.append(Token("ident", src[i:j], src[i:j], i, j))
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "._" or (src[j] in "+-" and src[j - 1] in "eE")):
                j += 1
            tokens.append(Token("number", src[i:j], src[i:j], i, j))
            i = j
            continue
        two = src[i : i + 2]
        if two in _OPERATORS:
            tokens.append(Token("op", two, two, i, i + 2))
            i += 2
            continue
        kind = "op" if c in "()[]{}.,:?!<>+-*/%" else "error"
        tokens.append(Token(kind, c, c, i, i + 1))
        i += 1
    return tokens


def _ident_char_before(src: str, i: int) -> bool:
    return i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_")


@dataclass(slots=True)
class References:
    """What an expression reads from `device` (qualified names "domain/id")."""

    attributes: set[str] = field(default_factory=set)  # values read: device.attributes["d"].id
    capacities: set[str] = field(default_factory=set)
    guarded: set[str] = field(default_factory=set)  # presence checks: "id" in device.attributes["d"], has()
    guarded_capacities: set[str] = field(default_factory=set)
    attribute_domains: set[str] = field(default_factory=set)  # "d" in device.attributes
    capacity_domains: set[str] = field(default_factory=set)
    driver_compared: set[str] = field(default_factory=set)  # device.driver == "x"
    uses_driver: bool = False
    uses_allow_multiple: bool = False
    unknown_fields: set[str] = field(default_factory=set)  # device.<not a DRA field>
    bound_names: set[str] = field(default_factory=set)  # macro / cel.bind variables
    complete: bool = True  # False: attributes are reached in a way we cannot list statically

    @property
    def domains(self) -> set[str]:
        """Every attribute domain the expression names literally."""
        return {name.split("/", 1)[0] for name in self.attributes | self.guarded} | self.attribute_domains

    @property
    def cap_domains(self) -> set[str]:
        return {
            name.split("/", 1)[0] for name in self.capacities | self.guarded_capacities
        } | self.capacity_domains


def _is(tokens: list[Token], i: int, text: str) -> bool:
    return 0 <= i < len(tokens) and tokens[i].kind in ("op", "ident") and tokens[i].text == text


def _key_at(tokens: list[Token], i: int) -> tuple[str | None, int]:
    """A literal key `["x"]` or `.x` at tokens[i]; returns (key, index after) or (None, i)."""
    if (
        _is(tokens, i, "[")
        and i + 2 < len(tokens)
        and tokens[i + 1].kind == "string"
        and _is(tokens, i + 2, "]")
    ):
        return tokens[i + 1].value, i + 3
    if _is(tokens, i, ".") and i + 1 < len(tokens) and tokens[i + 1].kind == "ident":
        return tokens[i + 1].text, i + 2
    return None, i


def _in_lhs(tokens: list[Token], i: int) -> str | None:
    """The string literal of `"x" in <expr starting at i>`, if any."""
    if (
        i >= 2
        and tokens[i - 1].kind == "ident"
        and tokens[i - 1].text == "in"
        and tokens[i - 2].kind == "string"
    ):
        return tokens[i - 2].value
    return None


def _in_has(tokens: list[Token], i: int) -> bool:
    return (
        _is(tokens, i - 1, "(") and i >= 2 and tokens[i - 2].kind == "ident" and tokens[i - 2].text == "has"
    )


def find_references(expr: str) -> References:
    """List the device data an expression reads. Never raises."""
    refs = References()
    try:
        tokens = tokenize(expr)
    except Exception:  # pragma: no cover - defensive: tokenize is total
        refs.complete = False
        return refs
    if any(t.kind == "error" for t in tokens):
        refs.complete = False
    for i, tok in enumerate(tokens):
        if _binds_name(tokens, i):
            refs.bound_names.add(tokens[i + 2].text)
        if tok.kind != "ident" or tok.text != "device" or _is(tokens, i - 1, "."):
            continue
        if not _is(tokens, i + 1, ".") or i + 2 >= len(tokens) or tokens[i + 2].kind != "ident":
            refs.complete = False  # `device` used as a whole
            continue
        name = tokens[i + 2].text
        after = i + 3
        if name == "driver":
            refs.uses_driver = True
            _note_driver_comparison(tokens, i, after, refs)
        elif name == "allowMultipleAllocations":
            refs.uses_allow_multiple = True
        elif name in ("attributes", "capacity"):
            _note_map_access(tokens, i, after, name == "attributes", refs)
        else:
            refs.unknown_fields.add(name)
    return refs


def _binds_name(tokens: list[Token], i: int) -> bool:
    """tokens[i] is a macro (`.all(x, ...`) or `cel.bind(x, ...` whose next-but-one token names a variable."""
    tok = tokens[i]
    if tok.kind != "ident" or not _is(tokens, i - 1, ".") or not _is(tokens, i + 1, "("):
        return False
    if i + 2 >= len(tokens) or tokens[i + 2].kind != "ident":
        return False
    return tok.text in _MACROS or (tok.text == "bind" and i >= 2 and tokens[i - 2].text == "cel")


@lru_cache(maxsize=1024)
def cached_references(expr: str) -> References:
    """`find_references`, cached: callers must not modify the result."""
    return find_references(expr)


def _note_driver_comparison(tokens: list[Token], start: int, after: int, refs: References) -> None:
    if after + 1 < len(tokens) and tokens[after].text == "==" and tokens[after + 1].kind == "string":
        refs.driver_compared.add(tokens[after + 1].value)
    elif start >= 2 and tokens[start - 1].text == "==" and tokens[start - 2].kind == "string":
        refs.driver_compared.add(tokens[start - 2].value)


def _note_map_access(tokens: list[Token], start: int, after: int, is_attr: bool, refs: References) -> None:
    domains = refs.attribute_domains if is_attr else refs.capacity_domains
    values = refs.attributes if is_attr else refs.capacities
    guards = refs.guarded if is_attr else refs.guarded_capacities
    domain, j = _key_at(tokens, after)
    if domain is None:
        lhs = _in_lhs(tokens, start)
        if lhs is not None and not _is(tokens, after, "[") and not _is(tokens, after, "."):
            domains.add(lhs)
        else:
            refs.complete = False  # iterated, sized or indexed dynamically
        return
    key, k = _key_at(tokens, j)
    if key is None or _is(tokens, k, "("):
        # the domain map itself: `"id" in device.attributes["d"]`, or something dynamic
        lhs = _in_lhs(tokens, start)
        if key is None and lhs is not None:
            guards.add(f"{domain}/{lhs}")
            domains.add(domain)
        else:
            refs.complete = False
        return
    qualified = f"{domain}/{key}"
    if _in_has(tokens, start) and _is(tokens, k, ")"):
        guards.add(qualified)
        domains.add(domain)
    else:
        values.add(qualified)


def split_conjuncts(expr: str) -> list[str]:
    """Split `a && b && c` at top level; one element when the expression is no plain conjunction."""
    tokens = tokenize(expr)
    depth = 0
    cuts: list[Token] = []
    for tok in tokens:
        if tok.kind != "op":
            continue
        if tok.text in "([{":
            depth += 1
        elif tok.text in ")]}":
            depth -= 1
        elif depth == 0 and tok.text in ("||", "?"):
            return [expr.strip()]
        elif depth == 0 and tok.text == "&&":
            cuts.append(tok)
    parts: list[str] = []
    pos = 0
    for tok in cuts:
        parts.append(expr[pos : tok.start].strip())
        pos = tok.end
    parts.append(expr[pos:].strip())
    return [p for p in parts if p] or [expr.strip()]


def class_drivers(selectors: list[str]) -> set[str]:
    """The drivers a DeviceClass selects through `device.driver == "..."` (empty when it does not say)."""
    found: set[str] = set()
    for expression in selectors:
        found |= cached_references(expression).driver_compared
    return found
