"""The human view of `pod-devices`: one row per Pod, then what is wrong with each, one block a Pod.

A cell reads "seen/allocated" so a mismatch shows at a glance; the verdict names
the most severe finding's slug or why the Pod could not be probed. Every string
that came from a Pod is sanitized again here, whatever the caller did.
"""

from __future__ import annotations

from typing import Any

import click

from kubectl_rbln.catalog import sentence
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.why_table import COLORS, SYMBOLS, WIDTH, render_finding
from kubectl_rbln.text import one_line, strip_controls, wrap_width

HEADERS = ["POD", "NODE", "NPUS", "NICS", "RDS", "MEMLOCK", "VERDICT"]


def cells(entry: dict[str, Any], lang: str = "en") -> dict[str, str]:
    """The row's cells, derived from the JSON entry so that table and -o json never disagree."""
    expected, seen = entry["expected"], entry.get("seen")
    if seen is None:
        npus = f"?/{expected['npuCount']}"
        nics = f"?/{expected['nicCount']}"
        rds, memlock = "?", "?"
    else:
        npus = f"{len(seen['npus'])}/{expected['npuCount']}"
        if expected["rsd"] and "rsd0" not in seen["rsd"]:
            npus += " " + sentence("pod-devices-no-rsd0", lang)
        nics = f"{seen['nicCount']}/{expected['nicCount']}"
        if entry["rdmaMode"] == "shared":
            nics += " " + sentence("pod-devices-shared", lang, count=len(seen["infiniband"]))
        if seen["rds"]:
            rds = ",".join(seen["rds"])
        else:
            rds = sentence("pod-devices-missing", lang) if expected["rds"] and expected["npuCount"] else "-"
        memlock = seen["memlock"] or "?"
    return {"npus": npus, "nics": nics, "rds": rds, "memlock": memlock}


def _verdict(entry: dict[str, Any], color: bool) -> str:
    verdict = strip_controls(entry["verdict"])
    if entry["findings"]:
        severity = entry["findings"][0]["severity"]
        text = f"{SYMBOLS.get(severity, '-')} {verdict}"
        return click.style(text, fg=COLORS.get(severity), bold=True) if color else text
    if entry["probe"]["status"] != "ok":
        return click.style(verdict, fg="yellow") if color else verdict
    return click.style(verdict, fg="green") if color else verdict


def render_rows(
    entries: list[dict[str, Any]], *, color: bool, namespaces: bool, lang: str = "en"
) -> list[str]:
    rows = []
    for entry in entries:
        c = cells(entry, lang)
        name = f"{entry['namespace']}/{entry['name']}" if namespaces else entry["name"]
        row = [
            name,
            entry["node"] or "-",
            c["npus"],
            c["nics"],
            c["rds"],
            c["memlock"],
            _verdict(entry, color),
        ]
        rows.append([strip_controls(str(cell)) if i < 6 else cell for i, cell in enumerate(row)])
    headers = sentence("pod-devices-columns", lang).split("|")
    return plain_table(rows, headers=headers, disable_numparse=True)


def probe_message(entry: dict[str, Any], lang: str) -> str:
    """Why the Pod was not probed: a known reason in the catalog's words, else the message as given."""
    probe = entry["probe"]
    if probe.get("reason") == "not-running" and entry.get("phase"):
        return sentence(
            "pod-devices-not-running",
            lang,
            phase=entry["phase"],
            pod=entry["name"],
            namespace=entry["namespace"],
        )
    return one_line(probe["message"])


def render_details(entry: dict[str, Any], *, color: bool, wide: bool, lang: str = "en") -> list[str]:
    """Findings and the probe problem of one Pod; nothing for a healthy one."""
    probe = entry["probe"]
    if not entry["findings"] and probe["status"] == "ok":
        return []
    pod = f"{entry['namespace']}/{entry['name']}"
    if entry["node"]:
        head = sentence("pod-devices-where", lang, pod=pod, node=entry["node"], container=entry["container"])
    else:
        head = sentence("pod-devices-where-unscheduled", lang, pod=pod, container=entry["container"])
    lines = ["", click.style(head, bold=True) if color else head]
    if probe["status"] != "ok":
        lines += _wrapped(sentence("pod-devices-probe", lang, message=probe_message(entry, lang)), wide)
    if entry["rdmaMode"] == "shared" and entry.get("seen"):
        seen = entry["seen"]
        text = sentence(
            "pod-devices-shared-mode", lang, hcas=len(seen["infiniband"]), uverbs=len(seen["uverbs"])
        )
        lines += _wrapped(text, wide)
    for finding in entry["findings"]:
        # indented by two: the finding is drawn two columns narrower so it still ends at 100
        block = render_finding(finding, color=color, wide=wide, lang=lang, width=WIDTH - 2)
        lines.extend("  " + line for line in block)
    return lines


def _wrapped(text: str, wide: bool) -> list[str]:
    return ["  " + text] if wide else wrap_width(text, WIDTH, "  ", "    ")


def render_report(report: dict[str, Any], *, color: bool, wide: bool, lang: str = "en") -> str:
    entries = report["pods"]
    lines: list[str] = []
    for problem in report.get("problems") or []:
        lines.append(f"{sentence('label-warning', lang)} {one_line(problem)}")
    if not entries:
        lines.append(report.get("message", "no device Pod found"))
        return "\n".join(lines) + "\n"
    namespaces = len({e["namespace"] for e in entries}) > 1
    lines += render_rows(entries, color=color, namespaces=namespaces, lang=lang)
    for entry in entries:
        lines += render_details(entry, color=color, wide=wide, lang=lang)
    return "\n".join(lines) + "\n"
