"""A live list page's items read the way a `-f` file's are: through the item templates.

Why (issue 26): at 20,000 nodes a live `why` decoded every page into its wire shape (~1.4 s) and then
normalized every item (~2.4 s), though the Pods, claims and Nodes of a list are a few templates and
the slices a few node types, which the `-f` read already skips (cluster/wire_templates.py,
dra/slice_templates.py). Here a page is decoded with its items as their raw bytes (`msgspec.Raw`, a
slice of the body: cheap), and each item goes through `wire_read.item_of`, the one matcher both
feeders share (a file's lines, a page's items): an item whose text matches a template comes with its
model made, any other is decoded into its wire shape and teaches the templates. One `PageReader` per
list read (`LiveClient.list`), so its templates are one thread's.

The API server writes no kind or apiVersion per item: an item takes its list's, as `LiveClient._take`
always gave it, before it is decoded or proven against (`wire_read.Listed`). An item that does not fit
the file path's reading (another kind, parts of another shape) is decoded as the live read did
before (the page's wire shape, dra/wire.py WIRE_SHAPES); one that does not fit that either makes the
whole page decode the plain way (`LiveClient._decode`), as before, malformed-object report included.

A Pod read from a template has no status beside its model, so its restarted containers (whose previous
log `why` reads, cluster/source.py `crashing_containers`) could not be told: a Pod whose text may name
one (a `restartCount` other than 0, `CrashLoopBackOff`, or a `\\u` escape that may spell either) is
decoded, never read from a template. `KUBECTL_RBLN_TEMPLATES=0` turns the templates off here too.
"""

from __future__ import annotations

import functools
import re
from typing import Any, TypedDict

import msgspec

from kubectl_rbln.cluster import wire_templates
from kubectl_rbln.cluster.wire_read import _branches, _template_decode, filling, item_of
from kubectl_rbln.dra.wire import WIRE_SHAPES

_RESTARTS = b'"restartCount"'
_NO_RESTART = re.compile(rb"\s*:\s*0\s*[,}]")
_LIST_META = TypedDict("_LIST_META", {"continue": Any, "resourceVersion": Any}, total=False)


class _Page(TypedDict, total=False):
    kind: Any
    apiVersion: Any
    metadata: _LIST_META
    items: list[msgspec.Raw]


_PAGE = msgspec.json.Decoder(_Page)


class PageReader:
    """`decode(body)`: a list page of `kind`, its items read (templated, or in their wire shape); raises
    msgspec's errors for a page they do not fit, which the caller then decodes the plain way."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.list_kind = f"{kind}List"
        self.wire = msgspec.json.Decoder(WIRE_SHAPES[kind])
        self.templates: dict[Any, wire_templates.Templates | None] = {}  # per apiVersion of the pages
        self.on = wire_templates.enabled()

    def decode(self, body: bytes) -> dict[str, Any]:
        page: dict[str, Any] = dict(_PAGE.decode(body))
        items = page.get("items")
        if not items:
            return page
        kind = page.get("kind")
        if kind != self.list_kind:  # a Status, a plain List: every item as the live read did before
            page["items"] = [self.wire.decode(raw) for raw in items]
            return page
        api_version = page.get("apiVersion", "")
        listed = (self.kind, api_version)
        templates = self._templates(api_version, listed)
        decode = filling(self.kind, listed)
        read = []
        pods = self.kind == "Pod"
        for index, raw in enumerate(items):
            items[index] = None  # its object is read: the slice of the body goes with the page
            text = bytes(raw)
            obj = item_of(text, self.kind, None if pods and _may_crash(text) else templates, decode)
            read.append(obj if obj is not None else self.wire.decode(raw))
        page["items"] = read
        return page

    def _templates(self, api_version: Any, listed: Any) -> wire_templates.Templates | None:
        """The templates of the pages of one apiVersion: a template is proven with the list's kind and
        apiVersion filled in, and its items' views carry them (keyed by its text: any JSON value)."""
        if not self.on or self.kind not in (*wire_templates.KINDS, "ResourceSlice"):
            return None
        key = repr(api_version)
        if key not in self.templates:
            decode = functools.partial(_template_decode, listed=listed)
            self.templates[key] = wire_templates.Templates(decode, _branches())
        return self.templates[key]


def _may_crash(text: bytes) -> bool:
    """Whether a Pod's text may hold a container that restarted or crash-loops (cluster/source.py
    `crashing_containers`): a `restartCount` other than 0, `CrashLoopBackOff`, or a `\\u` escape that
    may spell either. Found with `bytes.find` (a regex alternation scans ~20 us a Pod; a backslash,
    one byte, is looked for before a `\\u`, whose search is ten times slower)."""
    if b"CrashLoopBackOff" in text or (b"\\" in text and b"\\u" in text):
        return True
    at = text.find(_RESTARTS)
    while at >= 0:
        at += len(_RESTARTS)
        if _NO_RESTART.match(text, at) is None:
            return True
        at = text.find(_RESTARTS, at)
    return False
