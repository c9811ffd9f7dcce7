"""The human view of `why`: the verdict first, then each finding with its evidence and fix.

Meant to be taken in at a glance in a terminal: a symbol and a slug per finding,
the evidence as short `key: value` lines, `fix:` lines that can be pasted, and a
table of what the simulation found on each node.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import click
from tabulate import tabulate

from kubectl_rbln.app.topo import NodeView
from kubectl_rbln.render.sanitize import clean_tree, strip_controls_keep_color
from kubectl_rbln.render.topo_text import render_node
from kubectl_rbln.text import strip_controls

SYMBOLS = {"error": "✗", "warning": "!", "info": "i"}
COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}
MAX_NODE_ROWS = 20
MAX_EVIDENCE_VALUE = 160
WIDTH = 100
MAX_REASON = 78  # NODE + FITS + WHY within 100 columns


def _style(text: str, color: bool, **style: Any) -> str:
    return click.style(text, **style) if color else text


def _short(value: Any, room: int = MAX_EVIDENCE_VALUE) -> str:
    """One evidence value cut to the room left on a 100-column line (-o wide and -o json show it all)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= room else text[: max(room - 1, 8)] + "…"


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
)


def pasteable(line: str) -> str:
    """Commands stay as they are; explanatory lines become shell comments, so a pasted block is safe."""
    stripped = line.lstrip()
    first = stripped.split(" ", 1)[0] if stripped else ""
    if not stripped or stripped.startswith(("#", "[", "-")) or "\n" in line or first in COMMAND_WORDS:
        return line
    if "=" in first and " " not in first:
        return line
    return "# " + line


def render_finding(finding: dict[str, Any], *, color: bool, wide: bool) -> list[str]:
    severity = finding["severity"]
    head = f"{SYMBOLS.get(severity, '-')} {severity:<7} {finding['slug']}"
    lines = [_style(head, color, fg=COLORS.get(severity), bold=True) + f"  {finding['title']}"]
    if finding.get("detail"):
        lines += textwrap.wrap(
            finding["detail"],
            width=WIDTH,
            initial_indent="    ",
            subsequent_indent="    ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    evidence = finding.get("evidence") or {}
    keys = list(evidence) if wide else list(evidence)[:8]
    for key in keys:
        value = evidence[key]
        if value in (None, [], {}, ""):
            continue
        shown = (
            json.dumps(value, ensure_ascii=False, default=str)
            if wide
            else _short(value, WIDTH - len(key) - 6)
        )
        lines.append(f"    {key}: {shown}")
    for index, command in enumerate(finding.get("remediation") or []):
        prefix = "    fix: " if index == 0 else "         "
        command_lines = _wrap_comments(pasteable(str(command)).splitlines() or [""], wide)
        lines.append(prefix + command_lines[0])
        lines.extend("         " + extra for extra in command_lines[1:])
    if finding.get("docs"):
        lines.append(f"    docs: {finding['docs']}")
    return lines


def _wrap_comments(lines: list[str], wide: bool) -> list[str]:
    """Explanations (`# ...`) wrap at 100 columns; commands are never cut, so they paste whole."""
    if wide:
        return lines
    out: list[str] = []
    for line in lines:
        if line.startswith("# ") and len(line) > WIDTH - 9:
            out += textwrap.wrap(
                line[2:],
                width=WIDTH - 11,
                initial_indent="# ",
                subsequent_indent="# ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        else:
            out.append(line)
    return out


def render_nodes(nodes: list[dict[str, Any]], *, wide: bool) -> list[str]:
    if not nodes:
        return []
    rows = []
    shown = nodes if wide else nodes[:MAX_NODE_ROWS]
    for node in shown:
        fits = {True: "yes", False: "no", None: "-"}[node.get("fits")]
        reason = node.get("reason", "")
        if wide and node.get("failure"):
            reason = node["failure"]["summary"]
        elif len(reason) > MAX_REASON:
            reason = reason[: MAX_REASON - 1] + "…"
        rows.append([node["name"], fits, reason])
    lines = ["", "NODES (simulated DRA allocation)"]
    lines += tabulate(rows, headers=["NODE", "FITS", "WHY"], tablefmt="plain").splitlines()
    if len(nodes) > len(shown):
        lines.append(f"... {len(nodes) - len(shown)} more nodes (-o wide or -o json shows all)")
    return lines


def render_events(events: list[dict[str, Any]]) -> list[str]:
    if not events:
        return []
    lines = ["", "EVENTS"]
    for event in events[-5:]:
        count = f" (x{event['count']})" if event.get("count", 1) > 1 else ""
        text = f"{event.get('type', '')} {event.get('reason', '')}{count}: {event.get('message', '')}"
        lines += textwrap.wrap(
            text, width=WIDTH, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False
        )
    return lines


def render_diagnosis(
    diagnosis: dict[str, Any], *, color: bool, wide: bool, drawing: tuple[str, str] | None = None
) -> str:
    lines = [_style(diagnosis["verdict"], color, bold=True)]
    for finding in diagnosis["findings"]:
        lines.append("")
        lines.extend(render_finding(finding, color=color, wide=wide))
    lines += render_nodes(diagnosis.get("nodes") or [], wide=wide)
    if drawing is not None:
        lines += ["", f"CLOSEST NODE: {drawing[0]}", drawing[1].rstrip("\n")]
    lines += render_events(diagnosis.get("events") or [])
    return "\n".join(lines)


def _signature(diagnosis: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((f["slug"], f["title"]) for f in diagnosis["findings"])


def render_report(
    report: dict[str, Any], *, color: bool, wide: bool, drawings: dict[str, tuple[str, str]] | None = None
) -> str:
    """One block per Pod; Pods with exactly the same findings as an earlier one get one line.

    Names, events, evidence and reasons come from the cluster: terminal control sequences in them
    are stripped before anything is drawn (-o json keeps them, JSON-escaped)."""
    report = clean_tree(report)
    clean = strip_controls_keep_color if color else strip_controls  # the drawing holds our colours
    drawings = {pod: (clean(node), clean(text)) for pod, (node, text) in (drawings or {}).items()}
    blocks = []
    first_with: dict[tuple[tuple[str, str], ...], str] = {}
    for diagnosis in report["pods"]:
        signature = _signature(diagnosis)
        if signature and signature in first_with and not wide:
            blocks.append(
                _style(diagnosis["verdict"], color, bold=True)
                + f"\n    (same findings as {first_with[signature]})"
            )
            continue
        first_with.setdefault(signature, diagnosis["pod"])
        drawing = drawings.get(diagnosis["pod"])
        blocks.append(render_diagnosis(diagnosis, color=color, wide=wide, drawing=drawing))
    if not blocks:
        blocks = [report.get("message", "no device Pod needs attention")]
    return "\n\n".join(blocks) + "\n"


def render_why(document: dict[str, Any], views: dict[str, NodeView], *, color: bool, wide: bool) -> str:
    """The `why` text: the report, and for each Pod the node closest to fitting, drawn, not computed."""
    drawings = {
        pod: (view.topology.node, render_node(view.topology, view.rct, color=color, wide=wide))
        for pod, view in views.items()
    }
    return render_report(document, color=color, wide=wide, drawings=drawings)
