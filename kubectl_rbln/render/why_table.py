"""The human view of `why`: the verdict first, then each finding with its evidence and fix.

Meant to be taken in at a glance in a terminal: a symbol and a slug per finding,
the evidence as short `key: value` lines, `fix:` lines that can be pasted, and a
table of what the simulation found on each node. Laid out for `width` columns (the CLI's
render/width.py `output_width`): prose and values wrap at words, a long list ends with a count,
and only the fix's commands pass the width, whole, so they paste.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from kubectl_rbln.app.topo import NodeView
from kubectl_rbln.catalog import load_sentences, sentence
from kubectl_rbln.diagnose.lifecycle import parse_time
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.event_ages import last_seen
from kubectl_rbln.render.sanitize import clean_tree, strip_controls_keep_color
from kubectl_rbln.render.topo_text import render_node
from kubectl_rbln.render.width import DEFAULT_WIDTH, display_width, ljust_width, wrap_width
from kubectl_rbln.text import strip_controls

SYMBOLS = {"error": "✗", "warning": "!", "info": "i"}
COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}
MAX_NODE_ROWS = 20
MAX_VALUE_LINES = 4  # an evidence value wrapped longer than this ends with a count of what is left
VALUE_INDENT = "      "  # an evidence value's next lines
WIDTH = DEFAULT_WIDTH


def _style(text: str, color: bool, **style: Any) -> str:
    return click.style(text, **style) if color else text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def evidence_lines(label: str, value: Any, *, quoted: bool, lang: str, width: int) -> list[str]:
    """`    label: value` wrapped at words; a value longer than MAX_VALUE_LINES is summarised with a
    count, never cut inside a word: a list by its first items and "and N more", a text by its first
    words and how many more there are (-o wide and -o json show it all)."""
    head, indent = f"{label}: ", "    "
    if isinstance(value, list) and len(value) > 1:
        lines = wrap_width(head + _json(value), width, indent, VALUE_INDENT)
        if len(lines) <= MAX_VALUE_LINES:
            return lines

        def first(kept: int) -> list[str]:
            more = sentence("more-names", lang, names=_json(value[:kept]), count=len(value) - kept)
            return wrap_width(head + more, width, indent, VALUE_INDENT)

        return first(_most(len(value), lambda kept: len(first(kept)) <= MAX_VALUE_LINES))
    text = value if isinstance(value, str) else _json(value)
    one = f'{indent}{head}"{text}"' if quoted else indent + head + text
    if "\n" not in one and display_width(one) <= width:  # as it is: its spaces kept
        return [one]
    lines = wrap_width(head + (f'"{text}"' if quoted else text), width, indent, VALUE_INDENT)
    if len(lines) <= MAX_VALUE_LINES:
        return lines
    words = text.split()

    def summary(kept: int) -> list[str]:
        shown = " ".join(words[:kept])
        more = sentence("why-more-words", lang, count=len(words) - kept)
        summary = f'{head}"{shown}" {more}' if quoted else f"{head}{shown} {more}"
        return wrap_width(summary, width, indent, VALUE_INDENT)

    return summary(_most(len(words), lambda kept: len(summary(kept)) <= MAX_VALUE_LINES))


def _most(count: int, fits: Callable[[int], bool]) -> int:
    """The most of `count` items (at least 1, fewer than all) whose summary `fits`: a binary search."""
    low, high = 1, count - 1
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


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
        quoted = lang != "en" and key in MESSAGE_KEYS and isinstance(value, str)  # the cluster's English
        if wide:
            lines.append(f"    {label}: " + (f'"{value}"' if quoted else _json(value)))
        else:
            lines += evidence_lines(label, value, quoted=quoted, lang=lang, width=width)
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
    """Explanations (`# ...`) wrap at the width, at words, never leaving one word alone on a last
    line (`# run`); commands are never wrapped, so they paste whole (or go on after a `\\`)."""
    if wide:
        return lines
    out: list[str] = []
    for line in lines:
        if line.startswith("# ") and display_width(line) > width - indent:
            out += wrap_width(line[2:], width - indent, "# ", "# ", widow=False)
        else:
            out.append(line)
    return out


def render_nodes(
    nodes: list[dict[str, Any]], *, wide: bool, lang: str = "en", width: int = WIDTH
) -> list[str]:
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
    lines = ["", sentence("why-nodes-heading", lang)]
    # the reason wraps in what NODE and FITS leave of the width (-o wide: one line each)
    lines += plain_table(rows, headers=_columns("why", lang), width=None if wide else width)
    if len(nodes) > len(shown):
        lines.append(sentence("why-more-nodes", lang, count=len(nodes) - len(shown)))
    return lines


def _columns(view: str, lang: str) -> list[str]:
    return sentence(f"{view}-nodes-columns" if view == "why" else f"{view}-columns", lang).split("|")


def render_events(
    events: list[dict[str, Any]], lang: str = "en", read_at: str = "", width: int = WIDTH
) -> list[str]:
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
    lines = ["", *wrap_width(heading, width, "", "    ")]
    if all(display_width(row) + 2 <= width for row in [header, *table]):
        lines.append(f"  {header}")
        for row, event in zip(table, shown, strict=True):
            lines += [f"  {row}", *wrap_width(str(event.get("message", "")), width, "      ", "      ")]
        return lines
    # a long reason (OutOf<extended resource>) or a long name does not fit one row: the cells that do
    # not fit go on lines of their own under the row, in the header's order, nothing cut
    lines.append(f"  {'  '.join(_columns('why-events', lang))}")
    kept = 2  # LAST SEEN and TYPE always share the row
    while kept < 4 and all(display_width("  ".join(r[: kept + 1])) + 2 <= width for r in rows):
        kept += 1
    short = _aligned([row[:kept] for row in rows])
    for cells, line, event in zip(rows, short, shown, strict=True):
        lines.append(f"  {line}")
        lines += [f"      {cell}" for cell in cells[kept:] if cell]
        lines += wrap_width(str(event.get("message", "")), width, "      ", "      ")
    return lines


def _aligned(rows: list[list[str]]) -> list[str]:
    """Columns two spaces apart, each as wide as its widest cell, as kubectl's tabwriter aligns them."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(ljust_width(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _verdict_lines(verdict: str, color: bool, wide: bool, width: int = WIDTH) -> list[str]:
    lines = [verdict] if wide else wrap_width(verdict, width, "", "    ")
    return [_style(line, color, bold=True) for line in lines]


def render_diagnosis(
    diagnosis: dict[str, Any],
    *,
    color: bool,
    wide: bool,
    drawing: tuple[str, str] | None = None,
    lang: str = "en",
    read_at: str = "",
    width: int = WIDTH,
) -> str:
    lines = _verdict_lines(diagnosis["verdict"], color, wide, width)
    for finding in diagnosis["findings"]:
        lines.append("")
        lines.extend(render_finding(finding, color=color, wide=wide, lang=lang, width=width))
    lines += render_nodes(diagnosis.get("nodes") or [], wide=wide, lang=lang, width=width)
    if drawing is not None:
        lines += ["", sentence("why-closest-node", lang, node=drawing[0]), drawing[1].rstrip("\n")]
    lines += render_events(diagnosis.get("events") or [], lang, read_at, width)
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
    width: int = WIDTH,
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
            verdict = _verdict_lines(diagnosis["verdict"], color, wide, width)
            blocks.append("\n".join([*verdict, *wrap_width(same, width, "    ", "    ")]))
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
                width=width,
            )
        )
    for finding in report.get("findings") or []:  # the read itself is incomplete: no Pod to carry it
        blocks.append("\n".join(render_finding(finding, color=color, wide=wide, lang=lang, width=width)))
    if not blocks:
        message = report.get("message", sentence("why-nothing", lang))
        blocks = [message if wide else "\n".join(wrap_width(message, width, "", "    "))]
    return "\n\n".join(blocks) + "\n"


def render_why(
    document: dict[str, Any],
    views: dict[str, NodeView],
    *,
    color: bool,
    wide: bool,
    lang: str = "en",
    width: int = WIDTH,
) -> str:
    """The `why` text: the report, and for each Pod the node closest to fitting, drawn, not computed."""
    drawings = {
        pod: (
            view.topology.node,
            render_node(view.topology, view.rct, color=color, wide=wide, lang=lang, width=width),
        )
        for pod, view in views.items()
    }
    return render_report(document, color=color, wide=wide, drawings=drawings, lang=lang, width=width)
