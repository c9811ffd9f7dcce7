"""The human view of `attrs`: required keys with their verdicts, value formats, then what is advertised.

Fitted to the width: cells wrap at words and names stay whole, node lists go to notes under the
table and a long one ends with "and N more"; `-o wide` keeps everything (and lists every advertised
attribute's missing nodes).
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.app.attrs import AttrsReport, AttrsReportList
from kubectl_rbln.catalog import sentence
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.sanitize import clean_tree
from kubectl_rbln.render.why_table import fix_block, render_finding, severity_word
from kubectl_rbln.render.width import DEFAULT_WIDTH, fit_items, wrap_width

WIDTH = DEFAULT_WIDTH
MISSING_CELL = 40  # the advertised table's MISSING ON cell: the nodes that fit, then "and N more"
VERDICTS = ("present", "partial", "absent", "optional")
SHORT_KIND = {
    "selector": "selector",
    "guarded": "guarded",
    "capacity": "capacity",
    "matchAttribute": "match",
    "distinctAttribute": "distinct",
}
# A value-format note (diagnose/attrs.py writes the English one into the document): its sentence key.
FORMAT_NOTES = ("attrs-note-bdf", "attrs-note-types")


def wrap(text: str, first: str, rest: str, wide: bool, width: int = WIDTH) -> list[str]:
    """A note or comment wrapped at words to the width (one line with -o wide)."""
    if wide:
        return [first + text]
    return wrap_width(text, width, first, rest)


def names(items: list[str], room: int, lang: str, wide: bool) -> str:
    """Node names joined, or as many as fit in `room` columns and "and N more" (-o wide: all)."""
    if wide:
        return ", ".join(items)
    return fit_items(items, room, lambda shown, count: sentence("more-names", lang, names=shown, count=count))


def attrs_fixes(findings: list[dict[str, Any]], lang: str, wide: bool, width: int = WIDTH) -> list[str]:
    """Each finding's fix once, under its slug and title: the remedy `why` and `check` print too."""
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for finding in findings:
        key = tuple(finding.get("remediation") or [])
        if not key or key in seen:
            continue
        seen.add(key)
        out += [""] + wrap(f"{finding['slug']}: {finding['title']}", "  ", "    ", wide, width)
        out += fix_block(list(key), lang, wide=wide, width=width)
    return out[1:] if out else out


def ratio(coverage: dict[str, Any] | None, which: str) -> str:
    if not coverage:
        return "-"
    if which == "nodes":
        return f"{coverage['nodes']}/{coverage['nodesTotal']}"
    return f"{coverage['devices']}/{coverage['devicesOfDriver']}"


def kind_word(kind: str, lang: str) -> str:
    """How the RCT reads an attribute (the USE column): `selector`, `match`... in the reader's language."""
    return sentence(f"attrs-kind-{kind}", lang) if kind in SHORT_KIND else kind


def verdict_word(verdict: str, lang: str) -> str:
    return sentence(f"attrs-verdict-{verdict}", lang) if verdict in VERDICTS else verdict


def columns(key: str, lang: str) -> list[str]:
    return sentence(key, lang).split("|")


def required_table(report: dict[str, Any], wide: bool, lang: str = "en", width: int = WIDTH) -> list[str]:
    rows = []
    notes = []
    for row in report["required"]:
        kinds = ",".join(kind_word(k, lang) for k in row["kinds"])
        rows.append(
            [
                row["attribute"],
                row["driver"],
                kinds,
                ratio(row["coverage"], "nodes"),
                ratio(row["coverage"], "devices"),
                verdict_word(row["verdict"], lang),
            ]
        )
        missing = (row["coverage"] or {}).get("missingOn") or []
        if row["verdict"] in ("partial", "absent"):
            note = f"{row['attribute']} ({row['driver']}): {verdict_word(row['verdict'], lang)}"
            absent = set(row.get("driverAbsentOn") or [])
            if missing:
                shown = names(missing, 2 * width, lang, wide)
                note += "; " + sentence("attrs-missing-on", lang, nodes=shown)
                if absent >= set(missing):
                    note += " " + sentence("attrs-no-driver-there", lang, driver=row["driver"])
            if row["nearMisses"]:
                note += "; " + sentence("attrs-near-miss", lang, names=", ".join(row["nearMisses"]))
            notes.append(note)
    lines = [sentence("attrs-required-heading", lang)]
    lines += plain_table(rows, headers=columns("attrs-required-columns", lang), width=None if wide else width)
    if not rows:
        lines += wrap(sentence("attrs-reads-nothing", lang), "  ", "    ", wide, width)
    for note in notes:
        lines += wrap(note, "  ! ", "    ", wide, width)
    return lines


def format_note(note: str, lang: str) -> str:
    for key in FORMAT_NOTES:
        if note == sentence(key, "en"):
            return sentence(key, lang)
    return note


def formats_table(report: dict[str, Any], wide: bool, lang: str = "en", width: int = WIDTH) -> list[str]:
    rows = [row for row in report["formats"] if wide or not row["ok"]]
    if not rows:
        all_ok = sentence("attrs-formats-all-ok", lang, count=len(report["formats"]))
        return wrap(all_ok, "", "    ", wide, width)
    table = [
        [
            r["attribute"],
            r["driver"],
            r["found"],
            sentence("attrs-format-ok", lang) if r["ok"] else severity_word(r["severity"], lang),
        ]
        for r in rows
    ]
    lines = [sentence("attrs-formats-heading", lang)]
    lines += plain_table(table, headers=columns("attrs-formats-columns", lang), width=None if wide else width)
    for r in rows:
        if r["note"]:
            note = format_note(r["note"], lang)
            lines += wrap(f"{r['attribute']} ({r['driver']}): {note}", "  ! ", "    ", wide, width)
    return lines


def advertised_table(report: dict[str, Any], wide: bool, lang: str = "en", width: int = WIDTH) -> list[str]:
    lines = wrap(sentence("attrs-advertised-heading", lang), "", "    ", wide, width)
    for driver in report["drivers"]:
        entries = report["advertised"].get(driver["driver"], [])
        said = sentence(
            "attrs-advertised-driver",
            lang,
            driver=driver["driver"],
            devices=driver["devices"],
            nodes=len(driver["nodes"]),
            count=len(entries),
        )
        lines += wrap(said, "", "    ", wide, width)
        rows = []
        for entry in entries:
            missing = names(entry["missingOn"], MISSING_CELL, lang, wide)
            rows.append(
                [
                    entry["attribute"],
                    ",".join(entry["types"]),
                    f"{entry['devices']}/{entry['devicesOfDriver']}",
                    f"{entry['nodes']}/{entry['nodesTotal']}",
                    missing or "-",
                ]
            )
        headers = columns("attrs-advertised-columns", lang)
        table = plain_table(rows, headers=headers, width=None if wide else width - 2)
        lines += ["  " + line for line in table]
    return lines


def render_attrs(
    attrs: AttrsReport, *, lang: str = "en", color: bool = False, wide: bool = False, width: int = WIDTH
) -> str:
    """Draw an AttrsReport (app/attrs.py) from its document: the table shows what `-o json` says."""
    report = clean_tree(attrs.to_document(lang))  # cluster text may carry terminal control sequences
    rct = report["rct"]
    origin = rct["origin"]
    if origin == "cluster" and str(report.get("source", "")).startswith("files"):
        origin = "bundle"
    title = f"RCT {rct['namespace']}/{rct['name']} ({sentence(f'attrs-origin-{origin}', lang)}" + (
        f", {rct['apiVersion']})" if rct.get("apiVersion") else ")"
    )
    lines = wrap(title, "", "    ", wide, width)
    if rct.get("note"):
        note = rct["note"]
        if rct["origin"] == "recipe":
            note = sentence("attrs-recipe-note", lang, name=rct["name"], namespace=rct["namespace"])
        lines += wrap(note, "  ", "  ", wide, width)
    nodes = report["nodes"]
    shown = names(nodes, width, lang, wide)
    device_nodes = sentence("attrs-device-nodes", lang, count=len(nodes), nodes=shown)
    lines += wrap(device_nodes, "", "    ", wide, width)
    lines.append("")
    lines += required_table(report, wide, lang, width)
    for dropped in report["droppedFields"]:
        lines += wrap(
            sentence("attrs-dropped-field", lang, field=dropped["field"], gate=dropped["gate"]),
            "  ! ",
            "    ",
            wide,
            width,
        )
    lines.append("")
    lines += formats_table(report, wide, lang, width)
    lines.append("")
    lines += advertised_table(report, wide, lang, width)
    if report["remediation"]:
        lines += ["", sentence("attrs-fix-heading", lang)]
        lines += attrs_fixes(report["findings"], lang, wide, width)
    if report["findings"] and wide:
        lines += ["", sentence("attrs-findings-heading", lang)]
        for finding in report["findings"]:
            lines += render_finding(finding, color=color, wide=wide, lang=lang, width=width)
    verdicts = [r["verdict"] for r in report["required"]]
    bad = sum(v in ("absent", "partial") for v in verdicts)
    summary = sentence("attrs-summary", lang, ok=len(verdicts) - bad, total=len(verdicts))
    if report["findings"] and not wide:
        summary += sentence("attrs-summary-findings", lang, count=len(report["findings"]))
    lines += ["", *wrap(summary, "", "    ", wide, width)]
    return "\n".join(lines) + "\n"


def render_attrs_list(
    listed: AttrsReportList, *, lang: str = "en", color: bool = False, wide: bool = False
) -> str:
    """`attrs -A`: a line naming every RCT compared, then each one's report as `attrs -n NS --rct NAME`
    draws it, a rule between them."""
    names = [f"{r.diagnosis.source.namespace}/{r.diagnosis.source.name}" for r in listed.reports]
    head = sentence("attrs-all-heading", lang, count=len(names), names=", ".join(names))
    blocks = [render_attrs(r, lang=lang, color=color, wide=wide).rstrip("\n") for r in listed.reports]
    lines = [*wrap(clean_tree(head), "", "    ", wide), ""]
    return "\n".join(lines) + "\n" + ("\n\n" + "─" * 40 + "\n\n").join(blocks) + "\n"
