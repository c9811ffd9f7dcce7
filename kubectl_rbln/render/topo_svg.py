"""`topo -o svg`: the same layout as the terminal drawing, as a standalone picture for reports.

Plain string building (no dependency): per node a title and the summary, then one
box per NUMA node side by side (and "unplaced"), inside them one box per PCIe
root, inside those one coloured bar per device naming it, with its state. Every
text goes through `xml.sax.saxutils.escape`, so names from a cluster cannot break
the document.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from kubectl_rbln.diagnose.topology import FREE, HELD, NodeTopology, NumaGroup, RctChoice, Spot, Topology
from kubectl_rbln.render.topo_text import NO_ROOT, heading, holder_letters, status_text, summary_lines

FILL = {FREE: "#d9f2d9", HELD: "#ffe8b3", "unusable": "#f8d0d0"}
STROKE = {FREE: "#2e7d32", HELD: "#b26a00", "unusable": "#c62828"}
FONT = 'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace"'
MARGIN = 16
BAR_H = 20
BAR_GAP = 4
ROOT_PAD = 8
ROOT_HEAD = 18
PANEL_HEAD = 26
PANEL_GAP = 16
PANEL_W = 420
LINE_H = 18
CHAR_W = 7.2  # 12 px monospace


def _text(
    x: float, y: float, content: str, *, size: int = 12, weight: str = "normal", fill: str = "#222"
) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}" fill="{fill}">'
        f"{escape(content)}</text>"
    )


def _rect(x: float, y: float, w: float, h: float, *, fill: str, stroke: str, rx: int = 4) -> str:
    return (
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="{rx}" '
        f'fill="{fill}" stroke="{stroke}"/>'
    )


def _panel_height(group: NumaGroup) -> float:
    height = PANEL_HEAD
    for root in group.roots:
        height += ROOT_HEAD + len(root.devices) * (BAR_H + BAR_GAP) + ROOT_PAD
    return height + ROOT_PAD


def _panel(group: NumaGroup, x: float, y: float, height: float, title: str, letters: dict) -> list[str]:
    out = [
        _rect(x, y, PANEL_W, height, fill="#f7f7f7", stroke="#555", rx=6),
        _text(x + 10, y + 18, title, size=14, weight="bold"),
    ]
    cy = y + PANEL_HEAD
    for root in group.roots:
        box_h = ROOT_HEAD + len(root.devices) * (BAR_H + BAR_GAP)
        out.append(_rect(x + ROOT_PAD, cy, PANEL_W - 2 * ROOT_PAD, box_h, fill="#ffffff", stroke="#999"))
        out.append(_text(x + ROOT_PAD + 6, cy + 13, root.root or NO_ROOT, size=11, fill="#555"))
        by = cy + ROOT_HEAD
        for spot in root.devices:
            label = spot.label if spot.label == spot.name else f"{spot.label} ({spot.name})"
            bar_x, bar_w = x + 2 * ROOT_PAD, PANEL_W - 4 * ROOT_PAD
            out.append(f"<g><title>{escape(_tooltip(spot))}</title>")
            out.append(
                _rect(
                    bar_x,
                    by,
                    bar_w,
                    BAR_H,
                    fill=FILL.get(spot.state, "#eee"),
                    stroke=STROKE.get(spot.state, "#888"),
                    rx=3,
                )
            )
            out.append(_text(bar_x + 6, by + 14, label))
            status = status_text(spot, letters)
            out.append(
                _text(
                    bar_x + bar_w - 6 - CHAR_W * len(status),
                    by + 14,
                    status,
                    fill=STROKE.get(spot.state, "#222"),
                )
            )
            out.append("</g>")
            by += BAR_H + BAR_GAP
        cy += box_h + ROOT_PAD
    return out


def _tooltip(spot: Spot) -> str:
    parts = [f"{spot.driver}/{spot.pool}/{spot.name}", f"state: {spot.state}"]
    if spot.address:
        parts.append(f"PCI {spot.address}")
    if spot.reason:
        parts.append(f"reason: {spot.reason}")
    if spot.holder:
        parts.append(f"claim {spot.holder.claim}" + (f", pod {spot.holder.pod}" if spot.holder.pod else ""))
    return "; ".join(parts)


def _node(topo: NodeTopology, rct: RctChoice, y: float) -> tuple[list[str], float, float]:
    """SVG elements of one node from height y; returns (elements, height used, width used)."""
    letters = holder_letters(topo.holders())
    out = []
    for index, line in enumerate(summary_lines(topo, rct)):
        out.append(
            _text(
                MARGIN,
                y + 16 + index * LINE_H,
                line.strip(),
                size=14 if index == 0 else 12,
                weight="bold" if index == 0 else "normal",
            )
        )
    y += 8 + LINE_H * len(summary_lines(topo, rct))
    height = max((_panel_height(g) for g in topo.groups), default=0)
    x = MARGIN
    for group in topo.groups:
        numa = topo.numa_attributes[0].rsplit("/", 1)[-1]
        title = f"NUMA {group.numa}" if group.numa is not None else f"unplaced: no {numa}"
        out += _panel(group, x, y, height, title, letters)
        x += PANEL_W + PANEL_GAP
    y += height + 8
    for holder, letter in letters.items():
        who = f"{letter} = claim {holder.claim}" + (f", pod {holder.pod}" if holder.pod else "")
        out.append(_text(MARGIN, y + 14, who, fill="#b26a00"))
        y += LINE_H
    width = max(x - PANEL_GAP + MARGIN, MARGIN + 2 * PANEL_W)
    return out, y, width


def render_svg(topology: Topology) -> str:
    """A standalone SVG document of every node."""
    body = [_text(MARGIN, 24, heading(topology.rct), size=14, weight="bold")]
    y = 36.0
    width: float = MARGIN * 2 + 2 * PANEL_W
    for topo in topology.nodes:
        elements, y, used = _node(topo, topology.rct, y)
        body += elements
        y += 24
        width = max(width, used)
    if not topology.nodes:
        body.append(_text(MARGIN, y + 16, "no node publishes devices"))
        y += 32
    legend = "green: free   amber: held (A, B: by whom)   red: unusable, and why   → #N: the Nth more Pod"
    body.append(_text(MARGIN, y + 4, legend, size=11, fill="#555"))
    height = y + 20
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" {FONT}>'
    )
    title = f"<title>{escape('kubectl rbln topo: ' + topology.rct.key)}</title>"
    background = f'<rect width="100%" height="100%" fill={quoteattr("#ffffff")}/>'
    document = ['<?xml version="1.0" encoding="UTF-8"?>', head, title, background, *body, "</svg>"]
    return "\n".join(document) + "\n"
