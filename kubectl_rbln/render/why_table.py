"""The human view of `why`: the verdict first, then each finding with its evidence and fix.

Meant to be taken in at a glance in a terminal: a symbol and a slug per finding,
the evidence as short `key: value` lines, `fix:` lines that can be pasted, and a
table of what the simulation found on each node.
"""

from __future__ import annotations

import json
from typing import Any

import click

from kubectl_rbln.app.topo import NodeView
from kubectl_rbln.catalog import load_sentences, sentence
from kubectl_rbln.diagnose.lifecycle import parse_time
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.event_ages import last_seen
from kubectl_rbln.render.sanitize import clean_tree, strip_controls_keep_color
from kubectl_rbln.render.topo_text import render_node
from kubectl_rbln.text import cut_width, display_width, ljust_width, strip_controls, wrap_width

SYMBOLS = {"error": "✗", "warning": "!", "info": "i"}
COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}
MAX_NODE_ROWS = 20
MAX_EVIDENCE_VALUE = 160
WIDTH = 100


def _style(text: str, color: bool, **style: Any) -> str:
    return click.style(text, **style) if color else text


def _short(value: Any, room: int = MAX_EVIDENCE_VALUE) -> str:
    """One evidence value cut to the room left on a 100-column line (-o wide and -o json show it all)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return cut_width(text, max(room, 9))


# Evidence keys whose value is a message in Kubernetes' (or a driver's) own words: quoted in a
# translated view, so the English reads as the cluster's.
MESSAGE_KEYS = frozenset(
    ("schedulerSays", "event", "schedulerEvent", "schedulerError", "message", "scheduler", "apiServer")
)


def evidence_label(key: str, lang: str) -> str:
    """An evidence key as the table names it (`evidence-<key>` in the catalog); the key itself if none."""
    texts = load_sentences().get(f"evidence-{key}")
    return (texts.get(lang) or texts.get("en") or key) if texts else key


def severity_word(severity: str, lang: str) -> str:
    return sentence(f"severity-{severity}", lang) if severity in SYMBOLS else severity


def render_finding(
    finding: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> list[str]:
    severity = finding["severity"]
    word = ljust_width(severity_word(severity, lang), 7)
    head = f"{SYMBOLS.get(severity, '-')} {word} {finding['slug']}"
    title = f"  {finding['title']}"
    lines = [_style(head, color, fg=COLORS.get(severity), bold=True) + title]
    if not wide and display_width(head + title) > width:  # the title goes under the slug
        lines = [_style(head, color, fg=COLORS.get(severity), bold=True)]
        lines += wrap_width(finding["title"], width, "    ", "    ")
    if finding.get("detail"):
        lines += wrap_width(finding["detail"], width, "    ", "    ")
    evidence = finding.get("evidence") or {}
    keys = list(evidence) if wide else list(evidence)[:8]
    for key in keys:
        value = evidence[key]
        if value in (None, [], {}, ""):
            continue
        label = evidence_label(key, lang)
        room = width - display_width(label) - 6
        if lang != "en" and key in MESSAGE_KEYS and isinstance(value, str):  # the cluster's English, quoted
            shown = f'"{value}"' if wide else f'"{_short(value, room - 2)}"'
        else:
            shown = json.dumps(value, ensure_ascii=False, default=str) if wide else _short(value, room)
        lines.append(f"    {label}: {shown}")
    lines += fix_block(finding.get("remediation") or [], lang, wide=wide, width=width)
    if finding.get("docs"):
        lines.append(f"    {sentence('label-docs', lang)} {finding['docs']}")
    return lines


FIX_INDENT = "      "


def fix_block(remediation: list[str], lang: str, *, wide: bool, width: int = WIDTH) -> list[str]:
    """`fix:` on a line of its own, then the fix's blocks, indented: select from its first `#` line."""
    if not remediation:
        return []
    lines = [f"    {sentence('label-fix', lang)}"]
    for line in remediation:  # already the fix's text (catalog/fix_text.py): notes are `# ` lines
        for shown in _wrap_comments(str(line).splitlines() or [""], wide, len(FIX_INDENT), width):
            lines.append((FIX_INDENT + shown).rstrip())
    return lines


def _wrap_comments(lines: list[str], wide: bool, indent: int = 9, width: int = WIDTH) -> list[str]:
    """Explanations (`# ...`) wrap at 100 columns; commands are never cut, so they paste whole."""
    if wide:
        return lines
    out: list[str] = []
    for line in lines:
        if line.startswith("# ") and display_width(line) > width - indent:
            out += wrap_width(line[2:], width - indent, "# ", "# ")
        else:
            out.append(line)
    return out


def render_nodes(nodes: list[dict[str, Any]], *, wide: bool, lang: str = "en") -> list[str]:
    if not nodes:
        return []
    rows = []
    shown = nodes if wide else nodes[:MAX_NODE_ROWS]
    for node in shown:  # rows come uncleaned (render_report): what is drawn of them is cleaned here
        fits = node.get("fits")
        fits_word = "-" if fits is None else sentence("word-yes" if fits else "word-no", lang)
        reason = node.get("reason", "")
        if wide and node.get("failure"):
            reason = node["failure"]["summary"]
        rows.append([strip_controls(node["name"]), fits_word, strip_controls(reason)])
    if not wide:  # the reason takes what NODE and FITS leave of 100 columns
        name_w = max(display_width(r[0]) for r in rows)
        fits_w = max(display_width(r[1]) for r in rows + [["", h] for h in _columns("why", lang)[1:2]])
        room = max(WIDTH - name_w - fits_w - 4, 20)
        rows = [[n, f, cut_width(r, room)] for n, f, r in rows]
    lines = ["", sentence("why-nodes-heading", lang)]
    lines += plain_table(rows, headers=_columns("why", lang))
    if len(nodes) > len(shown):
        lines.append(sentence("why-more-nodes", lang, count=len(nodes) - len(shown)))
    return lines


def _columns(view: str, lang: str) -> list[str]:
    return sentence(f"{view}-nodes-columns" if view == "why" else f"{view}-columns", lang).split("|")


def render_events(events: list[dict[str, Any]], lang: str = "en", read_at: str = "") -> list[str]:
    """The last five events as `kubectl events` lists them (LAST SEEN, TYPE, REASON, OBJECT), each
    with its message below; LAST SEEN is counted back from `read_at`, when the objects were read."""
    if not events:
        return []
    at = parse_time(read_at) if read_at else None
    heading = (
        sentence("why-events-heading-at", lang, read_at=read_at)
        if at
        else sentence("why-events-heading", lang)
    )
    shown = events[-5:]
    rows = [
        [last_seen(e, at, lang), e.get("type", ""), e.get("reason", ""), e.get("object", "")] for e in shown
    ]
    header, *table = _aligned([_columns("why-events", lang), *rows])
    # a long reason (OutOf<extended resource>) and a long name do not fit one row: the object then
    # leads its message, and the row stays within the width
    apart = any(display_width(row) + 2 > WIDTH for row in [header, *table])
    if apart:
        header, *table = _aligned([_columns("why-events", lang)[:3], *[row[:3] for row in rows]])
    lines = ["", heading, f"  {header}"]
    for row, event in zip(table, shown, strict=True):
        lines.append(f"  {row}")
        message = str(event.get("message", ""))
        if apart and event.get("object"):
            message = f"{event['object']}: {message}"
        lines += wrap_width(message, WIDTH, "      ", "      ")
    return lines


def _aligned(rows: list[list[str]]) -> list[str]:
    """Columns two spaces apart, each as wide as its widest cell, as kubectl's tabwriter aligns them."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(ljust_width(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _verdict_lines(verdict: str, color: bool, wide: bool) -> list[str]:
    lines = [verdict] if wide else wrap_width(verdict, WIDTH, "", "    ")
    return [_style(line, color, bold=True) for line in lines]


def render_diagnosis(
    diagnosis: dict[str, Any],
    *,
    color: bool,
    wide: bool,
    drawing: tuple[str, str] | None = None,
    lang: str = "en",
    read_at: str = "",
) -> str:
    lines = _verdict_lines(diagnosis["verdict"], color, wide)
    for finding in diagnosis["findings"]:
        lines.append("")
        lines.extend(render_finding(finding, color=color, wide=wide, lang=lang))
    lines += render_nodes(diagnosis.get("nodes") or [], wide=wide, lang=lang)
    if drawing is not None:
        lines += ["", sentence("why-closest-node", lang, node=drawing[0]), drawing[1].rstrip("\n")]
    lines += render_events(diagnosis.get("events") or [], lang, read_at)
    return "\n".join(lines)


def _cleaned(report: dict[str, Any]) -> dict[str, Any]:
    """The report with `clean_tree` applied to all but each Pod's nodes[] rows, which
    `render_nodes` cleans as it draws them: the table shows 20 of 5,000 rows, and cleaning every
    row's candidates and failure details cost more than the rest of the drawing (issue 16)."""
    cleaned = clean_tree({key: value for key, value in report.items() if key != "pods"})
    pods = []
    for diagnosis in report.get("pods") or []:
        pod = clean_tree({key: value for key, value in diagnosis.items() if key != "nodes"})
        if "nodes" in diagnosis:
            pod["nodes"] = diagnosis["nodes"]
        pods.append(pod)
    if "pods" in report:
        cleaned["pods"] = pods
    return cleaned


def _signature(diagnosis: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((f["slug"], f["title"]) for f in diagnosis["findings"])


def render_report(
    report: dict[str, Any],
    *,
    color: bool,
    wide: bool,
    drawings: dict[str, tuple[str, str]] | None = None,
    lang: str = "en",
) -> str:
    """One block per Pod; Pods with exactly the same findings as an earlier one get one line.

    Names, events, evidence and reasons come from the cluster: terminal control sequences in them
    are stripped before anything is drawn (-o json keeps them, JSON-escaped)."""
    report = _cleaned(report)
    clean = strip_controls_keep_color if color else strip_controls  # the drawing holds our colours
    drawings = {pod: (clean(node), clean(text)) for pod, (node, text) in (drawings or {}).items()}
    blocks = []
    first_with: dict[tuple[tuple[str, str], ...], str] = {}
    for diagnosis in report["pods"]:
        signature = _signature(diagnosis)
        if signature and signature in first_with and not wide:
            same = sentence("why-same-findings", lang, pod=first_with[signature])
            blocks.append("\n".join([*_verdict_lines(diagnosis["verdict"], color, wide), f"    {same}"]))
            continue
        first_with.setdefault(signature, diagnosis["pod"])
        drawing = drawings.get(diagnosis["pod"])
        blocks.append(
            render_diagnosis(
                diagnosis,
                color=color,
                wide=wide,
                drawing=drawing,
                lang=lang,
                read_at=report.get("readAt", ""),
            )
        )
    for finding in report.get("findings") or []:  # the read itself is incomplete: no Pod to carry it
        blocks.append("\n".join(render_finding(finding, color=color, wide=wide, lang=lang)))
    if not blocks:
        message = report.get("message", sentence("why-nothing", lang))
        blocks = [message if wide else "\n".join(wrap_width(message, WIDTH, "", "    "))]
    return "\n\n".join(blocks) + "\n"


def render_why(
    document: dict[str, Any], views: dict[str, NodeView], *, color: bool, wide: bool, lang: str = "en"
) -> str:
    """The `why` text: the report, and for each Pod the node closest to fitting, drawn, not computed."""
    drawings = {
        pod: (view.topology.node, render_node(view.topology, view.rct, color=color, wide=wide, lang=lang))
        for pod, view in views.items()
    }
    return render_report(document, color=color, wide=wide, drawings=drawings, lang=lang)
