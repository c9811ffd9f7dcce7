"""Terminal-safe text for the table views: whole reports, and text we coloured ourselves.

The rules (what counts as a control sequence) are kubectl_rbln/text.py's, shared
with the source layer, which cleans what a Pod printed; what is here only
matters when drawing: cleaning a whole JSON-like report once before the table
views add their own colours, and keeping those colours while removing the rest.
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_rbln.text import strip_controls


def clean_tree(value: Any) -> Any:
    """A copy of a JSON-like report with `strip_controls` applied to every string (keys too): the
    table views sanitize cluster text once, up front, then add their own colours."""
    if isinstance(value, str):
        return strip_controls(value)
    if isinstance(value, dict):
        return {clean_tree(k): clean_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_tree(v) for v in value]
    return value


_SGR = re.compile(r"(\x1b\[[0-9;]*m)")


def strip_controls_keep_color(text: str) -> str:
    """`strip_controls` for text we already coloured: SGR colour codes stay, every other sequence
    goes (no cursor moves, titles, hyperlinks or clipboard writes can survive)."""
    parts = _SGR.split(text)
    return "".join(part if index % 2 else strip_controls(part) for index, part in enumerate(parts))
