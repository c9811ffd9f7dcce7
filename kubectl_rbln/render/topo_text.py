"""The terminal drawing of `topo`: per node, its NUMA nodes side by side, devices by PCIe root.

People would rather look than read (issue 8): one box per NUMA node, one line per
device with its PCIe root, a mark (○ free, ● held, ✗ unusable) and a word. Holders
get a letter, named once below the boxes, so a claim's devices are seen together.
Two NUMA nodes of 8 NPUs and 5 NICs fit side by side in 100 columns; boxes that do not fit
the width (80 columns, or `wide`'s names and PCI addresses) stack instead. Sentences wrap at
words and names stay whole.
"""

from __future__ import annotations

import string

import click

from kubectl_rbln.catalog import sentence
from kubectl_rbln.diagnose.topology import (
    FREE,
    HELD,
    Holder,
    NamespaceFit,
    NodeTopology,
    NumaGroup,
    RctChoice,
    Spot,
    Topology,
)
from kubectl_rbln.render.sanitize import strip_controls_keep_color
from kubectl_rbln.render.width import (
    DEFAULT_WIDTH,
    display_width,
    ljust_width,
    longest_unit,
    wrap_items,
    wrap_width,
)
from kubectl_rbln.text import strip_controls

MAX_WIDTH = DEFAULT_WIDTH
GAP = 1
STATUS_INDENT = "    "  # a device's status wrapped in a box: its next lines
NO_ROOT = "no pcieRoot"  # the SVG (English only)
MARKS = {FREE: "○", HELD: "●", "unusable": "✗"}
COLORS = {FREE: "green", HELD: "yellow", "unusable": "red"}


def holder_letters(holders: list[Holder]) -> dict[Holder, str]:
    """A, B, ... Z, then AA, AB...: short enough for a cell, stable in drawing order."""
    letters = string.ascii_uppercase
    out = {}
    for index, holder in enumerate(holders):
        out[holder] = letters[index] if index < 26 else letters[index // 26 - 1] + letters[index % 26]
    return out


def status_text(spot: Spot, letters: dict[Holder, str], lang: str = "en") -> str:
    """The word after a device's mark: `free → #1`, `held by A`, `rdma=false`."""
    if spot.state == HELD and spot.holder is not None:
        return sentence("topo-held-by", lang, letter=letters[spot.holder])
    if spot.state == FREE:
        if spot.next_pod:
            return sentence("topo-free-next", lang, next=spot.next_pod)
        return sentence("topo-free", lang)
    return reason_text(spot.reason, lang)


def reason_text(reason: str, lang: str) -> str:
    """diagnose/topology's fixed reasons (`not requested`, `no numaNode`) in `lang`; `rdma=false` as is."""
    if reason == "not requested":
        return sentence("topo-not-requested", lang)
    if reason.startswith("no ") and " " not in reason[3:]:
        return sentence("topo-lacks", lang, attribute=reason[3:])
    if reason == "not published":
        return sentence("topo-not-published", lang)
    if reason.startswith("tainted "):
        return sentence("topo-tainted", lang, taint=reason[len("tainted ") :])
    return reason


def _cells(spot: Spot, wide: bool) -> list[str]:
    """The columns naming a device: its label; wide adds the device name (when different) and PCI address."""
    if not wide:
        return [spot.label]
    return [spot.label, spot.name if spot.name != spot.label else "", spot.address or ""]


def _title(group: NumaGroup, numa_attributes: list[str], wide: bool, lang: str = "en") -> str:
    if group.numa is not None:
        return f"NUMA {group.numa}"
    attribute = numa_attributes[0]
    return sentence("topo-unplaced", lang, attribute=attribute if wide else attribute.rsplit("/", 1)[-1])


def _rows(
    group: NumaGroup, letters: dict[Holder, str], wide: bool, lang: str = "en"
) -> list[tuple[list[str], Spot, str]]:
    """(cells, spot, status) per device; the PCIe root cell shows on a root's first device only."""
    rows = []
    for root in group.roots:
        for index, spot in enumerate(root.devices):
            cell = (root.root or sentence("topo-no-root", lang)) if index == 0 else ""
            status = status_text(spot, letters, lang)
            if wide and spot.numa_hint:
                status += f" ({spot.numa_hint})"
            rows.append(([cell, *_cells(spot, wide)], spot, status))
    return rows


def _paint(text: str, spot: Spot, color: bool) -> str:
    if not color:
        return text
    if spot.reason == "not requested":
        return click.style(text, dim=True)
    return click.style(text, fg=COLORS.get(spot.state))


def _panels(
    topo: NodeTopology,
    letters: dict[Holder, str],
    *,
    color: bool,
    wide: bool,
    lang: str = "en",
    width: int | None = None,
) -> list[list[str]]:
    """One box per group, all the same width and columns, so side-by-side boxes line up; a box
    wider than `width` wraps its long statuses (a taint) at words onto lines of their own."""
    per_group = [
        (_title(g, topo.numa_attributes, wide, lang), _rows(g, letters, wide, lang)) for g in topo.groups
    ]
    all_rows = [r for _, rows in per_group for r in rows]
    columns = len(all_rows[0][0]) if all_rows else 0
    widths = [max(display_width(r[0][i]) for r in all_rows) for i in range(columns)]
    status_w = max((display_width(r[2]) for r in all_rows), default=0) + 2  # "○ " + status
    used = [w for w in widths if w]
    titles = max((display_width(t) for t, _ in per_group), default=0)
    inner = max(sum(used) + len(used) + status_w, titles + 3)
    if width is not None and inner + 4 > width:  # "│ " and " │" around the inside
        words = max((longest_unit(r[2]) for r in all_rows), default=0)
        inner = max(width - 4, sum(used) + len(used) + 2 + min(words, 16), titles + 3)
    boxes = []
    for title, rows in per_group:
        top = f"┌─ {title} " + "─" * (inner - display_width(title) - 1) + "┐"
        lines = [click.style(top, bold=True) if color else top]
        for cells, spot, status in rows:
            text = "".join(ljust_width(c, w) + " " for c, w in zip(cells, widths, strict=True) if w)
            said = f"{MARKS.get(spot.state, '?')} {status}"
            if display_width(text + said) <= inner:
                lines.append(
                    f"│ {text}{_paint(ljust_width(said, inner - display_width(text)), spot, color)} │"
                )
                continue
            for index, line in enumerate(wrap_width(said, inner, text, STATUS_INDENT)):
                cells_part = text if index == 0 else ""
                rest = ljust_width(line[len(cells_part) :], inner - display_width(cells_part))
                lines.append(f"│ {cells_part}{_paint(rest, spot, color)} │")
        lines.append("└" + "─" * (inner + 2) + "┘")
        boxes.append(lines)
    return boxes


def _box_width(box: list[str]) -> int:
    return display_width(click.unstyle(box[-1]))


def _padded(box: list[str], height: int) -> list[str]:
    """A box stretched to `height` lines with empty rows, so neighbours share top and bottom."""
    blank = "│" + " " * (_box_width(box) - 2) + "│"
    return box[:-1] + [blank] * (height - len(box)) + box[-1:]


def _side_by_side(boxes: list[list[str]], max_width: int) -> list[str]:
    """Boxes left to right, wrapping to a new row when the next would pass max_width."""
    if not boxes:
        return []
    width = _box_width(boxes[0])
    per_row = max(1, (max_width + GAP) // (width + GAP))
    lines: list[str] = []
    for start in range(0, len(boxes), per_row):
        row = boxes[start : start + per_row]
        height = max(len(b) for b in row)
        stretched = [_padded(b, height) for b in row]
        for i in range(height):
            lines.append((" " * GAP).join(b[i] for b in stretched).rstrip())
    return lines


def _wrapped(text: str, width: int, wide: bool) -> list[str]:
    """A sentence of the drawing wrapped at words under its own indent (one line with -o wide)."""
    body = text.lstrip(" ")
    indent = text[: len(text) - len(body)]
    return [text] if wide else wrap_width(body, width, indent, indent + "    ")


def _summary_reason(reason: str, rct: RctChoice, lang: str) -> str:
    if reason == f"no ResourceClaimTemplate {rct.key}":
        return sentence("topo-no-rct", lang, rct=rct.key)
    return reason


def summary_lines(topo: NodeTopology, rct: RctChoice, lang: str = "en") -> list[str]:
    """How many more Pods of the RCT fit (for a ResourceClaim the Pod names itself: whether it fits);
    when none, the simulation's first reason on its own line."""
    s = topo.summary
    if rct.spec is None:
        reason = _summary_reason(s.reason or "", rct, lang)
        return [sentence("topo-summary-no-rct", lang, node=topo.node, reason=reason)]
    if s.pods is None:  # laid out from a simulation the caller did not pass: no count to show
        return [sentence("topo-summary-devices", lang, node=topo.node, rct=rct.key)]
    if rct.direct:  # one claim, allocated once and shared: whether it fits, not how many more Pods
        key = "topo-summary-claim-fits" if s.pods else "topo-summary-claim-no-fit"
        lines = [sentence(key, lang, node=topo.node, claim=rct.key)]
    else:
        count = f"{s.pods}+" if s.capped else str(s.pods or 0)
        pods = "Pod" if s.pods == 1 and not s.capped else "Pods"
        lines = [sentence("topo-summary-fit", lang, node=topo.node, count=count, pods=pods, rct=rct.key)]
    if s.pods == 0 and s.reason:
        lines.append("  " + sentence("topo-why-not", lang, reason=s.reason_in(lang)))
    return lines


def _holder_lines(
    letters: dict[Holder, str], wide: bool, lang: str = "en", width: int = MAX_WIDTH
) -> list[str]:
    lines = []
    for holder, letter in letters.items():
        claim = sentence("topo-holder-claim", lang, claim=holder.claim.split("/", 1)[-1])
        text = f"  {letter}  {holder.pod}  {claim}" if holder.pod else f"  {letter}  {holder.claim}"
        if not wide and holder.pod and display_width(text) > width:  # names stay whole: pasted
            lines += [f"  {letter}  {holder.pod}", f"     {claim}"]
            continue
        lines.append(text)
    return lines


def fit_lines(node: str, fits: list[NamespaceFit], lang: str = "en") -> list[str]:
    """`topo -A`: under the node's name, one line per namespace's RCT: how many more of its Pods fit."""
    lines = [sentence("topo-summary-all", lang, node=node)]
    for fit in fits:
        s, key = fit.nodes[node], fit.rct.key
        if s.pods is None:
            lines.append("  " + sentence("topo-fit-no-rct", lang, rct=key))
            continue
        count = f"{s.pods}+" if s.capped else str(s.pods)
        pods = "Pod" if s.pods == 1 and not s.capped else "Pods"
        lines.append("  " + sentence("topo-fit-line", lang, rct=key, count=count, pods=pods))
        if s.pods == 0 and s.reason:
            lines.append("    " + sentence("topo-why-not", lang, reason=s.reason_in(lang)))
    return lines


def render_node(
    topo: NodeTopology,
    rct: RctChoice,
    *,
    color: bool = False,
    wide: bool = False,
    lang: str = "en",
    fits: list[NamespaceFit] | None = None,
    width: int = MAX_WIDTH,
) -> str:
    """One node: the summary line (with `fits`, `topo -A`: one per namespace), the boxes, and who A,
    B... are."""
    letters = holder_letters(topo.holders())
    summary = summary_lines(topo, rct, lang) if fits is None else fit_lines(topo.node, fits, lang)
    head, *why = summary
    lines = [click.style(line, bold=True) if color else line for line in _wrapped(head, width, wide)]
    for line in why:
        lines += _wrapped(line, width, wide)
    if not topo.groups:
        lines += _wrapped("  " + sentence("topo-no-devices", lang), width, wide)
    boxes = _panels(topo, letters, color=color, wide=wide, lang=lang, width=None if wide else width)
    lines += _side_by_side(boxes, width)
    lines += _holder_lines(letters, wide, lang, width)
    return "\n".join(lines)


def _origin(origin: str, lang: str) -> str:
    if origin == "default":
        return sentence("topo-origin-default", lang)
    if origin.startswith("used by Pods in "):
        return sentence("topo-origin-used", lang, namespace=origin.removeprefix("used by Pods in "))
    return origin


def heading(rct: RctChoice, lang: str = "en") -> str:
    origin = _origin(rct.origin, lang)
    if rct.spec is None:
        return sentence("topo-heading-missing", lang, rct=rct.key, origin=origin)
    return sentence("topo-heading", lang, rct=rct.key, origin=origin)


def all_heading(fits: list[NamespaceFit], lang: str = "en") -> str:
    """`topo -A`: which namespaces' RCTs are counted (wrapped, never cut: the names are the point)."""
    if not fits:
        return sentence("topo-heading-all-none", lang)
    names = ", ".join(fit.rct.namespace for fit in fits)
    return sentence("topo-heading-all", lang, count=len(fits), namespaces=names)


LEGEND = "○ free  ● held (A, B: below each node)  ✗ unusable, and why  → #N: the Nth more Pod takes it"


def render_topology(
    topology: Topology, *, color: bool = False, wide: bool = False, lang: str = "en", width: int = MAX_WIDTH
) -> str:
    """The RCT, every node, then the legend (its entries, two spaces apart, wrap between entries)."""
    if not topology.nodes:
        return "\n".join(_wrapped(sentence("topo-no-node", lang), width, wide)) + "\n"
    fits = topology.fits
    blocks = [
        render_node(n, topology.rct, color=color, wide=wide, lang=lang, fits=fits, width=width)
        for n in topology.nodes
    ]
    legend = sentence("topo-legend", lang)
    legend = legend if wide else "\n".join(wrap_items(legend.split("  "), width))
    title = heading(topology.rct, lang) if fits is None else all_heading(fits, lang)
    top = "\n".join(_wrapped(title, width, wide))
    text = top + "\n\n" + "\n\n".join(blocks) + "\n\n" + legend + "\n"
    # node and device names come from the cluster; with colour on, only SGR colour codes survive
    return strip_controls_keep_color(text) if color else strip_controls(text)
