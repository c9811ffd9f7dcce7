"""The terminal drawing of `topo`: per node, its NUMA nodes side by side, devices by PCIe root.

People would rather look than read (issue 8): one box per NUMA node, one line per
device with its PCIe root, a mark (○ free, ● held, ✗ unusable) and a word. Holders
get a letter, named once below the boxes, so a claim's devices are seen together.
Two NUMA nodes of 8 NPUs and 5 NICs fit in 100 columns; `wide` adds names and
PCI addresses and lets boxes stack instead.
"""

from __future__ import annotations

import string

import click

from kubectl_rbln.diagnose.topology import (
    FREE,
    HELD,
    Holder,
    NodeTopology,
    NumaGroup,
    RctChoice,
    Spot,
    Topology,
    choose_rct,
    node_topology,
)
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import ClaimSpec, Snapshot

MAX_WIDTH = 100
GAP = 1
MARKS = {FREE: "○", HELD: "●", "unusable": "✗"}
COLORS = {FREE: "green", HELD: "yellow", "unusable": "red"}
NO_ROOT = "no pcieRoot"


def holder_letters(holders: list[Holder]) -> dict[Holder, str]:
    """A, B, ... Z, then AA, AB...: short enough for a cell, stable in drawing order."""
    letters = string.ascii_uppercase
    out = {}
    for index, holder in enumerate(holders):
        out[holder] = letters[index] if index < 26 else letters[index // 26 - 1] + letters[index % 26]
    return out


def _status(spot: Spot, letters: dict[Holder, str]) -> str:
    if spot.state == HELD and spot.holder is not None:
        return f"held by {letters[spot.holder]}"
    if spot.state == FREE:
        return f"free → #{spot.next_pod}" if spot.next_pod else "free"
    return spot.reason


def _label(spot: Spot, wide: bool) -> str:
    if not wide:
        return spot.label
    parts = [spot.label] + ([spot.name] if spot.name != spot.label else []) + ([spot.address] if spot.address else [])
    return " ".join(parts)


def _title(group: NumaGroup, numa_attribute: str) -> str:
    if group.numa is not None:
        return f"NUMA {group.numa}"
    return f"unplaced: no {numa_attribute.split(' ')[0].rsplit('/', 1)[-1]}"


def _rows(group: NumaGroup, letters: dict[Holder, str], wide: bool) -> list[tuple[str, str, Spot, str]]:
    """(root cell, label cell, spot, status) per device; the root shows on its first device only."""
    rows = []
    for root in group.roots:
        for index, spot in enumerate(root.devices):
            cell = (root.root or NO_ROOT) if index == 0 else ""
            status = _status(spot, letters)
            if wide and spot.numa_hint:
                status += f" ({spot.numa_hint})"
            rows.append((cell, _label(spot, wide), spot, status))
    return rows


def _paint(text: str, spot: Spot, color: bool) -> str:
    if not color:
        return text
    if spot.reason == "not requested":
        return click.style(text, dim=True)
    return click.style(text, fg=COLORS.get(spot.state))


def _panels(topo: NodeTopology, letters: dict[Holder, str], *, color: bool, wide: bool) -> list[list[str]]:
    """One box per group, all the same width so side-by-side boxes line up."""
    per_group = [(_title(g, topo.numa_attribute), _rows(g, letters, wide)) for g in topo.groups]
    all_rows = [r for _, rows in per_group for r in rows]
    root_w = max((len(r[0]) for r in all_rows), default=0)
    label_w = max((len(r[1]) for r in all_rows), default=0)
    status_w = max((len(r[3]) for r in all_rows), default=0)
    inner = max(root_w + label_w + status_w + 4, max((len(t) for t, _ in per_group), default=0) + 3)
    boxes = []
    for title, rows in per_group:
        top = f"┌─ {title} " + "─" * (inner - len(title) - 1) + "┐"
        lines = [click.style(top, bold=True) if color else top]
        height = max(len(r) for _, r in per_group)
        for cell, label, spot, status in rows:
            mark = MARKS.get(spot.state, "?")
            pad = inner - root_w - label_w - 4
            body = f"{cell:<{root_w}} {label:<{label_w}} " + _paint(f"{mark} {status:<{pad}}", spot, color)
            lines.append(f"│ {body} │")
        lines += ["│" + " " * (inner + 2) + "│"] * (height - len(rows))
        lines.append("└" + "─" * (inner + 2) + "┘")
        boxes.append(lines)
    return boxes


def _box_width(box: list[str]) -> int:
    return len(click.unstyle(box[-1]))


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
        for i in range(height):
            cells = [b[i] if i < len(b) else " " * width for b in row]
            lines.append((" " * GAP).join(cells).rstrip())
    return lines


def _fit(text: str, width: int = MAX_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def summary_lines(topo: NodeTopology, rct: RctChoice) -> list[str]:
    """How many more Pods of the RCT fit; when none, the simulation's first reason on its own line."""
    s = topo.summary
    if rct.spec is None:
        return [f"{topo.node}: {s.reason}; devices are shown free or held only"]
    count = f"{s.pods}+" if s.capped else str(s.pods)
    pods = "Pod" if s.pods == 1 and not s.capped else "Pods"
    lines = [f"{topo.node}: {count} more {pods} of {rct.key} fit"]
    if s.pods == 0 and s.reason:
        lines.append(f"  why not: {s.reason}")
    return lines


def _holder_lines(letters: dict[Holder, str], wide: bool) -> list[str]:
    lines = []
    for holder, letter in letters.items():
        claim = holder.claim.split("/", 1)[-1]
        text = f"  {letter}  {holder.pod}  claim {claim}" if holder.pod else f"  {letter}  claim {holder.claim}"
        lines.append(text if wide else _fit(text))
    return lines


def render_node(topo: NodeTopology, rct: RctChoice, *, color: bool = False, wide: bool = False) -> str:
    """One node: the summary line, the boxes, and who A, B... are."""
    letters = holder_letters(topo.holders())
    head, *why = [line if wide else _fit(line) for line in summary_lines(topo, rct)]
    lines = [click.style(head, bold=True) if color else head, *why]
    if not topo.groups:
        lines.append("  (no devices published for this node)")
    lines += _side_by_side(_panels(topo, letters, color=color, wide=wide), MAX_WIDTH)
    lines += _holder_lines(letters, wide)
    return "\n".join(lines)


def heading(rct: RctChoice) -> str:
    if rct.spec is None:
        return _fit(f"RCT {rct.key} not found ({rct.origin}); --rct NAME or --rct-file FILE decides usable")
    return _fit(f"RCT {rct.key} ({rct.origin}) decides usable")


LEGEND = "○ free  ● held (A, B: below each node)  ✗ unusable, and why  → #N: the Nth more Pod takes it"


def render_topology(topology: Topology, *, color: bool = False, wide: bool = False) -> str:
    """The RCT, every node, then the legend."""
    if not topology.nodes:
        return "no node publishes devices (no node-local ResourceSlice)\n"
    blocks = [render_node(n, topology.rct, color=color, wide=wide) for n in topology.nodes]
    return heading(topology.rct) + "\n\n" + "\n\n".join(blocks) + "\n\n" + LEGEND + "\n"


def render_node_drawing(snapshot: Snapshot, node: str, *, namespace: str, spec: ClaimSpec | None = None,
                        rct: str | None = None, features: Features | None = None, color: bool = False,
                        wide: bool = False) -> str:
    """The drawing of one node for `why`: `spec` is the Pod's claim spec when the caller has it
    (named `rct`, default "the Pod's claim"); otherwise the RCT is chosen as `topo` chooses it."""
    choice = (RctChoice(rct or "the Pod's claim", namespace, spec, "the Pod's claim") if spec is not None
              else choose_rct(snapshot, namespace, rct))
    topo = node_topology(snapshot, node, choice, features or Features())
    return render_node(topo, choice, color=color, wide=wide)
