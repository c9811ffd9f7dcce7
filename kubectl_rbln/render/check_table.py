"""The human view of `check`: one row per checklist item, within 100 columns (-o wide adds EXPECTED).

The failing items' findings follow the table, rendered as `why` renders them, so the fix is on
the same screen as the item that needs it.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from kubectl_rbln.render.sanitize import clean_tree
from kubectl_rbln.render.why_table import render_finding

STATUS = {"pass": "pass", "warn": "WARN", "fail": "FAIL", "skip": "n/a"}


MAX_PASSING_POD_ROWS = 20  # more device Pods with nothing to fix fold into one row (-o wide lists them)


def _cut(text: str, width: int, wide: bool) -> str:
    return text if wide or len(text) <= width else text[: width - 1] + "…"


def render_check(report: dict[str, Any], *, color: bool, wide: bool) -> str:
    report = clean_tree(report)  # cluster text may carry terminal control sequences
    rows = []
    passing_pods = [i for i in report["items"] if i["id"].startswith("why ") and i["status"] == "pass"]
    folded = not wide and len(passing_pods) > MAX_PASSING_POD_ROWS
    for item in report["items"]:
        if folded and item in passing_pods:
            continue
        label = item["id"] if not item["id"].startswith("why ") else "why"
        row = [label, _cut(item["title"], 34, wide), STATUS[item["status"]]]
        if wide:
            row.append(item["expected"])
        row.append(_cut(item["found"], 48, wide))
        rows.append(row)
    if folded:
        rows.append(
            [
                "why",
                f"{len(passing_pods)} other device Pods",
                STATUS["pass"],
                "nothing to fix (-o wide lists them)",
            ]
        )
    headers = ["#", "CHECK", "RESULT", *(["EXPECTED"] if wide else []), "FOUND"]
    lines = [f"Checklist for namespace {report['namespace']} (RCT {report['rct']}), {report['source']}", ""]
    lines += tabulate(rows, headers=headers, tablefmt="plain").splitlines()
    summary = report["summary"]
    lines += [
        "",
        f"{summary['pass']} pass, {summary['warn']} warn, {summary['fail']} fail, {summary['skip']} n/a",
    ]
    seen: set[tuple[str, str]] = set()
    for item in report["items"]:
        for finding in item["findings"]:
            key = (finding["slug"], finding["title"])
            if finding["severity"] == "info" or key in seen:
                continue
            seen.add(key)
            lines.append("")
            lines.append(f"[{item['id']}]")
            lines += render_finding(finding, color=color, wide=wide)
    return "\n".join(lines) + "\n"
