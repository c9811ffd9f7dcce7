"""The one fill function: a catalog template and a finding's typed values in, the user's text out.

Every command renders through it, so a list prints the same way everywhere (`a, b`), a number
can carry a format (`{steps:,}`), and an unknown placeholder stays visible instead of raising.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The programs a fix line may start with: such a line is a command, filled with shell quoting.
COMMAND_WORDS = (
    "kubectl",
    "sudo",
    "ls",
    "crictl",
    "helm",
    "systemctl",
    "lspci",
    "jq",
    "modprobe",
    "cat",
    "echo",
    "diff",
    "ssh",
    "printf",
)

# `{name}` or `{name:spec}` is a placeholder; `{{` and `}}` are literal braces (as in str.format,
# so a jq or jsonpath command survives). Anything else in braces is left alone. `{name|을}` adds the
# Korean particle that fits the filled value (을 or 를, chosen by its last sound), never `을(를)`.
# `{|을}` does the same after literal text (a backticked command): `\`kubectl rbln dump\`{|로}`.
_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*|)(?::([^{}:|]*))?(?:\|([^{}|]+))?\}")
_WHOLE_LINE = re.compile(r"^\s*\{([A-Za-z_][A-Za-z0-9_]*)\}\s*$")
LIST_TYPES = (list, tuple, set, frozenset)


@dataclass(frozen=True, slots=True)
class ListWords:
    """How a long list ends (`more`, with {names} and {count}) and how an empty one reads (`none`)."""

    more: str = "{names} and {count} more"
    none: str = "none"


MORE = ListWords()


class Names(list):
    """A list of names that prints its first `limit` and then "and N more" in the reader's language."""

    def __init__(self, items: Any = (), limit: int = 5) -> None:
        super().__init__(items)
        self.limit = limit


# Each particle pair: (after a final consonant, after a vowel). 으로/로 also takes 로 after ㄹ.
PARTICLES = {
    **dict.fromkeys(("을", "를"), ("을", "를")),
    **dict.fromkeys(("이", "가"), ("이", "가")),
    **dict.fromkeys(("은", "는"), ("은", "는")),
    **dict.fromkeys(("과", "와"), ("과", "와")),
    **dict.fromkeys(("이나", "나"), ("이나", "나")),
    **dict.fromkeys(("이라는", "라는"), ("이라는", "라는")),
    **dict.fromkeys(("으로", "로"), ("으로", "로")),
}
# How a Korean speaker reads the end of a value: digits as Sino-Korean numbers (0 영, 1 일, 3 삼,
# 6 육, 7 칠, 8 팔 end in a consonant; 1, 7, 8 in ㄹ), a Latin word by its last letters (claim,
# system, group end in a consonant; node, root, slice, rdma do not; -l in ㄹ), an upper-case
# acronym letter by letter (L 엘, M 엠, N 엔), and a few words the way they are said (dranet 드라넷,
# NIC 닉, spec 스펙, ResourceClaimTemplate 템플릿, Secret 시크릿, kubelet 큐블릿).
_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "3": "ㅁ", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ"}
_SPOKEN = {
    "net": "ㅅ",
    "nic": "ㄱ",
    "nics": "",
    "set": "ㅅ",
    "get": "ㅅ",
    "bit": "ㅅ",
    "limit": "ㅅ",
    "ok": "ㄱ",
    "spec": "ㄱ",
    "template": "ㅅ",
    "secret": "ㅅ",
    "kubelet": "ㅅ",
}
_ACRONYM_FINAL = {"L": "ㄹ", "M": "ㅁ", "N": "ㄴ"}
_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3


def final_consonant(text: str) -> str:
    """The final consonant (받침) the value ends with when read aloud in Korean, "" when a vowel."""
    stripped = text.rstrip(" )]}>'\"`.,")
    if not stripped:
        return ""
    last = stripped[-1]
    if _HANGUL_FIRST <= ord(last) <= _HANGUL_LAST:
        jong = (ord(last) - _HANGUL_FIRST) % 28  # 0: none, 8: ㄹ
        return "" if jong == 0 else ("ㄹ" if jong == 8 else "ㄱ")
    if last.isdigit():
        return _DIGIT_FINAL.get(last, "")
    word = re.split(r"[^A-Za-z]", stripped)[-1]
    if not word:
        return ""
    lower = word.lower()
    for spoken, final in _SPOKEN.items():
        if lower.endswith(spoken) and (lower == spoken or spoken == "net" or word[-len(spoken)].isupper()):
            return final
    if len(word) == 1:  # a letter is said by its name: p 피, l 엘, m 엠, n 엔
        return _ACRONYM_FINAL.get(word.upper(), "")
    if word.isupper() and len(word) <= 5:
        return _ACRONYM_FINAL.get(word[-1], "")
    if lower.endswith(("b", "p")) and len(lower) > 1 and lower[-2] not in "aeiouy":
        return ""  # dump 덤프, help 헬프: a p after a consonant is said with a vowel
    if lower.endswith(("ng", "m", "n", "b", "p")):
        return "ㅇ" if lower.endswith("ng") else "ㅁ"
    if lower.endswith(("l", "le")) and not lower.endswith("ble"):
        return "ㄹ"
    return ""


def particle(value: str, name: str) -> str:
    """The form of particle `name` (any of its pair: 을 or 를) that fits after `value`."""
    pair = PARTICLES.get(name)
    if pair is None:
        return name
    final = final_consonant(value)
    if pair[0] == "으로":
        return "로" if final in ("", "ㄹ") else "으로"
    return pair[0] if final else pair[1]


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders of one template (escaped braces excluded)."""
    return {match.group(1) for match in _TOKEN.finditer(template) if match.group(1)}


def _text(value: Any, spec: str | None, more: ListWords = MORE) -> str:
    if isinstance(value, Names) and not value:
        return more.none
    if isinstance(value, Names) and len(value) > value.limit:
        shown = ", ".join(str(item) for item in value[: value.limit])
        return more.more.replace("{names}", shown).replace("{count}", str(len(value) - value.limit))
    if isinstance(value, LIST_TYPES):
        return ", ".join(_text(item, None) for item in value)
    if spec:
        return format(value, spec)
    return str(value)


def pasteable(line: str) -> str:
    """Commands stay as they are; explanatory lines become shell comments, so a pasted block is safe."""
    stripped = line.lstrip()
    first = stripped.split(" ", 1)[0] if stripped else ""
    if not stripped or stripped.startswith(("#", "[", "-")) or "\n" in line or first in COMMAND_WORDS:
        return line
    if "=" in first and " " not in first:
        return line
    return "# " + line


def is_command(template: str) -> bool:
    """A fix line that runs (its first word is a program), as opposed to a `# ` note or prose."""
    return template.lstrip().split(" ", 1)[0] in COMMAND_WORDS


def _shell_word(text: str, quoting: str) -> str:
    """`text` as it must be written where it stands: bare, inside '...' or inside "..."."""
    if quoting == "'":
        return text.replace("'", "'\\''")
    if quoting == '"':
        return re.sub(r'([\\"$`])', r"\\\1", text)
    return shlex.quote(text)


def _quoting_after(literal: str, state: str) -> str:
    """The quote the shell is inside after reading `literal` from `state` ("", "'" or '"')."""
    escaped = False
    for char in literal:
        if escaped:
            escaped = False
        elif char == "\\" and state != "'":
            escaped = True
        elif state == "" and char in "'\"":
            state = char
        elif char == state:
            state = ""
    return state


def fill_command(template: str, values: Mapping[str, Any]) -> str:
    """Fill a command: every value is quoted for the shell where it stands, a list item by item.

    A namespace or a Pod name from the cluster can hold a space, a `;` or a `$(...)`: pasted, the
    command must still mean one name (issue 22)."""
    literals, holes = _parsed(template)
    out = [literals[0]]
    state = _quoting_after(literals[0], "")
    for (token, name, spec, _part), literal in zip(holes, literals[1:], strict=True):
        value = values.get(name) if name else None
        if value is None:
            out.append(token)
        else:
            items = value if isinstance(value, LIST_TYPES) else [value]
            try:
                texts = [format(item, spec) if spec else str(item) for item in items]
            except Exception:  # as fill(): a value that cannot be written stays a visible placeholder
                texts = None
            out.append(token if texts is None else " ".join(_shell_word(text, state) for text in texts))
        out.append(literal)
        state = _quoting_after(literal, state)
    return "".join(out)


def _parsed(template: str) -> tuple[list[str], list[_Hole]]:
    parsed = _PARSED.get(template)
    if parsed is None:
        parsed = _parse(template)
        if len(_PARSED) >= 4096:  # the catalog has a few hundred templates: only odd callers miss
            _PARSED.clear()
        _PARSED[template] = parsed
    return parsed


def fill(template: str, values: Mapping[str, Any], more: ListWords = MORE) -> str:
    """Fill `{name}` from `values`; unknown names stay visible as `{name}`; never raises.

    A visible `{node}` in the output is better than a crash or a silently wrong sentence: the
    user still gets the command, and the tests catch the rule that forgot a value.
    """
    literals, holes = _parsed(template)
    if not holes:
        return literals[0]
    out = [literals[0]]
    for (token, name, spec, part), literal in zip(holes, literals[1:], strict=True):
        value = values.get(name) if name else None
        if not name and part:  # `{|을}`: the particle that fits the text written so far
            out.append(particle("".join(out), part))
        elif value is None:
            out.append(token)
        else:
            try:
                text = _text(value, spec, more)
                out.append(text + particle(text, part) if part else text)
            except Exception:  # a value whose __str__ or format raises must not cost the user the finding
                out.append(token)
        out.append(literal)
    return "".join(out)


# template -> its literal texts and, between them, its placeholders (token, name, spec, particle):
# a verdict is filled 10,000 times by `check` at 5,000 nodes, its template scanned once.
_Hole = tuple[str, str, str | None, str | None]
_PARSED: dict[str, tuple[list[str], list[_Hole]]] = {}


def _parse(template: str) -> tuple[list[str], list[_Hole]]:
    """`template` split at its tokens as `_TOKEN.sub` sees them: `{{`/`}}` become literal braces."""
    literals: list[str] = []
    holes: list[_Hole] = []
    pieces, start = [], 0
    for match in _TOKEN.finditer(template):
        pieces.append(template[start : match.start()])
        start = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            pieces.append(token[0])
            continue
        literals.append("".join(pieces))
        holes.append((token, match.group(1), match.group(2), match.group(3)))
        pieces = []
    pieces.append(template[start:])
    literals.append("".join(pieces))
    return literals, holes


def fill_lines(template: str, values: Mapping[str, Any], more: ListWords = MORE) -> list[str]:
    """A remediation line: a line that is only `{name}` with a list value becomes one line per item.

    That is how a rule hands over commands built from the cluster's data (one per node, per claim)
    without writing any words itself; an empty list gives no line at all.
    """
    whole = _WHOLE_LINE.match(template)
    if whole:
        value = values.get(whole.group(1))
        if isinstance(value, LIST_TYPES):
            return [str(item) for item in value]
    if is_command(template):
        return [fill_command(template, values)]
    return [fill(template, values, more)]
