"""The one fill function: a catalog template and a finding's typed values in, the user's text out.

Every command renders through it, so a list prints the same way everywhere (`a, b`), a number
can carry a format (`{steps:,}`), and an unknown placeholder stays visible instead of raising.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# `{name}` or `{name:spec}` is a placeholder; `{{` and `}}` are literal braces (as in str.format,
# so a jq or jsonpath command survives). Anything else in braces is left alone.
_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}:]*))?\}")
_WHOLE_LINE = re.compile(r"^\s*\{([A-Za-z_][A-Za-z0-9_]*)\}\s*$")
LIST_TYPES = (list, tuple, set, frozenset)
MORE = "{names} and {count} more"


class Names(list):
    """A list of names that prints its first `limit` and then "and N more" in the reader's language."""

    def __init__(self, items: Any = (), limit: int = 5) -> None:
        super().__init__(items)
        self.limit = limit


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders of one template (escaped braces excluded)."""
    return {match.group(1) for match in _TOKEN.finditer(template) if match.group(1)}


def _text(value: Any, spec: str | None, more: str = MORE) -> str:
    if isinstance(value, Names) and not value:
        return more.split("|", 1)[1] if "|" in more else "none"
    more = more.split("|", 1)[0]
    if isinstance(value, Names) and len(value) > value.limit:
        shown = ", ".join(str(item) for item in value[: value.limit])
        return more.replace("{names}", shown).replace("{count}", str(len(value) - value.limit))
    if isinstance(value, LIST_TYPES):
        return ", ".join(_text(item, None) for item in value)
    if spec:
        return format(value, spec)
    return str(value)


def fill(template: str, values: Mapping[str, Any], more: str = MORE) -> str:
    """Fill `{name}` from `values`; unknown names stay visible as `{name}`; never raises.

    A visible `{node}` in the output is better than a crash or a silently wrong sentence: the
    user still gets the command, and the tests catch the rule that forgot a value.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        value = values.get(match.group(1))
        if value is None:
            return token
        try:
            return _text(value, match.group(2), more)
        except Exception:  # a value whose __str__ or format raises must not cost the user the finding
            return token

    return _TOKEN.sub(replace, template)


def fill_lines(template: str, values: Mapping[str, Any], more: str = MORE) -> list[str]:
    """A remediation line: a line that is only `{name}` with a list value becomes one line per item.

    That is how a rule hands over commands built from the cluster's data (one per node, per claim)
    without writing any words itself; an empty list gives no line at all.
    """
    whole = _WHOLE_LINE.match(template)
    if whole:
        value = values.get(whole.group(1))
        if isinstance(value, LIST_TYPES):
            return [str(item) for item in value]
    return [fill(template, values, more)]
