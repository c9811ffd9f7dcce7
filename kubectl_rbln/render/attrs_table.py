"""The human view of `attrs`: required keys with their verdicts, value formats, then what is advertised.

Fits 100 columns: long names are cut with `…`, node lists go to notes under the table;
`-o wide` keeps everything (and lists every advertised attribute's missing nodes).
"""

from __future__ import annotations

import textwrap
from typing import Any

from tabulate import tabulate

from kubectl_rbln.render.output import Report
from kubectl_rbln.render.sanitize import clean_tree
from kubectl_rbln.render.why_table import pasteable, render_finding

WIDTH = 100
VERDICT_MARK = {"present": "present", "partial": "PARTIAL", "absent": "ABSENT", "optional": "optional"}
SHORT_KIND = {
    "selector": "selector",
    "guarded": "guarded",
    "capacity": "capacity",
    "matchAttribute": "match",
    "distinctAttribute": "distinct",
}


def cut(text: str, width: int, wide: bool) -> str:
    return text if wide or len(text) <= width else text[: width - 1] + "…"


def wrap(text: str, first: str, rest: str, wide: bool) -> list[str]:
    """A note or comment wrapped to 100 columns (one line with -o wide)."""
    if wide:
        return [first + text]
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def fix_lines(lines: list[str], wide: bool) -> list[str]:
    out = []
    for line in lines:
        text = pasteable(line)
        if text.startswith("# "):
            out += wrap(text[2:], "  # ", "  # ", wide)
        else:
            out.append(f"  {text}")
    return out


def ratio(coverage: dict[str, Any] | None, which: str) -> str:
    if not coverage:
        return "-"
    if which == "nodes":
        return f"{coverage['nodes']}/{coverage['nodesTotal']}"
    return f"{coverage['devices']}/{coverage['devicesOfDriver']}"


def required_table(report: dict[str, Any], wide: bool) -> list[str]:
    rows = []
    notes = []
    for row in report["required"]:
        kinds = ",".join(SHORT_KIND.get(k, k) for k in row["kinds"])
        rows.append(
            [
                cut(row["attribute"], 34, wide),
                cut(row["driver"], 17, wide),
                cut(kinds, 14, wide),
                ratio(row["coverage"], "nodes"),
                ratio(row["coverage"], "devices"),
                VERDICT_MARK.get(row["verdict"], row["verdict"]),
            ]
        )
        missing = (row["coverage"] or {}).get("missingOn") or []
        if row["verdict"] in ("partial", "absent"):
            note = f"{row['attribute']} ({row['driver']}): {row['verdict']}"
            absent = set(row.get("driverAbsentOn") or [])
            if missing:
                note += f"; missing on {', '.join(missing)}"
                if absent >= set(missing):
                    note += f" (no {row['driver']} devices there)"
            if row["nearMisses"]:
                note += f"; near miss: {', '.join(row['nearMisses'])}"
            notes.append(note)
    lines = ["REQUIRED (what the RCT reads, per driver)"]
    lines += tabulate(
        rows, headers=["ATTRIBUTE", "DRIVER", "USED BY", "NODES", "DEVICES", "VERDICT"], tablefmt="plain"
    ).splitlines()
    if not rows:
        lines.append("  (the RCT reads no attribute)")
    for note in notes:
        lines += wrap(note, "  ! ", "    ", wide)
    return lines


def formats_table(report: dict[str, Any], wide: bool) -> list[str]:
    rows = [row for row in report["formats"] if wide or not row["ok"]]
    if not rows:
        checked = len(report["formats"])
        return [f"VALUE FORMATS: {checked} checked (pcieRoot pciDDDD:BB, numaNode int), all as expected"]
    table = [
        [
            cut(r["attribute"], 34, wide),
            cut(r["driver"], 17, wide),
            cut(r["found"], 32, wide),
            "ok" if r["ok"] else r["severity"],
        ]
        for r in rows
    ]
    lines = ["VALUE FORMATS (what constraints compare)"]
    lines += tabulate(
        table, headers=["ATTRIBUTE", "DRIVER", "FOUND", "RESULT"], tablefmt="plain"
    ).splitlines()
    for r in rows:
        if r["note"]:
            lines += wrap(f"{r['attribute']} ({r['driver']}): {r['note']}", "  ! ", "    ", wide)
    return lines


def advertised_table(report: dict[str, Any], wide: bool) -> list[str]:
    lines = ["ADVERTISED (every device of every slice; unqualified names qualified with the driver)"]
    for driver in report["drivers"]:
        entries = report["advertised"].get(driver["driver"], [])
        lines.append(
            f"{driver['driver']}: {driver['devices']} devices on {len(driver['nodes'])} node(s), "
            f"{len(entries)} attributes and capacities"
        )
        rows = []
        for entry in entries:
            missing = ", ".join(entry["missingOn"])
            rows.append(
                [
                    cut(entry["attribute"], 40, wide),
                    ",".join(entry["types"]),
                    f"{entry['devices']}/{entry['devicesOfDriver']}",
                    f"{entry['nodes']}/{entry['nodesTotal']}",
                    cut(missing, 24, wide) or "-",
                ]
            )
        table = tabulate(
            rows, headers=["ATTRIBUTE", "TYPE", "DEVICES", "NODES", "MISSING ON"], tablefmt="plain"
        )
        lines += ["  " + line for line in table.splitlines()]
    return lines


def render_attrs(attrs: Report, *, lang: str = "en", color: bool = False, wide: bool = False) -> str:
    """Draw an AttrsReport (app/attrs.py) from its document: the table shows what `-o json` says."""
    report = clean_tree(attrs.to_document(lang))  # cluster text may carry terminal control sequences
    rct = report["rct"]
    origin = {
        "cluster": "as stored, read from the bundle"
        if str(report.get("source", "")).startswith("files")
        else "read back from the cluster",
        "file": "from the file given",
        "recipe": "the reference recipe",
    }[rct["origin"]]
    lines = [
        f"RCT {rct['namespace']}/{rct['name']} ({origin}"
        + (f", {rct['apiVersion']})" if rct.get("apiVersion") else ")")
    ]
    if rct.get("note"):
        lines.append(f"  {rct['note']}")
    nodes = report["nodes"]
    lines.append(f"Device nodes: {len(nodes)} ({cut(', '.join(nodes), 80, wide)})")
    lines.append("")
    lines += required_table(report, wide)
    for dropped in report["droppedFields"]:
        lines += wrap(
            f"stored RCT lacks {dropped['field']}: {dropped['gate']} is off on the API server",
            "  ! ",
            "    ",
            wide,
        )
    lines.append("")
    lines += formats_table(report, wide)
    lines.append("")
    lines += advertised_table(report, wide)
    if report["remediation"]:
        lines += ["", "FIX"]
        lines += fix_lines(report["remediation"], wide)
    if report["findings"] and wide:
        lines += ["", "FINDINGS"]
        for finding in report["findings"]:
            lines += render_finding(finding, color=color, wide=wide)
    verdicts = [r["verdict"] for r in report["required"]]
    bad = sum(v in ("absent", "partial") for v in verdicts)
    lines += [
        "",
        f"{len(verdicts) - bad}/{len(verdicts)} required keys published everywhere"
        + (
            f"; {len(report['findings'])} finding(s) (-o wide or -o json shows them)"
            if report["findings"] and not wide
            else ""
        ),
    ]
    return "\n".join(lines) + "\n"
