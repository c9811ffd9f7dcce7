"""Terminal-safe text for the table views: whole reports, and text we coloured ourselves.

The rules (what counts as a control sequence) are kubectl_rbln/text.py's, shared
with the source layer, which cleans what a Pod printed; what is here only
matters when drawing: cleaning a whole JSON-like report once before the table
views add their own colours, and keeping those colours while removing the rest (the palette is
kubectl_rbln/terminal.py's, the writer under stdout and stderr that applies the same rules to
everything printed, whatever a renderer did).
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.terminal import strip_controls_keep_color
from kubectl_rbln.text import strip_controls

__all__ = ["clean_tree", "strip_controls_keep_color"]


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
